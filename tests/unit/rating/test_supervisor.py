"""The supervisor behind ``arena serve``: restarts a dying worker with back-off, stops it."""

from __future__ import annotations

import os
import sys
import time

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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
