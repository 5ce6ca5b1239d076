"""Relay cost and full-round throughput of the arena, against baselines measured in the same run.

relay    N concurrent matchups (2N streams) at a fixed mock token rate through the real HTTP
         server (granian, one worker), beside a bare sse-starlette endpoint streaming the same
         mock generator with no arena logic. Prints token throughput, time to first byte and
         the inter-token delay per slot, and the arena's ratios to the baseline.
rounds   Full rounds per second (stream to matchup_done, then vote) at concurrency 1, 16, 64
         with a 4-token mock and no delay, on an empty database and again after 1,000,000
         stored votes; prints the ratio of the second to the first.

protocols  End-to-end relay time of every registered protocol beside native SSE: concurrent
         rounds with a fast mock, timed until every response has ended.

Usage: python benchmarks/arena_stream.py [relay|rounds|protocols|all] [--matchups 200] [--rate 20]
       [--tokens 40] [--votes 1000000] [--seconds 8]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.db.engine import create_engine, embedded_postgres  # noqa: E402
from arena_api.db.migrations import upgrade  # noqa: E402
from arena_api.db.repository import seed_roster  # noqa: E402
from arena_api.roster import load_roster  # noqa: E402
from tests.support import free_port  # noqa: E402

SECRET = "benchmark-secret-0123456789"


def granian_command(factory: str, port: int, workers: int = 1) -> list[str]:
    """``benchmarks._apps:<factory>`` under granian, ``workers`` worker processes, on ``port``."""
    return [
        sys.executable,
        "-m",
        "granian",
        "--interface",
        "asgi",
        "--factory",
        "--workers",
        str(workers),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
        f"benchmarks._apps:{factory}",
    ]


@contextlib.contextmanager
def served(factory: str, env: dict[str, str]) -> Iterator[str]:
    """``benchmarks._apps:<factory>`` under granian (one worker) on a free port."""
    port = free_port()
    command = granian_command(factory, port)
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, **env},
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(process.stderr.read().decode() if process.stderr else "")
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(url + "/health", timeout=1)
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{factory} did not start")
            time.sleep(0.1)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


# -- a lean HTTP/1.1 streaming client (httpx would cost more CPU than the servers we measure) ------


@dataclass
class StreamStats:
    t0: float = 0.0
    ttfb: float = 0.0
    arrivals: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})
    started: dict[str, object] = field(default_factory=dict)
    done: bool = False

    @property
    def ttft(self) -> float:
        """Seconds from sending the request to the first token of any slot."""
        firsts = [times[0] for times in self.arrivals.values() if times]
        return min(firsts) - self.t0 if firsts else float("nan")


async def stream_once(
    host: str, port: int, path: str, body: bytes, headers: str = ""
) -> StreamStats:
    """One round over a fresh connection; ``headers``: extra header lines, each ending CRLF."""
    stats = StreamStats()
    reader, writer = await asyncio.open_connection(host, port)
    t0 = stats.t0 = time.perf_counter()
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"{headers}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head.decode(errors="replace"))
    chunked = b"transfer-encoding: chunked" in head.lower()
    buffer = b""
    first = True
    while True:
        if chunked:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.strip().split(b";")[0], 16)
            if size == 0:
                break
            data = await reader.readexactly(size + 2)
            data = data[:-2]
        else:
            data = await reader.read(65536)
            if not data:
                break
        now = time.perf_counter()
        if first:
            stats.ttfb, first = now - t0, False
        buffer += data
        *frames, buffer = buffer.replace(b"\r\n", b"\n").split(b"\n\n")
        for frame in frames:
            if frame.startswith(b"event: token"):
                slot = "A" if b'"slot":"A"' in frame else "B"
                stats.arrivals[slot].append(now)
            elif frame.startswith(b"event: matchup_started"):
                stats.started = json.loads(frame.split(b"data: ", 1)[1])
            elif frame.startswith(b"event: matchup_done"):
                stats.done = True
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return stats


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


@dataclass
class RelayResult:
    tokens_per_s: float
    ttfb_p50: float
    ttfb_p99: float
    gap_p50: float
    gap_p99: float
    complete: int


async def relay(url: str, path: str, matchups: int) -> RelayResult:
    host, port = url.removeprefix("http://").split(":")
    body = json.dumps({"prompt": "Explain JWTs in simple terms"}).encode()
    started = time.perf_counter()
    results = await asyncio.gather(
        *(stream_once(host, int(port), path, body) for _ in range(matchups))
    )
    elapsed = time.perf_counter() - started
    tokens = sum(len(r.arrivals[s]) for r in results for s in "AB")
    gaps = [
        b - a
        for r in results
        for s in "AB"
        for a, b in zip(r.arrivals[s], r.arrivals[s][1:], strict=False)
    ]
    ttfbs = [r.ttfb for r in results]
    return RelayResult(
        tokens / elapsed,
        _pct(ttfbs, 0.5),
        _pct(ttfbs, 0.99),
        _pct(gaps, 0.5),
        _pct(gaps, 0.99),
        sum(r.done for r in results),
    )


# -- database ----------------------------------------------------------------------------------


async def prepare_database(url: str) -> None:
    engine = create_engine(url)
    try:
        await upgrade(engine)
        await seed_roster(engine, load_roster(ROOT / "models.yaml"))
    finally:
        await engine.dispose()


_BULK = """
ALTER TABLE matchups DISABLE TRIGGER USER;
ALTER TABLE responses DISABLE TRIGGER USER;
ALTER TABLE preferences DISABLE TRIGGER USER;
CREATE TEMP TABLE pairs AS
  SELECT row_number() OVER () - 1 AS n, a.id AS a, b.id AS b,
         a.provider_model_id AS pa, b.provider_model_id AS pb
  FROM models a JOIN models b ON a.id <> b.id;
CREATE TEMP TABLE bulk AS
  SELECT i, gen_random_uuid() AS matchup_id, gen_random_uuid() AS conversation_id,
         p.a, p.b, p.pa, p.pb, now() - make_interval(secs => i) AS at
  FROM generate_series(1, $1::int) AS i
  JOIN pairs p ON p.n = i % (SELECT count(*) FROM pairs);
INSERT INTO conversations (id, anonymous_session_id, created_at)
  SELECT conversation_id, 'bench-' || (i % 5000), at FROM bulk;
INSERT INTO matchups (id, prompt, model_a_id, model_b_id, slot_a_model_id, slot_b_model_id,
                      slot_a_provider_model_id, slot_b_provider_model_id, matchup_token_hash,
                      harness_version, created_at)
  SELECT matchup_id, 'benchmark prompt ' || i, LEAST(a, b), GREATEST(a, b), a, b, pa, pb,
         md5(i::text), 'bench', at FROM bulk;
INSERT INTO turns (id, conversation_id, matchup_id, turn_index, prompt, created_at)
  SELECT gen_random_uuid(), conversation_id, matchup_id, 0, 'benchmark prompt ' || i, at
  FROM bulk;
INSERT INTO responses (id, matchup_id, slot, model_id, content, latency_ms, ttft_ms,
                       stream_duration_ms, output_token_count, token_count_source,
                       markdown_density, created_at)
  SELECT gen_random_uuid(), matchup_id, s.slot, CASE s.slot WHEN 'A' THEN a ELSE b END,
         'a stored answer of a plausible length for the benchmark', 900, 120, 900, 40,
         'estimated', 0.1, at
  FROM bulk CROSS JOIN (VALUES ('A'), ('B')) AS s (slot);
INSERT INTO preferences (id, matchup_id, vote, winner_model_id, anonymous_session_id, created_at)
  SELECT gen_random_uuid(), matchup_id,
         (ARRAY['left', 'right', 'both_good', 'both_bad', 'skip'])[1 + i % 5],
         CASE i % 5 WHEN 0 THEN a WHEN 1 THEN b END, 'bench-' || (i % 5000), at
  FROM bulk;
ALTER TABLE matchups ENABLE TRIGGER USER;
ALTER TABLE responses ENABLE TRIGGER USER;
ALTER TABLE preferences ENABLE TRIGGER USER;
SELECT arena_rebuild_vote_stats();
"""


async def load_votes(url: str, votes: int) -> float:
    started = time.perf_counter()
    conn = await asyncpg.connect("postgresql://" + url.partition("://")[2])
    try:
        async with conn.transaction():
            for statement in filter(str.strip, _BULK.split(";\n")):
                if "$1" in statement:
                    await conn.execute(statement, votes)
                else:
                    await conn.execute(statement)
        # Reach the steady state a database that grew to this size over time is in, so the
        # measurement is not of autovacuum and a checkpoint catching up with the bulk load.
        await conn.execute("VACUUM ANALYZE")
        await conn.execute("CHECKPOINT")
    finally:
        await conn.close()
    return time.perf_counter() - started


# -- rounds ------------------------------------------------------------------------------------


async def rounds_per_second(url: str, concurrency: int, seconds: float) -> float:
    host, port = url.removeprefix("http://").split(":")
    body = json.dumps({"prompt": "hi"}).encode()
    deadline = time.perf_counter() + seconds
    done = 0
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < deadline:
                stats = await stream_once(host, int(port), "/api/arena/chat", body)
                vote = await client.post(
                    "/api/arena/vote",
                    json={
                        "matchupId": stats.started["matchupId"],
                        "matchupToken": stats.started["matchupToken"],
                        "vote": "left",
                    },
                )
                if not stats.done or vote.status_code != 200:
                    raise RuntimeError(f"round failed: {vote.status_code} {vote.text}")
                done += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return done / (time.perf_counter() - started)


def _arena_env(database_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    return {
        "DATABASE_URL": database_url,
        "MATCHUP_TOKEN_SECRET": SECRET,
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_DATA_DIR": str(data_dir),
        "LOG_LEVEL": "warning",
        **extra,
    }


def run_relay(args: argparse.Namespace, database_url: str, data_dir: Path) -> None:
    mock = {"ARENA_MOCK_TOKENS_PER_SECOND": str(args.rate), "ARENA_MOCK_TOKENS": str(args.tokens)}
    print(
        f"\nrelay: {args.matchups} concurrent matchups ({2 * args.matchups} streams), "
        f"{args.tokens} tokens per slot at {args.rate}/s (ideal gap {1000 / args.rate:.0f} ms)"
    )
    with served("baseline_app", mock) as url:
        asyncio.run(relay(url, "/stream", 10))  # warm up
        base = asyncio.run(relay(url, "/stream", args.matchups))
    with served("arena_app", _arena_env(database_url, data_dir, **mock)) as url:
        asyncio.run(relay(url, "/api/arena/chat", 10))
        arena = asyncio.run(relay(url, "/api/arena/chat", args.matchups))
    columns = ("tokens/s", "ttfb p50", "ttfb p99", "gap p50", "gap p99", "complete")
    print(f"  {'':<10}" + "".join(f"{c:>10}" for c in columns))
    for name, r in (("baseline", base), ("arena", arena)):
        print(
            f"  {name:<10}{r.tokens_per_s:>10.0f}{r.ttfb_p50 * 1000:>8.1f}ms"
            f"{r.ttfb_p99 * 1000:>8.1f}ms{r.gap_p50 * 1000:>7.1f}ms{r.gap_p99 * 1000:>7.1f}ms"
            f"{r.complete:>7}/{args.matchups}"
        )
    print(
        f"  throughput ratio arena/baseline: {arena.tokens_per_s / base.tokens_per_s:.2f}x "
        "(target >= 0.70)"
    )
    print(
        f"  added p99 inter-token delay: {(arena.gap_p99 - base.gap_p99) * 1000:+.1f} ms "
        "(target <= 50 ms)"
    )
    print(f"  added p50 time to first byte: {(arena.ttfb_p50 - base.ttfb_p50) * 1000:+.1f} ms")


def run_rounds(args: argparse.Namespace, database_url: str, data_dir: Path) -> None:
    mock = {"ARENA_MOCK_TOKENS_PER_SECOND": "0", "ARENA_MOCK_TOKENS": "4"}
    levels = (1, 16, 64)
    figures: dict[str, dict[int, float]] = {}
    for label in ("empty", f"{args.votes:,} votes"):
        if label != "empty":
            seconds = asyncio.run(load_votes(database_url, args.votes))
            print(f"  (loaded {args.votes:,} votes with their rounds in {seconds:.0f} s)")
        with served("arena_app", _arena_env(database_url, data_dir, **mock)) as url:
            asyncio.run(rounds_per_second(url, 4, 2))  # warm up
            figures[label] = {
                c: asyncio.run(rounds_per_second(url, c, args.seconds)) for c in levels
            }
    empty, full = figures.values()
    print("\nrounds per second (stream to matchup_done, then vote; 4-token mock, no delay)")
    print(f"  {'concurrency':<14}" + "".join(f"{label:>18}" for label in figures) + f"{'ratio':>8}")
    for c in levels:
        print(f"  {c:<14}{empty[c]:>18.1f}{full[c]:>18.1f}{full[c] / empty[c]:>8.2f}")
    print("  target: every ratio >= 0.90")


async def _drain(host: str, port: int, path: str, body: bytes) -> int:
    """Read one streamed response to its end; returns the body's size in bytes."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    size = 0
    while data := await reader.read(65536):
        size += len(data)
    writer.close()
    return size


async def protocol_relay(url: str, protocol: str, matchups: int) -> tuple[float, int]:
    """Seconds until ``matchups`` concurrent rounds in ``protocol`` all end, and bytes sent."""
    host, port = url.removeprefix("http://").split(":")
    body = json.dumps({"prompt": "Explain JWTs in simple terms"}).encode()
    path = f"/api/arena/chat?protocol={protocol}"
    started = time.perf_counter()
    sizes = await asyncio.gather(*(_drain(host, int(port), path, body) for _ in range(matchups)))
    return time.perf_counter() - started, sum(sizes)


def run_protocols(args: argparse.Namespace, database_url: str, data_dir: Path) -> None:
    from arena_api.protocols import PROTOCOLS

    mock = {"ARENA_MOCK_TOKENS_PER_SECOND": "0", "ARENA_MOCK_TOKENS": str(args.protocol_tokens)}
    print(
        f"\nend-to-end relay per protocol: {args.protocol_matchups} concurrent matchups, "
        f"{args.protocol_tokens} tokens per slot as fast as the server goes (median of 3)"
    )
    timings: dict[str, tuple[float, int]] = {}
    with served("arena_app", _arena_env(database_url, data_dir, **mock)) as url:
        asyncio.run(protocol_relay(url, "sse", 20))  # warm up
        for protocol in PROTOCOLS:
            runs = [
                asyncio.run(protocol_relay(url, protocol.name, args.protocol_matchups))
                for _ in range(3)
            ]
            timings[protocol.name] = sorted(runs)[1]
    native = timings["sse"][0]
    tokens = 2 * args.protocol_matchups * args.protocol_tokens
    print(f"  {'protocol':<12}{'seconds':>10}{'tokens/s':>11}{'bytes/token':>13}{'x native':>10}")
    for name, (seconds, size) in timings.items():
        print(
            f"  {name:<12}{seconds:>10.2f}{tokens / seconds:>11.0f}{size / tokens:>13.0f}"
            f"{seconds / native:>10.2f}"
        )
    print("  target: every protocol <= 1.50x native SSE's time")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "mode", nargs="?", default="all", choices=["relay", "rounds", "protocols", "all"]
    )
    parser.add_argument("--protocol-matchups", type=int, default=100)
    parser.add_argument("--protocol-tokens", type=int, default=200)
    parser.add_argument("--matchups", type=int, default=200)
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--tokens", type=int, default=40)
    parser.add_argument("--votes", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=float, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres(Path(tmp)) as pg:
        asyncio.run(prepare_database(pg.url))
        if args.mode in ("relay", "all"):
            run_relay(args, pg.url, Path(tmp))
        if args.mode in ("protocols", "all"):
            run_protocols(args, pg.url, Path(tmp))
        if args.mode in ("rounds", "all"):
            run_rounds(args, pg.url, Path(tmp))


if __name__ == "__main__":
    main()
