"""Keep the rating process running beside ``arena serve``: start it, restart it, stop it.

``WorkerSupervisor`` runs the child (``python -m arena_rating --loop --style`` by default) in a
process group of its own and watches it from a daemon thread. When the child exits on its own
it is restarted after a back-off that doubles from 1 s up to 60 s and resets once a child has
stayed up for a minute; ``stop()`` sends SIGTERM to the group, waits, then SIGKILLs. It uses the
standard library only, so the server's command line can own one without importing NumPy.

A ``WorkerListener`` hears of every exit the supervisor did not ask for, with how many came in a
row (``arena serve`` alerts from the second), and of a child that stayed up a minute after such
failures (the rating process works again).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

__all__ = ["WorkerListener", "WorkerSupervisor", "rating_worker_command"]

_log = logging.getLogger("arena_rating.supervisor")

INITIAL_BACKOFF_S = 1.0
MAX_BACKOFF_S = 60.0
#: A child that stayed up this long was healthy: the next restart starts from the shortest wait.
HEALTHY_AFTER_S = 60.0
STOP_TIMEOUT_S = 10.0


def rating_worker_command(*, style: bool = True) -> list[str]:
    """The embedded worker's command line: ``python -m arena_rating --loop [--style]``."""
    return [sys.executable, "-m", "arena_rating", "--loop", *(["--style"] if style else [])]


class WorkerListener(Protocol):
    """Hears how the supervised child fares; called from the supervisor's thread."""

    def worker_failed(self, consecutive: int, status: int | None) -> None:
        """The child exited unasked (``status``: its exit status, ``None`` if it never
        started), the ``consecutive``-th time with no healthy run in between."""
        ...

    def worker_healthy(self) -> None:
        """A child started after failures has stayed up ``healthy_after_s``."""
        ...


class WorkerSupervisor:
    """Run ``command`` as a child, restarting it with back-off until ``stop()``.

    Parameters
    ----------
    command : sequence of str
        The child's argv.
    env : mapping, optional
        Its environment (``DATABASE_URL`` must be in it); the parent's by default.
    initial_backoff_s, max_backoff_s, healthy_after_s, stop_timeout_s : float
        Restart waits, when a run counts as healthy, and how long ``stop()`` waits for SIGTERM.
    listener : WorkerListener, optional
        Told of failures and of a recovery.
    """

    def __init__(
        self,
        command: Sequence[str],
        env: Mapping[str, str] | None = None,
        *,
        initial_backoff_s: float = INITIAL_BACKOFF_S,
        max_backoff_s: float = MAX_BACKOFF_S,
        healthy_after_s: float = HEALTHY_AFTER_S,
        stop_timeout_s: float = STOP_TIMEOUT_S,
        listener: WorkerListener | None = None,
    ) -> None:
        self.command = list(command)
        self.env = dict(os.environ if env is None else env)
        self.initial_backoff_s = initial_backoff_s
        self.max_backoff_s = max_backoff_s
        self.healthy_after_s = healthy_after_s
        self.stop_timeout_s = stop_timeout_s
        self.listener = listener
        self.starts = 0
        #: Unasked exits in a row, with no healthy run in between.
        self.failures = 0
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._watch, name="rating-supervisor", daemon=True)

    @property
    def pid(self) -> int | None:
        """The running child's pid, if one is running."""
        with self._lock:
            child = self._child
        return child.pid if child is not None and child.poll() is None else None

    def start(self) -> None:
        """Start the child and the thread that restarts it."""
        self._thread.start()

    def stop(self) -> None:
        """Stop restarting, end the child (SIGTERM, then SIGKILL after the timeout), and wait."""
        self._stopping.set()
        with self._lock:
            child = self._child
        if child is not None:
            _terminate(child, self.stop_timeout_s)
        if self._thread.is_alive():
            self._thread.join(timeout=self.stop_timeout_s + 5)

    def __enter__(self) -> WorkerSupervisor:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _watch(self) -> None:
        backoff = self.initial_backoff_s
        while not self._stopping.is_set():
            with self._lock:
                if self._stopping.is_set():
                    return
                started = time.monotonic()
                try:
                    self._child = subprocess.Popen(
                        self.command, env=self.env, start_new_session=True
                    )
                except OSError as exc:
                    _log.error("could not start the rating worker: %s", exc)
                    self._child = None
                child = self._child
                self.starts += 1
            status = self._wait(child) if child is not None else None
            if self._stopping.is_set():
                return
            if time.monotonic() - started >= self.healthy_after_s:
                backoff = self.initial_backoff_s
            _log.warning(
                "the rating worker exited with status %s; restarting in %g s", status, backoff
            )
            self.failures += 1
            if self.listener is not None:
                with _logged_failure():
                    self.listener.worker_failed(self.failures, status)
            if self._stopping.wait(backoff):
                return
            backoff = min(backoff * 2, self.max_backoff_s)

    def _wait(self, child: subprocess.Popen[bytes]) -> int:
        """The child's exit status; once it has stayed up ``healthy_after_s``, the failures
        before it are forgiven."""
        try:
            return child.wait(timeout=self.healthy_after_s)
        except subprocess.TimeoutExpired:
            if self.failures and not self._stopping.is_set():
                self.failures = 0
                if self.listener is not None:
                    with _logged_failure():
                        self.listener.worker_healthy()
            return child.wait()


@contextlib.contextmanager
def _logged_failure() -> Iterator[None]:
    """What the listener does wrong is logged, never the supervisor's end."""
    try:
        yield
    except Exception:
        _log.exception("the rating worker's listener failed")


def _terminate(child: subprocess.Popen[bytes], timeout_s: float) -> None:
    if child.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGTERM)
    try:
        child.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
