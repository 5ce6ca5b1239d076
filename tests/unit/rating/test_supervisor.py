"""The supervisor behind ``arena serve``: restarts a dying worker with back-off, stops it."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from arena_rating import WorkerSupervisor, rating_worker_command

DIES = [sys.executable, "-c", "import sys; sys.exit(3)"]
SLEEPS = [sys.executable, "-c", "import time; time.sleep(60)"]
IGNORES_SIGTERM = [
    sys.executable,
    "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(flush=True); "
    "time.sleep(60)",
]


def _wait_for(condition: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


def test_the_embedded_worker_runs_the_loop_with_the_style_pass() -> None:
    assert rating_worker_command() == [sys.executable, "-m", "arena_rating", "--loop", "--style"]


def test_a_worker_that_dies_is_restarted_with_growing_waits() -> None:
    supervisor = WorkerSupervisor(DIES, initial_backoff_s=0.05, max_backoff_s=0.2)

    with supervisor:
        started = time.monotonic()
        _wait_for(lambda: supervisor.starts >= 4)
        elapsed = time.monotonic() - started

    assert elapsed >= 0.05 + 0.1 + 0.2  # the waits before starts 2, 3 and 4


def test_stop_ends_a_running_worker() -> None:
    supervisor = WorkerSupervisor(SLEEPS)
    supervisor.start()
    _wait_for(lambda: supervisor.pid is not None)
    pid = supervisor.pid

    supervisor.stop()

    assert supervisor.pid is None and supervisor.starts == 1
    assert pid is not None and not _alive(pid)


def test_a_worker_that_ignores_sigterm_is_killed_after_the_timeout() -> None:
    supervisor = WorkerSupervisor(IGNORES_SIGTERM, stop_timeout_s=0.5)
    supervisor.start()
    _wait_for(lambda: supervisor.pid is not None)
    time.sleep(0.3)  # let the child install its handler

    started = time.monotonic()
    supervisor.stop()

    assert supervisor.pid is None
    assert time.monotonic() - started < 5


class Listener:
    """Records what the supervisor tells, from its thread."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, int | None]] = []
        self._lock = threading.Lock()

    def worker_failed(self, consecutive: int, status: int | None) -> None:
        with self._lock:
            self.heard.append((f"failed {consecutive}", status))

    def worker_healthy(self) -> None:
        with self._lock:
            self.heard.append(("healthy", None))


def fails_then_sleeps(runs: Path, failures: int) -> list[str]:
    """A worker whose first ``failures`` runs exit with status 3 (counted in ``runs``)."""
    script = (
        "import pathlib, sys, time; p = pathlib.Path(sys.argv[1]); "
        "n = int(p.read_text() or 0) + 1 if p.exists() else 1; p.write_text(str(n)); "
        f"sys.exit(3) if n <= {failures} else time.sleep(60)"
    )
    return [sys.executable, "-c", script, str(runs)]


def test_the_listener_hears_each_failure_with_how_many_came_in_a_row() -> None:
    listener = Listener()
    supervisor = WorkerSupervisor(
        DIES, initial_backoff_s=0.02, max_backoff_s=0.02, listener=listener
    )

    with supervisor:
        _wait_for(lambda: len(listener.heard) >= 3)

    assert listener.heard[:3] == [("failed 1", 3), ("failed 2", 3), ("failed 3", 3)]


def test_a_worker_that_stays_up_after_failures_is_reported_healthy_and_forgiven(
    tmp_path: Path,
) -> None:
    listener = Listener()
    command = fails_then_sleeps(tmp_path / "runs", failures=2)
    supervisor = WorkerSupervisor(
        command, initial_backoff_s=0.02, healthy_after_s=0.5, listener=listener
    )

    with supervisor:
        _wait_for(lambda: ("healthy", None) in listener.heard)
        failures = supervisor.failures

    assert listener.heard == [("failed 1", 3), ("failed 2", 3), ("healthy", None)]
    assert failures == 0


def test_a_listener_that_raises_does_not_stop_the_restarts() -> None:
    class Broken:
        def worker_failed(self, consecutive: int, status: int | None) -> None:
            raise RuntimeError("a bug in the listener")

        def worker_healthy(self) -> None:
            raise RuntimeError("a bug in the listener")

    supervisor = WorkerSupervisor(
        DIES, initial_backoff_s=0.02, max_backoff_s=0.02, listener=Broken()
    )

    with supervisor:
        _wait_for(lambda: supervisor.starts >= 3)

    assert supervisor.failures >= 2


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
