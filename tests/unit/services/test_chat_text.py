"""What the chat front writes: commands read from messages, helper-task answers, the standings."""

from __future__ import annotations

import json

import pytest

from arena_api.core.requests import ChatCall
from arena_api.core.views import (
    AllowedRanks,
    Components,
    ConfidenceInterval,
    LeaderboardEntry,
    LeaderboardView,
    StyleControl,
)
from arena_api.services._chat_text import command_of, leaderboard_text
from arena_api.services._helper_tasks import answer_helper_task, is_helper_task, neutral_title


@pytest.mark.parametrize(
    ("message", "command"),
    [
        pytest.param("!a", "!a", id="a"),
        pytest.param("  !B\n", "!b", id="upper-and-spaces"),
        pytest.param("!tie.", "!tie", id="trailing-dot"),
        pytest.param("!lb", "!leaderboard", id="alias"),
        pytest.param("!a please", None, id="a-sentence"),
        pytest.param("a", None, id="no-bang"),
        pytest.param("!unknown", None, id="unknown"),
        pytest.param("", None, id="empty"),
    ],
)
def test_only_a_whole_message_that_is_a_command_counts_as_one(
    message: str, command: str | None
) -> None:
    assert command_of(message) == command


def _call(prompt: str, *, stream: bool) -> ChatCall:
    return ChatCall(model="arena-duel", prompt=prompt, prompt_field="p", history=(), stream=stream)


def test_a_helper_task_is_a_non_streaming_task_over_the_chat_history() -> None:
    task = "### Task:\nDo it\n<chat_history>\nUSER: hi\n</chat_history>"

    assert is_helper_task(_call(task, stream=False))
    assert not is_helper_task(_call(task, stream=True))
    assert not is_helper_task(_call("### Task:\nno history here", stream=False))


@pytest.mark.parametrize(
    ("history", "title"),
    [
        pytest.param("USER: Explain JWTs", "Arena: Explain JWTs", id="short"),
        pytest.param(
            "USER: How do **I** write a `for` loop in Rust and C?\nASSISTANT: Like so",
            "Arena: How do I write a for…",
            id="long-with-markup",
        ),
        pytest.param("USER: !a", "Arena round", id="command"),
        pytest.param("ASSISTANT: no user line", "Arena round", id="no-user"),
    ],
)
def test_the_title_is_the_users_own_first_words(history: str, title: str) -> None:
    assert neutral_title(history) == title


def test_a_task_asking_for_a_title_gets_it_as_json() -> None:
    task = (
        '### Task:\nTitle it.\n### Output:\nJSON format: { "title": "x" }\n'
        "<chat_history>\nUSER: Sorting in Python\nASSISTANT: Use sorted() 'tags': x\n"
        "</chat_history>"
    )

    assert json.loads(answer_helper_task(task)) == {"title": "Arena: Sorting in Python"}


def _entry(name: str, wins: int, losses: int, rating: float | None) -> LeaderboardEntry:
    return LeaderboardEntry(
        id=name,
        display_name=name,
        wins=wins,
        losses=losses,
        ties=0,
        skips=0,
        total_votes=wins + losses,
        win_rate=wins / (wins + losses),
        rating=rating,
        rating_std_error=10.0 if rating else None,
        confidence_interval=ConfidenceInterval(lower=rating - 20, upper=rating + 20)
        if rating
        else None,
        component_id=0 if rating else None,
        style_controlled_rating=None,
        style_controlled_std_error=None,
        style_controlled_confidence_interval=None,
        games=wins + losses,
        rank=1 if rating else None,
        rank_range=AllowedRanks(best=1, worst=1) if rating else None,
        style_controlled_rank=None,
    )


def test_the_leaderboard_shows_ratings_with_intervals_once_fitted() -> None:
    board = LeaderboardView(
        components=Components(count=1, groups=[]),
        style_control=StyleControl(effects=[], votes_observed=0, computed_at=None),
        models=[_entry("Left | Right", 3, 1, 1021.4), _entry("Other", 1, 3, 978.6)],
    )

    lines = leaderboard_text(board).splitlines()

    assert lines[0] == (
        "**Leaderboard** · 4 votes · Bradley-Terry ratings with 95% confidence intervals"
    )
    assert lines[4] == "| 1 | Left \\| Right | 1021 | 1001–1041 | 75.0% | 3 / 1 / 0 | 4 |"


def test_the_leaderboard_shows_rank_ranges_and_marks_provisional_models() -> None:
    settled = _entry("Settled", 30, 10, 1100.0).model_copy(
        update={"rank_range": AllowedRanks(best=1, worst=2)}
    )
    fresh = _entry("Fresh", 2, 1, 1050.0).model_copy(
        update={
            "rank_range": AllowedRanks(best=1, worst=2),
            "provisional": True,
            "provisional_reason": "few_votes",
        }
    )
    board = LeaderboardView(
        components=Components(count=1, groups=[]),
        style_control=StyleControl(effects=[], votes_observed=0, computed_at=None),
        models=[settled, fresh],
    )

    lines = leaderboard_text(board).splitlines()

    assert lines[0].endswith(
        "; # is every rank the interval allows"
        "; * provisional (too few votes or too wide an interval), listed last"
    )
    assert lines[4].startswith("| 1–2 | Settled | 1100 |")
    assert lines[5].startswith("| 1–2 | Fresh * | 1050 |")


def test_the_leaderboard_names_paused_and_archived_models_and_says_what_that_means() -> None:
    archived = _entry("Gone", 5, 2, 1080.0).model_copy(update={"status": "archived"})
    paused = _entry("Resting", 2, 5, 990.0).model_copy(update={"status": "paused"})
    board = LeaderboardView(
        components=Components(count=1, groups=[]),
        style_control=StyleControl(effects=[], votes_observed=0, computed_at=None),
        models=[archived, _entry("Here", 4, 4, 1000.0), paused],
    )

    lines = leaderboard_text(board).splitlines()

    assert lines[0].endswith(
        "; paused: not matched for now; archived: no longer in the roster, history kept"
    )
    assert lines[4].startswith("| 1 | Gone (archived) | 1080 |")
    assert lines[5].startswith("| 1 | Here | 1000 |")
    assert lines[6].startswith("| 1 | Resting (paused) | 990 |")
