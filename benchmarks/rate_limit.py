"""What ARENA_RATE_LIMIT costs a round: the limiter alone, and full rounds with it on and off.

1. In process: ``RateLimiter.check`` with ``5/second,100/hour`` (two windows) over 10,000
   clients, against a bare dict lookup of the same keys (the least any per-client limiter
   does), in nanoseconds per request.
2. Full rounds of the in-process mock at 64 concurrent, with the vote (two limited requests
   per round: the chat and the vote), through our server (``create_api`` under granian),
   limiter off and on (a limit that never refuses, so every request pays the full check),
   alternating, in the same run. Target: on / off >= 0.98.

Usage: python benchmarks/rate_limit.py [--seconds 8] [--repeats 3] [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.core.ratelimit import RateLimiter, parse_limits  # noqa: E402
from benchmarks.relay_http import MOCK_ROSTER, arena_server, measure  # noqa: E402

CLIENTS = 10_000
CALLS = 400_000


async def limiter_cost() -> tuple[float, float]:
    """(ns per check, ns per bare dict lookup) over ``CALLS`` requests of ``CLIENTS`` clients."""
    clock = iter(range(10**9))
    limiter = RateLimiter(parse_limits("5/second,100/hour"), lambda: next(clock) * 1e-4)
    keys = [f"203.0.{n // 256}.{n % 256}" for n in range(CLIENTS)]
    started = time.perf_counter_ns()
    for n in range(CALLS):
        await limiter.check("chat", keys[n % CLIENTS])
    checked = (time.perf_counter_ns() - started) / CALLS
    table = {("chat", key): n for n, key in enumerate(keys)}
    started = time.perf_counter_ns()
    for n in range(CALLS):
        table.get(("chat", keys[n % CLIENTS]))
    bare = (time.perf_counter_ns() - started) / CALLS
    return checked, bare


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    checked, bare = asyncio.run(limiter_cost())
    print(
        f"limiter alone: {checked:.0f} ns per request (5/second,100/hour, {CLIENTS:,} clients); "
        f"a bare dict lookup {bare:.0f} ns"
    )
    env = {
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_MOCK_TOKENS": "4",
        "ARENA_MOCK_TOKENS_PER_SECOND": "0",
    }
    figures: dict[str, list[float]] = {"off": [], "on": []}
    print(f"full mock rounds with the vote, 64 concurrent, {args.seconds:g} s per run")
    for _ in range(args.repeats):
        for name, limit in (("off", ""), ("on", "100000000/second,100000000/hour")):
            with arena_server(
                args.database_url, MOCK_ROSTER, {**env, "ARENA_RATE_LIMIT": limit}
            ) as (url, pid):
                level = measure(name, url, "/api/arena/chat", pid, [64], args.seconds, True)[0]
            figures[name].append(level.rounds_per_s)
    off, on = statistics.median(figures["off"]), statistics.median(figures["on"])
    per_round_ns = 1e9 / on if on else float("nan")
    print(
        f"  median rounds/s: limiter off {off:.1f}, on {on:.1f}; on / off {on / off:.3f} "
        f"(target >= 0.98); the two checks of a round are {2 * checked / per_round_ns:.2%} "
        "of its time"
    )


if __name__ == "__main__":
    main()
