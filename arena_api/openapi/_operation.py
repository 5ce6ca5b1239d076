"""The parts of the document's operations: ``Operation``, parameters, bodies, error answers.

Schemas are referred to by component name (the model's class name, see ``_document``); error
answers by status, through the shared responses of ``ERROR_RESPONSES``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ERROR_RESPONSES",
    "RETRY_AFTER",
    "Operation",
    "error_responses",
    "json_answer",
    "json_body",
    "param",
    "ref",
]

RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before trying again.",
        "schema": {"type": "integer", "minimum": 0},
    }
}

#: status -> (component name, description, response headers)
ERROR_RESPONSES: Mapping[int, tuple[str, str, Mapping[str, Any]]] = {
    400: (
        "InvalidRequest",
        "The request is not valid: `invalid_request` (`details` maps each offending field, "
        "as the client named it, to its messages) or `invalid_json` (nested deeper than 64 "
        "levels or holding more than 10,000 arrays and objects).",
        {},
    ),
    401: (
        "Unauthorized",
        "No credentials (`unauthorized`), a wrong API token (`invalid_api_token`) or, with "
        "`ARENA_PASSPHRASE` set, no live session (`login_required`). `/metrics` checks "
        "`ARENA_METRICS_TOKEN` instead.",
        {
            "WWW-Authenticate": {
                "description": "`Bearer`.",
                "schema": {"type": "string"},
            }
        },
    ),
    403: (
        "Forbidden",
        "Refused for this caller (see the operation); `csrf_failed` when a request riding the "
        "session cookie lacks its `X-CSRF-Token`.",
        {},
    ),
    404: ("NotFound", "Nothing has this id (see the operation for the codes).", {}),
    409: ("Conflict", "The state does not allow it (see the operation for the codes).", {}),
    413: ("TooLarge", "The body is over `ARENA_MAX_BODY_BYTES`: `too_large`.", {}),
    415: (
        "UnsupportedMediaType",
        "`Content-Type` is neither `application/json` nor a `+json` type: "
        "`unsupported_media_type`.",
        {},
    ),
    429: (
        "RateLimited",
        "Over `ARENA_RATE_LIMIT`: `rate_limited`, with the limit in `details.limit`.",
        RETRY_AFTER,
    ),
    500: (
        "RoundConfigError",
        "The server cannot start a round as it is configured: `default_model_missing`, "
        "`provider_unavailable`, `no_models`.",
        {},
    ),
    502: (
        "JudgeFailed",
        "`judge_failed`: the judge model's endpoint failed or gave no verdict in time (the "
        "failed judgement is stored; vote yourself or ask again).",
        {},
    ),
    503: (
        "Unavailable",
        "`database_unavailable` (the database cannot be reached) or `shutting_down`, both "
        "with `Retry-After`; `join_disabled` or `join_unavailable` for a slot join; "
        "`starting` while the server starts with `ARENA_PASSPHRASE` set.",
        RETRY_AFTER,
    ),
    504: (
        "JoinTimeout",
        "`join_leader_timeout`: the sibling request that holds a shared matchup never started it.",
        {},
    ),
}


def error_responses() -> dict[str, Any]:
    """The shared error responses, by component name."""
    return {
        name: {
            "description": description,
            **({"headers": dict(headers)} if headers else {}),
            "content": {"application/json": {"schema": ref("ErrorBody")}},
        }
        for name, description, headers in ERROR_RESPONSES.values()
    }


def ref(schema: str) -> dict[str, str]:
    """A reference to the component schema ``schema``."""
    return {"$ref": f"#/components/schemas/{schema}"}


def json_answer(description: str, schema: str, **extra: Any) -> dict[str, Any]:
    """A response whose JSON body is the component schema ``schema``."""
    return {
        "description": description,
        "content": {"application/json": {"schema": ref(schema)}},
        **extra,
    }


def param(where: str, name: str, schema: Mapping[str, Any], description: str) -> dict[str, Any]:
    """A parameter ``in`` ``where``: required in the path, optional elsewhere."""
    return {
        "name": name,
        "in": where,
        "required": where == "path",
        "description": description,
        "schema": dict(schema),
    }


def json_body(
    schema: Mapping[str, Any], description: str, examples: Mapping[str, Any]
) -> dict[str, Any]:
    """A required JSON request body, with named examples."""
    return {
        "required": True,
        "description": description,
        "content": {
            "application/json": {
                "schema": dict(schema),
                "examples": {name: {"value": value} for name, value in examples.items()},
            }
        },
    }


@dataclass(frozen=True)
class Operation:
    """One documented operation. ``guarded`` operations need an API token or the passphrase
    session when ``ARENA_API_TOKENS`` or ``ARENA_PASSPHRASE`` is set: they carry the optional
    security requirements and the answers of a refusal."""

    method: str
    path: str
    operation_id: str
    summary: str
    tag: str
    responses: Mapping[str, Any]
    errors: tuple[int, ...] = ()
    parameters: tuple[Mapping[str, Any], ...] = ()
    body: Mapping[str, Any] | None = None
    description: str | None = None
    guarded: bool = True
    #: Replaces the requirements ``guarded`` implies (``/metrics`` has a token of its own).
    security: tuple[Mapping[str, list[str]], ...] | None = None

    def to_openapi(self) -> dict[str, Any]:
        """The OpenAPI operation object."""
        responses = dict(self.responses)
        unsafe = self.method not in ("get", "head")
        guard = {401, 503} | ({403} if unsafe else set())
        statuses = set(self.errors) | (guard if self.guarded else set())
        for status in sorted(statuses):
            responses[str(status)] = {
                "$ref": f"#/components/responses/{ERROR_RESPONSES[status][0]}"
            }
        operation: dict[str, Any] = {
            "operationId": self.operation_id,
            "summary": self.summary,
            "tags": [self.tag],
        }
        if self.description:
            operation["description"] = self.description
        if self.parameters:
            operation["parameters"] = [dict(p) for p in self.parameters]
        if self.body is not None:
            operation["requestBody"] = dict(self.body)
        operation["responses"] = responses
        if self.security is not None:
            operation["security"] = [dict(s) for s in self.security]
        elif self.guarded:
            # Optional: an open server takes requests without any (see the 401 answers).
            session: dict[str, list[str]] = {"sessionCookie": []}
            if unsafe:
                session["csrfToken"] = []
            operation["security"] = [{}, {"bearerAuth": []}, {"apiKeyAuth": []}, session]
        else:
            operation["security"] = []  # open even when API tokens or a passphrase are set
        return operation
