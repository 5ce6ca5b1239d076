"""The arena inside a real Open WebUI 0.12.4: blind duels, votes as chat commands, compare view.

Open WebUI talks to our ``/v1`` as an ordinary OpenAI connection; the arena shows up as
pseudo-models (``arena-duel``: both answers in one message, ``arena-a``/``arena-b``: one answer
per column of Open WebUI's compare view) and the vote, reveal and leaderboard are chat commands
(``!a``, ``!b``, ``!leaderboard``). The steps of one chat are module fixtures, so each test reads
one step and a chat spans several tests; screenshots go to ``test-results/openwebui/``.

Runs only with ``ARENA_OPENWEBUI_BIN`` set (``make integration-openwebui``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import pytest
import yaml
from playwright.async_api import Page, expect

from e2e.openwebui._owui import (
    answer_labels,
    answer_texts,
    chat_title,
    latest_answers,
    open_chat,
    screenshot,
    send_message,
    wait_for_answers,
)
from e2e.openwebui.conftest import OPENWEBUI_BIN_ENV, NewPage, OpenWebUI
from tests.support import ROOT

if not os.environ.get(OPENWEBUI_BIN_ENV):
    pytest.skip(
        f"{OPENWEBUI_BIN_ENV} is not set (bash e2e/openwebui/setup.sh prints it)",
        allow_module_level=True,
    )

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DUEL, SIDE_A, SIDE_B = "arena-duel", "arena-a", "arena-b"
QUESTION = "Explain JWTs in two sentences"


def _roster() -> dict[str, set[str]]:
    """Every string naming a model of the served roster, by its display name."""
    models = yaml.safe_load((ROOT / "models.yaml").read_text())["models"]
    return {m["display_name"]: {m["display_name"], m["provider_model_id"]} for m in models}


ROSTER = _roster()


def _named_models(text: str) -> list[str]:
    """The roster models ``text`` names (by display name or provider id), in order of first
    mention."""
    folded = text.casefold()
    found = {
        name: min(folded.find(word.casefold()) for word in words if word.casefold() in folded)
        for name, words in ROSTER.items()
        if any(word.casefold() in folded for word in words)
    }
    return sorted(found, key=found.__getitem__)


def _has_answer_headings(text: str) -> bool:
    """Whether "Answer A" comes before "Answer B", each at the start of a line (a heading)."""
    a = re.search(r"^\W*Answer A\b", text, re.MULTILINE)
    b = re.search(r"^\W*Answer B\b", text, re.MULTILINE)
    return a is not None and b is not None and a.start() < b.start()


@dataclass(frozen=True)
class Step:
    """The page after one message of a chat, and the text of the answer(s) to it."""

    page: Page
    answers: list[str]


async def _say(page: Page, text: str, columns: int, shot: str) -> Step:
    await send_message(page, text)
    await wait_for_answers(page, columns)
    await screenshot(page, shot)
    return Step(page, await answer_texts(page))


# One duel chat: ask, vote, ask again, leaderboard.


@pytest.fixture(scope="module")
async def duel_page(openwebui: OpenWebUI, new_page: NewPage) -> Page:
    page = await new_page()
    await open_chat(page, openwebui.url, DUEL)
    return page


@pytest.fixture(scope="module")
async def duel_round(duel_page: Page) -> Step:
    return await _say(duel_page, QUESTION, 1, "duel-1-answers")


@pytest.fixture(scope="module")
async def duel_vote(duel_round: Step) -> Step:
    return await _say(duel_round.page, "!a", 1, "duel-2-vote-reveal")


@pytest.fixture(scope="module")
async def duel_follow_up(duel_vote: Step) -> Step:
    return await _say(duel_vote.page, "Go deeper", 1, "duel-3-follow-up")


@pytest.fixture(scope="module")
async def duel_leaderboard(duel_follow_up: Step) -> Step:
    return await _say(duel_follow_up.page, "!leaderboard", 1, "duel-4-leaderboard")


# One compare chat: arena-a and arena-b side by side, then a vote.


@pytest.fixture(scope="module")
async def compare_page(openwebui: OpenWebUI, new_page: NewPage) -> Page:
    page = await new_page()
    await open_chat(page, openwebui.url, SIDE_A, SIDE_B)
    return page


@pytest.fixture(scope="module")
async def compare_round(compare_page: Page) -> Step:
    return await _say(compare_page, QUESTION, 2, "compare-1-answers")


@pytest.fixture(scope="module")
async def compare_vote(compare_round: Step) -> Step:
    return await _say(compare_round.page, "!b", 2, "compare-2-vote-reveal")


async def test_duel_answer_shows_answer_a_and_answer_b_without_naming_a_model(
    duel_round: Step,
) -> None:
    """One Open WebUI message carries both anonymous answers under their headings."""
    [answer] = duel_round.answers

    assert _has_answer_headings(answer), answer
    assert _named_models(answer) == [], answer


async def test_vote_command_in_a_duel_reveals_the_models(duel_vote: Step) -> None:
    """``!a`` records the vote and its reply names the models behind A and B."""
    [reply] = duel_vote.answers

    assert "Vote recorded: Answer A is better." in reply, reply
    assert len(_named_models(reply)) == 2, reply


async def test_duel_title_in_the_sidebar_names_no_model(duel_round: Step) -> None:
    """Open WebUI's background title (and tags, follow-ups) requests leave the chat usable and
    its title blind."""
    title = await chat_title(duel_round.page)
    await screenshot(duel_round.page, "duel-title-in-sidebar")

    assert title not in ("", "New Chat"), f"the chat was never titled: {title!r}"
    assert _named_models(title) == [], title


async def test_duel_continues_in_the_same_chat_after_a_decisive_vote(
    duel_follow_up: Step,
) -> None:
    """The next message starts the next round of the same conversation, with no note that a
    fresh conversation began."""
    [answer] = duel_follow_up.answers

    assert _has_answer_headings(answer), answer
    preamble = answer[: answer.find("Answer A")]
    assert "fresh" not in preamble.casefold(), answer
    assert _named_models(answer) == [], answer


async def test_leaderboard_command_replies_with_a_table_of_models(
    duel_leaderboard: Step,
) -> None:
    """``!leaderboard`` answers a Markdown table, which Open WebUI renders as a table."""
    table = latest_answers(duel_leaderboard.page).first.locator("table")

    await expect(table).to_have_count(1)
    assert _named_models(await table.inner_text()), await table.inner_text()


async def test_compare_view_streams_one_blind_answer_per_column(compare_round: Step) -> None:
    """``arena-a`` and ``arena-b`` side by side: each column one answer, under its own label."""
    labels = await answer_labels(compare_round.page)

    assert labels == ["Arena A", "Arena B"]
    assert len(compare_round.answers) == 2
    for answer in compare_round.answers:
        assert answer, compare_round.answers
        assert "Answer B" not in answer, answer
        assert _named_models(answer) == [], answer


async def test_vote_in_the_compare_view_names_each_columns_own_model(compare_vote: Step) -> None:
    """``!b`` (sent once per column) reveals in each column the model that answered there."""
    named = [_named_models(reply) for reply in compare_vote.answers]

    assert len(named) == 2 and all(named), compare_vote.answers
    assert named[0][0] != named[1][0], compare_vote.answers
    assert all("Vote recorded: Answer B is better." in r for r in compare_vote.answers)
