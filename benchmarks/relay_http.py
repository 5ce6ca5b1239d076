"""Rounds relayed from a real HTTP vendor: throughput, time to first token, stalls, memory.

Every round is what a deployment does: ``POST /api/arena/chat`` (native SSE) read to
``matchup_done``, then the vote. The two models are answered by a fake OpenAI-compatible vendor
on a loopback port (``benchmarks/_vendor.py``: ``chat.completion.chunk`` SSE, 40 tokens per
answer at 20 tokens/s, about 2 s per answer), reached through the server's ``openai`` provider.
At each concurrency, that many clients loop round after round for ``--seconds``:

* rounds/s completed (ideal: concurrency / 2.05 s);
* time to the first token of a round, and the largest gap between two tokens of one answer
  (a stall a voter sees), at p50 and p99 over the rounds;
* the peak resident memory of the server's processes (summed, and each process's own peak),
  their RSS when idle after start, and the CPU time (user + system) of all of them per round
  completed, which a client that cannot keep up does not distort;
* the CPU time of every PostgreSQL process per round, and the share of the machine's cores in
  use: where a level is bound by the machine rather than by one server process.

Measured in the same run, in turn:

* ``baseline``  a bare relay (``benchmarks._apps:relay_baseline_app``): sse-starlette relaying
                the vendor with no arena logic. It shows the client and the vendor are not the
                bottleneck: it must stay well above the servers;
* ``minimal``   the least any arena does per round on top of that relay
                (``benchmarks._apps:relay_minimal_app``): a round id and vote token sent first,
                the round written as one row with both answers, the vote's own request checked
                and stored, on an embedded PostgreSQL of its own, with as many workers as ours.
                The ceiling an arena can reach on this machine: its ratio to ``baseline`` bounds
                ``arena``'s;
* ``arena``     our server as deployed: ``arena serve`` (rating process off) on an embedded
                PostgreSQL of its own, whose processes are not counted in its CPU and memory
                but in a column of their own; ``--workers 2`` runs two worker processes, which
                share their rounds' state through cluster mode on a redis-server of the
                benchmark's own;
* ``seed``      the seed system, when ``--seed-url`` points at it (started by you with two
                models of provider ``openai`` on this vendor: ``--vendor-port`` names the port
                the vendor must listen on, and ``--seed-pid`` its process for memory and CPU).

``--mock`` measures full rounds of the in-process mock instead (4 tokens, no delay) at 1, 16
and 64 concurrent, with and without the vote, beside the seed system at ``--seed-url`` (two
models of its ``mock`` provider).

Usage: python benchmarks/relay_http.py [--mock] [--levels 10,30,100,400] [--seconds 15]
       [--workers 1] [--database-url URL] [--seed-url URL --seed-pid PID --vendor-port PORT]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.db.engine import embedded_postgres  # noqa: E402
from arena_api.roster import Roster, RosterModel  # noqa: E402
from benchmarks._apps import MINIMAL_TABLES  # noqa: E402
from benchmarks.arena_stream import SECRET, _pct, granian_command, stream_once  # noqa: E402
from tests.support import RedisServer, free_port  # noqa: E402

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
def process(
    command: list[str], env: dict[str, str], health: str | None, timeout: float = 60
) -> Iterator[int]:
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
            deadline = time.monotonic() + timeout
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


def _tree(root: psutil.Process) -> list[psutil.Process]:
    """``root`` and its descendants, without a database server it may have started."""
    return [p for p in [root, *root.children(recursive=True)] if p.name() != "postgres"]


class Machine:
    """The whole machine's CPU over a level: its busy share, the ``postgres`` processes', and
    the rig's (this client and the processes in ``rig``, e.g. the fake vendor)."""

    def __init__(self, rig: Sequence[int] = ()) -> None:
        self._rig = [psutil.Process(), *(psutil.Process(pid) for pid in rig)]

    def __enter__(self) -> Machine:
        self.start, self.database, self.rig = psutil.cpu_times(), self._database(), self._rig_cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        end = psutil.cpu_times()
        total = sum(end) - sum(self.start)
        self.busy = 1 - (end.idle - self.start.idle) / total if total else 0.0
        self.database = self._database() - self.database
        self.rig = self._rig_cpu() - self.rig

    def _rig_cpu(self) -> float:
        return sum(sum(proc.cpu_times()[:2]) for proc in self._rig)

    @staticmethod
    def _database() -> float:
        seconds = 0.0
        for proc in psutil.process_iter(["name", "cpu_times"]):
            times = proc.info["cpu_times"]
            if proc.info["name"] == "postgres" and times is not None:
                seconds += times.user + times.system
        return seconds


class ProcessTree:
    """A server's processes (``pid`` and its children), sampled in a thread: the peak of their
    summed RSS, each one's peak RSS, and the CPU time (user + system) all of them used."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.peak = 0
        self.peaks: dict[int, tuple[str, int]] = {}
        self.cpu_s = 0.0
        self._cpu: dict[int, float] = {}
        self._start: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        total = 0
        for proc in _tree(self.root):
            with contextlib.suppress(psutil.Error):
                rss = proc.memory_info().rss
                times = proc.cpu_times()
                self._cpu[proc.pid] = times.user + times.system
                self._start.setdefault(proc.pid, self._cpu[proc.pid])
                total += rss
                role = self.peaks.get(proc.pid, (_role(proc, self.root), 0))
                self.peaks[proc.pid] = (role[0], max(role[1], rss))
        self.peak = max(self.peak, total)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(0.25)

    def __enter__(self) -> ProcessTree:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
        self.cpu_s = sum(self._cpu[pid] - self._start[pid] for pid in self._cpu)

    def breakdown(self) -> str:
        """Each process's peak RSS, e.g. ``main 33 + worker 150``."""
        return " + ".join(f"{role} {rss / 2**20:.0f}" for role, rss in self.peaks.values())


def _role(proc: psutil.Process, root: psutil.Process) -> str:
    if proc.pid == root.pid:
        return "main"
    with contextlib.suppress(psutil.Error):
        command = " ".join(proc.cmdline())
        if "arena_rating" in command:
            return "rating"
        if proc.ppid() == root.pid and command == " ".join(root.cmdline()):
            return "worker"
        return str(proc.name())
    return "?"


@dataclass
class Level:
    concurrency: int
    rounds_per_s: float
    ttft: list[float] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    failed: int = 0
    peak_rss: int = 0
    #: Server CPU (user + system, every process) per round completed, in milliseconds.
    cpu_ms: float = 0.0
    #: The whole machine's busy share of its cores over the level, and every PostgreSQL
    #: process's CPU per round completed (ms): what the server's database costs beside it.
    machine_busy: float = 0.0
    database_ms: float = 0.0
    #: The client's and the fake vendor's CPU per round completed (ms): what the rig itself
    #: takes of the machine.
    rig_ms: float = 0.0
    rounds: int = 0


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
            level.rounds += 1
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
    rig: Sequence[int] = (),
) -> list[Level]:
    results = []
    asyncio.run(run_level(url, path, 4, 3, vote, headers, prompt))  # warm up
    for concurrency in levels:
        tree = ProcessTree(pid) if pid is not None else None
        with tree or contextlib.nullcontext(), Machine(rig) as machine:
            level = asyncio.run(run_level(url, path, concurrency, seconds, vote, headers, prompt))
        if tree is not None:
            level.peak_rss = tree.peak
            level.cpu_ms = 1000 * tree.cpu_s / max(level.rounds, 1)
        level.machine_busy = machine.busy
        level.database_ms = 1000 * machine.database / max(level.rounds, 1)
        level.rig_ms = 1000 * machine.rig / max(level.rounds, 1)
        results.append(level)
        print(
            f"  {name:<9}{concurrency:>6}{level.rounds_per_s:>10.1f}"
            f"{_pct(level.ttft, 0.5):>9.2f}{_pct(level.ttft, 0.99):>9.2f}"
            f"{_pct(level.gaps, 0.5):>9.2f}{_pct(level.gaps, 0.99):>9.2f}"
            f"{level.peak_rss / 2**20:>9.0f}{level.cpu_ms:>8.2f}{level.database_ms:>7.2f}"
            f"{level.rig_ms:>7.2f}"
            f"{100 * level.machine_busy:>6.0f}%{level.failed:>7}"
            + (f"   RSS MiB: {tree.breakdown()}" if tree is not None else ""),
            flush=True,
        )
    return results


@contextlib.contextmanager
def arena_server(
    database_url: str | None, roster: Roster, env: dict[str, str]
) -> Iterator[tuple[str, int]]:
    """Our server as a deployment runs it, ``arena serve`` (rating process off), on
    ``database_url`` or an embedded PostgreSQL of the benchmark's own (so the database's
    processes are not the server's): (url, pid)."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        database = database_url or stack.enter_context(embedded_postgres(Path(tmp))).url
        port = free_port()
        env = {
            "DATABASE_URL": database,
            "MATCHUP_TOKEN_SECRET": SECRET,
            "ARENA_DATA_DIR": tmp,
            "ARENA_RATING_WORKER": "off",
            "ARENA_MODELS": ",".join(
                f"{m.provider}:{m.provider_model_id}={m.display_name}" for m in roster.models
            ),
            "PORT": str(port),
            "LOG_LEVEL": "warning",
            **env,
        }
        url = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "arena_api", "serve"]
        with process(command, env, url + "/health", timeout=300) as pid:
            yield url, pid


async def _create_tables(database: str, tables: str) -> None:
    connection = await asyncpg.connect(database)
    try:
        await connection.execute(tables)
    finally:
        await connection.close()


@contextlib.contextmanager
def minimal_server(
    database_url: str | None, vendor_url: str, workers: int
) -> Iterator[tuple[str, int]]:
    """The minimal arena under granian (``workers`` processes: it keeps no state of its own), on
    ``database_url`` or an embedded PostgreSQL of the benchmark's own: (url, pid)."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        database = database_url or stack.enter_context(embedded_postgres(Path(tmp))).url
        port = free_port()
        database = database.replace("+asyncpg", "")
        asyncio.run(_create_tables(database, MINIMAL_TABLES))
        env = {"RELAY_VENDOR_URL": vendor_url, "RELAY_DATABASE_URL": database}
        with process(granian_command("relay_minimal_app", port, workers), env, None) as pid:
            time.sleep(1.5)
            yield f"http://127.0.0.1:{port}", pid


def _ratios(figures: dict[str, list[Level]], ours: str, other: str) -> None:
    """Ours against the other server's figures of the same run, level by level."""
    if ours not in figures or other not in figures:
        return
    pairs = list(zip(figures[ours], figures[other], strict=True))
    for label, value in (
        ("rounds/s", lambda level: level.rounds_per_s),
        ("CPU ms/round", lambda level: level.cpu_ms),
        ("peak RSS", lambda level: level.peak_rss),
        ("ttft p99", lambda level: _pct(level.ttft, 0.99)),
        ("gap p99", lambda level: _pct(level.gaps, 0.99)),
    ):
        ratios = ", ".join(
            f"{a.concurrency}: {value(a) / value(b):.2f}x" for a, b in pairs if value(b)
        )
        if ratios:
            print(f"  {label} {ours} / {other}: {ratios}")


_HEADER = (
    f"  {'server':<9}{'conc.':>6}{'rounds/s':>10}{'ttft p50':>9}{'ttft p99':>9}"
    f"{'gap p50':>9}{'gap p99':>9}{'RSS MiB':>9}{'CPU ms':>8}{'DB ms':>7}{'rig ms':>7}{'busy':>7}"
    f"{'failed':>7}"
    "   (seconds; CPU ms: the server's user + system time per round completed; DB ms: every "
    "PostgreSQL process's; rig ms: the client's and the fake vendor's; busy: the machine's share "
    "of its cores in use)"
)


def idle_rss(name: str, pid: int) -> None:
    """The server's summed RSS after start, before any round."""
    with ProcessTree(pid) as tree:
        time.sleep(0.5)
    print(f"  {name:<9} idle RSS {tree.peak / 2**20:.0f} MiB ({tree.breakdown()})", flush=True)


@contextlib.contextmanager
def _workers(workers: int, env: dict[str, str]) -> Iterator[None]:
    """More than one worker shares its rounds' state through cluster mode, on a redis-server of
    the benchmark's own (whose CPU the figures do not count)."""
    if workers == 1:
        yield
        return
    with tempfile.TemporaryDirectory() as tmp, RedisServer(Path(tmp)) as redis:
        env.update(GRANIAN_WORKERS=str(workers), REDIS_URL=redis.url)
        yield


def run_relay(args: argparse.Namespace, levels: list[int], only: set[str]) -> None:
    seed_url = args.seed_url
    vendor_port = args.vendor_port or free_port()
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
    with process(vendor, {}, None) as vendor_pid:
        time.sleep(0.5)
        # Every server in turn, at the same levels, with the same rig beside it.
        run = functools.partial(measure, levels=levels, seconds=args.seconds, rig=[vendor_pid])
        if "baseline" in only:
            port = free_port()
            env = {"RELAY_VENDOR_URL": vendor_url}
            with process(granian_command("relay_baseline_app", port), env, None) as pid:
                time.sleep(1.5)
                url = f"http://127.0.0.1:{port}"
                figures["baseline"] = run("baseline", url, "/stream", pid, vote=False)
        if "minimal" in only:
            with minimal_server(args.database_url, vendor_url, args.workers) as (url, pid):
                figures["minimal"] = run("minimal", url, "/stream", pid, vote=True)
        if "arena" in only:
            env = provider_env(args.provider, vendor_url.removesuffix("/v1"))
            with (
                _workers(args.workers, env),
                arena_server(args.database_url, vendor_roster(args.provider), env) as (url, pid),
            ):
                idle_rss("arena", pid)
                figures["arena"] = run("arena", url, "/api/arena/chat", pid, vote=True)
        if seed_url and "seed" in only:
            if args.seed_pid is not None:
                idle_rss("seed", args.seed_pid)
            figures["seed"] = run("seed", seed_url, "/api/arena/chat", args.seed_pid, vote=True)
    _ratios(figures, "arena", "seed")
    _ratios(figures, "arena", "baseline")
    _ratios(figures, "minimal", "baseline")
    _ratios(figures, "arena", "minimal")


def run_mock(args: argparse.Namespace, levels: list[int], only: set[str]) -> None:
    """Rounds of the in-process mock (4 tokens, no delay), with and without the vote."""
    seed_url = args.seed_url
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
            figures["seed" + suffix] = measure(
                "seed" + suffix,
                seed_url,
                "/api/arena/chat",
                args.seed_pid,
                levels,
                args.seconds,
                vote,
            )
    _ratios(figures, "arena", "seed")
    _ratios(figures, "arena+vote", "seed+vote")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", default=None, help="default 10,30,100,400; --mock: 1,16,64")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--only", default="baseline,minimal,arena,seed")
    parser.add_argument("--mock", action="store_true", help="mock rounds instead of the relay")
    parser.add_argument(
        "--provider",
        default="openai",
        choices=["openai", "google", "ollama"],
        help="the provider (and vendor wire format) our server relays; the baseline and the "
        "seed system always use OpenAI's",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="our server's worker processes (and the minimal arena's); more than one runs "
        "cluster mode on a redis-server of the benchmark's own",
    )
    parser.add_argument(
        "--database-url",
        help="our server's PostgreSQL (default: an embedded one); give the "
        "seed system's server to compare on the same database server",
    )
    parser.add_argument(
        "--seed-url",
        default=os.environ.get("SEED_ARENA_URL") or os.environ.get("SEED_MOCK_URL"),
        help="the seed system's server, started by you (relay: two models of provider openai "
        "on this benchmark's vendor, see --vendor-port; --mock: two of its mock provider)",
    )
    parser.add_argument(
        "--seed-pid",
        type=int,
        default=int(os.environ["SEED_PID"]) if os.environ.get("SEED_PID") else None,
        help="the seed server's process, for its memory and CPU figures",
    )
    parser.add_argument(
        "--vendor-port",
        type=int,
        default=int(os.environ.get("SEED_VENDOR_PORT") or 0),
        help="the port the fake vendor listens on (the seed system's roster names it)",
    )
    args = parser.parse_args()
    levels = [
        int(n) for n in (args.levels or ("1,16,64" if args.mock else "10,30,100,400")).split(",")
    ]
    only = set(args.only.split(","))
    (run_mock if args.mock else run_relay)(args, levels, only)


if __name__ == "__main__":
    main()
