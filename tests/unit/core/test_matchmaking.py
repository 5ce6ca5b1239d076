from __future__ import annotations

import dataclasses
import math
import random
import uuid
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import foldnorm

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
ratings = st.floats(allow_nan=True, allow_infinity=True) | st.floats(500, 1_500)


@st.composite
def rosters_and_stats(draw: st.DrawFn) -> tuple[list[ModelEntry], MatchmakingSnapshot]:
    models = draw(rosters)
    games = {
        key(a, b): draw(st.integers(0, 10**6))
        for i, a in enumerate(models)
        for b in models[i + 1 :]
        if draw(st.booleans())
    }
    points = {pair: draw(st.floats(0, n)) for pair, n in games.items() if draw(st.booleans())}
    ci_width = {m.id: draw(widths) for m in models if draw(st.booleans())}
    rating = {m.id: draw(ratings) for m in models if draw(st.booleans())}
    return models, MatchmakingSnapshot(games=games, points=points, ci_width=ci_width, rating=rating)


# -- surface -------------------------------------------------------------------------------------


def test_module_exports_the_matchmakers() -> None:
    assert set(matchmaking.__all__) == {
        "DEFAULT_BALANCE",
        "DEFAULT_FLOOR",
        "DEFAULT_PRECISION_SHARE",
        "DEFAULT_RANK_SHARE",
        "DEFAULT_TILT",
        "EVEN_CAP",
        "LEAD_PLACES",
        "TOP_RANKS",
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


@pytest.mark.parametrize("name", ["floor", "balance"])
@pytest.mark.parametrize("value", [-0.1, math.nan, math.inf], ids=["negative", "nan", "inf"])
def test_invalid_floor_or_balance_is_rejected(name: str, value: float) -> None:
    with pytest.raises(ValueError, match=name):
        SmartMatchmaker(**{name: value})


@pytest.mark.parametrize("name", ["rank_share", "precision_share", "tilt"])
@pytest.mark.parametrize("share", [-0.1, 1.5, math.nan], ids=["negative", "above-one", "nan"])
def test_invalid_share_is_rejected(name: str, share: float) -> None:
    with pytest.raises(ValueError, match=name):
        SmartMatchmaker(**{name: share})


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


@given(
    roster_stats=rosters_and_stats(),
    floor=st.floats(0.001, 1.0),
    rank_share=st.sampled_from([0.0, 0.3, 1.0]),
)
def test_every_pair_keeps_a_probability_above_the_floor_bound(
    roster_stats: tuple[list[ModelEntry], MatchmakingSnapshot], floor: float, rank_share: float
) -> None:
    models, stats = roster_stats
    n_pairs = len(models) * (len(models) - 1) // 2

    matchmaker = SmartMatchmaker(floor=floor, rank_share=rank_share)
    probabilities = matchmaker.pair_probabilities(models, stats)

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

    # A setup to finish, not a server fault: 503 with what to do.
    assert (caught.value.status, caught.value.code) == (503, "not_enough_models")
    assert "ARENA_MODELS=" in caught.value.message and "docs/providers.md" in caught.value.message


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

#: Interval width (display points) of a standard error of sqrt(2) log-odds: two such models have
#: v = 4, and between equals S = 1/4, so one vote removes learn = v S / (1 + v S) = 1/2.
WIDTH_OF_ROOT_TWO = 2 * matchmaking._Z_95 * math.sqrt(2) * matchmaking.SCALE


def folded(mean: float, sd: float) -> float:
    """E|X| for X ~ N(mean, sd**2), from scipy's folded normal."""
    return abs(mean) if sd == 0 else float(foldnorm.mean(abs(mean) / sd, scale=sd))


#: The win-matrix term of a pair without games between equals or with an unrated model: E|N(0, 1/4)|
UNPLAYED = folded(0.0, 0.5)


def gain(games: int, rate: float, d: float, v: float) -> float:
    """The win-matrix term of the module doc for a pair of rated models: ``games`` with the key's
    first model scoring ``rate``, ``d`` its rating lead in log-odds, ``v`` the summed variances
    of the two ratings (log-odds squared)."""
    p = 1 / (1 + math.exp(-d))
    s = p * (1 - p)
    if games == 0:
        return folded(0.0, math.sqrt(s))
    u = min(s * math.sqrt(v), 0.5)
    now = folded(rate - p, u)
    after = folded(games * (rate - p) / (games + 1), math.sqrt(games**2 * u**2 + s) / (games + 1))
    return max(now - after, 0.0)


def as_predicted(
    games: dict[tuple[uuid.UUID, uuid.UUID], int],
    ci_width: dict[uuid.UUID, float],
    rating: dict[uuid.UUID, float],
) -> MatchmakingSnapshot:
    """A snapshot whose records score what the ratings predict (half with an unrated model):
    the win matrix has no stray to chase, only noise to add."""
    points = {}
    for (low, high), n in games.items():
        d = (rating[low] - rating[high]) / matchmaking.SCALE if {low, high} <= set(rating) else 0
        points[(low, high)] = n / (1 + math.exp(-d))
    return MatchmakingSnapshot(games=games, points=points, ci_width=ci_width, rating=rating)


def lead(first: ModelEntry, second: ModelEntry, rating: dict[uuid.UUID, float]) -> float:
    """The rating lead of the pair key's first model, in log-odds."""
    low, high = key(first, second)
    return (rating[low] - rating[high]) / matchmaking.SCALE


def test_smart_probabilities_match_a_worked_example() -> None:
    """a and b are rated equal (an overlap of 1, learn 1/2, at the top); c is unrated.

    The win matrix has only the unplayed pair (a, b) to learn about: c's played pairs have no
    prediction to stray from. The precision term too is all on (a, b), the only rated pair. The
    rank terms are 1/2 for the neighbours a, b and 1 with c. (The balance is off here; a test
    of its own below.)
    """
    a, b, c = model("a"), model("b"), model("c")
    stats = MatchmakingSnapshot(
        games={key(a, c): 2, key(b, c): 2},
        points={key(a, c): 2.0, key(b, c): 0.0},
        ci_width={a.id: WIDTH_OF_ROOT_TWO, b.id: WIDTH_OF_ROOT_TWO},
        rating={a.id: 1000.0, b.id: 1000.0},
    )
    rank = {key(a, b): 0.5, key(a, c): 1.0, key(b, c): 1.0}

    matchmaker = SmartMatchmaker(floor=0.0, rank_share=0.4, balance=0.0)
    probabilities = matchmaker.pair_probabilities([a, b, c], stats)

    expected = {k: 0.4 * r / math.fsum(rank.values()) for k, r in rank.items()}
    expected[key(a, b)] += 0.6
    assert probabilities == pytest.approx(expected)


def test_win_matrix_term_matches_a_worked_example() -> None:
    """Equals with certain ratings (no doubt in the order, so the win matrix decides alone).

    a-b: 3 games all won by the key's first model, 1/2 off the prediction of 1/2: the stray
    shrinks from 0.5 to E|N(0.375, 0.125**2)| = 0.3751, a gain of 0.1249. a-c: 3 games scoring
    1.5, as predicted: one more vote can only add noise, so 0. b-c: unplayed, E|N(0, 1/4)|.
    """
    a, b, c = model("a"), model("b"), model("c")
    stats = MatchmakingSnapshot(
        games={key(a, b): 3, key(a, c): 3},
        points={key(a, b): 3.0, key(a, c): 1.5},
        ci_width={m.id: 0.0 for m in (a, b, c)},
        rating={m.id: 1000.0 for m in (a, b, c)},
    )

    probabilities = SmartMatchmaker(floor=0.0, balance=0.0).pair_probabilities([a, b, c], stats)

    assert gain(3, 1.0, 0.0, 0.0) == pytest.approx(0.12490, abs=1e-5)
    total = gain(3, 1.0, 0.0, 0.0) + UNPLAYED
    assert probabilities == pytest.approx(
        {key(a, b): gain(3, 1.0, 0.0, 0.0) / total, key(a, c): 0.0, key(b, c): UNPLAYED / total}
    )


def test_smart_challenger_probabilities_match_a_worked_example() -> None:
    """Incumbent i and b rated equal, u unrated; i-b played once (lost by the key's first
    model), i-u three times, b-u never.

    The terms are normalised over the roster's three pairs; i's two pairs are then floored. The
    precision term is all on i-b, the only rated pair.
    """
    incumbent, b, u = model("i"), model("b"), model("u")
    stats = MatchmakingSnapshot(
        games={key(incumbent, b): 1, key(incumbent, u): 3},
        ci_width={incumbent.id: WIDTH_OF_ROOT_TWO, b.id: WIDTH_OF_ROOT_TWO},
        rating={incumbent.id: 1000.0, b.id: 1000.0},
    )
    win = {"b": gain(1, 0.0, 0.0, 4.0), "u": 0.0}
    precision = {"b": 1.0, "u": 0.0}
    rank = {"b": 0.5, "u": 1.0}
    win_total, rank_total = win["b"] + UNPLAYED, 0.5 + 1.0 + 1.0
    score = {
        m: 0.7 * (0.4 * win[m] / win_total + 0.6 * precision[m]) + 0.3 * rank[m] / rank_total
        for m in win
    }
    weight = {m: score[m] + 0.1 * max(score.values()) for m in score}

    probabilities = SmartMatchmaker(
        floor=0.1, rank_share=0.3, precision_share=0.6, balance=0.0
    ).challenger_probabilities([incumbent, b, u], incumbent, stats)

    total = math.fsum(weight.values())
    assert probabilities == pytest.approx({b.id: weight["b"] / total, u.id: weight["u"] / total})


def test_precision_term_matches_a_worked_example() -> None:
    """Three equals, with standard errors of sqrt(2) and of 1 (log-odds); all the weight on
    the precision term.

    With S = 1/4, a variance V gives V * (V S / (1 + V S)): 2 * 1/3 = 2/3 for the wide model,
    1 * 1/5 = 1/5 for each narrow one.
    """
    wide, narrow_1, narrow_2 = model("w"), model("n1"), model("n2")
    models = [wide, narrow_1, narrow_2]
    games = {key(a, b): 10**6 for i, a in enumerate(models) for b in models[i + 1 :]}
    stats = as_predicted(
        games=games,
        ci_width={wide.id: WIDTH_OF_ROOT_TWO, narrow_1.id: WIDTH_OF_ROOT_TWO / math.sqrt(2)}
        | {narrow_2.id: WIDTH_OF_ROOT_TWO / math.sqrt(2)},
        rating={m.id: 1000.0 for m in models},
    )
    precision = {
        key(wide, narrow_1): 2 / 3 + 1 / 5,
        key(wide, narrow_2): 2 / 3 + 1 / 5,
        key(narrow_1, narrow_2): 2 / 5,
    }

    matchmaker = SmartMatchmaker(floor=0.0, rank_share=0.0, precision_share=1.0)
    probabilities = matchmaker.pair_probabilities(models, stats)

    total = math.fsum(precision.values())
    assert probabilities == pytest.approx({k: v / total for k, v in precision.items()})


def test_a_settled_order_gives_its_share_back_to_the_win_matrix() -> None:
    """Neighbours 40 standard errors apart: no doubt, so rank_share changes nothing."""
    models = [model(name) for name in "abcd"]
    stats = MatchmakingSnapshot(
        games={key(a, b): 10 * (i + 1) for i, a in enumerate(models) for b in models[i + 1 :]},
        ci_width={m.id: 10.0 for m in models},
        rating={m.id: 1000.0 + 2_000.0 * i for i, m in enumerate(models)},
    )

    probabilities = SmartMatchmaker(rank_share=0.9).pair_probabilities(models, stats)

    expected = SmartMatchmaker(rank_share=0.0).pair_probabilities(models, stats)
    assert probabilities == pytest.approx(expected)


def test_doubt_scales_the_ranking_share_by_the_overlap_of_the_neighbours() -> None:
    """a and b are rated equal at the top (overlap 1); c lies far below b (overlap 0).

    doubt = (1 * top(0) + 0 * top(1)) / (top(0) + top(1)) = 1 / (1 + 5/6) = 6/11, and the
    ranking term is all on (a, b): 1/2 (learn) times 1 (overlap and top). So, to 1e-30, is the
    precision term (S of a 31,000-point gap is 1e-78): the rest follows the win matrix alone.
    """
    a, b, c = model("a"), model("b"), model("c")
    rating = {a.id: 1000.0, b.id: 1000.0, c.id: -30_000.0}
    games = {key(a, b): 4, key(a, c): 1, key(b, c): 9}
    # a and b beat c every time, as predicted; a-b is one win in four, 1/4 off the prediction.
    won = {key(a, b): 1.0, key(a, c): 1.0 if key(a, c)[0] == a.id else 0.0}
    won[key(b, c)] = 9.0 if key(b, c)[0] == b.id else 0.0
    stats = MatchmakingSnapshot(
        games=games,
        points=won,
        ci_width={m.id: WIDTH_OF_ROOT_TWO for m in (a, b, c)},
        rating=rating,
    )
    win = {
        pair: gain(games[pair], won[pair] / games[pair], lead(first, second, rating), 4.0)
        for first, second in ((a, b), (a, c), (b, c))
        for pair in [key(first, second)]
    }
    share = 0.3 * 6 / 11

    matchmaker = SmartMatchmaker(floor=0.0, rank_share=0.3, balance=0.0)
    probabilities = matchmaker.pair_probabilities([a, b, c], stats)

    total = math.fsum(win.values())
    expected = {k: (1 - share) * w / total for k, w in win.items()}
    expected[key(a, b)] += share
    assert win[key(a, b)] > 0.05 and win[key(a, c)] < 1e-30 and win[key(b, c)] < 1e-30
    assert probabilities == pytest.approx(expected)


def test_reach_holds_the_ranking_share_back_while_neighbours_are_too_close_to_tell_apart() -> None:
    """a, b, c one log-odds apart in a row, each with a standard error of sqrt(2) log-odds: the
    neighbours lie half a standard error of their difference (2) apart.

    reach = 1/2 for both neighbour pairs, overlap = exp(-1/8), so doubt = exp(-1/8) / 2
    (both pairs weigh the same, whatever their top factors). The ranking term is overlap * learn
    * top on the neighbours (learn = 4 S / (1 + 4 S) with S of a one log-odds gap), 0 on (a, c);
    the precision share is 0, and the records say what the ratings predict.
    """
    a, b, c = model("a"), model("b"), model("c")
    scale = matchmaking.SCALE
    rating = {a.id: 1000.0 + scale, b.id: 1000.0, c.id: 1000.0 - scale}
    games = {key(a, b): 20, key(a, c): 20, key(b, c): 20}
    stats = as_predicted(games, {m.id: WIDTH_OF_ROOT_TWO for m in (a, b, c)}, rating)
    win = {
        key(x, y): gain(20, stats.points[key(x, y)] / 20, lead(x, y, rating), 4.0)
        for x, y in ((a, b), (a, c), (b, c))
    }
    s = math.exp(-1.0) / (1.0 + math.exp(-1.0)) ** 2
    learn = 4 * s / (1 + 4 * s)
    overlap = math.exp(-1 / 8)
    rank = {
        key(a, b): overlap * learn * matchmaking._top(0),
        key(b, c): overlap * learn * matchmaking._top(1),
        key(a, c): 0.0,
    }
    share = 0.3 * overlap / 2

    probabilities = SmartMatchmaker(
        floor=0.0, rank_share=0.3, precision_share=0.0
    ).pair_probabilities([a, b, c], stats)

    win_total, rank_total = math.fsum(win.values()), math.fsum(rank.values())
    expected = {k: (1 - share) * win[k] / win_total + share * rank[k] / rank_total for k in win}
    assert probabilities == pytest.approx(expected)


def test_balance_pulls_the_models_shares_of_the_votes_towards_even() -> None:
    """Three equals with the same intervals; a has played b twice and c twice, b and c never.

    Only the precision term counts (the same for every pair). Games: a 4, b 2, c 2, mean 8/3,
    so even_a = ((8/3 + 1) / 5) ** 3 = (11/15) ** 3, clamped to 0.8 ** 3, and even_b = even_c =
    ((8/3 + 1) / 3) ** 3 = (11/9) ** 3, under the cap of 1.25.
    """
    a, b, c = model("a"), model("b"), model("c")
    games = {key(a, b): 2, key(a, c): 2}
    stats = as_predicted(
        games, {m.id: WIDTH_OF_ROOT_TWO for m in (a, b, c)}, {m.id: 1000.0 for m in (a, b, c)}
    )
    even = {a.id: 0.8**3, b.id: (11 / 9) ** 3, c.id: (11 / 9) ** 3}
    weight = {key(x, y): even[x.id] * even[y.id] for x, y in ((a, b), (a, c), (b, c))}

    matchmaker = SmartMatchmaker(floor=0.0, rank_share=0.0, precision_share=1.0)
    probabilities = matchmaker.pair_probabilities([a, b, c], stats)

    total = math.fsum(weight.values())
    assert probabilities == pytest.approx({k: w / total for k, w in weight.items()})
    assert SmartMatchmaker(
        floor=0.0, rank_share=0.0, precision_share=1.0, balance=0.0
    ).pair_probabilities([a, b, c], stats) == pytest.approx(dict.fromkeys(weight, 1 / 3))


def test_balance_gives_a_newcomer_to_a_long_board_a_bounded_share() -> None:
    """A model enabled on a long board is not in every round until it catches up: past the cap,
    its pull no longer grows with the games it lacks.

    Five equals with the same intervals; the four old models have played each other n times,
    the newcomer never. Games: 3n each for the old, 0 for it, mean 12n/5, so the ratios are
    1.25 (clamped) for the newcomer and (12n/5 + 1) / (3n + 1), close to 0.8, for the old.
    The win matrix is all on the newcomer's four unplayed pairs (the records score as
    predicted), the precision term even over the ten.
    """
    old = [model(name) for name in "abcd"]
    new = model("new")
    models = [*old, new]

    def newcomers_share(n: int) -> float:
        stats = as_predicted(
            {key(x, y): n for i, x in enumerate(old) for y in old[i + 1 :]},
            {m.id: 60.0 for m in models},
            {m.id: 1000.0 for m in models},
        )
        probabilities = SmartMatchmaker(floor=0.0, rank_share=0.0).pair_probabilities(models, stats)
        return math.fsum(p for pair, p in probabilities.items() if new.id in pair)

    mix_new, mix_old = 0.5 / 4 + 0.5 / 10, 0.5 / 10
    weight_new, weight_old = mix_new * (1.25 * 0.8) ** 3, mix_old * (0.8 * 0.8) ** 3
    expected = 4 * weight_new / (4 * weight_new + 6 * weight_old)
    assert newcomers_share(1_000) == pytest.approx(expected, rel=1e-3)
    assert newcomers_share(10**9) == pytest.approx(expected)
    assert expected < 0.9  # without the balance: 4 * mix_new = 0.7


def ranked_board(size: int, games: int) -> tuple[list[ModelEntry], MatchmakingSnapshot]:
    """``size`` models 10 points apart (m0 the best), every pair ``games`` games as predicted,
    the same intervals."""
    models = [model(f"m{place}") for place in range(size)]
    stats = as_predicted(
        games={key(a, b): games for i, a in enumerate(models) for b in models[i + 1 :]},
        ci_width={m.id: 60.0 for m in models},
        rating={m.id: 1500.0 - 10.0 * place for place, m in enumerate(models)},
    )
    return models, stats


def test_tilt_targets_more_games_for_the_top_and_fewer_for_the_last_places() -> None:
    """12 models with equal games g = 11 * 100: the first six places' targets are 1.15 g, the
    last four's 1 - 0.15 * 6 / 4 = 0.775 g (clamped to 0.8), the two between keep g. Each pair's
    weight moves from the untilted one by even_a * even_b."""
    models, stats = ranked_board(12, 100)
    g = 11 * 100
    ratio = {
        m.id: min(max((t * g + 1) / (g + 1), 0.8), 1.25)
        for m, t in zip(models, [1.15] * 6 + [1.0] * 2 + [0.775] * 4, strict=True)
    }

    tilted = SmartMatchmaker(floor=0.0).pair_probabilities(models, stats)
    even = SmartMatchmaker(floor=0.0, tilt=0.0).pair_probabilities(models, stats)

    weight = {pair: p * (ratio[pair[0]] * ratio[pair[1]]) ** 3 for pair, p in even.items()}
    total = math.fsum(weight.values())
    assert tilted == pytest.approx({pair: w / total for pair, w in weight.items()})

    def share(probabilities: dict[tuple[uuid.UUID, uuid.UUID], float], m: ModelEntry) -> float:
        return math.fsum(p for pair, p in probabilities.items() if m.id in pair)

    assert share(tilted, models[0]) > 1.3 * share(even, models[0])
    assert share(tilted, models[-1]) < 0.7 * share(even, models[-1])


@pytest.mark.parametrize(
    ("size", "tilt", "up", "down", "tail"),
    [
        pytest.param(6, 0.15, 0.0, 0.0, 0, id="6-all-lead"),
        pytest.param(7, 0.15, 1 / 12, 1 / 2, 1, id="7-capped"),
        pytest.param(10, 0.15, 0.15, 0.3, 3, id="10"),
        pytest.param(10, 1.0, 1 / 4, 1 / 2, 3, id="10-capped"),
        pytest.param(16, 0.15, 0.15, 0.15, 6, id="16"),
        pytest.param(50, 0.15, 0.15, 0.15, 6, id="50"),
    ],
)
def test_tilt_leaves_the_median_places_and_half_the_mean_to_the_last(
    size: int, tilt: float, up: float, down: float, tail: int
) -> None:
    """The targets of the module doc: at most floor(n / 2) - 2 places lose games (so the median
    interval is not theirs), none below half the mean, and the mean target stays 1."""
    models, stats = ranked_board(size, 10)
    ranking = matchmaking._ranking(models, matchmaking._rated(models, stats))

    targets = matchmaking._targets(models, ranking, tilt)

    expected = [1 + up] * min(size, 6) + [1.0] * (size - min(size, 6) - tail) + [1 - down] * tail
    assert [targets.get(m.id, 1.0) for m in models] == pytest.approx(expected)
    assert math.fsum(expected) == pytest.approx(size)


def test_no_tilt_while_a_model_is_unrated() -> None:
    models, stats = ranked_board(12, 10)
    stats = dataclasses.replace(
        stats, rating={k: v for k, v in stats.rating.items() if k != models[3].id}
    )
    ranking = matchmaking._ranking(models, matchmaking._rated(models, stats))

    assert matchmaking._targets(models, ranking, 0.15) == {}


@given(roster_stats=rosters_and_stats(), incumbent_index=st.integers(0, 7))
def test_challenger_weights_are_the_incumbents_pair_weights(
    roster_stats: tuple[list[ModelEntry], MatchmakingSnapshot], incumbent_index: int
) -> None:
    """Without a floor, a challenger is drawn as its pair with the incumbent would be."""
    models, stats = roster_stats
    incumbent = models[incumbent_index % len(models)]
    matchmaker = SmartMatchmaker(floor=0.0)
    pairs = matchmaker.pair_probabilities(models, stats)
    row = {m.id: pairs[key(incumbent, m)] for m in models if m.id != incumbent.id}

    probabilities = matchmaker.challenger_probabilities(models, incumbent, stats)

    total = math.fsum(row.values())
    if total > 0:  # all-zero scores fall back to uniform on both sides
        assert probabilities == pytest.approx({m: p / total for m, p in row.items()})


def test_never_played_pair_is_chosen_far_more_often_than_a_pair_with_1000_games() -> None:
    models = [model(name) for name in ("w", "x", "y", "z")]
    w, x, y, z = models
    stats = MatchmakingSnapshot(
        games={key(a, b): 1_000 for i, a in enumerate(models) for b in models[i + 1 :]}
        | {key(x, y): 0},
    )

    counts = draw_pairs(SmartMatchmaker(), models, stats, draws=4_000)

    # Unrated throughout: 0.7 of the weight goes to the cold pair, 0.3 / 6 to every pair; with
    # the floor the expected ratio is about 9.
    assert counts[key(x, y)] > 6 * counts[key(x, z)]


def test_a_record_that_strays_from_the_ratings_is_chosen_more_often() -> None:
    """Four equals, every pair played 40 times and scoring half, but for one: 30 wins of 40."""
    models = [model(name) for name in "abcd"]
    a, b, c, d = models
    games = {key(p, q): 40 for i, p in enumerate(models) for q in models[i + 1 :]}
    stats = MatchmakingSnapshot(
        games=games,
        points={pair: 20.0 for pair in games} | {key(a, b): 30.0},
        ci_width={m.id: 60.0 for m in models},
        rating={m.id: 1000.0 for m in models},
    )

    probabilities = SmartMatchmaker().pair_probabilities(models, stats)

    assert probabilities[key(a, b)] > 2 * probabilities[key(c, d)]
    assert probabilities[key(a, b)] == max(probabilities.values())


def test_ranking_neighbours_with_overlapping_intervals_are_chosen_more_often() -> None:
    close_1, close_2, far_1, far_2 = (model(n) for n in ("c1", "c2", "f1", "f2"))
    models = [close_1, close_2, far_1, far_2]
    stats = as_predicted(
        games={key(a, b): 100 for i, a in enumerate(models) for b in models[i + 1 :]},
        ci_width={m.id: 60.0 for m in models},
        rating={close_1.id: 1010.0, close_2.id: 1000.0, far_1.id: 1300.0, far_2.id: 1600.0},
    )

    probabilities = SmartMatchmaker().pair_probabilities(models, stats)

    # Every record scores what the ratings predict, so the win matrix has nothing to chase. The
    # other neighbours (1300-1010, 1600-1300) lie 13 standard errors apart: all of the ranking
    # term goes to the close pair. The precision term is even for equal widths but for S (0.25
    # against 0.15). Expected ratio about 3.3.
    assert probabilities[key(close_1, close_2)] > 2 * probabilities[key(far_1, far_2)]
    assert probabilities[key(close_1, close_2)] == max(probabilities.values())


def test_an_uncertain_order_at_the_top_outweighs_the_same_at_the_bottom() -> None:
    ratings = {
        **{"t1": 1505.0, "t2": 1500.0, "m1": 1300.0, "m2": 1100.0},
        **{"m3": 900.0, "m4": 700.0, "b1": 505.0, "b2": 500.0},
    }
    models = [model(name) for name in ratings]
    by_name = {m.display_name: m for m in models}
    stats = as_predicted(
        games={key(a, b): 100 for i, a in enumerate(models) for b in models[i + 1 :]},
        ci_width={m.id: 60.0 for m in models},
        rating={by_name[name].id: r for name, r in ratings.items()},
    )

    probabilities = SmartMatchmaker().pair_probabilities(models, stats)

    top = probabilities[key(by_name["t1"], by_name["t2"])]
    bottom = probabilities[key(by_name["b1"], by_name["b2"])]
    # Same gap, widths and games, records as predicted: only the top factor differs (1 at
    # place 0 against 1 / (1 + (6/5)**3) = 0.37 at place 6); expected ratio about 1.7.
    assert top > 1.3 * bottom


def test_unrated_challenger_is_favoured_over_a_narrow_interval_one() -> None:
    incumbent, narrow, unrated, wide = model("i"), model("narrow"), model("new"), model("wide")
    models = [incumbent, narrow, unrated, wide]
    stats = as_predicted(
        games={key(a, b): 1_000 for i, a in enumerate(models) for b in models[i + 1 :]},
        ci_width={incumbent.id: 5.0, narrow.id: 5.0, wide.id: 100.0},
        rating={incumbent.id: 1000.0, narrow.id: 1300.0, wide.id: 1100.0},
    )
    rng = random.Random(9)

    counts = Counter(
        SmartMatchmaker().pick_challenger(models, incumbent, stats, rng).id for _ in range(3_000)
    )

    # expected ratio about 6
    assert counts[unrated.id] > 3 * counts[narrow.id]


def test_unrated_pair_is_favoured_over_a_narrow_interval_pair() -> None:
    narrow_1, narrow_2, new_1, new_2, wide = (model(n) for n in ("n1", "n2", "u1", "u2", "w"))
    models = [narrow_1, narrow_2, new_1, new_2, wide]
    stats = as_predicted(
        games={key(a, b): 1_000 for i, a in enumerate(models) for b in models[i + 1 :]},
        ci_width={narrow_1.id: 2.0, narrow_2.id: 2.0, wide.id: 100.0},
        rating={narrow_1.id: 1010.0, narrow_2.id: 1000.0, wide.id: 1200.0},
    )

    probabilities = SmartMatchmaker().pair_probabilities(models, stats)

    # The win matrix has nothing to chase (records as predicted, or nothing to predict them);
    # the ranking term goes to unrated models (1 for each of their 7 pairs) and not to
    # neighbours 17 standard errors apart. Expected ratio about 3.4.
    assert probabilities[key(new_1, new_2)] > 2 * probabilities[key(narrow_1, narrow_2)]


def test_floor_makes_every_pair_reachable() -> None:
    wide, *narrow = [model(name) for name in ("wide", "a", "b", "c", "d", "e")]
    models = [wide, *narrow]
    stats = MatchmakingSnapshot(
        games={key(a, b): 10**6 for i, a in enumerate(models) for b in models[i + 1 :]}
        | {key(narrow[0], narrow[1]): 0},
        ci_width={wide.id: 1_000.0} | {m.id: 1.0 for m in narrow},
        rating={m.id: 1000.0 + 100 * i for i, m in enumerate(models)},
    )

    counts = draw_pairs(SmartMatchmaker(), models, stats, draws=3_000)

    assert set(counts) == {key(a, b) for i, a in enumerate(models) for b in models[i + 1 :]}


def test_smart_pair_order_is_random() -> None:
    a, b = model("a"), model("b")
    rng = random.Random(13)

    firsts = Counter(SmartMatchmaker().pick_pair([a, b], EMPTY, rng)[0].id for _ in range(2_000))

    assert 900 <= firsts[a.id] <= 1_100


def test_huge_rating_gaps_and_game_counts_stay_finite() -> None:
    a, b, c = model("a"), model("b"), model("c")
    stats = MatchmakingSnapshot(
        games={key(a, b): 10**18, key(a, c): 10**18, key(b, c): 10**18},
        points={key(a, b): 1e300, key(a, c): -5.0, key(b, c): 0.5e18},
        ci_width={a.id: 1e-300, b.id: 1e300, c.id: 50.0},
        rating={a.id: -1e300, b.id: 1e300, c.id: 1000.0},
    )

    probabilities = SmartMatchmaker().pair_probabilities([a, b, c], stats)

    assert all(math.isfinite(p) and p > 0 for p in probabilities.values())
    assert math.fsum(probabilities.values()) == pytest.approx(1.0)


def test_weights_follow_a_new_snapshot_or_roster_at_once() -> None:
    """Weights are kept per snapshot object and roster, and never served for another."""
    a, b, c = model("a"), model("b"), model("c")
    matchmaker = SmartMatchmaker(floor=0.0)
    cold = MatchmakingSnapshot(games={key(a, b): 50, key(a, c): 50})
    fresh = dataclasses.replace(cold, games={key(a, b): 50, key(b, c): 50})

    first = matchmaker.pair_probabilities([a, b, c], cold)
    again = matchmaker.pair_probabilities([a, b, c], cold)
    replaced = matchmaker.pair_probabilities([a, b, c], fresh)
    fewer = matchmaker.pair_probabilities([a, b], fresh)

    assert first == again
    assert max(first, key=first.__getitem__) == key(b, c)  # the unplayed pair
    assert max(replaced, key=replaced.__getitem__) == key(a, c)
    assert fewer == {key(a, b): 1.0}
    rng = random.Random(3)
    assert {key(*matchmaker.pick_pair([a, b], fresh, rng)) for _ in range(20)} == {key(a, b)}
