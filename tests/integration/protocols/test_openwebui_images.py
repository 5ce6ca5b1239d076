"""Open WebUI's image flows on the real server: a pasted image in a duel's or a compare view's
first message, and follow-ups whose history repeats it.

Open WebUI sends a pasted image as an ``image_url`` part holding a ``data:`` URL, and resends it
with every later message of the chat. The newest message's images are the round's; a repeated
one is neither read again nor counted twice: the follow-up shows the models the image its
stored conversation holds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.roster import Roster, RosterModel
from tests.fakes._recording import Recorder
from tests.fakes.openai_server import OK_TOKENS, create_app
from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.protocols._images import SEEN, SVG, data_url, png
from tests.integration.protocols._wire import data_lines
from tests.integration.test_openwebui import TOOLS, OpenWebUi
from tests.support import ServerThread, free_port

URL = "/v1/chat/completions"


def _with_image(text: str, url: str) -> dict[str, Any]:
    """A user message as Open WebUI sends one with a pasted image: the text, then the image."""
    return {
        "role": "user",
        "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": url}},
        ],
    }


class ImageChat:
    """An Open WebUI chat whose messages may hold images; it resends its whole history."""

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.owui = OpenWebUi(arena)
        self.history: list[dict[str, Any]] = []

    async def post(self, model: str, message: dict[str, Any]) -> Any:
        body = {
            "stream": True,
            "model": model,
            "messages": [*self.history, message],
            "tools": TOOLS,
        }
        return await self.arena.client.post(URL, json=body, headers=self.owui.headers)

    async def send(self, model: str, message: dict[str, Any]) -> str:
        """Send ``message``; its exchange joins the history as Open WebUI shows it."""
        response = await self.post(model, message)
        assert response.status_code == 200, response.text
        text = _text(response.text)
        self.history += [message, {"role": "assistant", "content": text}]
        return text


def _text(raw: str) -> str:
    """What Open WebUI shows of a stream: ``choices[0]``'s text."""
    chunks = [json.loads(line) for line in data_lines(raw) if line != "[DONE]"]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


async def _image_counts(arena: Arena) -> list[int]:
    rows = await arena.rows("SELECT image_count FROM matchups ORDER BY created_at, id")
    return [r.image_count for r in rows]


async def test_a_duel_with_a_pasted_image_shows_it_to_both_answers(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = ImageChat(arena)
        text = await chat.send("arena-duel", _with_image("What is this?", data_url(png())))
        counts = await _image_counts(arena)

    answer_a, _, answer_b = text.partition("### Answer B")
    assert SEEN in answer_a and SEEN in answer_b, text
    assert counts == [1]


async def test_compare_columns_with_a_pasted_image_share_one_matchup_that_sees_it(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = ImageChat(arena)
        message = _with_image("What is this?", data_url(png()))
        column_a, column_b = await asyncio.gather(
            chat.post("arena-a", message), chat.post("arena-b", message)
        )
        counts = await _image_counts(arena)

    assert [r.status_code for r in (column_a, column_b)] == [200, 200]
    a, b = _text(column_a.text), _text(column_b.text)
    assert SEEN in a and SEEN in b, (a, b)
    assert "**`!a`**" in a and "**`!b`**" in b
    assert counts == [1]


async def test_a_pasted_svg_is_refused_naming_its_part_and_nothing_is_stored(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = ImageChat(arena)
        chat.history = [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
        ]
        response = await chat.post("arena-duel", _with_image("Look", data_url(SVG)))
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    assert response.status_code == 400
    assert response.json()["code"] == "image_type_unsupported"
    assert list(response.json()["details"]) == ["messages[2].content[1]"]
    assert stored == 0


# -- a follow-up repeats the image: what the vendor is sent ----------------------------------------


@pytest.fixture
def vendor() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder()
    with ServerThread(create_app(recorder), free_port()) as server:
        yield server.url, recorder


def _vision_roster() -> Roster:
    return Roster(
        models=tuple(
            RosterModel(display_name=name, provider="openai", provider_model_id=pmid, vision=True)
            for name, pmid in (("Alpha", "alpha--ok"), ("Beta", "beta--ok"))
        )
    )


def _images_in(messages: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """(message index, data URL's type) of every image part the vendor was sent."""
    return [
        (index, part["image_url"]["url"].split(";", 1)[0])
        for index, message in enumerate(messages)
        if isinstance(message["content"], list)
        for part in message["content"]
        if part["type"] == "image_url"
    ]


async def test_a_follow_up_repeating_the_image_sends_it_once_from_the_stored_conversation(
    db: AsyncEngine, database_url: str, tmp_path: Path, vendor: tuple[str, Recorder]
) -> None:
    url, recorder = vendor
    env = {"OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "sk-test", "ARENA_MOCK_PROVIDER": "0"}
    async with serve_arena(db, database_url, tmp_path, roster=_vision_roster(), **env) as arena:
        chat = ImageChat(arena)
        first = await chat.send("arena-duel", _with_image("What is this?", data_url(png())))
        reveal = await chat.send("arena-duel", {"role": "user", "content": "!a"})
        sent_before = len(recorder.requests)
        second = await chat.send("arena-duel", {"role": "user", "content": "Go deeper"})
        follow_ups = [r.json for r in recorder.requests[sent_before:]]
        counts = await _image_counts(arena)
        links = await arena.scalar("SELECT count(*) FROM turn_images")
        categories = await arena.rows(
            "SELECT m.categories, t.turn_index FROM matchups m JOIN turns t "
            "ON t.matchup_id = m.id ORDER BY t.turn_index"
        )

    assert first.count("".join(OK_TOKENS)) == 2
    assert reveal.startswith("**Vote recorded: Answer A is better.**")
    assert second.count("".join(OK_TOKENS)) == 2
    assert len(follow_ups) == 2
    for sent in follow_ups:
        messages = sent["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "user"]
        assert _images_in(messages) == [(0, "data:image/png")]
        assert messages[0]["content"][0] == {"type": "text", "text": "What is this?"}
        assert messages[2]["content"] == "Go deeper"
    assert counts == [1, 0]  # the follow-up's own message has no image of its own
    assert links == 1
    assert [r.turn_index for r in categories] == [0, 1]
    assert all("vision" in r.categories for r in categories)


async def test_a_single_models_chat_sends_its_earlier_images_with_a_follow_up(
    db: AsyncEngine, database_url: str, tmp_path: Path, vendor: tuple[str, Recorder]
) -> None:
    """``arena-single`` keeps no conversation: the chat's own copy of an earlier image is
    checked like a prompt's and sent with the history, to a model that reads images."""
    url, recorder = vendor
    env = {"OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "sk-test", "ARENA_MOCK_PROVIDER": "0"}
    roster = Roster(
        models=(
            *_vision_roster().models,
            RosterModel(display_name="Blind", provider="openai", provider_model_id="blind--ok"),
        )
    )
    async with serve_arena(db, database_url, tmp_path, roster=roster, **env) as arena:
        chat = ImageChat(arena)
        await chat.send("arena-single", _with_image("What is this?", data_url(png())))
        await chat.send("arena-single", {"role": "user", "content": "And its colour?"})
        chat.history[0] = _with_image("What is this?", data_url(SVG, "image/svg+xml"))
        refused = await chat.post("arena-single", {"role": "user", "content": "Again?"})
        sent = [r.json for r in recorder.requests]

    assert len(sent) == 2
    assert all(s["model"] in ("alpha--ok", "beta--ok") for s in sent)  # never the blind one
    assert _images_in(sent[0]["messages"]) == [(0, "data:image/png")]
    assert [m["role"] for m in sent[1]["messages"]] == ["user", "assistant", "user"]
    assert _images_in(sent[1]["messages"]) == [(0, "data:image/png")]
    assert refused.status_code == 400
    assert refused.json()["code"] == "image_type_unsupported"
    assert list(refused.json()["details"]) == ["messages[0].content[1]"]
