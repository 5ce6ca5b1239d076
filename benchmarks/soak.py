"""Soak: the real product under steady load for 20 minutes; does anything grow or slow down?

The real product (``arena serve``: the built UI and the API on one port under granian, the
supervised rating process, its embedded PostgreSQL in a fresh data dir) relays a roster of four
models answered by a fake OpenAI-compatible vendor on a loopback port (``benchmarks/_vendor.py
--prose``: a Markdown answer of 30 to 90 words, one every 40 ms). Against it, for ``--minutes``:

* ``--concurrency`` clients (100) each play round after round: ``POST /api/arena/chat`` (native
  SSE) read to ``matchup_done``, then the vote on it (``POST /api/arena/vote`` with its token);
* a trickle of reads (``--reads-per-s``, 3): the leaderboard, the analytics summary, head-to-head
  and per-model metrics, the model list.

Every ``--sample-s`` (30 s) it samples, from outside the product:

* the resident memory (VmRSS, /proc/PID/status) of every process of ``arena serve``'s tree (the
  supervisor, the server and its worker, the rating process) and of its embedded PostgreSQL
  (the postmaster, its helpers, one backend per connection), each and summed;
* their open file descriptors (/proc/PID/fd), and the database's connections
  (``pg_stat_activity``), both also read every 2 s: the requests in flight move a single
  reading up and down, so each interval keeps its median (and its fewest and most);
* the time to the first token (TTFT) of the rounds whose first token came in the interval (p50,
  p99), rounds/s, votes, reads, and errors: any non-2xx answer, any ``slot_error`` or
  ``run_error`` event, a stream that ends without ``matchup_done``, any client exception.

The baseline is the same run's beginning: the first window (the first 5 minutes; the first
quarter of a shorter run) against the last window of the same length. Targets:

* the product's processes' RSS, summed and each, grows at most 10 % from the sample at the end
  of the first window to the last sample (PostgreSQL's is printed too but not judged: its
  backends' RSS counts the shared buffers they touch, which fill as the database grows);
* no growth of the product's descriptors and of the connections: the last interval's median
  against that of the interval ending the first window, within +2 (PostgreSQL's descriptors
  are printed, not judged: they follow its backends and the relation files each opened);
* TTFT p99 of the last window at most 1.2x that of the first;
* zero errors.

A warm-up (``--warmup-s``, 30 s) runs the same load before the clock starts. Outputs (a folder,
``--out``, default ``.arena/soak/``): ``soak.csv`` (one row per sample), ``soak.json`` (the
samples with every process, the settings and the verdicts), ``soak.png`` (RSS, descriptors,
connections, TTFT and rounds/s over time), ``serve.log``.

Usage: python benchmarks/soak.py [--minutes 20] [--sample-s 30] [--concurrency 100]
       [--reads-per-s 3] [--warmup-s 30] [--out .arena/soak]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import json
import math
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import median

import asyncpg
import httpx

ROOT = Path(__file__).resolve().parents[1]

SECRET = "soak-benchmark-secret-0123456789"
RATE, TOKENS = 25.0, 60  # the vendor: 25 words/s (40 ms apart), 30 to 90 words an answer
MODELS = ("a", "b", "c", "d")
RSS_GROWTH_MAX = 0.10
FLOOR_TOLERANCE = 2
TTFT_RATIO_MAX = 1.2
FIRST_WINDOW_S = 300.0
FLOOR_EVERY_S = 2.0
ROUND_TIMEOUT_S = 60.0
MONITOR = "soak-monitor"
READS = (
    "/api/arena/leaderboard",
    "/api/arena/analytics/summary",
    "/v1/models",
    "/api/arena/analytics/head-to-head",
    "/api/arena/analytics/model-metrics",
    "/api/arena/leaderboard?include=named",
)
VOTES = ("left", "right", "left", "right", "both_good", "both_bad", "skip")
_TOPICS = (
    "JWTs",
    "the CAP theorem",
    "Rust's borrow checker",
    "how HTTPS certificates are checked",
    "vector databases",
    "PostgreSQL's MVCC",
    "the Bradley-Terry model",
    "Kubernetes readiness probes",
    "gradient descent",
    "CRDTs",
)
_ASKS = (
    "Explain {} in simple terms.",
    "What are the pitfalls of {}? Give an example.",
    "Write a short tutorial on {} for a junior developer.",
    "Compare {} with the usual alternative, in a table.",
    "Erkläre {} in einfachen Worten.",
)
PROMPTS = tuple(ask.format(topic) for ask in _ASKS for topic in _TOPICS)

# -- the product and the vendor, as child processes ------------------------------------------


@contextlib.contextmanager
def vendor(port: int) -> Iterator[int]:
    """The fake vendor in its own process group, stopped at the end."""
    command = [sys.executable, "-m", "benchmarks._vendor", "--port", str(port)]
    command += ["--rate", str(RATE), "--tokens", str(TOKENS), "--prose"]
    child = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while not _listening(port):
            if child.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the fake vendor did not start")
            time.sleep(0.05)
        yield child.pid
    finally:
        os.killpg(child.pid, signal.SIGTERM)
        child.wait(timeout=10)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


@dataclass(frozen=True)
class Product:
    url: str
    pid: int


@contextlib.contextmanager
def product(vendor_port: int, data_dir: Path, log: Path) -> Iterator[Product]:
    """``arena serve`` on a fresh data dir (its own embedded PostgreSQL), the rating process
    embedded, the roster on the fake vendor."""
    roster = data_dir / "models.yaml"
    roster.write_text(
        "models:\n"
        + "".join(
            f"  - {{display_name: Vendor {m.upper()}, provider: openai, "
            f"provider_model_id: vendor-{m}}}\n"
            for m in MODELS
        )
    )
    env = {
        "DATABASE_URL": "",  # the embedded server, initialised fresh in data_dir
        "ARENA_DATA_DIR": str(data_dir),
        "ARENA_MODELS_FILE": str(roster),
        "ARENA_RATING_WORKER": "embedded",
        "OPENAI_BASE_URL": f"http://127.0.0.1:{vendor_port}/v1",
        "OPENAI_API_KEY": "sk-soak",
        "MATCHUP_TOKEN_SECRET": SECRET,
        "LOG_LEVEL": "warning",
    }
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log.open("ab") as output:
        # Its own session, as `make run` would be; stopped as an operator does (SIGTERM: drain).
        child = subprocess.Popen(
            [sys.executable, "-m", "arena_api", "serve"],
            cwd=ROOT,
            env={**os.environ, **env, "PORT": str(port)},
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 600  # a stale UI is rebuilt first
        while not _healthy(url):
            if child.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"arena serve did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.25)
        yield Product(url, child.pid)
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


# -- the processes, from /proc ----------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    role: str
    rss: int  # bytes (VmRSS)
    shmem: int  # bytes of RSS that are shared memory (RssShmem; PostgreSQL's buffers)
    fds: int
    cpu_ticks: int  # user + system time so far, in clock ticks


def _scan() -> tuple[dict[int, list[int]], dict[int, int]]:
    """Every process's children, and its CPU time so far (clock ticks)."""
    tree: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
            pid = int(entry.name)
            tree.setdefault(int(fields[1]), []).append(pid)
            ticks[pid] = int(fields[11]) + int(fields[12])  # utime, stime
    return tree, ticks


def _tree(root: int, children: dict[int, list[int]]) -> list[int]:
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo += children.get(pid, [])
    return pids


def _cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()


def _role(pid: int, root: int, postmaster: int | None, command: str, parent_role: str) -> str:
    if pid == root:
        return "serve"
    if pid == postmaster:
        return "pg postmaster"
    if "arena_app.server" in command:
        return "server worker" if parent_role == "server" else "server"
    if "arena_rating" in command:
        return "rating"
    if command.startswith("postgres:"):
        # "postgres: postgres arena [local] idle" is a backend; helpers name their job.
        return "pg backend" if "[local]" in command or "127.0.0.1" in command else "pg helper"
    return command.split(" ")[0].rsplit("/", 1)[-1] or "?"


def _status_kb(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssShmem"):
            fields[name] = int(value.split()[0]) * 1024
    return fields


def processes(root: int, postmaster: int | None) -> list[Proc]:
    """Every live process of the tree under ``root`` and under the ``postmaster``."""
    children, ticks = _scan()
    roots = [root] + ([postmaster] if postmaster is not None else [])
    seen: set[int] = set()
    found: list[Proc] = []
    roles: dict[int, str] = {}
    parent_of = {kid: ppid for ppid, kids in children.items() for kid in kids}
    for top in roots:
        for pid in _tree(top, children):
            if pid in seen:
                continue
            seen.add(pid)
            with contextlib.suppress(OSError):
                command = _cmdline(pid)
                role = _role(pid, root, postmaster, command, roles.get(parent_of.get(pid, 0), ""))
                roles[pid] = role
                status = _status_kb(pid)
                fds = len(os.listdir(f"/proc/{pid}/fd"))
                rss, shmem = status.get("VmRSS", 0), status.get("RssShmem", 0)
                found.append(Proc(pid, role, rss, shmem, fds, ticks.get(pid, 0)))
    return found


def postmaster_of(data_dir: Path) -> tuple[int, str, int]:
    """(pid, socket folder, port) of the embedded server, from its ``postmaster.pid``."""
    lines = (data_dir / "pgdata" / "postmaster.pid").read_text().splitlines()
    return int(lines[0]), lines[4], int(lines[3])


# -- the load ---------------------------------------------------------------------------------


@dataclass
class Record:
    """What the clients saw, each entry stamped with seconds since the measured start."""

    firsts: list[tuple[float, float]] = field(default_factory=list)  # (first token at, TTFT)
    rounds: list[float] = field(default_factory=list)  # completed at
    votes: list[float] = field(default_factory=list)
    reads: list[tuple[float, float]] = field(default_factory=list)  # (answered at, latency)
    errors: list[tuple[float, str]] = field(default_factory=list)


class Load:
    """``concurrency`` clients playing rounds and voting, and a reader, until ``stop``."""

    def __init__(self, url: str, concurrency: int, reads_per_s: float) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)
        self.concurrency, self.reads_per_s = concurrency, reads_per_s
        self.record = Record()
        self.epoch = time.perf_counter()  # moved to the measured start after the warm-up
        self.stopping = asyncio.Event()
        self.rng = random.Random(38)

    def now(self) -> float:
        return time.perf_counter() - self.epoch

    def error(self, kind: str) -> None:
        self.record.errors.append((self.now(), kind))

    async def _open(
        self, method: str, path: str, body: bytes
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write(
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        return reader, writer

    async def request(self, method: str, path: str, body: bytes = b"") -> int:
        """The status of one request over a fresh connection, its answer read to the end."""
        reader, writer = await self._open(method, path, body)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            while await reader.read(65536):
                pass
            return int(head.split(b" ", 2)[1])
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def round(self, prompt: str, session: str) -> dict[str, object] | None:
        """One round read to ``matchup_done``; its ``matchup_started`` payload, or None."""
        body = json.dumps({"prompt": prompt, "sessionId": session}).encode()
        reader, writer = await self._open("POST", "/api/arena/chat", body)
        sent = time.perf_counter()
        started: dict[str, object] | None = None
        done = failed = False
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            if status != 200:
                self.error(f"chat {status}")
                return None
            chunked = b"transfer-encoding: chunked" in head.lower()
            buffer, first = b"", True
            while True:
                if chunked:
                    size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                    if size == 0:
                        break
                    data = (await reader.readexactly(size + 2))[:-2]
                else:
                    data = await reader.read(65536)
                    if not data:
                        break
                buffer += data
                *frames, buffer = buffer.replace(b"\r\n", b"\n").split(b"\n\n")
                for frame in frames:
                    if frame.startswith(b"event: token"):
                        if first:
                            arrived = time.perf_counter()
                            self.record.firsts.append((arrived - self.epoch, arrived - sent))
                            first = False
                    elif frame.startswith(b"event: matchup_started"):
                        started = json.loads(frame.split(b"data: ", 1)[1])
                    elif frame.startswith(b"event: matchup_done"):
                        done = True
                    elif frame.startswith((b"event: slot_error", b"event: run_error")):
                        self.error(frame.split(b"\n", 1)[0].removeprefix(b"event: ").decode())
                        failed = True
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        if not done:
            self.error("stream ended without matchup_done")
            return None
        self.record.rounds.append(self.now())
        return None if failed else started

    async def player(self, n: int) -> None:
        session = f"soak-{n:03d}-{self.rng.randrange(16**8):08x}"
        await asyncio.sleep(n * 2.5 / self.concurrency)  # spread the starts over one round
        while not self.stopping.is_set():
            prompt = f"{self.rng.choice(PROMPTS)} (#{self.rng.randrange(10**6)})"
            try:
                started = await asyncio.wait_for(self.round(prompt, session), ROUND_TIMEOUT_S)
                if started is None:
                    await asyncio.sleep(0.5)
                    continue
                vote = json.dumps(
                    {
                        "matchupId": started["matchupId"],
                        "matchupToken": started["matchupToken"],
                        "vote": self.rng.choice(VOTES),
                    }
                ).encode()
                status = await self.request("POST", "/api/arena/vote", vote)
                if status // 100 != 2:
                    self.error(f"vote {status}")
                else:
                    self.record.votes.append(self.now())
            except (
                OSError,
                TimeoutError,
                ValueError,
                KeyError,
                asyncio.IncompleteReadError,
                asyncio.LimitOverrunError,
            ) as exc:
                self.error(f"client {type(exc).__name__}")
                await asyncio.sleep(0.5)

    async def read_once(self, path: str) -> None:
        asked = time.perf_counter()
        try:
            status = await asyncio.wait_for(self.request("GET", path), ROUND_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError, asyncio.IncompleteReadError) as exc:
            self.error(f"read {path} {type(exc).__name__}")
            return
        if status // 100 != 2:
            self.error(f"read {path} {status}")
        else:
            self.record.reads.append((self.now(), time.perf_counter() - asked))

    async def reader(self) -> None:
        tasks: set[asyncio.Task[None]] = set()
        k = 0
        while not self.stopping.is_set():
            task = asyncio.create_task(self.read_once(READS[k % len(READS)]))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            k += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), 1 / self.reads_per_s)
        await asyncio.gather(*tasks)

    async def run(self) -> None:
        await asyncio.gather(
            *(self.player(n) for n in range(self.concurrency)),
            self.reader(),
        )


# -- the samples ------------------------------------------------------------------------------


@dataclass
class Sample:
    t_s: float
    processes: list[Proc]
    # Over the interval's readings (every 2 s, and the sample's own), per group ("arena" for
    # the product's processes, "postgres"): the fewest and the median.
    fds_floor: dict[str, int]
    fds_median: dict[str, float]
    db_connections: int
    db_states: dict[str, int]  # the connections at the sample by state (active, idle, ...)
    db_floor: int
    db_median: float
    db_peak: int
    rounds: int
    rounds_per_s: float
    ttft_p50_ms: float
    ttft_p99_ms: float
    votes: int
    reads: int
    read_p99_ms: float
    errors: int
    error_kinds: dict[str, int]
    load_avg: float
    # Cores busy over the interval: the product's processes, this benchmark (its clients and
    # the fake vendor), and everything else on the machine (the noise).
    cpu_product: float
    cpu_bench: float
    cpu_others: float

    def rss(self, group: str) -> int:
        return sum(p.rss for p in self.processes if _group(p.role) == group)

    def fds(self, group: str) -> int:
        return sum(p.fds for p in self.processes if _group(p.role) == group)

    def rss_by_role(self) -> dict[str, int]:
        roles: dict[str, int] = {}
        for p in self.processes:
            roles[p.role] = roles.get(p.role, 0) + p.rss
        return roles


def _group(role: str) -> str:
    return "postgres" if role.startswith("pg ") else "arena"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else math.nan


class Monitor:
    """Samples the processes and the database; the floors every ``FLOOR_EVERY_S`` in a thread."""

    def __init__(self, root: int, data_dir: Path, vendor_pid: int) -> None:
        self.root, self.vendor_pid = root, vendor_pid
        self.postmaster, self.socket_dir, self.pg_port = postmaster_of(data_dir)
        # (seconds since the start, product descriptors, PostgreSQL's, DB connections)
        self.readings: list[tuple[float, int, int, int]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._floors, daemon=True)
        self._db: asyncpg.Connection | None = None
        self._ticks: dict[int, int] = {}
        self._cpu = (time.perf_counter(), *_machine_ticks(), self._bench_ticks())

    def _bench_ticks(self) -> int:
        return sum(_ticks_of(pid) for pid in (os.getpid(), self.vendor_pid))

    async def _connect(self) -> asyncpg.Connection:
        # Named, so that the counts leave the monitor's own two connections out.
        return await asyncpg.connect(
            host=self.socket_dir,
            port=self.pg_port,
            user="postgres",
            database="arena",
            server_settings={"application_name": MONITOR},
        )

    async def connect(self) -> None:
        self._db = await self._connect()

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()

    def start(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _floors(self) -> None:
        # Its own connection, as the loop's is not for threads: psql would cost a process.
        async def count_forever() -> None:
            db = await self._connect()
            try:
                while not self._stop.is_set():
                    procs = processes(self.root, self.postmaster)
                    connections = sum((await _connections(db)).values())
                    reading = (self._clock(), *_fds(procs), connections)
                    with self._lock:
                        self.readings.append(reading)
                    await asyncio.sleep(FLOOR_EVERY_S)
            finally:
                await db.close()

        asyncio.run(count_forever())

    async def sample(self, load: Load, since: float, until: float) -> Sample:
        procs = await asyncio.to_thread(processes, self.root, self.postmaster)
        assert self._db is not None
        states = await _connections(self._db)
        connections = sum(states.values())
        with self._lock:
            inside = [r for r in self.readings if since < r[0] <= until]
        inside.append((until, *_fds(procs), connections))
        product_fds = [r[1] for r in inside]
        pg_fds = [r[2] for r in inside]
        conns = [r[3] for r in inside]
        record = load.record
        ttfts = [ttft for at, ttft in record.firsts if since <= at < until]
        rounds = sum(since <= at < until for at in record.rounds)
        reads = [latency for at, latency in record.reads if since <= at < until]
        kinds: dict[str, int] = {}
        for at, kind in record.errors:
            if since <= at < until:
                kinds[kind] = kinds.get(kind, 0) + 1
        # New processes count their whole CPU time; ended ones lose their last interval's.
        ticks = {p.pid: p.cpu_ticks for p in procs}
        product = sum(t - self._ticks.get(pid, 0) for pid, t in ticks.items())
        self._ticks = ticks
        wall, busy, total, bench = (time.perf_counter(), *_machine_ticks(), self._bench_ticks())
        seconds = max(wall - self._cpu[0], 1e-9)
        # /proc/stat counts every core's ticks: the busy share times the cores is cores busy.
        busy_cores = (busy - self._cpu[1]) / max(total - self._cpu[2], 1) * (os.cpu_count() or 1)
        cpu_product = product / _HZ / seconds
        cpu_bench = (bench - self._cpu[3]) / _HZ / seconds
        self._cpu = (wall, busy, total, bench)
        return Sample(
            t_s=until,
            processes=procs,
            fds_floor={"arena": min(product_fds), "postgres": min(pg_fds)},
            fds_median={"arena": median(product_fds), "postgres": median(pg_fds)},
            db_connections=connections,
            db_states=states,
            db_floor=min(conns),
            db_median=median(conns),
            db_peak=max(conns),
            rounds=rounds,
            rounds_per_s=rounds / max(until - since, 1e-9),
            ttft_p50_ms=_pct(ttfts, 0.5) * 1000,
            ttft_p99_ms=_pct(ttfts, 0.99) * 1000,
            votes=sum(since <= at < until for at in record.votes),
            reads=len(reads),
            read_p99_ms=_pct(reads, 0.99) * 1000,
            errors=sum(kinds.values()),
            error_kinds=kinds,
            load_avg=os.getloadavg()[0],
            cpu_product=cpu_product,
            cpu_bench=cpu_bench,
            cpu_others=max(0.0, busy_cores - cpu_product - cpu_bench),
        )


def _fds(procs: list[Proc]) -> tuple[int, int]:
    """Open descriptors of the product's processes, and of PostgreSQL's."""
    return (
        sum(p.fds for p in procs if _group(p.role) == "arena"),
        sum(p.fds for p in procs if _group(p.role) == "postgres"),
    )


async def _connections(db: asyncpg.Connection) -> dict[str, int]:
    """The product's connections to its database, by state."""
    rows = await db.fetch(
        "SELECT coalesce(state, '?') AS state, count(*) AS n FROM pg_stat_activity"
        " WHERE datname = $1 AND application_name <> $2 GROUP BY 1",
        "arena",
        MONITOR,
    )
    return {str(row["state"]): int(row["n"]) for row in rows}


_HZ = os.sysconf("SC_CLK_TCK")


def _ticks_of(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _machine_ticks() -> tuple[int, int]:
    """(busy, all) clock ticks of every core since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    total = sum(values[:8])  # up to steal; guest time is already in user
    return total - idle, total


# -- the run ----------------------------------------------------------------------------------

_MIB = 2**20
_HEADER = (
    f"{'t (s)':>7}{'arena MiB':>10}{'pg MiB':>8}{'fds a/pg':>11}{'a floor':>8}"
    f"{'db conn':>8}{'low-high':>9}{'rounds/s':>9}{'ttft50':>7}{'ttft99':>7}{'votes':>6}"
    f"{'reads':>6}{'errors':>7}{'load':>6}{'cpu p/b/o':>11}"
)


def _line(s: Sample) -> str:
    return (
        f"{s.t_s:>7.0f}{s.rss('arena') / _MIB:>10.1f}{s.rss('postgres') / _MIB:>8.1f}"
        f"{s.fds_median['arena']:>6.0f}/{s.fds_median['postgres']:<4.0f}"
        f"{s.fds_floor['arena']:>8}{s.db_median:>8.0f}{f'{s.db_floor}-{s.db_peak}':>9}"
        f"{s.rounds_per_s:>9.1f}"
        f"{s.ttft_p50_ms:>7.0f}{s.ttft_p99_ms:>7.0f}{s.votes:>6}{s.reads:>6}{s.errors:>7}"
        f"{s.load_avg:>6.1f}  {s.cpu_product:.1f}/{s.cpu_bench:.1f}/{s.cpu_others:.1f}"
    )


async def soak(
    server: Product, vendor_pid: int, data_dir: Path, args: argparse.Namespace
) -> tuple[list[Sample], Load, list[tuple[float, int, int, int]]]:
    monitor = Monitor(server.pid, data_dir, vendor_pid)
    await monitor.connect()
    load = Load(server.url, args.concurrency, args.reads_per_s)
    running = asyncio.create_task(load.run())
    duration = args.minutes * 60
    samples: list[Sample] = []
    try:
        print(f"warm-up: {args.warmup_s:g} s of the same load, not measured", flush=True)
        await asyncio.sleep(args.warmup_s)
        if running.done():
            running.result()
        # The clock starts now: what the warm-up saw is stamped before 0.
        shift = load.now()
        load.epoch += shift
        for entries in (load.record.rounds, load.record.votes):
            entries[:] = [at - shift for at in entries]
        load.record.firsts[:] = [(at - shift, v) for at, v in load.record.firsts]
        load.record.reads[:] = [(at - shift, v) for at, v in load.record.reads]
        load.record.errors[:] = [(at - shift, v) for at, v in load.record.errors]
        print(_HEADER, flush=True)
        first = await monitor.sample(load, -args.warmup_s, 0.0)
        samples.append(first)
        monitor.start(load.now)
        print(_line(first) + "   (the warm-up)", flush=True)
        k = 1
        while True:
            due = min(k * args.sample_s, duration)
            await asyncio.sleep(max(0.0, due - load.now()))
            if running.done():
                running.result()
            sample = await monitor.sample(load, samples[-1].t_s, load.now())
            samples.append(sample)
            print(_line(sample), flush=True)
            if due >= duration:
                break
            k += 1
    finally:
        load.stopping.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(running, ROUND_TIMEOUT_S + 10)
        monitor.stop()
        await monitor.close()
    return samples, load, monitor.readings


# -- targets, outputs -------------------------------------------------------------------------


@dataclass
class Verdict:
    target: str
    first: float
    last: float
    ratio: float
    limit: str
    passed: bool


def window_s(duration: float) -> float:
    """The first and last windows: 5 minutes, or a quarter of a run shorter than 20 minutes."""
    return min(FIRST_WINDOW_S, duration / 4)


def judge(samples: list[Sample], load: Load, duration: float) -> list[Verdict]:
    window = window_s(duration)
    measured = samples[1:]
    reference = next(s for s in measured if s.t_s >= window - 1e-6)
    last = measured[-1]
    verdicts = []
    a, b = reference.rss("arena"), last.rss("arena")
    verdicts.append(
        Verdict(
            "RSS of the product's processes (sum)",
            a / _MIB,
            b / _MIB,
            b / a,
            f"<= {1 + RSS_GROWTH_MAX:.2f}x",
            b <= a * (1 + RSS_GROWTH_MAX),
        )
    )
    then, now = reference.rss_by_role(), last.rss_by_role()
    worst = max(
        (role for role in now if _group(role) == "arena" and then.get(role)),
        key=lambda role: now[role] / then[role],
    )
    a, b = then[worst], now[worst]
    verdicts.append(
        Verdict(
            f"RSS of each product process (most: {worst})",
            a / _MIB,
            b / _MIB,
            b / a,
            f"<= {1 + RSS_GROWTH_MAX:.2f}x",
            b <= a * (1 + RSS_GROWTH_MAX),
        )
    )
    then_fds, now_fds = reference.fds_median["arena"], last.fds_median["arena"]
    verdicts.append(
        Verdict(
            "open descriptors of the product (interval median)",
            then_fds,
            now_fds,
            now_fds / then_fds if then_fds else math.nan,
            f"<= +{FLOOR_TOLERANCE}",
            now_fds <= then_fds + FLOOR_TOLERANCE,
        )
    )
    verdicts.append(
        Verdict(
            "database connections (interval median)",
            reference.db_median,
            last.db_median,
            last.db_median / reference.db_median if reference.db_median else math.nan,
            f"<= +{FLOOR_TOLERANCE}",
            last.db_median <= reference.db_median + FLOOR_TOLERANCE,
        )
    )
    firsts = load.record.firsts
    early = _pct([v for at, v in firsts if 0 <= at < window], 0.99) * 1000
    late = _pct([v for at, v in firsts if duration - window <= at <= duration], 0.99) * 1000
    verdicts.append(
        Verdict(
            "TTFT p99 (ms), last window / first",
            early,
            late,
            late / early,
            f"<= {TTFT_RATIO_MAX:.1f}x",
            late <= early * TTFT_RATIO_MAX,
        )
    )
    errors = len(load.record.errors)
    verdicts.append(
        Verdict("errors (whole run, warm-up included)", 0, errors, math.nan, "0", errors == 0)
    )
    return verdicts


def rounds_ratio(load: Load, duration: float) -> tuple[float, float]:
    """Rounds/s completed in the first and in the last window."""
    window = window_s(duration)
    rounds = load.record.rounds
    first = sum(0 <= at < window for at in rounds) / window
    last = sum(duration - window <= at <= duration for at in rounds) / window
    return first, last


def write_outputs(
    out: Path,
    samples: list[Sample],
    load: Load,
    readings: list[tuple[float, int, int, int]],
    verdicts: list[Verdict],
    args: argparse.Namespace,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    roles = sorted({p.role for s in samples for p in s.processes})
    with (out / "soak.csv").open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(
            ["t_s", "rss_arena_mib", "rss_postgres_mib", "rss_total_mib"]
            + [f"rss_{r.replace(' ', '_')}_mib" for r in roles]
            + ["fds_arena", "fds_postgres", "fds_median_arena", "fds_median_postgres"]
            + ["fds_floor_arena", "fds_floor_postgres"]
            + ["db_connections", "db_median", "db_floor", "db_peak", "rounds", "rounds_per_s"]
            + ["ttft_p50_ms", "ttft_p99_ms", "votes", "reads", "read_p99_ms", "errors"]
            + ["db_active", "db_idle", "db_idle_in_transaction"]
            + ["load_avg", "cpu_product", "cpu_bench", "cpu_others"]
        )
        for s in samples:
            by_role = s.rss_by_role()
            writer.writerow(
                [s.t_s, *(round(s.rss(g) / _MIB, 1) for g in ("arena", "postgres"))]
                + [round((s.rss("arena") + s.rss("postgres")) / _MIB, 1)]
                + [round(by_role.get(r, 0) / _MIB, 1) for r in roles]
                + [s.fds("arena"), s.fds("postgres")]
                + [s.fds_median["arena"], s.fds_median["postgres"]]
                + [s.fds_floor["arena"], s.fds_floor["postgres"]]
                + [s.db_connections, s.db_median, s.db_floor, s.db_peak, s.rounds]
                + [round(s.rounds_per_s, 2)]
                + [round(s.ttft_p50_ms, 1), round(s.ttft_p99_ms, 1), s.votes, s.reads]
                + [round(s.read_p99_ms, 1), s.errors]
                + [s.db_states.get(k, 0) for k in ("active", "idle", "idle in transaction")]
                + [round(s.load_avg, 2), round(s.cpu_product, 2), round(s.cpu_bench, 2)]
                + [round(s.cpu_others, 2)]
            )
    document = {
        "settings": {
            "minutes": args.minutes,
            "sample_s": args.sample_s,
            "concurrency": args.concurrency,
            "reads_per_s": args.reads_per_s,
            "warmup_s": args.warmup_s,
            "vendor": {"rate": RATE, "tokens": TOKENS, "prose": True, "models": len(MODELS)},
            "cores": os.cpu_count(),
        },
        "samples": [asdict(s) for s in samples],
        # Every round's first token: [seconds since the start, TTFT in ms] (warm-up below 0).
        "first_tokens": [[round(at, 3), round(v * 1000, 1)] for at, v in load.record.firsts],
        "errors": [[round(at, 3), kind] for at, kind in load.record.errors],
        # Every 2 s: [seconds, product descriptors, PostgreSQL's, database connections].
        "readings": [[round(t, 2), a, b, c] for t, a, b, c in readings],
        "verdicts": [asdict(v) for v in verdicts],
    }
    (out / "soak.json").write_text(json.dumps(_finite(document), indent=1))
    plot(out / "soak.png", samples, args)


def _finite(value: object) -> object:
    """``value`` with every NaN as None (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def plot(path: Path, samples: list[Sample], args: argparse.Namespace) -> None:
    """RSS, descriptors, connections, TTFT and rounds/s against time, one panel each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = [s.t_s / 60 for s in samples]
    measured = samples[1:]
    later = [s.t_s / 60 for s in measured]
    fig, axes = plt.subplots(6, 1, figsize=(10, 16), sharex=True)
    (rss, pg, fds, db, ttft, rate) = axes
    roles = sorted({p.role for s in samples for p in s.processes if _group(p.role) == "arena"})
    for role in roles:
        rss.plot(minutes, [s.rss_by_role().get(role, 0) / _MIB for s in samples], label=role)
    rss.plot(minutes, [s.rss("arena") / _MIB for s in samples], "k-", lw=2, label="sum")
    rss.set_ylabel("product RSS (MiB)")
    rss.set_ylim(bottom=0)
    rss.legend(fontsize=7, ncol=5, loc="center left")
    pg.plot(minutes, [s.rss("postgres") / _MIB for s in samples], label="RSS, summed")
    pg.plot(
        minutes,
        [
            sum(p.rss - p.shmem for p in s.processes if _group(p.role) == "postgres") / _MIB
            for s in samples
        ],
        label="RSS less shared memory, summed",
    )
    pg.set_ylabel("PostgreSQL (MiB)")
    pg.set_ylim(bottom=0)
    pg.legend(fontsize=7, loc="upper left")
    for ax, group, colour, name in (
        (fds, "arena", "C0", "product"),
        (fds.twinx(), "postgres", "C1", "PostgreSQL"),
    ):
        ax.plot(minutes, [s.fds_floor[group] for s in samples], colour, ls=":", label="fewest")
        ax.plot(
            minutes, [s.fds_median[group] for s in samples], colour, lw=2, label=f"{name}, median"
        )
        ax.set_ylabel(f"{name} descriptors", color=colour)
        ax.legend(fontsize=7, loc="upper left" if group == "arena" else "lower right")
    db.fill_between(
        minutes,
        [s.db_floor for s in samples],
        [s.db_peak for s in samples],
        alpha=0.2,
        label="fewest to most (every 2 s)",
    )
    db.plot(minutes, [s.db_median for s in samples], "o-", label="median of the interval")
    db.set_ylabel("DB connections")
    db.set_ylim(bottom=0)
    db.legend(fontsize=7, loc="lower right")
    ttft.plot(later, [s.ttft_p99_ms for s in measured], "o-", label="p99")
    ttft.plot(later, [s.ttft_p50_ms for s in measured], "o-", label="p50")
    ttft.set_ylabel("TTFT (ms)")
    ttft.set_ylim(bottom=0)
    ttft.legend(fontsize=7, loc="upper left")
    rate.plot(later, [s.rounds_per_s for s in measured], "o-", label="rounds/s")
    errors = [(s.t_s / 60, s.rounds_per_s) for s in measured if s.errors]
    if errors:
        rate.scatter(*zip(*errors, strict=True), color="red", marker="x", s=80, label="errors")
    rate.set_ylabel("rounds/s")
    rate.set_ylim(bottom=0)
    rate.set_xlabel("minutes (after the warm-up)")
    rate.legend(fontsize=7, loc="lower left")
    noise = rate.twinx()
    noise.plot(later, [s.cpu_others for s in measured], "C7--", label="cores used by others")
    noise.set_ylabel("cores used by others", color="C7")
    noise.set_ylim(0, os.cpu_count() or 1)
    noise.legend(fontsize=7, loc="lower right")
    window = window_s(args.minutes * 60) / 60
    for ax in axes:
        ax.axvspan(0, window, color="grey", alpha=0.08)
        ax.axvspan(args.minutes - window, args.minutes, color="grey", alpha=0.08)
        ax.grid(alpha=0.3)
    fig.suptitle(
        f"arena serve soak: {args.concurrency} concurrent rounds + votes + "
        f"{args.reads_per_s:g} reads/s, {args.minutes:g} min on {os.cpu_count()} cores\n"
        "(shaded: the first and last windows compared)"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def report(samples: list[Sample], load: Load, verdicts: list[Verdict], duration: float) -> None:
    window = window_s(duration)
    measured = samples[1:]
    reference = next(s for s in measured if s.t_s >= window - 1e-6)
    last = measured[-1]
    print(
        f"\nper process at {reference.t_s:.0f} s (end of the first window) and at {last.t_s:.0f} s:"
    )
    print(f"  {'role':<16}{'count':>6}{'RSS MiB':>10}{'then':>8}{'x':>7}{'fds':>6}{'then':>6}")
    for role in sorted({p.role for p in reference.processes + last.processes}):
        old = [p for p in reference.processes if p.role == role]
        new = [p for p in last.processes if p.role == role]
        a, b = sum(p.rss for p in old), sum(p.rss for p in new)
        print(
            f"  {role:<16}{len(new):>6}{b / _MIB:>10.1f}{a / _MIB:>8.1f}"
            f"{(b / a if a else math.nan):>7.2f}{sum(p.fds for p in new):>6}"
            f"{sum(p.fds for p in old):>6}"
        )
    shared = sum(p.shmem for p in last.processes if _group(p.role) == "postgres")
    print(
        "  (the PostgreSQL processes' RSS counts the shared buffers each one touched: "
        f"{shared / _MIB:.0f} MiB of their {last.rss('postgres') / _MIB:.0f} MiB at the end; "
        f"its descriptors and backends follow the connections)"
    )
    states = ", ".join(f"{k} {n}" for k, n in sorted(last.db_states.items()))
    print(f"  database connections at the end, by state: {states}")
    first_rate, last_rate = rounds_ratio(load, duration)
    kinds: dict[str, int] = {}
    for _, kind in load.record.errors:
        kinds[kind] = kinds.get(kind, 0) + 1
    print(
        f"\nbaseline = the same run's first {window:.0f} s; compared with its last {window:.0f} s"
    )
    print(
        f"  rounds/s: first {first_rate:.1f}, last {last_rate:.1f} "
        f"(last / first {last_rate / first_rate if first_rate else math.nan:.2f}x); "
        f"{len(load.record.rounds)} rounds, {len(load.record.votes)} votes, "
        f"{len(load.record.reads)} reads in all"
    )
    if kinds:
        print("  errors: " + ", ".join(f"{k} x{n}" for k, n in sorted(kinds.items())))
    print(
        f"\n  {'target: the first window against the last':<52}{'first':>9}{'last':>9}"
        f"{'last/first':>12}  {'limit':<9}verdict"
    )
    for v in verdicts:
        ratio = "-" if math.isnan(v.ratio) else f"{v.ratio:.2f}x"
        print(
            f"  {v.target:<52}{v.first:>9.1f}{v.last:>9.1f}{ratio:>12}  {v.limit:<9}"
            f"{'PASS' if v.passed else 'FAIL'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=20)
    parser.add_argument("--sample-s", type=float, default=30)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--reads-per-s", type=float, default=3)
    parser.add_argument("--warmup-s", type=float, default=30)
    parser.add_argument(
        "--out", type=Path, default=ROOT / ".arena" / "soak", help="folder for the outputs"
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "serve.log").unlink(missing_ok=True)
    duration = args.minutes * 60
    print(
        f"soak of arena serve: {args.concurrency} concurrent rounds (each then voted) and "
        f"{args.reads_per_s:g} reads/s for {args.minutes:g} min, sampled every "
        f"{args.sample_s:g} s; {len(MODELS)} models on a fake vendor, {TOKENS // 2}-"
        f"{TOKENS * 3 // 2} words an answer at {RATE:g}/s; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f} before the start",
        flush=True,
    )
    vendor_port = free_port()
    with (
        tempfile.TemporaryDirectory() as tmp,
        vendor(vendor_port) as vendor_pid,
        product(vendor_port, Path(tmp), args.out / "serve.log") as server,
    ):
        print(f"arena serve is up at {server.url} (pid {server.pid})", flush=True)
        samples, load, readings = asyncio.run(soak(server, vendor_pid, Path(tmp), args))
    verdicts = judge(samples, load, duration)
    report(samples, load, verdicts, duration)
    write_outputs(args.out, samples, load, readings, verdicts, args)
    print(f"\nwrote {args.out / 'soak.csv'}, soak.json, soak.png, serve.log")


if __name__ == "__main__":
    main()
