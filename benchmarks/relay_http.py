"""Rounds relayed from a real HTTP vendor: throughput, time to first token, stalls, memory.

Every round is what a deployment does: ``POST /api/arena/chat`` (native SSE) read to
``matchup_done``, then the vote. The two models are answered by a fake OpenAI-compatible vendor
on a loopback port (``benchmarks/_vendor.py``: ``chat.completion.chunk`` SSE, 40 tokens per
answer at 20 tokens/s, about 2 s per answer), reached through the server's ``openai`` provider.
At each concurrency, that many clients loop round after round for ``--seconds``:

* rounds/s completed (ideal: concurrency / 2.05 s);
* time to the first token of a round, and the largest gap between two tokens of one answer
  (a stall a voter sees), at p50 and p99 over the rounds;
* the peak resident memory of the server's processes.

Measured in the same run, in turn:

* ``baseline``  a bare relay (``benchmarks._apps:relay_baseline_app``): sse-starlette relaying
                the vendor with no arena logic. It shows the client and the vendor are not the
                bottleneck: it must stay well above the servers;
* ``arena``     our server (``create_api`` under granian, one worker, rating process off);
* ``seed``      the seed system, when ``SEED_ARENA_URL`` points at it (started by you with two
                models of provider ``openai`` on this vendor: ``SEED_VENDOR_PORT`` names the port
                the vendor must listen on, and ``SEED_PID`` its process for the memory figure).

``--mock`` measures full rounds of the in-process mock instead (4 tokens, no delay) at 1, 16
and 64 concurrent, with and without the vote, beside the seed system at ``SEED_MOCK_URL`` (two
models of its ``mock`` provider).

Usage: python benchmarks/relay_http.py [--mock] [--levels 10,30,100,400] [--seconds 15]
       [--database-url URL]
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
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.db.engine import create_engine, embedded_postgres  # noqa: E402
from arena_api.db.migrations import upgrade  # noqa: E402
from arena_api.db.repository import seed_roster  # noqa: E402
from arena_api.roster import Roster, RosterModel  # noqa: E402
from benchmarks.arena_stream import SECRET, _pct, granian_command, stream_once  # noqa: E402
from tests.support import free_port  # noqa: E402

RATE, TOKENS = 20.0, 40


def vendor_roster(provider: str) -> Roster:
    return Roster(
        models=tuple(
            RosterModel(
                display_name=f"Vendor {x}", provider=provider, provider_model_id=f"vendor-{x}"
            )  # type: ignore[arg-type]
            for x in "ab"
        )
    )


def provider_env(provider: str, vendor: str) -> dict[str, str]:
    """How our server reaches the fake vendor (root URL, no path) through ``provider``."""
    if provider == "google":
        return {"GOOGLE_API_KEY": "g-bench", "GOOGLE_BASE_URL": vendor}
    if provider == "ollama":
        return {"OLLAMA_BASE_URL": vendor}
    return {"OPENAI_BASE_URL": f"{vendor}/v1", "OPENAI_API_KEY": "sk-bench"}


MOCK_ROSTER = Roster(
    models=(
        RosterModel(display_name="Mock Alpha", provider="mock", provider_model_id="mock-alpha"),
        RosterModel(display_name="Mock Beta", provider="mock", provider_model_id="mock-beta"),
    )
)


@contextlib.contextmanager
def process(command: list[str], env: dict[str, str], health: str | None) -> Iterator[int]:
    """A child process group, waited for at ``health`` (a URL), killed at the end. Its output
    goes to a file (a pipe nobody reads would stall a server that logs an error burst)."""
    with tempfile.TemporaryFile() as log:
        child = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**os.environ, **env},
            start_new_session=True,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while health is not None:
                if child.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(log.read().decode(errors="replace")[-3000:])
                with contextlib.suppress(httpx.HTTPError):
                    httpx.get(health, timeout=1)
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{command} did not start")
                time.sleep(0.1)
            yield child.pid
        finally:
            os.killpg(child.pid, signal.SIGTERM)
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)


class PeakMemory:
    """The peak summed RSS of a process and its children, sampled in a thread."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> int:
        total = 0
        for proc in [self.root, *self.root.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                total += proc.memory_info().rss
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(0.25)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class Level:
    concurrency: int
    rounds_per_s: float
    ttft: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    failed: int = 0
    peak_rss: int = 0


async def _vote(host: str, port: int, started: dict[str, object], headers: str = "") -> bool:
    body = json.dumps(
        {"matchupId": started["matchupId"], "matchupToken": started["matchupToken"], "vote": "left"}
    ).encode()
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"POST /api/arena/vote HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json"
        f"\r\n{headers}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    head = await reader.read(65536)
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return head.startswith(b"HTTP/1.1 200")


async def run_level(
    url: str,
    path: str,
    concurrency: int,
    seconds: float,
    vote: bool,
    headers: str = "",
    prompt: str = "Explain JWTs in simple terms",
) -> Level:
    host, port_text = url.removeprefix("http://").split(":")
    port = int(port_text)
    body = json.dumps({"prompt": prompt}).encode()
    warm = min(4.0, seconds / 3)
    start = time.perf_counter()
    window = (start + warm, start + warm + seconds)
    level = Level(concurrency, 0.0)
    completed = 0

    async def worker(n: int) -> None:
        nonlocal completed
        await asyncio.sleep(n * 2.0 / concurrency)  # spread the starts over one round
        while time.perf_counter() < window[1]:
            try:
                stats = await stream_once(host, port, path, body, headers)
                ok = stats.done and (not vote or await _vote(host, port, stats.started, headers))
            except (OSError, RuntimeError, asyncio.IncompleteReadError):
                ok = False
            now = time.perf_counter()
            if not ok:
                level.failed += 1
                await asyncio.sleep(0.1)
                continue
            if window[0] <= now <= window[1]:
                completed += 1
            if stats.t0 >= window[0]:
                level.ttft.append(stats.ttft)
                level.gaps.append(
                    max(
                        (
                            b - a
                            for times in stats.arrivals.values()
                            for a, b in zip(times, times[1:], strict=False)
                        ),
                        default=0.0,
                    )
                )

    await asyncio.gather(*(worker(n) for n in range(concurrency)))
    level.rounds_per_s = completed / seconds
    return level


def measure(
    name: str,
    url: str,
    path: str,
    pid: int | None,
    levels: list[int],
    seconds: float,
    vote: bool,
    headers: str = "",
    prompt: str = "Explain JWTs in simple terms",
) -> list[Level]:
    results = []
    asyncio.run(run_level(url, path, 4, 3, vote, headers, prompt))  # warm up
    for concurrency in levels:
        memory = PeakMemory(pid) if pid is not None else None
        with memory or contextlib.nullcontext():
            level = asyncio.run(run_level(url, path, concurrency, seconds, vote, headers, prompt))
        level.peak_rss = memory.peak if memory else 0
        results.append(level)
        print(
            f"  {name:<9}{concurrency:>6}{level.rounds_per_s:>10.1f}"
            f"{_pct(level.ttft, 0.5):>9.2f}{_pct(level.ttft, 0.99):>9.2f}"
            f"{_pct(level.gaps, 0.5):>9.2f}{_pct(level.gaps, 0.99):>9.2f}"
            f"{level.peak_rss / 2**20:>9.0f}{level.failed:>8}",
            flush=True,
        )
    return results


async def prepare(url: str, roster: Roster) -> None:
    engine = create_engine(url)
    try:
        await upgrade(engine)
        await seed_roster(engine, roster)
    finally:
        await engine.dispose()


@contextlib.contextmanager
def arena_server(
    database_url: str | None, roster: Roster, env: dict[str, str]
) -> Iterator[tuple[str, int]]:
    """Our server (``create_api`` under granian, one worker, rating process off): (url, pid)."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        database = database_url or stack.enter_context(embedded_postgres(Path(tmp))).url
        asyncio.run(prepare(database, roster))
        port = free_port()
        env = {
            "DATABASE_URL": database,
            "MATCHUP_TOKEN_SECRET": SECRET,
            "ARENA_DATA_DIR": tmp,
            "ARENA_RATING_WORKER": "off",
            "LOG_LEVEL": "warning",
            **env,
        }
        url = f"http://127.0.0.1:{port}"
        with process(granian_command("arena_app", port), env, url + "/health") as pid:
            yield url, pid


def _ratios(figures: dict[str, list[Level]], ours: str, other: str) -> None:
    if ours in figures and other in figures:
        ratios = ", ".join(
            f"{a.concurrency}: {a.rounds_per_s / b.rounds_per_s:.2f}x"
            for a, b in zip(figures[ours], figures[other], strict=True)
            if b.rounds_per_s
        )
        print(f"  rounds/s {ours} / {other}: {ratios}")


_HEADER = (
    f"  {'server':<9}{'conc.':>6}{'rounds/s':>10}{'ttft p50':>9}{'ttft p99':>9}"
    f"{'gap p50':>9}{'gap p99':>9}{'RSS MiB':>9}{'failed':>8}   (seconds)"
)


def run_relay(args: argparse.Namespace, levels: list[int], only: set[str]) -> None:
    seed_url = os.environ.get("SEED_ARENA_URL")
    vendor_port = int(os.environ.get("SEED_VENDOR_PORT") or free_port())
    vendor_url = f"http://127.0.0.1:{vendor_port}/v1"
    ideal = ", ".join(f"{c}: {c / (TOKENS / RATE + 0.05):.1f}" for c in levels)
    print(
        f"relay of a fake vendor through our {args.provider!r} provider, "
        f"{TOKENS} tokens per answer at {RATE:g}/s; "
        f"{args.seconds:g} s per level; ideal rounds/s {ideal}"
    )
    print(_HEADER)
    vendor = [sys.executable, "-m", "benchmarks._vendor", "--port", str(vendor_port)]
    vendor += ["--rate", str(RATE), "--tokens", str(TOKENS)]
    figures: dict[str, list[Level]] = {}
    with process(vendor, {}, None):
        time.sleep(0.5)
        if "baseline" in only:
            port = free_port()
            env = {"RELAY_VENDOR_URL": vendor_url}
            with process(granian_command("relay_baseline_app", port), env, None) as pid:
                time.sleep(1.5)
                url = f"http://127.0.0.1:{port}"
                figures["baseline"] = measure(
                    "baseline", url, "/stream", pid, levels, args.seconds, vote=False
                )
        if "arena" in only:
            env = provider_env(args.provider, vendor_url.removesuffix("/v1"))
            with arena_server(args.database_url, vendor_roster(args.provider), env) as (url, pid):
                figures["arena"] = measure(
                    "arena", url, "/api/arena/chat", pid, levels, args.seconds, vote=True
                )
        if seed_url and "seed" in only:
            pid = int(os.environ["SEED_PID"]) if os.environ.get("SEED_PID") else None
            figures["seed"] = measure(
                "seed", seed_url, "/api/arena/chat", pid, levels, args.seconds, vote=True
            )
    _ratios(figures, "arena", "seed")
    _ratios(figures, "arena", "baseline")


def run_mock(args: argparse.Namespace, levels: list[int], only: set[str]) -> None:
    """Rounds of the in-process mock (4 tokens, no delay), with and without the vote."""
    seed_url = os.environ.get("SEED_MOCK_URL")
    print(f"rounds of the in-process mock (4 tokens, no delay); {args.seconds:g} s per level")
    print(_HEADER)
    figures: dict[str, list[Level]] = {}
    env = {
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_MOCK_TOKENS": "4",
        "ARENA_MOCK_TOKENS_PER_SECOND": "0",
    }
    for vote in (False, True):
        suffix = "+vote" if vote else ""
        if "arena" in only:
            with arena_server(args.database_url, MOCK_ROSTER, env) as (url, pid):
                figures["arena" + suffix] = measure(
                    "arena" + suffix, url, "/api/arena/chat", pid, levels, args.seconds, vote
                )
        if seed_url and "seed" in only:
            pid = int(os.environ["SEED_PID"]) if os.environ.get("SEED_PID") else None
            figures["seed" + suffix] = measure(
                "seed" + suffix, seed_url, "/api/arena/chat", pid, levels, args.seconds, vote
            )
    _ratios(figures, "arena", "seed")
    _ratios(figures, "arena+vote", "seed+vote")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", default=None, help="default 10,30,100,400; --mock: 1,16,64")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--only", default="baseline,arena,seed")
    parser.add_argument("--mock", action="store_true", help="mock rounds instead of the relay")
    parser.add_argument(
        "--provider",
        default="openai",
        choices=["openai", "google", "ollama"],
        help="the provider (and vendor wire format) our server relays; the baseline and the "
        "seed system always use OpenAI's",
    )
    parser.add_argument(
        "--database-url",
        help="our server's PostgreSQL (default: an embedded one); give the "
        "seed system's server to compare on the same database server",
    )
    args = parser.parse_args()
    levels = [
        int(n) for n in (args.levels or ("1,16,64" if args.mock else "10,30,100,400")).split(",")
    ]
    only = set(args.only.split(","))
    (run_mock if args.mock else run_relay)(args, levels, only)


if __name__ == "__main__":
    main()
