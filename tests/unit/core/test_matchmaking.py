from __future__ import annotations

import math
import random
import uuid
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_api.core import matchmaking
from arena_api.core.errors import RoundConfigError
from arena_api.core.matchmaking import (
    RandomMatchmaker,
    SmartMatchmaker,
    make_matchmaker,
)
from arena_api.core.models import ModelEntry
from arena_api.core.ports import Matchmaker, MatchmakingSnapshot, pair_key

MATCHMAKERS = [
    pytest.param(RandomMatchmaker(), id="random"),
    pytest.param(SmartMatchmaker(), id="smart"),
]
EMPTY = MatchmakingSnapshot()


def model(name: str) -> ModelEntry:
    return ModelEntry(uuid.uuid5(uuid.NAMESPACE_DNS, name), name, "mock", name)


def key(a: ModelEntry, b: ModelEntry) -> tuple[uuid.UUID, uuid.UUID]:
    return pair_key(a.id, b.id)


def draw_pairs(
    matchmaker: Matchmaker,
    models: list[ModelEntry],
    stats: MatchmakingSnapshot,
    *,
    draws: int,
    seed: int = 7,
) -> Counter[tuple[uuid.UUID, uuid.UUID]]:
    rng = random.Random(seed)
    picks = (matchmaker.pick_pair(models, stats, rng) for _ in range(draws))
    return Counter(key(a, b) for a, b in picks)


# -- strategies ----------------------------------------------------------------------------------

rosters = st.lists(st.uuids(), min_size=2, max_size=8, unique=True).map(
    lambda ids: [ModelEntry(i, f"m{n}", "mock", f"m{n}") for n, i in enumerate(ids)]
)
widths = st.floats(allow_nan=True, allow_infinity=True) | st.floats(0, 500)


@st.composite
def rosters_and_stats(draw: st.DrawFn) -> tuple[list[ModelEntry], MatchmakingSnapshot]:
    models = draw(rosters)
    games = {
        key(a, b): draw(st.integers(0, 10**6))
        for i, a in enumerate(models)
        for b in models[i + 1 :]
        if draw(st.booleans())
    }
    ci_width = {m.id: draw(widths) for m in models if draw(st.booleans())}
    return models, MatchmakingSnapshot(games=games, ci_width=ci_width)


# -- surface -------------------------------------------------------------------------------------


def test_module_exports_the_matchmakers() -> None:
    assert set(matchmaking.__all__) == {
        "DEFAULT_FLOOR",
        "RandomMatchmaker",
        "SmartMatchmaker",
        "make_matchmaker",
    }


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        pytest.param("smart", SmartMatchmaker, id="smart"),
        pytest.param("random", RandomMatchmaker, id="random"),
    ],
)
def test_matchmaker_is_built_from_its_setting_name(kind: str, expected: type) -> None:
    assert isinstance(make_matchmaker(kind), expected)


def test_unknown_matchmaker_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown matchmaker"):
        make_matchmaker("elo")


@pytest.mark.parametrize("floor", [-0.1, math.nan, math.inf], ids=["negative", "nan", "inf"])
def test_invalid_floor_is_rejected(floor: float) -> None:
    with pytest.raises(ValueError, match="floor"):
        SmartMatchmaker(floor=floor)


# -- invariants ----------------------------------------------------------------------------------


@pytest.mark.parametrize("matchmaker", MATCHMAKERS)
@given(roster_stats=rosters_and_stats(), seed=st.integers(0, 2**32))
def test_pair_is_two_distinct_models_of_the_roster(
    matchmaker: Matchmaker,
    roster_stats: tuple[list[ModelEntry], MatchmakingSnapshot],
    seed: int,
) -> None:
    models, stats = roster_stats

    a, b = matchmaker.pick_pair(models, stats, random.Random(seed))

    assert a.id != b.id
    assert a in models and b in models


@pytest.mark.parametrize("matchmaker", MATCHMAKERS)
@given(
    roster_stats=rosters_and_stats(),
    incumbent_index=st.integers(0, 7),
    seed=st.integers(0, 2**32),
)
def test_challenger_is_never_the_incumbent(
    matchmaker: Matchmaker,
    roster_stats: tuple[list[ModelEntry], MatchmakingSnapshot],
    incumbent_index: int,
    seed: int,
) -> None:
    models, stats = roster_stats
    incumbent = models[incumbent_index % len(models)]

    challenger = matchmaker.pick_challenger(models, incumbent, stats, random.Random(seed))

    assert challenger.id != incumbent.id
    assert challenger in models


@given(roster_stats=rosters_and_stats(), floor=st.floats(0.001, 1.0))
def test_every_pair_keeps_a_probability_above_the_floor_bound(
    roster_stats: tuple[list[ModelEntry], MatchmakingSnapshot], floor: float
) -> None:
    models, stats = roster_stats
    n_pairs = len(models) * (len(models) - 1) // 2

    probabilities = SmartMatchmaker(floor=floor).pair_probabilities(models, stats)

    assert len(probabilities) == n_pairs
    assert math.fsum(probabilities.values()) == pytest.approx(1.0)
    assert min(probabilities.values()) >= floor / (n_pairs * (1 + floor)) * (1 - 1e-9)


@pytest.mark.parametrize("matchmaker", MATCHMAKERS)
def test_repeated_entries_of_one_model_never_meet(matchmaker: Matchmaker) -> None:
    a, b = model("a"), model("b")
    rng = random.Random(3)

    pairs = {key(*matchmaker.pick_pair([a, a, a, b], EMPTY, rng)) for _ in range(200)}

    assert pairs == {key(a, b)}


@pytest.mark.parametrize("matchmaker", MATCHMAKERS)
def test_same_seed_gives_the_same_picks(matchmaker: Matchmaker) -> None:
    models = [model(name) for name in "abcdef"]

    first = draw_pairs(matchmaker, models, EMPTY, draws=50, seed=11)
    second = draw_pairs(matchmaker, models, EMPTY, draws=50, seed=11)

    assert first == second


# -- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("matchmaker", MATCHMAKERS)
@pytest.mark.parametrize(
    "models",
    [
        pytest.param([], id="no-models"),
        pytest.param([model("solo")], id="one-model"),
        pytest.param([model("solo"), model("solo")], id="one-model-twice"),
    ],
)
def test_pair_needs_two_distinct_models(matchmaker: Matchmaker, models: list[ModelEntry]) -> None:
    with pytest.raises(RoundConfigError) as caught:
        matchmaker.pick_pair(models, EMPTY, random.Random(0))

    assert (caught.value.status, caught.value.code) == (500, "not_enough_models")


@pytest.mark.parametrize("matchmaker", MATCHMAKERS)
@pytest.mark.parametrize(
    "models",
    [
        pytest.param([], id="no-models"),
        pytest.param([model("incumbent")], id="only-the-incumbent"),
    ],
)
def test_challenger_needs_a_model_other_than_the_incumbent(
    matchmaker: Matchmaker, models: list[ModelEntry]
) -> None:
    with pytest.raises(RoundConfigError) as caught:
        matchmaker.pick_challenger(models, model("incumbent"), EMPTY, random.Random(0))

    assert (caught.value.status, caught.value.code) == (500, "shadow_challenger_missing")


# -- random --------------------------------------------------------------------------------------


def test_random_matchmaker_picks_pairs_uniformly() -> None:
    models = [model(name) for name in "abcd"]

    counts = draw_pairs(RandomMatchmaker(), models, EMPTY, draws=6_000)

    # 1,000 expected per pair, standard deviation about 29.
    assert len(counts) == 6
    assert all(880 <= n <= 1_120 for n in counts.values())


def test_random_matchmaker_picks_challengers_uniformly() -> None:
    incumbent, *others = [model(name) for name in "abcd"]
    rng = random.Random(5)

    counts = Counter(
        RandomMatchmaker().pick_challenger([incumbent, *others], incumbent, EMPTY, rng).id
        for _ in range(3_000)
    )

    assert set(counts) == {m.id for m in others}
    assert all(880 <= n <= 1_120 for n in counts.values())


# -- smart ---------------------------------------------------------------------------------------


def test_smart_probabilities_match_a_worked_example() -> None:
    """Scores 1.25, 2 and 1 plus 0.05 * 2 each, normalised by their sum 4.55."""
    a, b, c = model("a"), model("b"), model("c")
    stats = MatchmakingSnapshot(
        games={key(a, b): 1, key(b, c): 3},
        ci_width={a.id: 100.0, b.id: 50.0},  # c is unrated
    )

    probabilities = SmartMatchmaker(floor=0.05).pair_probabilities([a, b, c], stats)

    assert probabilities == pytest.approx(
        {key(a, b): 1.35 / 4.55, key(a, c): 2.1 / 4.55, key(b, c): 1.1 / 4.55}
    )


def test_smart_challenger_probabilities_match_a_worked_example() -> None:
    """Incumbent i (width 20) against b (width 10, 1 game) and unrated u (3 games)."""
    incumbent, b, u = model("i"), model("b"), model("u")
    stats = MatchmakingSnapshot(
        games={key(incumbent, b): 1, key(incumbent, u): 3},
        ci_width={incumbent.id: 20.0, b.id: 10.0},
    )

    probabilities = SmartMatchmaker(floor=0.1).challenger_probabilities(
        [incumbent, b, u], incumbent, stats
    )

    # scores: b 0.5 + 0.75 = 1.25, u 0.25 + 1 = 1.25; floor adds 0.125 to each
    assert probabilities == pytest.approx({b.id: 0.5, u.id: 0.5})


def test_never_played_pair_is_chosen_far_more_often_than_a_pair_with_1000_games() -> None:
    wide, x, y, z = model("wide"), model("x"), model("y"), model("z")
    models = [wide, x, y, z]
    stats = MatchmakingSnapshot(
        games={key(a, b): 1_000 for i, a in enumerate(models) for b in models[i + 1 :]}
        | {key(x, y): 0},
        ci_width={wide.id: 100.0, x.id: 1.0, y.id: 1.0, z.id: 1.0},
    )

    counts = draw_pairs(SmartMatchmaker(), models, stats, draws=4_000)

    # expected ratio about 17
    assert counts[key(x, y)] > 8 * counts[key(x, z)]


def test_unrated_challenger_is_favoured_over_a_narrow_interval_one() -> None:
    incumbent, narrow, unrated, wide = model("i"), model("narrow"), model("new"), model("wide")
    models = [incumbent, narrow, unrated, wide]
    stats = MatchmakingSnapshot(
        games={key(incumbent, m): 1_000 for m in (narrow, unrated, wide)},
        ci_width={incumbent.id: 5.0, narrow.id: 5.0, wide.id: 100.0},
    )
    rng = random.Random(9)

    counts = Counter(
        SmartMatchmaker().pick_challenger(models, incumbent, stats, rng).id for _ in range(3_000)
    )

    # expected ratio about 7
    assert counts[unrated.id] > 4 * counts[narrow.id]


def test_unrated_pair_is_favoured_over_a_narrow_interval_pair() -> None:
    narrow_1, narrow_2, new_1, new_2, wide = (model(n) for n in ("n1", "n2", "u1", "u2", "w"))
    models = [narrow_1, narrow_2, new_1, new_2, wide]
    stats = MatchmakingSnapshot(
        games={key(a, b): 1_000 for i, a in enumerate(models) for b in models[i + 1 :]},
        ci_width={narrow_1.id: 2.0, narrow_2.id: 2.0, wide.id: 100.0},
    )

    counts = draw_pairs(SmartMatchmaker(), models, stats, draws=4_000)

    assert counts[key(new_1, new_2)] > 5 * counts[key(narrow_1, narrow_2)]


def test_floor_makes_every_pair_reachable() -> None:
    wide, *narrow = [model(name) for name in ("wide", "a", "b", "c", "d", "e")]
    models = [wide, *narrow]
    stats = MatchmakingSnapshot(
        games={key(a, b): 10**6 for i, a in enumerate(models) for b in models[i + 1 :]}
        | {key(narrow[0], narrow[1]): 0},
        ci_width={wide.id: 1_000.0} | {m.id: 1.0 for m in narrow},
    )

    counts = draw_pairs(SmartMatchmaker(), models, stats, draws=3_000)

    assert set(counts) == {key(a, b) for i, a in enumerate(models) for b in models[i + 1 :]}


def test_smart_pair_order_is_random() -> None:
    a, b = model("a"), model("b")
    rng = random.Random(13)

    firsts = Counter(SmartMatchmaker().pick_pair([a, b], EMPTY, rng)[0].id for _ in range(2_000))

    assert 900 <= firsts[a.id] <= 1_100


def test_without_interval_information_all_rated_models_count_as_certain() -> None:
    """Zero widths everywhere leave only coldness, and no division by zero."""
    a, b, c = model("a"), model("b"), model("c")
    stats = MatchmakingSnapshot(games={key(a, b): 1}, ci_width={a.id: 0.0, b.id: 0.0, c.id: 0.0})

    probabilities = SmartMatchmaker(floor=0.0).pair_probabilities([a, b, c], stats)

    assert probabilities == pytest.approx({key(a, b): 0.2, key(a, c): 0.4, key(b, c): 0.4})
