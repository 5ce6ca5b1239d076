"""Protocol selection: ?protocol= alias, then Accept in q-order, then native SSE."""

from __future__ import annotations

import pytest

import arena_api.protocols
from arena_api.protocols import DEFAULT_PROTOCOL, PROTOCOLS, get_protocol, select_protocol


def test_the_package_exports_what_we_meant() -> None:
    assert set(arena_api.protocols.__all__) == {
        "DEFAULT_PROTOCOL",
        "PROTOCOLS",
        "SLOT_ERROR_MARKER",
        "ClientRequest",
        "EventAdapter",
        "IngressParser",
        "NativeSSE",
        "Protocol",
        "RunContext",
        "get_protocol",
        "parse_chat_body",
        "select_protocol",
        "slot_error_text",
    }


def test_names_aliases_and_media_types_are_unique_and_lower_case() -> None:
    aliases = [a for p in PROTOCOLS for a in {p.name, *p.aliases}]
    media = [m for p in PROTOCOLS for m in p.media_types]

    assert len(aliases) == len(set(aliases)) and all(a == a.lower() for a in aliases)
    assert len(media) == len(set(media))
    assert DEFAULT_PROTOCOL.name == "sse"


def test_every_adapter_names_its_protocol_and_frames_text_event_stream_or_ndjson() -> None:
    for protocol in PROTOCOLS:
        adapter = protocol.new_adapter()
        assert adapter.name == protocol.name
        assert adapter.media_type in ("text/event-stream", "application/x-ndjson")


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        pytest.param("SSE", "sse", id="sse"),
        pytest.param("native", "sse", id="native"),
        pytest.param("Native-SSE", "sse", id="native-sse"),
        pytest.param("agui", "ag-ui", id="agui"),
        pytest.param("AG-UI", "ag-ui", id="ag-ui"),
        pytest.param("a2ui", "a2ui", id="a2ui"),
        pytest.param("a2ui-v0.9", "a2ui-v0.9", id="a2ui-v0.9"),
        pytest.param("vercel", "vercel-ai", id="vercel"),
        pytest.param("ai-sdk", "vercel-ai", id="ai-sdk"),
        pytest.param(" vercel-ai ", "vercel-ai", id="padded"),
        pytest.param("openai", "openai", id="openai"),
        pytest.param("OpenAI-SSE", "openai", id="openai-sse"),
    ],
)
def test_aliases_are_case_insensitive(alias: str, name: str) -> None:
    assert select_protocol(alias, None).name == name


@pytest.mark.parametrize(
    ("query", "accept", "name"),
    [
        pytest.param(None, None, "sse", id="nothing"),
        pytest.param("nope", "application/vnd.ag-ui+json", "sse", id="unknown-query-wins"),
        pytest.param("openai", "application/vnd.ag-ui+json", "openai", id="query-over-accept"),
        pytest.param("", "application/vnd.ag-ui+json", "ag-ui", id="empty-query"),
        pytest.param(None, "*/*", "sse", id="wildcard"),
        pytest.param(None, "text/event-stream", "sse", id="native-type"),
        pytest.param(None, "Application/X-NDJSON; charset=utf-8", "a2ui", id="params-and-case"),
        pytest.param(None, "application/json+a2ui", "a2ui-v0.9", id="a2ui-v0.9"),
        pytest.param(
            None,
            "text/event-stream;q=0.1, application/vnd.openai.chat-chunk+json",
            "openai",
            id="q-order",
        ),
        pytest.param(
            None,
            "application/vnd.ag-ui+json;q=0.5, application/x-ndjson;q=0.5",
            "ag-ui",
            id="ties-keep-order",
        ),
        pytest.param(None, "application/vnd.ag-ui+json;q=0", "sse", id="q-zero"),
        pytest.param(None, "application/vnd.ag-ui+json;q=abc", "sse", id="bad-q"),
        pytest.param(None, ",,;", "sse", id="garbage"),
    ],
)
def test_selection_precedence(query: str | None, accept: str | None, name: str) -> None:
    assert select_protocol(query, accept).name == name


def test_an_accept_header_of_ten_types_picks_the_first_supported_by_q() -> None:
    accept = ", ".join(
        [
            "text/html",
            "application/xhtml+xml",
            "application/xml;q=0.9",
            "image/webp",
            "application/vnd.ag-ui+json;q=0.4",
            "application/vnd.vercel.ai.ui-message-stream+json;q=0.8",
            "application/json;q=0.95",
            "application/x-ndjson;q=0.8",
            "*/*;q=0.1",
            "text/event-stream;q=0.3",
        ]
    )

    assert select_protocol(None, accept).name == "vercel-ai"


def test_get_protocol_raises_for_an_unknown_name() -> None:
    with pytest.raises(KeyError):
        get_protocol("carrier-pigeon")
