"""What cluster mode (``REDIS_URL``) costs: rounds per second, and a slot join across replicas.

1. Throughput: full mock rounds with the vote at 64 concurrent through our server (``create_api``
   under granian, one worker), single-process mode (no ``REDIS_URL``) against cluster mode with
   one replica (a redis-server of the benchmark's own on a loopback port), alternating, in the
   same run. Every cluster round records its home replica in Redis and removes it at the end.
   Target: cluster / single >= 0.9.
2. Join overhead: the time to first token of a joined pair's follower (the sibling streaming
   slot B), both siblings sent at the same instant, with
   - one server in single-process mode (the in-memory broker),
   - two replicas, both siblings sent to the same one,
   - two replicas, one sibling to each (roles and the follower's slot go through Redis).
   Target: across replicas at most 10 ms over the same replica at p50.

Usage: python benchmarks/cluster.py [--seconds 8] [--repeats 3] [--rounds 200]
       [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.db.engine import embedded_postgres  # noqa: E402
from benchmarks.arena_stream import _pct, stream_once  # noqa: E402
from benchmarks.relay_http import MOCK_ROSTER, arena_server, measure  # noqa: E402
from tests.support import RedisServer  # noqa: E402

FAST = {"ARENA_MOCK_PROVIDER": "1", "ARENA_MOCK_TOKENS": "4", "ARENA_MOCK_TOKENS_PER_SECOND": "0"}
JOIN = {"ARENA_MOCK_PROVIDER": "1", "ARENA_MOCK_TOKENS": "5", "ARENA_MOCK_TOKENS_PER_SECOND": "50"}


def throughput(database: str, redis_url: str, seconds: float, repeats: int) -> None:
    figures: dict[str, list[float]] = {"single": [], "cluster": []}
    print(f"full mock rounds with the vote, 64 concurrent, {seconds:g} s per run")
    for _ in range(repeats):
        for name, extra in (("single", {}), ("cluster", {"REDIS_URL": redis_url})):
            with arena_server(database, MOCK_ROSTER, {**FAST, **extra}) as (url, pid):
                level = measure(name, url, "/api/arena/chat", pid, [64], seconds, True)[0]
            figures[name].append(level.rounds_per_s)
    single, cluster = (statistics.median(figures[n]) for n in ("single", "cluster"))
    print(
        f"  median rounds/s: single process {single:.1f}, cluster (one replica) {cluster:.1f}; "
        f"cluster / single {cluster / single:.3f} (target >= 0.9)"
    )


def _address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


async def _follower_ttft(first: str, second: str, rounds: int) -> list[float]:
    """TTFT of the follower of ``rounds`` pairs, one sibling sent to each URL at once."""
    values = []
    for index in range(rounds):
        body = json.dumps(
            {"prompt": f"q {index}", "sessionId": "bench", "joinKey": f"pair-{uuid.uuid4()}"}
        ).encode()
        pair = await asyncio.gather(
            *(stream_once(*_address(url), "/api/arena/chat", body) for url in (first, second))
        )
        slots = sorted(tuple(s.started["slots"]) for s in pair)  # type: ignore[arg-type]
        if slots != [("A",), ("B",)]:
            raise RuntimeError(f"the pair did not join: {[s.started for s in pair]}")
        values += [s.ttft for s in pair if s.started["slots"] == ["B"]]
    return values


def join_overhead(database: str, redis_url: str, rounds: int) -> None:
    results: dict[str, list[float]] = {}
    with arena_server(database, MOCK_ROSTER, JOIN) as (url, _):
        asyncio.run(_follower_ttft(url, url, 10))  # warm up
        results["single process, one server"] = asyncio.run(_follower_ttft(url, url, rounds))
    cluster = {**JOIN, "REDIS_URL": redis_url}
    with (
        arena_server(database, MOCK_ROSTER, cluster) as (one, _),
        arena_server(database, MOCK_ROSTER, cluster) as (two, _),
    ):
        asyncio.run(_follower_ttft(one, two, 10))
        same, across = [], []
        for _ in range(rounds // 20):  # interleaved, so that both see the same machine
            same += asyncio.run(_follower_ttft(one, one, 10))
            across += asyncio.run(_follower_ttft(one, two, 10))
        results["cluster, same replica"] = same
        results["cluster, across replicas"] = across
    print(f"\nfollower's time to first token over {rounds} pairs (ms)")
    print(f"  {'':<30}{'p50':>8}{'p90':>8}{'p99':>8}")
    for name, values in results.items():
        print(
            f"  {name:<30}{_pct(values, 0.5) * 1000:>8.2f}{_pct(values, 0.9) * 1000:>8.2f}"
            f"{_pct(values, 0.99) * 1000:>8.2f}"
        )
    added = statistics.median(across) - statistics.median(same)
    print(f"  across replicas over the same replica at p50: {added * 1000:+.2f} ms (target <= 10)")
    ratio = statistics.median(across) / statistics.median(results["single process, one server"])
    print(f"  across replicas / single process at p50: {ratio:.2f}x")


@contextlib.contextmanager
def _database(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres(Path(tmp)) as pg:
        yield pg.url


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as tmp,
        RedisServer(Path(tmp)) as redis,
        _database(args.database_url) as database,
    ):
        throughput(database, redis.url, args.seconds, args.repeats)
        join_overhead(database, redis.url, args.rounds)


if __name__ == "__main__":
    main()
