"""The matchmaking simulation (benchmarks/matchmaking.py), run tiny: arena, voter, metrics."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from arena_api.core.matchmaking import SmartMatchmaker
from arena_api.core.ports import pair_key
from arena_rating import SCALE
from benchmarks import matchmaking as simulation
from benchmarks.matchmaking import RunSpec, plant, simulate

ATOL = 1e-9


@pytest.fixture(scope="module")
def tiny_runs() -> list[simulation.RunResult]:
    """Two seeds of each strategy on 8 models 800 points apart (a few thousand votes each)."""
    return [
        simulate(RunSpec(n_models=8, spread=800.0, seed=seed, strategy=strategy, budget=30_000))
        for seed in (1, 2)
        for strategy in simulation.STRATEGIES
    ]


def test_planted_strengths_span_the_spread_with_ten_percent_ties() -> None:
    arena = plant(8, 400.0, np.random.default_rng(3))

    ties = 1.0 - arena.p_first - arena.p_second

    assert np.ptp(arena.strengths) * SCALE == pytest.approx(400.0)
    assert ties.mean() == pytest.approx(simulation.TIE_SHARE)
    assert arena.top == sorted(range(8), key=lambda m: -arena.strengths[m])[:5]


def test_equal_strengths_leave_no_allocation_better_than_uniform() -> None:
    arena = plant(6, 0.0, np.random.default_rng(0))

    assert simulation.best_empirical_ratio(arena) == pytest.approx(1.0, abs=ATOL)


def test_voter_answers_with_the_planted_probabilities() -> None:
    sim = simulation._Simulation(RunSpec(8, 400.0, seed=5, strategy="random", budget=1))
    pair = int(np.argmax(sim.arena.p_first))

    sim.vote(np.full(40_000, pair, dtype=np.intp))

    shares = np.array([sim.wins_first[pair], sim.wins_second[pair], sim.ties[pair]]) / 40_000
    planted = [
        sim.arena.p_first[pair],
        sim.arena.p_second[pair],
        1 - sim.arena.p_first[pair] - sim.arena.p_second[pair],
    ]
    np.testing.assert_allclose(shares, planted, atol=0.01)


@pytest.mark.parametrize("strategy", simulation.STRATEGIES)
def test_every_metric_is_reached_within_the_budget(
    tiny_runs: list[simulation.RunResult], strategy: str
) -> None:
    runs = [r for r in tiny_runs if r.spec.strategy == strategy]

    for run in runs:
        assert set(run.votes) == set(simulation.METRICS)
        for metric, votes in run.votes.items():
            assert votes is not None
            # (a) is interpolated within the check interval; the others are at a check
            assert metric == "a" or votes % simulation.CHECK_EVERY == 0
            # reached at a check that held for STABLE_FOR more votes, all within the budget
            assert 0 < votes <= run.votes_cast - simulation.STABLE_FOR
            assert run.votes_cast <= run.spec.budget
        assert run.tie_share == pytest.approx(simulation.TIE_SHARE, abs=0.02)


def test_the_interval_width_crossing_is_interpolated_in_information() -> None:
    """Width 40 at 1,000 votes, 20 at 1,250: 1/width**2 goes from 1/1600 to 1/400, so a
    target of 40/sqrt(2) (1/800, a third of the way) is crossed at 1,083.3 votes."""
    check = simulation.CHECK_EVERY

    assert simulation.crossing(1_250, 40.0, 20.0, 40 / math.sqrt(2)) == pytest.approx(
        1_000 + check / 3
    )
    assert simulation.crossing(1_250, 40.0, 20.0, 20.0) == 1_250
    # no earlier width (the first check, or models not rated yet): the check itself
    assert simulation.crossing(250, math.inf, 20.0, 30.0) == 250
    assert simulation.crossing(250, math.nan, 20.0, 30.0) == 250


def test_a_metric_not_held_within_the_budget_is_censored() -> None:
    """With 500 votes no metric can hold for 500 more: every one is censored."""
    run = simulate(RunSpec(8, 200.0, seed=1, strategy="smart", budget=500))

    assert run.votes == dict.fromkeys(simulation.METRICS)
    assert run.votes_cast == 500


def test_smart_draws_follow_what_pick_pair_would_choose() -> None:
    """The simulation samples ``pair_probabilities`` in bulk; ``pick_pair`` must agree."""
    sim = simulation._Simulation(RunSpec(6, 800.0, seed=3, strategy="smart", budget=1))
    for _ in range(4):
        sim.vote(sim.draw_pairs(simulation.CHECK_EVERY))
        sim.rate()
    rng = random.Random(1)
    draws = 20_000
    smart = sim.matchmaker
    assert isinstance(smart, SmartMatchmaker)

    picks = Counter(
        pair_key(*(m.id for m in smart.pick_pair(sim.models, sim.snapshot, rng)))
        for _ in range(draws)
    )

    probabilities = smart.pair_probabilities(sim.models, sim.snapshot)
    for key, p in probabilities.items():
        assert abs(picks[key] / draws - p) <= 5 * math.sqrt(p * (1 - p) / draws)


def test_smart_gives_the_planted_top_more_games_and_the_last_places_fewer() -> None:
    """The tilt of the module doc on a simulated board: 12 models 400 points apart, 5,000 votes.
    The top six's target is 1.15 times the mean games, the last four's 0.775, the two between
    keep the mean. The pull is soft (the other terms weigh in, and the fitted ranking is not
    the planted one at first): about 1.09 and 0.865 are reached."""
    sim = simulation._Simulation(RunSpec(12, 400.0, seed=5, strategy="smart", budget=1))
    for _ in range(20):
        for _ in range(simulation.CHECK_EVERY // 50):
            sim.vote(sim.draw_pairs(50))
            sim.snapshot = sim.record()
        sim.rate()
    games = np.bincount(sim.arena.first, sim.totals, 12) + np.bincount(
        sim.arena.second, sim.totals, 12
    )
    by_place = games[np.argsort(-sim.arena.strengths)] / games.mean()

    assert 1.05 < by_place[:6].mean() < 1.15
    assert 0.775 < by_place[-4:].mean() < 0.92
    assert by_place[6:8].mean() == pytest.approx(1.0, abs=0.08)


def test_snapshot_carries_the_latest_rating_pass() -> None:
    sim = simulation._Simulation(RunSpec(6, 400.0, seed=4, strategy="random", budget=1))
    sim.vote(sim.draw_pairs(simulation.CHECK_EVERY))

    report = sim.rate()

    assert sum(sim.snapshot.games.values()) == simulation.CHECK_EVERY
    # the key's first model is the arena's `first` of the pair: its wins and half its ties
    won = sim.wins_first + 0.5 * sim.ties
    assert all(key[0] == sim.ids[sim.arena.first[k]] for k, key in enumerate(sim.keys))
    assert dict(sim.snapshot.points) == {
        sim.keys[k]: pytest.approx(won[k]) for k in np.flatnonzero(sim.totals)
    }
    widths = report.rows.ci_upper - report.rows.ci_lower
    assert dict(sim.snapshot.ci_width) == pytest.approx(dict(zip(sim.ids, widths, strict=True)))
    assert dict(sim.snapshot.rating) == pytest.approx(
        dict(zip(sim.ids, report.rows.rating, strict=True))
    )


def test_censored_runs_stay_censored_in_the_quantiles() -> None:
    values = np.array([1_000.0, 2_000.0, math.inf, math.inf])

    assert simulation.quantile(values, 0.25) == pytest.approx(1_750.0)
    assert simulation.quantile(values, 0.5) == math.inf


def test_report_has_every_metric_and_the_ratio_summary(
    tiny_runs: list[simulation.RunResult],
) -> None:
    text = simulation.report(tiny_runs, seconds=1.0)

    assert "N = 8 models, spread 800 points" in text
    for label in simulation.labels(simulation.targets(8)).values():
        assert label in text
    assert "smart/random, ratio of the median votes needed" in text


def test_a_censored_random_median_makes_the_ratio_an_upper_bound() -> None:
    smart = np.array([1_000.0, 1_250.0, 1_500.0])
    random_ = np.array([math.inf, math.inf, 2_000.0])

    ratio, low, high, qualifier = simulation.median_ratio(
        smart, random_, budget=5_000, rng=np.random.default_rng(0)
    )

    assert qualifier == "<="
    assert ratio == pytest.approx(1_250 / 5_000)
    assert low <= ratio <= high


def test_top_oracle_gives_its_share_to_the_pairs_among_the_planted_top_six() -> None:
    arena = plant(10, 400.0, np.random.default_rng(2))
    six = np.argsort(-arena.strengths)[:6]

    p = simulation.oracle_probabilities(arena, simulation.Oracle("top", 0.3))

    inside = np.isin(arena.first, six) & np.isin(arena.second, six)
    assert inside.sum() == 15
    np.testing.assert_allclose(p[inside], 0.7 / 45 + 0.3 / 15)
    np.testing.assert_allclose(p[~inside], 0.7 / 45)


def test_even_oracle_keeps_every_models_share_of_the_games_even() -> None:
    arena = plant(12, 800.0, np.random.default_rng(4))
    six = np.argsort(-arena.strengths)[:6]

    p = simulation.oracle_probabilities(arena, simulation.Oracle("even", 0.5))

    per_model = np.bincount(arena.first, p, 12) + np.bincount(arena.second, p, 12)
    np.testing.assert_allclose(per_model, 2 / 12)
    across = np.isin(arena.first, six) != np.isin(arena.second, six)
    np.testing.assert_allclose(p[across], 0.5 / 66)
    assert p.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("oracle", "n_models"),
    [("even:0.5", 7), ("even:-0.1", 10), ("even:2", 10), ("top:1.5", 10), ("top:0.3", 5)],
)
def test_an_oracle_split_that_does_not_fit_is_rejected(oracle: str, n_models: int) -> None:
    with pytest.raises(ValueError):
        simulation.parse_oracle(oracle).check(n_models)
    with pytest.raises(SystemExit):
        simulation.main(["--oracle", oracle, "--models", str(n_models), "--seeds", "1"])


@pytest.mark.parametrize("text", ["top", "top:x", "middle:0.3", "even:nan"])
def test_a_malformed_oracle_is_a_usage_error(text: str) -> None:
    with pytest.raises(SystemExit):
        simulation.main(["--oracle", text, "--seeds", "1"])


def test_an_oracle_run_is_reported_against_random() -> None:
    oracle = simulation.parse_oracle("top:0.3")
    runs = [
        simulate(RunSpec(8, 800.0, seed=1, strategy=strategy, budget=30_000, oracle=oracle))
        for strategy in ("random", "oracle")
    ]

    text = simulation.report(runs, seconds=1.0)

    assert all(v is not None for run in runs for v in run.votes.values())
    assert "oracle/random, ratio of the median votes needed" in text
    assert "the planted top 6 get 30 % of the votes" in text
