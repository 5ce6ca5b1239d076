"""Assemble the OpenAPI 3.1 document: the models' JSON Schemas, the operations, the security."""

from __future__ import annotations

import functools
import json
from collections.abc import Hashable
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from arena_api.core import views
from arena_api.core.requests import ChatRequest, JudgeRequest, VoteRequest
from arena_api.core.responses import ErrorBody, Health
from arena_api.openapi import _bodies as bodies
from arena_api.openapi._operation import error_responses
from arena_api.openapi._paths import OPERATIONS
from arena_api.openapi._streams import EVENT_MODELS, STREAM_MODELS, stream_schemas
from arena_api.protocols.ag_ui import RunAgentInput
from arena_api.protocols.openai_sse import ChatCompletionsRequest
from arena_api.protocols.openai_text import ChatCompletion
from arena_api.protocols.vercel_ai import UseChatRequest

__all__ = ["OPENAPI_VERSION", "build_document", "document_bytes"]

OPENAPI_VERSION = "3.1.0"
_REF = "#/components/schemas/{model}"

#: Every model the document names (a pydantic model, or a ``TypedDict`` a ``TypeAdapter``
#: validates), with the side of the wire it is read on: a request body is validated, an answer
#: serialised (the two differ for defaults and serialisers).
_MODELS: tuple[tuple[Any, JsonSchemaMode], ...] = (  # model classes and TypedDicts
    (ChatRequest, "validation"),
    (VoteRequest, "validation"),
    (JudgeRequest, "validation"),
    (ChatCompletionsRequest, "validation"),
    (RunAgentInput, "validation"),
    (UseChatRequest, "validation"),
    (bodies.LoginRequest, "validation"),
    (bodies.LoginForm, "validation"),
    (bodies.SignedIn, "serialization"),
    (bodies.Me, "serialization"),
    (bodies.UserList, "serialization"),
    (bodies.SetRoleRequest, "validation"),
    (bodies.RoleChanged, "serialization"),
    (bodies.TokenList, "serialization"),
    (bodies.TokenChanged, "serialization"),
    (bodies.CreateTokenRequest, "validation"),
    (bodies.CreatedToken, "serialization"),
    (bodies.AuditPage, "serialization"),
    (bodies.RosterList, "serialization"),
    (bodies.SettingsList, "serialization"),
    (bodies.AddModelRequest, "validation"),
    (bodies.EditModelRequest, "validation"),
    (bodies.ModelAdded, "serialization"),
    (bodies.ModelEdited, "serialization"),
    (bodies.ModelProbe, "serialization"),
    (bodies.CreateQueueRequest, "validation"),
    (bodies.QueueCreated, "serialization"),
    (bodies.QueueList, "serialization"),
    (bodies.QueueDetail, "serialization"),
    (bodies.QueueAgreementView, "serialization"),
    (bodies.NextItem, "serialization"),
    (bodies.VerdictRequest, "validation"),
    (bodies.VerdictRecorded, "serialization"),
    (ErrorBody, "serialization"),
    (Health, "serialization"),
    (bodies.ModelList, "serialization"),
    (bodies.ModelObject, "serialization"),
    (ChatCompletion, "serialization"),
    (views.VoteReveal, "serialization"),
    (views.ReasonChoicesView, "serialization"),
    (views.JudgeReveal, "serialization"),
    (views.SuitesView, "serialization"),
    (views.SuiteRunView, "serialization"),
    (views.SuiteRunsView, "serialization"),
    (views.SuiteDiffView, "serialization"),
    (views.MatchupView, "serialization"),
    (views.ConversationView, "serialization"),
    (views.LeaderboardView, "serialization"),
    (views.SummaryView, "serialization"),
    (views.CategoriesView, "serialization"),
    (views.HeadToHeadView, "serialization"),
    (views.ModelMetricsView, "serialization"),
    (views.ActivityView, "serialization"),
    (views.CostView, "serialization"),
    (views.StyleControlView, "serialization"),
    (views.RatingHistoryView, "serialization"),
    (views.ReasonCountsView, "serialization"),
    (views.JudgeAgreementView, "serialization"),
    *((model, "serialization") for model in (*EVENT_MODELS, *STREAM_MODELS)),
)

_DESCRIPTION = """\
The HTTP API of a self-hosted, blind, side-by-side LLM arena.

A round (`POST /api/arena/chat`, or an OpenAI client's `POST /v1/chat/completions`) streams two \
anonymous answers in one of five wire protocols; `POST /api/arena/vote` records the vote and \
reveals both models; the reads serve the leaderboard, stored rounds and analytics.

Not an HTTP operation, so not listed below: the WebSocket control plane at \
`/api/arena/control` (JSON messages `{"type": "stop" | "steer", "matchupId", "matchupToken", \
"instruction"}`, answered with `stopped` or `steer_ack`; see docs/protocols.md).

Every error answer is `{"error": "<message>", "code": "<reason>"}`, plus `details` where a field \
is to blame. With `ARENA_API_TOKENS` set, everything under `/api/`, `/v1/`, `/models` and \
`/chat/completions` needs a token as `Authorization: Bearer <token>` or `X-API-Token: <token>`; \
with `ARENA_PASSPHRASE` set, a browser may ride the session `POST /login` opens instead (sending \
`X-CSRF-Token` on any request that can change state). `/health`, `/openapi.json` and the login \
pages stay open.
"""

_SECURITY_SCHEMES = {
    "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "One of `ARENA_API_TOKENS` (an OpenAI client's API key is exactly this).",
    },
    "apiKeyAuth": {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Token",
        "description": "One of `ARENA_API_TOKENS`.",
    },
    "sessionCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": "arena_session",
        "description": "The session `POST /login` opens (`ARENA_PASSPHRASE`).",
    },
    "csrfToken": {
        "type": "apiKey",
        "in": "header",
        "name": "X-CSRF-Token",
        "description": "The session's CSRF token (the `arena_csrf` cookie), on every request "
        "that can change state and rides the session.",
    },
    "metricsToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "`ARENA_METRICS_TOKEN`, for `/metrics` only.",
    },
}

_TAGS = (
    ("rounds", "Start a round in any wire protocol."),
    ("votes", "Vote on a matchup."),
    ("reads", "Stored rounds, conversations and the leaderboard."),
    ("analytics", "The insights dashboard's aggregates."),
    ("openai", "The arena as an OpenAI-compatible endpoint."),
    ("access", "Signing in: the passphrase, single sign-on, your session and API tokens."),
    ("admin", "Users, roles, API tokens and the audit log (admins)."),
    ("review", "Expert review queues: reviewers' blind verdicts and their agreement."),
    ("operations", "Health, metrics and this document."),
)


def _allows_null(schema: JsonSchemaValue) -> bool:
    if schema.get("type") == "null" or not schema:
        return True
    return any(_allows_null(branch) for branch in schema.get("anyOf", ()))


class _Generator(GenerateJsonSchema):
    """Pydantic's generator, without a field title per property (``"Bucketstart"``) and without
    the ``null`` default of a field whose ``null`` is never sent (``SkipJsonSchema[None]``)."""

    def field_title_should_be_set(self, schema: object) -> bool:
        return False

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        json_schema = super().default_schema(schema)
        if "default" in json_schema and json_schema["default"] is None:
            if not _allows_null(json_schema):
                del json_schema["default"]
        return json_schema


def _core_schema(model: Any) -> CoreSchema:
    if isinstance(model, type) and issubclass(model, BaseModel):
        return model.__pydantic_core_schema__
    return TypeAdapter(model).core_schema


def _schemas() -> dict[str, Any]:
    generator = _Generator(by_alias=True, ref_template=_REF)
    inputs: list[tuple[Hashable, JsonSchemaMode, CoreSchema]] = [
        (model, mode, _core_schema(model)) for model, mode in _MODELS
    ]
    refs, definitions = generator.generate_definitions(inputs)
    by_model: dict[Any, str] = {model: ref["$ref"] for (model, _), ref in refs.items()}
    return {
        **{str(name): schema for name, schema in definitions.items()},
        **stream_schemas(by_model),
    }


def build_document(version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the HTTP API, ``info.version`` set to ``version``."""
    paths: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        paths.setdefault(operation.path, {})[operation.method] = operation.to_openapi()
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Arena",
            "version": version,
            "description": _DESCRIPTION,
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "tags": [{"name": name, "description": text} for name, text in _TAGS],
        "paths": paths,
        "components": {
            "schemas": _schemas(),
            "responses": error_responses(),
            "securitySchemes": _SECURITY_SCHEMES,
        },
    }


@functools.cache
def document_bytes(version: str) -> bytes:
    """``build_document(version)`` encoded once per process: serving it only sends bytes."""
    return json.dumps(build_document(version), separators=(",", ":")).encode()
