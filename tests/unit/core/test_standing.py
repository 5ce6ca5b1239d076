"""The ranks an interval allows and the provisional rule (``core.standing``)."""

from __future__ import annotations

import uuid

import pytest

from arena_api.core.standing import DEFAULT_RULE, ProvisionalRule, RankRange, RatedRow, rank_ranges

IDS = {name: uuid.uuid5(uuid.NAMESPACE_DNS, name) for name in "abcdefg"}


def _row(name: str, interval: tuple[float, float] | None, component: int | None = 0) -> RatedRow:
    lower, upper = interval if interval else (None, None)
    return RatedRow(IDS[name], component if interval else None, lower, upper)


def test_a_rank_range_spans_every_rank_its_interval_allows_within_its_component() -> None:
    ranges = rank_ranges(
        [
            _row("a", (1300, 1400)),  # above everyone
            _row("b", (1100, 1250)),  # overlaps c and d
            _row("c", (1150, 1200)),
            _row("d", (1000, 1120)),  # overlaps b, lies below c
            _row("e", (500, 600)),  # below everyone
            _row("f", (2000, 2100), component=1),  # alone in its component
            _row("g", None),  # unrated
        ]
    )

    assert {name: ranges.get(IDS[name]) for name in "abcdefg"} == {
        "a": RankRange(1, 1),
        "b": RankRange(2, 4),
        "c": RankRange(2, 3),
        "d": RankRange(3, 4),
        "e": RankRange(5, 5),
        "f": RankRange(1, 1),
        "g": None,
    }


def test_models_with_the_same_interval_share_every_rank_of_their_group() -> None:
    ranges = rank_ranges([_row(name, (900, 1100)) for name in "abc"])

    assert set(ranges.values()) == {RankRange(1, 3)}


@pytest.mark.parametrize(
    ("votes", "interval", "reason"),
    [
        (100, None, "unrated"),
        (29, (990, 1010), "few_votes"),
        (29, (500, 1500), "few_votes"),  # the first reason that holds
        (30, (900, 1100.5), "wide_interval"),
        (30, (900, 1100), None),  # exactly the limits: settled
        (5_000, (1180, 1220), None),
    ],
)
def test_a_rating_is_provisional_while_unrated_short_of_votes_or_too_uncertain(
    votes: int, interval: tuple[float, float] | None, reason: str | None
) -> None:
    lower, upper = interval if interval else (None, None)

    assert DEFAULT_RULE.reason(votes, lower, upper) == reason


def test_the_limits_are_the_operators() -> None:
    rule = ProvisionalRule(min_votes=5, max_interval=50)

    assert rule.reason(5, 1000, 1040) is None
    assert rule.reason(4, 1000, 1040) == "few_votes"
    assert rule.reason(5, 1000, 1060) == "wide_interval"


def test_a_reason_reads_with_its_figures() -> None:
    rule = ProvisionalRule(min_votes=30, max_interval=200)

    assert rule.explain("few_votes", 12, 900, 1100) == (
        "provisional: 12 of the 30 votes a settled rating needs"
    )
    assert rule.explain("wide_interval", 80, 900, 1240) == (
        "provisional: its 95% interval spans 340 points, more than 200"
    )
    assert rule.explain("unrated", 0, None, None) == "provisional: not rated yet"
