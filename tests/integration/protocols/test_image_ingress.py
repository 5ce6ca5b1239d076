"""Images through every ingress, sent by each protocol's own client shapes to the real server.

Each protocol's image part becomes the round's image: the mock vision models (Mock Aurora and
Mock Cirrus) describe what they were sent ("I see 1 image: 1. PNG 64x48, ..."). A hostile file
(an SVG that says it is a PNG) is refused with ``image_type_unsupported`` naming the part that
held it, and nothing of the round is stored.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import openai
import pytest
from ag_ui.core import (
    BinaryInputContent,
    DataSource,
    ImagePart,
    RunAgentInput,
    TextPart,
    UserMessage,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.protocols._images import SEEN, SVG, b64, data_url, png
from tests.integration.protocols._wire import data_lines, read_round


async def _nothing_stored(arena: Arena) -> bool:
    counts = [await arena.scalar(f"SELECT count(*) FROM {t}") for t in ("matchups", "images")]
    return counts == [0, 0]


async def _stored_images(arena: Arena) -> tuple[list[int], int]:
    """Each matchup's ``image_count`` (in creation order) and the turns' image links."""
    counts = [
        r.image_count
        for r in await arena.rows("SELECT image_count FROM matchups ORDER BY created_at, id")
    ]
    links = await arena.scalar("SELECT count(*) FROM turn_images")
    return counts, int(links)


# -- OpenAI chat completions, with the openai SDK --------------------------------------------------


def _client(arena: Arena) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=arena.url + "/v1", api_key="sk-unused", max_retries=0)


def _with_image(text: str, url: str) -> list[Any]:
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": url, "detail": "auto"}},
            ],
        }
    ]


async def test_an_openai_sdk_image_part_reaches_both_vision_models(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        stream = await _client(arena).chat.completions.create(
            model="arena",
            messages=_with_image("What is in this picture?", data_url(png())),
            stream=True,
        )
        texts: dict[int, str] = {}
        async for chunk in stream:
            for choice in chunk.choices:
                texts[choice.index] = texts.get(choice.index, "") + (choice.delta.content or "")
        stored = await _stored_images(arena)
        models = await arena.rows(
            "SELECT a.vision AS a, b.vision AS b FROM matchups m JOIN models a "
            "ON a.id = m.slot_a_model_id JOIN models b ON b.id = m.slot_b_model_id"
        )

    assert set(texts) == {0, 1}
    assert all(SEEN in text for text in texts.values()), texts
    assert stored == ([1], 1)
    assert [(m.a, m.b) for m in models] == [(True, True)]


async def test_an_openai_sdk_svg_posing_as_png_is_refused_naming_its_part(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        with pytest.raises(openai.BadRequestError) as raised:
            await _client(arena).chat.completions.create(
                model="arena",
                messages=_with_image("Look", data_url(SVG)),
                stream=True,
            )
        nothing = await _nothing_stored(arena)

    body = raised.value.response.json()
    assert body["code"] == "image_type_unsupported"
    assert list(body["details"]) == ["messages[0].content[1]"]
    assert "SVG" in body["error"]
    assert nothing


async def test_an_image_by_http_url_is_refused_while_urls_are_off(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(
            "/v1/chat/completions",
            json={
                "model": "arena",
                "stream": True,
                "messages": _with_image("Look", "https://example.org/cat.png"),
            },
        )
        nothing = await _nothing_stored(arena)

    assert response.status_code == 400
    assert response.json()["code"] == "image_urls_disabled"
    assert list(response.json()["details"]) == ["messages[0].content[1]"]
    assert nothing


async def test_a_chat_body_larger_than_the_body_limit_may_carry_its_images(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """Chat routes read up to ARENA_MAX_BODY_BYTES plus the images' room; others do not."""
    big = png((96, 96), noise=True)  # about 28 KB, over the 8 KiB body limit
    async with serve_arena(db, database_url, tmp_path, ARENA_MAX_BODY_BYTES="8192") as arena:
        chat = await arena.client.post(
            "/v1/chat/completions",
            json={"model": "arena", "stream": True, "messages": _with_image("Big", data_url(big))},
        )
        vote = await arena.client.post("/api/arena/vote", json={"pad": b64(big)})

    assert len(big) > 8192
    texts = read_round("openai", chat).texts
    assert chat.status_code == 200 and "I see 1 image: 1. PNG 96x96" in texts["A"], chat.text
    assert vote.status_code == 413 and vote.json()["code"] == "too_large"


# -- AG-UI, with ag-ui-protocol's own models -------------------------------------------------------

AG_UI = "/api/arena/chat?protocol=ag-ui"


def _run_input(*parts: Any) -> dict[str, Any]:
    """A RunAgentInput built and serialised by the ag-ui-protocol models themselves."""
    model = RunAgentInput(
        thread_id=f"thread-{uuid.uuid4()}",
        run_id=f"run-{uuid.uuid4()}",
        state={},
        messages=[
            UserMessage(id="u1", role="user", content=[TextPart(text="Describe it"), *parts])
        ],
        tools=[],
        context=[],
        forwarded_props={"sessionId": "agui-images"},
    )
    return model.model_dump(by_alias=True, exclude_none=True)


def _legacy_binary_input(data: bytes) -> dict[str, Any]:
    """A 0.x client's input: the image as a ``binary`` part (which 1.0 models no longer take,
    so it is put into the serialised body)."""
    body = _run_input()
    binary = BinaryInputContent(mime_type="image/png", data=b64(data))
    body["messages"][0]["content"].append(binary.model_dump(by_alias=True, exclude_none=True))
    return body


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            lambda data: _run_input(
                ImagePart(source=DataSource(value=b64(data), mime_type="image/png"))
            ),
            id="image-part-data-source",
        ),
        pytest.param(_legacy_binary_input, id="legacy-binary-part"),
    ],
)
async def test_an_ag_ui_image_part_reaches_both_vision_models(
    db: AsyncEngine, database_url: str, tmp_path: Path, body: Any
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(AG_UI, json=body(png()))
        stored = await _stored_images(arena)

    round_ = read_round("ag-ui", response)
    assert round_.terminal == "done", response.text
    assert set(round_.texts) == {"A", "B"}
    assert all(SEEN in text for text in round_.texts.values()), round_.texts
    assert stored == ([1], 1)


async def test_an_ag_ui_svg_is_an_in_band_run_error_naming_its_part(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    body = _run_input(ImagePart(source=DataSource(value=b64(SVG), mime_type="image/png")))
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(AG_UI, json=body)
        nothing = await _nothing_stored(arena)

    (event,) = [json.loads(line) for line in data_lines(response.text)]
    assert response.status_code == 200
    assert event["type"] == "RUN_ERROR" and event["code"] == "image_type_unsupported"
    assert "messages[0].content[1]" in event["message"]
    assert nothing


async def test_an_ag_ui_audio_part_is_still_refused(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    body = _run_input()
    body["messages"][0]["content"].append(
        {"type": "audio", "source": {"type": "data", "value": "AAAA", "mimeType": "audio/wav"}}
    )
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(AG_UI, json=body)

    (event,) = [json.loads(line) for line in data_lines(response.text)]
    assert event["code"] == "invalid_request" and "messages[0].content[1]" in event["message"]


# -- the AI SDK's useChat body (UIMessage parts, built here) ---------------------------------------

VERCEL = "/api/arena/chat?protocol=vercel-ai"


def _use_chat(part: dict[str, Any]) -> dict[str, Any]:
    """What ``Chat.sendMessage({text, files})`` posts: the file parts first, then the text."""
    return {
        "id": "chat-1",
        "trigger": "submit-message",
        "sessionId": "vercel-images",
        "messages": [
            {
                "id": "m1",
                "role": "user",
                "parts": [part, {"type": "text", "text": "Describe it"}],
            }
        ],
    }


def _file_part(media_type: str, data: bytes, filename: str = "picture.png") -> dict[str, Any]:
    return {
        "type": "file",
        "mediaType": media_type,
        "filename": filename,
        "url": data_url(data, media_type),
    }


async def test_an_ai_sdk_image_file_part_reaches_both_vision_models(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(VERCEL, json=_use_chat(_file_part("image/png", png())))
        stored = await _stored_images(arena)

    round_ = read_round("vercel-ai", response)
    assert response.status_code == 200 and round_.terminal == "done", response.text
    assert set(round_.texts) == {"A", "B"}
    assert all(SEEN in text for text in round_.texts.values()), round_.texts
    assert stored == ([1], 1)


@pytest.mark.parametrize(
    ("part", "code"),
    [
        pytest.param(_file_part("image/png", SVG), "image_type_unsupported", id="svg-as-png"),
        pytest.param(
            _file_part("application/pdf", b"%PDF-1.4", "doc.pdf"), "invalid_request", id="pdf-file"
        ),
    ],
)
async def test_an_ai_sdk_file_that_is_no_usable_image_is_refused_naming_its_part(
    db: AsyncEngine, database_url: str, tmp_path: Path, part: dict[str, Any], code: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(VERCEL, json=_use_chat(part))
        nothing = await _nothing_stored(arena)

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert list(response.json()["details"]) == ["messages[0].parts[0]"]
    assert nothing
