"""Each ingress parser's image parts, as pure functions: what becomes the round's images (and
where each was held), what is refused, and what an earlier message's images do."""

from __future__ import annotations

from typing import Any

import pytest

from arena_api.core.errors import InvalidRequest
from arena_api.core.requests import ImageBody
from arena_api.protocols import get_protocol, parse_chat_body
from arena_api.protocols.openai_text import read_chat_call

DATA_URL = "data:image/png;base64,iVBORw0KGgo="
TEXT = {"type": "text", "text": "Describe it"}


def _parse(protocol: str, body: Any) -> Any:
    return parse_chat_body(get_protocol(protocol), body).request


@pytest.mark.parametrize(
    ("protocol", "body", "image", "field"),
    [
        pytest.param(
            "openai",
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            TEXT,
                            {"type": "image_url", "image_url": {"url": DATA_URL, "detail": "low"}},
                        ],
                    }
                ]
            },  # noqa: E501
            ImageBody(url=DATA_URL),
            "messages[0].content[1]",
            id="openai-image-url",
        ),
        pytest.param(
            "openai",
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            TEXT,
                            {"type": "image_url", "image_url": "https://example.org/a.png"},
                        ],
                    }
                ]
            },  # noqa: E501
            ImageBody(url="https://example.org/a.png"),
            "messages[0].content[1]",
            id="openai-image-url-as-string",
        ),
        pytest.param(
            "ag-ui",
            {
                "messages": [
                    {
                        "id": "u",
                        "role": "user",
                        "content": [
                            TEXT,
                            {
                                "type": "image",
                                "source": {
                                    "type": "data",
                                    "value": "iVBORw0KGgo=",
                                    "mimeType": "image/png",
                                },
                            },
                        ],
                    }
                ]
            },  # noqa: E501
            ImageBody(data="iVBORw0KGgo=", media_type="image/png"),
            "messages[0].content[1]",
            id="ag-ui-data-source",
        ),
        pytest.param(
            "ag-ui",
            {
                "messages": [
                    {
                        "id": "u",
                        "role": "user",
                        "content": [
                            TEXT,
                            {
                                "type": "image",
                                "source": {"type": "url", "value": "https://example.org/a.png"},
                            },
                        ],
                    }
                ]
            },  # noqa: E501
            ImageBody(url="https://example.org/a.png"),
            "messages[0].content[1]",
            id="ag-ui-url-source",
        ),
        pytest.param(
            "ag-ui",
            {
                "messages": [
                    {
                        "id": "u",
                        "role": "user",
                        "content": [
                            TEXT,
                            {"type": "binary", "mimeType": "image/png", "data": "iVBORw0KGgo="},
                        ],
                    }
                ]
            },  # noqa: E501
            ImageBody(data="iVBORw0KGgo=", media_type="image/png"),
            "messages[0].content[1]",
            id="ag-ui-legacy-binary",
        ),
        pytest.param(
            "vercel-ai",
            {
                "messages": [
                    {
                        "id": "u",
                        "role": "user",
                        "parts": [
                            {"type": "file", "mediaType": "image/png", "url": DATA_URL},
                            TEXT,
                        ],
                    }
                ]
            },  # noqa: E501
            ImageBody(url=DATA_URL, media_type="image/png"),
            "messages[0].parts[0]",
            id="vercel-v5-file-part",
        ),
        pytest.param(
            "vercel-ai",
            {
                "messages": [
                    {
                        "id": "u",
                        "role": "user",
                        "content": "Describe it",
                        "experimental_attachments": [
                            {"name": "a.png", "contentType": "image/png", "url": DATA_URL}
                        ],
                    }
                ]
            },  # noqa: E501
            ImageBody(url=DATA_URL, media_type="image/png"),
            "messages[0].experimental_attachments[0]",
            id="vercel-v4-attachment",
        ),
    ],
)
def test_an_image_part_becomes_the_rounds_image_named_by_its_part(
    protocol: str, body: Any, image: ImageBody, field: str
) -> None:
    request = _parse(protocol, body)

    assert request.prompt == "Describe it"
    assert request.images == (image,)
    assert request.image_fields == (field,)


@pytest.mark.parametrize(
    ("protocol", "part", "kind"),
    [
        pytest.param(
            "openai", {"type": "input_audio", "input_audio": {}}, "input_audio", id="openai-audio"
        ),  # noqa: E501
        pytest.param("openai", {"type": "image_url"}, "image_url", id="openai-image-without-url"),
        pytest.param(
            "ag-ui",
            {"type": "image", "source": {"type": "file", "value": "file-1"}},
            "file handle",
            id="ag-ui-file-handle",
        ),  # noqa: E501
        pytest.param(
            "ag-ui",
            {"type": "binary", "mimeType": "application/pdf", "data": "JVBE"},
            "application/pdf",
            id="ag-ui-binary-pdf",
        ),  # noqa: E501
        pytest.param(
            "ag-ui",
            {
                "type": "document",
                "source": {"type": "data", "value": "JVBE", "mimeType": "application/pdf"},
            },
            "document",
            id="ag-ui-document",
        ),  # noqa: E501
    ],
)
def test_a_part_that_is_no_image_is_refused_at_its_place(
    protocol: str, part: dict[str, Any], kind: str
) -> None:
    body = {"messages": [{"id": "u", "role": "user", "content": [TEXT, part]}]}

    with pytest.raises(InvalidRequest) as raised:
        _parse(protocol, body)

    assert list(raised.value.details or {}) == ["messages[0].content[1]"]
    assert kind in raised.value.message


def test_a_non_image_ai_sdk_file_is_refused_naming_its_type() -> None:
    part = {"type": "file", "mediaType": "text/html", "url": "data:text/html;base64,PGI+"}
    body = {"messages": [{"id": "u", "role": "user", "parts": [TEXT, part]}]}

    with pytest.raises(InvalidRequest) as raised:
        _parse("vercel-ai", body)

    assert list(raised.value.details or {}) == ["messages[0].parts[1]"]
    assert "text/html" in raised.value.message


def test_an_earlier_messages_images_are_not_the_rounds() -> None:
    image = {"type": "image_url", "image_url": {"url": DATA_URL}}
    body = {
        "model": "arena-duel",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "What is this?"}, image]},
            {"role": "assistant", "content": "A red square."},
            {"role": "user", "content": "Go deeper"},
        ],
    }

    call = read_chat_call(body)

    assert call is not None
    assert call.images == () and call.prompt == "Go deeper"
    assert [(m.role, m.content, m.images) for m in call.history] == [
        ("user", "What is this?", ()),
        ("assistant", "A red square.", ()),
    ]


def test_the_transcript_digest_tells_images_apart_and_keeps_text_only_digests() -> None:
    def call(*parts: Any) -> Any:
        return read_chat_call({"messages": [{"role": "user", "content": [TEXT, *parts]}]})

    other = "data:image/png;base64,R0lGODlhAQABAAAAACw="
    plain, first, again, second = (
        call(),
        call({"type": "image_url", "image_url": {"url": DATA_URL}}),
        call({"type": "image_url", "image_url": {"url": DATA_URL}}),
        call({"type": "image_url", "image_url": {"url": other}}),
    )
    text_only = read_chat_call({"messages": [{"role": "user", "content": "Describe it"}]})

    assert first.digest == again.digest
    assert len({plain.digest, first.digest, second.digest}) == 3
    assert plain.digest == text_only.digest


def test_an_empty_v4_attachment_list_carries_no_image() -> None:
    message = {"role": "user", "content": "Describe it", "experimental_attachments": []}

    request = _parse("vercel-ai", {"messages": [message]})

    assert request.images == () and request.prompt == "Describe it"
