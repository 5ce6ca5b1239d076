"""What choosing a pair costs a round: the smart matchmaker against the random one.

A round asks the matchmaker for a pair with the repository's snapshot, which is re-read at most
every 2 s (``PostgresRepository.snapshot``). The smart matchmaker weighs every pair once per
snapshot and roster (O(models**2)) and then only draws; the random one never weighs. Printed per
roster size, in microseconds per pick (best of ``--repeats`` runs of ``--seconds``):

- warm: the same snapshot as the round before (nearly every round);
- cold: a new snapshot for every pick (the first round after each refresh);
- both with 1,000 and with 1,000,000 games per pair, to show the cost does not grow with votes;
- the ratio smart/random, measured in the same run.

Usage: python benchmarks/matchmaker_cost.py [--models 10,20,50] [--seconds 0.5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.core.matchmaking import RandomMatchmaker, SmartMatchmaker  # noqa: E402
from arena_api.core.models import ModelEntry  # noqa: E402
from arena_api.core.ports import MatchmakingSnapshot, pair_key  # noqa: E402


def arena(
    n_models: int, games_per_pair: int, rng: random.Random
) -> tuple[list[ModelEntry], MatchmakingSnapshot]:
    """A rated roster whose every pair has played, with records around their predictions."""
    models = [ModelEntry(uuid.UUID(int=m + 1), f"m{m}", "mock", f"m{m}") for m in range(n_models)]
    games = {
        pair_key(a.id, b.id): games_per_pair for i, a in enumerate(models) for b in models[i + 1 :]
    }
    return models, MatchmakingSnapshot(
        games=games,
        points={key: n * rng.uniform(0.2, 0.8) for key, n in games.items()},
        ci_width={m.id: rng.uniform(10.0, 80.0) for m in models},
        rating={m.id: rng.uniform(800.0, 1200.0) for m in models},
    )


def per_pick(pick: Callable[[], object], seconds: float, repeats: int) -> float:
    """Microseconds per call, the best of ``repeats`` timed runs."""
    best = float("inf")
    for _ in range(repeats):
        calls, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            pick()
            calls += 1
        best = min(best, elapsed / calls * 1e6)
    return best


def measure(
    models: list[ModelEntry], stats: MatchmakingSnapshot, seconds: float, repeats: int
) -> tuple[float, float, float]:
    """Microseconds per pick: random, smart with the same snapshot, smart with a new one."""
    smart, uniform, draw = SmartMatchmaker(), RandomMatchmaker(), random.Random(1)
    return (
        per_pick(lambda: uniform.pick_pair(models, stats, draw), seconds, repeats),
        per_pick(lambda: smart.pick_pair(models, stats, draw), seconds, repeats),
        per_pick(
            lambda: smart.pick_pair(models, dataclasses.replace(stats), draw), seconds, repeats
        ),
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="10,20,50")
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = random.Random(7)
    print(
        f"{'models':>6} {'games/pair':>10} {'random':>9} {'smart warm':>11} {'smart cold':>11}"
        f" {'warm/random':>12} {'cold/random':>12}"
    )
    for n_models in (int(n) for n in args.models.split(",")):
        for games in (1_000, 1_000_000):
            models, stats = arena(n_models, games, rng)
            base, warm, cold = measure(models, stats, args.seconds, args.repeats)
            print(
                f"{n_models:>6} {games:>10,} {base:>8.1f}µ {warm:>10.1f}µ {cold:>10.1f}µ"
                f" {warm / base:>12.2f} {cold / base:>12.1f}"
            )


if __name__ == "__main__":
    main()
