"""The OpenAPI document is a valid OpenAPI 3.1 document and lists every HTTP route of the API."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import validate
from pydantic import TypeAdapter
from starlette.routing import Route

import arena_api.openapi
from arena_api.app import api_routes
from arena_api.core.responses import ErrorBody
from arena_api.openapi import build_document, document_bytes
from arena_api.protocols.ag_ui import RunAgentInput
from arena_api.protocols.openai_sse import ChatCompletionsRequest, StreamError
from arena_api.protocols.openai_text import ChatCompletion
from arena_api.protocols.vercel_ai import UseChatRequest
from arena_api.routes import errors

#: Routes that are no operation of the API: ``arena serve``'s own drain call.
INTERNAL_PATHS = {"/_arena/drain"}


def _routed() -> set[tuple[str, str]]:
    """(path, method) of every HTTP route but the JSON-404 catch-alls; HEAD is implied by GET."""
    return {
        (route.path, method.lower())
        for route in api_routes()
        if isinstance(route, Route)
        and route.endpoint is not errors.not_found
        and route.path not in INTERNAL_PATHS
        for method in route.methods or ()
        if method != "HEAD"
    }


def _documented(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (path, method)
        for path, item in document["paths"].items()
        for method in item
        if method != "head"
    }


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return build_document("1.2.3")


def test_the_document_validates_as_openapi_3_1(document: dict[str, Any]) -> None:
    validate(document)

    assert document["openapi"] == "3.1.0"


def test_every_http_route_of_the_api_is_documented(document: dict[str, Any]) -> None:
    assert _routed() - _documented(document) == set()


def test_every_documented_operation_is_a_route(document: dict[str, Any]) -> None:
    assert _documented(document) - _routed() == set()


def test_every_operation_has_a_unique_id_a_summary_a_tag_and_its_errors(
    document: dict[str, Any],
) -> None:
    operations = [op for item in document["paths"].values() for op in item.values()]
    ids = [op["operationId"] for op in operations]

    assert len(ids) == len(set(ids))
    assert all(op["summary"] and op["tags"] for op in operations)
    guarded = [op for op in operations if {"bearerAuth": []} in op["security"]]
    assert guarded and all({"401", "503"} <= set(op["responses"]) for op in guarded)


def test_the_info_version_is_the_one_given(document: dict[str, Any]) -> None:
    assert document["info"]["version"] == "1.2.3"


def test_the_served_bytes_are_encoded_once_per_version() -> None:
    assert document_bytes("1.2.3") is document_bytes("1.2.3")


def test_the_package_exports_what_it_means_to() -> None:
    assert sorted(arena_api.openapi.__all__) == [
        "OPENAPI_VERSION",
        "OPERATIONS",
        "Operation",
        "build_document",
        "document_bytes",
    ]


@pytest.mark.parametrize(
    "schema",
    [RunAgentInput, ChatCompletionsRequest, UseChatRequest, ErrorBody, ChatCompletion, StreamError],
    ids=lambda schema: schema.__name__,
)
def test_a_body_is_documented_by_the_schema_its_code_parses_or_builds_it_with(
    document: dict[str, Any], schema: Any
) -> None:
    own = TypeAdapter(schema).json_schema(ref_template="#/components/schemas/{model}")

    documented = document["components"]["schemas"][schema.__name__]

    assert documented["properties"].keys() == own["properties"].keys()
    assert documented.get("required") == own.get("required")
