"""Join overhead: time to first token of a joined pair against the same matchup on one connection.

Both measured in one run on one server (granian, one worker, embedded PostgreSQL, mock provider
at 50 tokens/s). The pair's two requests are sent at the same instant; each sibling's TTFT is
measured from its own request. Target: at most 5 ms added at p50.

Usage: python benchmarks/join_overhead.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.db.engine import embedded_postgres  # noqa: E402
from benchmarks.arena_stream import (  # noqa: E402
    _arena_env,
    _pct,
    prepare_database,
    served,
    stream_once,
)


async def measure(url: str, rounds: int) -> tuple[list[float], list[float]]:
    host, port = url.removeprefix("http://").split(":")
    single: list[float] = []
    joined: list[float] = []
    for index in range(rounds):
        body = {"prompt": f"question {index}", "sessionId": "bench"}
        one = await stream_once(host, int(port), "/api/arena/chat", json.dumps(body).encode())
        single.append(one.ttft)
        pair_body = json.dumps({**body, "joinKey": f"pair-{uuid.uuid4()}"}).encode()
        pair = await asyncio.gather(
            stream_once(host, int(port), "/api/arena/chat", pair_body),
            stream_once(host, int(port), "/api/arena/chat", pair_body),
        )
        if sorted(tuple(s.started["slots"]) for s in pair) != [("A",), ("B",)]:
            raise RuntimeError(f"the pair did not join: {[s.started for s in pair]}")
        joined += [s.ttft for s in pair]
    return single, joined


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    mock = {"ARENA_MOCK_TOKENS_PER_SECOND": "50", "ARENA_MOCK_TOKENS": "5"}
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres(Path(tmp)) as pg:
        asyncio.run(prepare_database(pg.url))
        with served("arena_app", _arena_env(pg.url, Path(tmp), **mock)) as url:
            asyncio.run(measure(url, 10))  # warm up
            single, joined = asyncio.run(measure(url, args.rounds))
    print(f"time to first token over {args.rounds} rounds (ms)")
    print(f"  {'':<28}{'p50':>8}{'p90':>8}{'p99':>8}")
    for name, values in (
        ("one connection, both slots", single),
        ("joined pair, per sibling", joined),
    ):
        print(
            f"  {name:<28}{_pct(values, 0.5) * 1000:>8.2f}{_pct(values, 0.9) * 1000:>8.2f}"
            f"{_pct(values, 0.99) * 1000:>8.2f}"
        )
    added = (statistics.median(joined) - statistics.median(single)) * 1000
    print(f"  added by joining at p50: {added:+.2f} ms (target <= 5 ms)")
    ratio = statistics.median(joined) / statistics.median(single)
    print(f"  ratio joined/single at p50: {ratio:.2f}x")


if __name__ == "__main__":
    main()
