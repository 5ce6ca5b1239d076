"""``ReadService``'s rules on an in-memory ``BoardReads``: how the leaderboard is derived from
the stored records (win rates, ranks by interval overlap, components, style effects) and what
a matchup read reveals. No database."""

from __future__ import annotations

import math
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import pytest

from arena_api.core.boards import Board
from arena_api.core.errors import InvalidRequest, NotFound
from arena_api.core.ports import (
    LeaderboardRecords,
    RatedModelRecord,
    RatingPassRecord,
    StyleCoefficient,
    StyleSpread,
)
from arena_api.core.records import MatchupRecord, StoredAnswer
from arena_api.core.scale import SCALE
from arena_api.core.standing import ProvisionalRule
from arena_api.services.reads import ReadService
from tests.fakes.ports import FakeBoardReads, model

AT = datetime(2026, 1, 1, tzinfo=UTC)


def _rated(
    name: str,
    interval: tuple[float, float] | None = None,
    component: int | None = 0,
    *,
    wins: int = 0,
    losses: int = 0,
    ties: int = 0,
    skips: int = 0,
) -> RatedModelRecord:
    lower, upper = interval if interval else (None, None)
    return RatedModelRecord(
        model=model(name),
        wins=wins,
        losses=losses,
        ties=ties,
        skips=skips,
        rating=None if interval is None else (lower + upper) / 2,  # type: ignore[operator]
        ci_lower=lower,
        ci_upper=upper,
        component_id=component if interval else None,
    )


def _reads(*rows: RatedModelRecord, **records: object) -> tuple[ReadService, FakeBoardReads]:
    store = FakeBoardReads(records=LeaderboardRecords(models=rows, **records))  # type: ignore[arg-type]
    return ReadService(repository=store), store


async def test_a_models_votes_and_win_rate_come_from_its_record() -> None:
    reads, _ = _reads(_rated("aurora", wins=3, losses=1, skips=2), _rated("borealis", skips=4))

    board = await reads.leaderboard()

    rows = {e.display_name: e for e in board.models}
    assert (rows["Aurora"].total_votes, rows["Aurora"].win_rate) == (6, 0.75)
    assert (rows["Borealis"].total_votes, rows["Borealis"].win_rate) == (4, 0.0)


async def test_models_whose_intervals_overlap_share_a_rank_within_their_component() -> None:
    reads, _ = _reads(
        _rated("aurora", (1100, 1200)),
        _rated("borealis", (1050, 1150)),
        _rated("cirrus", (900, 1000)),
        _rated("drizzle", (1300, 1400), component=1),
        _rated("ember"),
    )

    board = await reads.leaderboard()

    assert {e.display_name: e.rank for e in board.models} == {
        "Aurora": 1,
        "Borealis": 1,
        "Cirrus": 3,
        "Drizzle": 1,
        "Ember": None,
    }
    assert board.components.count == 2
    assert [(g.component_id, g.models) for g in board.components.groups] == [(0, 3), (1, 1)]


async def test_a_board_with_no_rated_model_has_no_component_count() -> None:
    reads, _ = _reads(_rated("aurora"), _rated("borealis"))

    board = await reads.leaderboard()

    assert board.components.count is None and board.components.groups == []
    assert all(e.confidence_interval is None for e in board.models)


async def test_style_effects_are_restated_in_rating_points_per_readable_unit() -> None:
    coefficients = (
        StyleCoefficient("verbosity", 0.2, AT),
        StyleCoefficient("position", -0.05, AT),
    )
    spread = StyleSpread(votes=40, std_dev={"verbosity": 50.0})
    reads, _ = _reads(_rated("aurora"), coefficients=coefficients, spread=spread)

    style = (await reads.leaderboard()).style_control

    position, verbosity = style.effects  # the features in the order they are fitted
    assert (position.feature, position.basis, position.per_unit) == (
        "position",
        "absolute",
        None,
    )
    assert math.isclose(position.points, -0.05 * SCALE)
    assert verbosity.basis == "per_std_dev" and verbosity.per_unit is not None
    assert math.isclose(verbosity.per_unit.points, 0.2 * SCALE / 50.0 * 100.0)
    assert verbosity.per_unit.unit == "100 output tokens"
    assert (style.votes_observed, style.computed_at) == (40, AT)


async def test_without_coefficients_there_is_no_style_effect() -> None:
    reads, _ = _reads(_rated("aurora"))

    style = (await reads.leaderboard()).style_control

    assert (style.effects, style.votes_observed, style.computed_at) == ([], 0, None)


@pytest.mark.parametrize(
    ("board", "echoed"),
    [
        pytest.param(Board(), ("excluded", "human", None, "on"), id="default"),
        pytest.param(Board(named=True), ("included", "human", None, "on"), id="named"),
        pytest.param(Board(filters=False), ("excluded", "human", None, "off"), id="unfiltered"),
        pytest.param(
            Board(population="judge", category="coding"),
            ("excluded", "judge", "coding", "on"),
            id="judge-coding",
        ),
    ],
)
async def test_the_board_asked_for_is_read_and_said(
    board: Board, echoed: tuple[object, ...]
) -> None:
    reads, store = _reads(_rated("aurora"))

    view = await reads.leaderboard(board)

    assert store.boards == [board]
    assert (view.named_votes, view.votes, view.category, view.filters) == echoed


async def test_what_the_latest_rating_pass_left_out_is_shown_once_there_is_one() -> None:
    reads, store = _reads(_rated("aurora"))
    before = (await reads.leaderboard()).filtered_votes
    store.last_pass = RatingPassRecord(
        finished_at=AT,
        seconds=1.5,
        votes=100,
        votes_excluded=7,
        sessions_excluded=1,
        last_fit_at=AT,
        votes_identity_leaks=3,
        votes_duplicates=2,
    )

    after = (await reads.leaderboard()).filtered_votes

    assert before is None
    assert after is not None
    assert (after.anomalous_sessions, after.identity_leaks, after.duplicate_prompts) == (7, 3, 2)


# -- one matchup ---------------------------------------------------------------------------------


def _matchup(mode: str = "blind", vote: str | None = None) -> MatchupRecord:
    return MatchupRecord(
        id=uuid.UUID(int=1),
        conversation_id=uuid.UUID(int=2),
        turn_index=0,
        mode=mode,  # type: ignore[arg-type]
        token_hash="h",
        slot_a=model("aurora"),
        slot_b=model("borealis"),
        vote=vote,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("mode", "vote", "revealed", "votable", "continuable"),
    [
        pytest.param("blind", None, False, True, False, id="blind-unvoted"),
        pytest.param("blind", "left", True, False, True, id="blind-decided"),
        pytest.param("blind", "both_bad", True, False, False, id="blind-tie"),
        pytest.param("named", None, True, True, False, id="named-unvoted"),
        pytest.param("shadow", None, False, False, False, id="shadow"),
    ],
)
async def test_a_matchup_is_revealed_by_its_vote_or_its_naming(
    mode: str, vote: str | None, revealed: bool, votable: bool, continuable: bool
) -> None:
    reads, store = _reads()
    store.matchups[uuid.UUID(int=1)] = _matchup(mode, vote)

    view = await reads.matchup(uuid.UUID(int=1))

    assert (view.models is not None, view.votable, view.continuable) == (
        revealed,
        votable,
        continuable,
    )


async def test_an_unknown_matchup_is_not_found() -> None:
    reads, _ = _reads()

    with pytest.raises(NotFound):
        await reads.matchup(uuid.uuid4())


async def test_an_unvoted_matchup_is_never_shared() -> None:
    reads, store = _reads()
    store.matchups[uuid.UUID(int=1)] = _matchup()
    answer = StoredAnswer(slot="A", response_id=uuid.UUID(int=3), content="x", error=None)
    store.contents[uuid.UUID(int=1)] = ("hi", (answer,))

    with pytest.raises(NotFound):
        await reads.shared_matchup(uuid.UUID(int=1))


async def test_analytics_on_a_server_without_them_are_not_found() -> None:
    reads, _ = _reads()

    with pytest.raises(NotFound):
        await reads.analytics_summary()


class _Unreached:
    """An analytics port whose every read fails the test: the refused reads never ask it."""

    def __getattr__(self, name: str) -> Callable[..., Awaitable[None]]:
        async def read(*args: object, **kwargs: object) -> None:
            raise AssertionError(f"the analytics port's {name} was reached")

        return read


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda r: r.activity(bucket="week"), id="activity-bucket"),
        pytest.param(lambda r: r.activity(since=datetime(2026, 1, 1)), id="naive-since"),
        pytest.param(lambda r: r.rating_history(points=0), id="history-points"),
    ],
)
async def test_an_analytics_read_with_bad_arguments_is_an_invalid_request(call: object) -> None:
    reads = ReadService(repository=FakeBoardReads(), analytics=_Unreached())  # type: ignore[arg-type]

    with pytest.raises(InvalidRequest):
        await call(reads)  # type: ignore[operator]


async def test_provisional_rows_sort_below_the_settled_ones_with_their_reason() -> None:
    store = FakeBoardReads(
        records=LeaderboardRecords(
            models=(
                # The store's order: rating first. A one-vote model with a huge interval leads it.
                _rated("lucky", (400, 2300), wins=1),
                _rated("aurora", (1150, 1250), wins=40, losses=20),
                _rated("borealis", (1100, 1200), wins=30, losses=30),
                _rated("cirrus", (950, 1250), wins=20, losses=20),
                _rated("ember"),
            ),
            coefficients=(),
            spread=StyleSpread(votes=0, std_dev={}),
        )
    )
    reads = ReadService(repository=store, provisional=ProvisionalRule(30, 200))

    board = await reads.leaderboard()

    assert [(e.display_name, e.provisional_reason) for e in board.models] == [
        ("Aurora", None),
        ("Borealis", None),
        ("Lucky", "few_votes"),
        ("Cirrus", "wide_interval"),
        ("Ember", "unrated"),
    ]
    ranges = {e.display_name: e.rank_range for e in board.models}
    assert (ranges["Lucky"].best, ranges["Lucky"].worst) == (1, 4)  # type: ignore[union-attr]
    assert (ranges["Aurora"].best, ranges["Aurora"].worst) == (1, 4)  # type: ignore[union-attr]
    assert ranges["Ember"] is None
    assert {e.display_name: e.rank for e in board.models}["Aurora"] == 1
    assert board.model_dump(by_alias=True)["models"][0]["rankRange"] == {"best": 1, "worst": 4}
