"""The judge and a prompt's images, with a fake OpenAI vendor recording what it is sent: a judge
that reads images (``vision: true``) gets the round's images with its prompt, byte for byte; one
that does not is told plainly how many there were and that it cannot see them, and its verdict
still comes."""

from __future__ import annotations

import base64
import contextlib
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.roster import load_roster
from tests.fakes._recording import ReceivedRequest, Recorder
from tests.fakes.openai_server import create_app
from tests.integration.arena_harness import Arena, serve_arena
from tests.support import ServerThread, free_port


def _png(color: tuple[int, int, int]) -> dict[str, str]:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), color).save(buffer, "PNG")
    return {"data": base64.b64encode(buffer.getvalue()).decode(), "mediaType": "image/png"}


@contextlib.asynccontextmanager
async def _arena(
    db: AsyncEngine, database_url: str, tmp_path: Path, *, judge_vision: bool
) -> AsyncIterator[tuple[Arena, Recorder]]:
    """Two fake OpenAI models that read images and a judge that reads them or not."""
    roster_file = tmp_path / "models.yaml"
    roster_file.write_text(
        "models:\n"
        "  - {display_name: Alpha, provider: openai, provider_model_id: alpha--ok, vision: true}\n"
        "  - {display_name: Beta, provider: openai, provider_model_id: beta--ok, vision: true}\n"
        "judge:\n"
        "  display_name: Fake Judge\n"
        "  provider: openai\n"
        "  provider_model_id: judge--judge-first\n"
        f"  vision: {str(judge_vision).lower()}\n"
    )
    recorder = Recorder()
    with ServerThread(create_app(recorder), free_port()) as vendor:
        async with serve_arena(
            db,
            database_url,
            tmp_path,
            roster=load_roster(roster_file),
            ARENA_MODELS_FILE=str(roster_file),
            OPENAI_BASE_URL=f"{vendor.url}/v1",
            OPENAI_API_KEY="sk-test",
            ARENA_MOCK_PROVIDER="0",
        ) as arena:
            yield arena, recorder


async def _judged_round(arena: Arena, *images: dict[str, str]) -> tuple[Any, list[bytes]]:
    """A round whose prompt has ``images``, judged: the judge's answer and the images as
    stored."""
    response, frames = await arena.chat(prompt="Which colour is this?", images=list(images))
    assert response.status_code == 200 and frames[-1][0] == "matchup_done", response.text
    started = frames[0][1]
    answer = await arena.client.post(
        f"/api/arena/matchups/{started['matchupId']}/judge",
        json={"matchupToken": started["matchupToken"]},
    )
    stored = await arena.rows(
        "SELECT i.data FROM turn_images ti JOIN turns t ON t.id = ti.turn_id "
        "JOIN images i ON i.sha256 = ti.sha256 WHERE t.matchup_id = :m ORDER BY ti.position",
        m=started["matchupId"],
    )
    return answer, [r.data for r in stored]


def _judge_message(recorder: Recorder) -> Any:
    """The user message of the judge's (only) request."""
    calls: list[ReceivedRequest] = [
        r for r in recorder.requests if r.json["model"].startswith("judge--")
    ]
    assert len(calls) == 1
    return calls[0].json["messages"][-1]


async def test_a_judge_that_reads_images_is_sent_the_rounds_images_with_its_prompt(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, judge_vision=True) as (arena, recorder):
        answer, stored = await _judged_round(arena, _png((200, 0, 0)), _png((0, 0, 200)))

    message = _judge_message(recorder)
    assert answer.status_code == 200 and answer.json()["accepted"] is True
    text, *pictures = message["content"]
    assert text["type"] == "text" and "Which colour is this?" in text["text"]
    assert "came with 2 images, attached to this message" in text["text"]
    assert pictures == [
        {
            "type": "image_url",
            "image_url": {"url": "data:image/png;base64," + base64.b64encode(data).decode()},
        }
        for data in stored
    ]


async def test_a_judge_that_does_not_read_images_is_told_it_cannot_see_them_and_still_judges(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, judge_vision=False) as (arena, recorder):
        answer, stored = await _judged_round(arena, _png((200, 0, 0)))
        votes = await arena.rows("SELECT method FROM preferences")

    message = _judge_message(recorder)
    assert len(stored) == 1
    assert isinstance(message["content"], str)  # text alone: no image part
    assert "came with 1 image, which you cannot see" in message["content"]
    assert "image_url" not in json.dumps(recorder.requests[-1].json)
    body = answer.json()
    assert answer.status_code == 200 and body["accepted"] is True
    assert body["judge"]["outcome"] in ("A", "B") and [v.method for v in votes] == ["judge"]


@pytest.mark.parametrize(
    "vision", [pytest.param(True, id="vision"), pytest.param(False, id="text")]
)
async def test_a_round_without_images_reads_to_the_judge_as_before(
    db: AsyncEngine, database_url: str, tmp_path: Path, vision: bool
) -> None:
    async with _arena(db, database_url, tmp_path, judge_vision=vision) as (arena, recorder):
        answer, stored = await _judged_round(arena)

    message = _judge_message(recorder)
    assert answer.status_code == 200 and stored == []
    assert isinstance(message["content"], str) and "image" not in message["content"]
