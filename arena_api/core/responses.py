"""The bodies every part of the API answers with, whatever the route: the error body and health.

``ErrorBody`` is a ``TypedDict``: the error handlers build it as a plain dict (no model instance
on the error path) and the OpenAPI document shows its schema. ``Health`` is the ``/health``
answer, serialised with ``model_dump(mode="json", by_alias=True)``.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from typing_extensions import TypedDict  # pydantic needs it for a TypedDict on Python < 3.12

__all__ = ["ErrorBody", "Health", "MigrationState", "ModelsHealth"]


class ErrorBody(TypedDict):
    """Every error answer of the API (``arena_api.routes.errors``)."""

    error: Annotated[str, Field(description="What went wrong, in words.")]
    code: Annotated[
        str,
        Field(
            description="The machine-readable reason: `invalid_request`, `invalid_json`, "
            "`unauthorized`, `matchup_not_found`, `already_voted`, `rate_limited`, "
            "`database_unavailable`, ..."
        ),
    ]
    details: NotRequired[
        Annotated[
            dict[str, list[str]],
            Field(
                description="Messages per offending field (by the name the client wrote), or "
                "the limit a 429 hit."
            ),
        ]
    ]


class MigrationState(BaseModel):
    model_config = ConfigDict(frozen=True)

    current: str | None = Field(description="The revision the database is at.")
    head: str = Field(description="The newest revision this server ships.")


class ModelsHealth(BaseModel):
    model_config = ConfigDict(frozen=True)

    usable: int = Field(
        description="How many models can answer (0 or 1 is a setup to finish, not a fault)."
    )
    paused: list[str] = Field(
        description="The models the circuit breaker paused after repeated failures (display "
        "names): the matchmaker draws them again after `ARENA_BREAKER_COOLDOWN_S`."
    )


class Health(BaseModel):
    """``GET /health``: 200 when healthy, 503 otherwise (same body)."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)

    status: Literal["ok", "degraded", "shutting_down"] = Field(
        description="`shutting_down` while draining: a load balancer stops sending work."
    )
    database: Literal["reachable", "unreachable"]
    migration: MigrationState
    models: ModelsHealth | None = Field(
        description="The models that can answer and those paused; null when the database is "
        "unreachable."
    )
    version: str
    uptime_seconds: float
    redis: Literal["reachable", "unreachable"] | None = Field(
        default=None,
        description="One replica of several (`REDIS_URL`): whether the shared Redis answers. "
        "Absent in one process.",
    )

    def body(self) -> dict[str, object]:
        """The JSON body: camelCase keys, ``redis`` only when there is one."""
        return self.model_dump(
            mode="json", by_alias=True, exclude={"redis"} if self.redis is None else None
        )
