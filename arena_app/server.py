"""``arena serve``'s long-lived process: granian serving the UI and the API on one port, and the
supervisor of what runs beside it.

``arena serve`` migrates, seeds the roster and builds the UI when its sources changed, then
replaces itself with this module (``os.execve``, same PID), so nothing it imported for that work
stays resident. This process is granian's main process, and also:

* drains on the first SIGINT/SIGTERM (``POST /_arena/drain``: rounds in flight finish, new ones
  get 503 ``shutting_down``, for up to ``ARENA_SHUTDOWN_GRACE_S``), then stops the worker; a
  second signal skips what is left of the drain; a stop it was asked for exits 0;
* prints the ready line once ``/health`` answers;
* runs the rating process beside the server (``ARENA_RATING_WORKER=embedded``), restarted with
  back-off, and alerts its repeated failures when a webhook is set;
* releases the embedded PostgreSQL at the end (``--embedded-pgdata``), which stops it unless
  another process still holds it.

It imports the standard library, granian and the settings only: the application is imported by
the worker, forked from this process before anything else in it runs. Reflex's own production
runner imports the whole app in the supervisor first, so that forked workers share its pages;
with the one worker a server runs, that only doubled what the processes hold.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import multiprocessing
import os
import secrets
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from granian.constants import Interfaces, Loops
from granian.log import LogLevels
from granian.server import MPServer

from arena_api.settings import Settings, SettingsError, load_settings

if TYPE_CHECKING:
    from arena_rating import WorkerSupervisor

__all__ = ["INTERNAL_TOKEN", "REFLEX_SERVING_ENV", "main", "rating_worker"]

ROOT = Path(__file__).resolve().parents[1]

#: The variable that carries the drain endpoint's secret (``arena_api.routes.lifecycle``).
INTERNAL_TOKEN = "ARENA_INTERNAL_TOKEN"

#: What the worker's Reflex reads: production mode, the compiled frontend mounted, and no
#: compile (``arena build-ui``, or ``arena serve`` when the sources changed, left what the
#: backend needs in ``.web/backend``; compiling again would take seconds and need bun, which the
#: image has not). The last two are Reflex's internal variables, named here so that this process
#: need not import Reflex; a unit test holds the names to Reflex's.
REFLEX_SERVING_ENV = {
    "REFLEX_ENV_MODE": "prod",
    "__REFLEX_MOUNT_FRONTEND_COMPILED_APP": "true",
    "__REFLEX_SKIP_COMPILE": "true",
}

#: The app granian's worker loads: Reflex's app object, whose call builds the ASGI app.
TARGET = "arena_app.arena_app:app"

#: A drain's own time beyond the grace: stopped rounds storing what they produced.
DRAIN_MARGIN_S = 4.0


class ArenaServer(MPServer):
    """Granian's main process, draining on the first stop signal and starting what runs beside
    the server once the worker is forked (a fork copies no thread but the caller's)."""

    def __init__(
        self, *, drain: Callable[[], None], started: Callable[[], None], **options: Any
    ) -> None:
        super().__init__(**options)
        self._drain = drain
        self._started = started
        self.stopping = threading.Event()

    def startup(self, spawn_target: Any, target_loader: Any) -> None:
        super().startup(spawn_target, target_loader)  # type: ignore[no-untyped-call]
        self._started()

    def signal_handler_interrupt(self, *args: Any, **kwargs: Any) -> None:
        if self.stopping.is_set():
            super().signal_handler_interrupt()  # type: ignore[no-untyped-call]
            return
        self.stopping.set()
        print("arena: stopping; letting the rounds in flight finish", file=sys.stderr, flush=True)
        threading.Thread(target=self._drain_then_stop, name="drain", daemon=True).start()

    def _drain_then_stop(self) -> None:
        self._drain()
        super().signal_handler_interrupt()  # type: ignore[no-untyped-call]


def _post_drain(port: int, token: str, timeout_s: float) -> None:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/_arena/drain",
        method="POST",
        headers={"x-arena-internal": token},
    )
    with contextlib.suppress(OSError), urllib.request.urlopen(request, timeout=timeout_s):
        pass


def _announce_when_healthy(port: int, stopping: threading.Event, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and not stopping.is_set():
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as answer:
                if answer.status == 200:
                    print(f"arena: ready at http://localhost:{port}/  (health: /health)")
                    sys.stdout.flush()
                    return
        time.sleep(0.2)


@contextlib.contextmanager
def _embedded_database(pgdata: Path | None) -> Iterator[None]:
    """Hold the embedded server ``arena serve`` started (this process kept its PID, so it is
    already a holder) and release it at the end: the last holder's release stops it."""
    if pgdata is None:
        yield
        return
    from arena_api.db.embedded import embedded_server

    server = embedded_server(pgdata)
    try:
        yield
    finally:
        server.cleanup()


def rating_worker(settings: Settings) -> tuple[WorkerSupervisor, Callable[[], None]]:
    """The rating process's supervisor (not started), and what stops its alerts."""
    from arena_rating import WorkerSupervisor, rating_worker_command

    if settings.alert_webhook_url is None:
        return WorkerSupervisor(rating_worker_command(style=True)), lambda: None
    # Its failing twice in a row is alerted from here, where it is seen.
    from arena_api.webhook import AlertsThread, RatingWorkerAlerts

    alerts = AlertsThread(settings.alert_webhook_url)
    alerts.start()
    listener = RatingWorkerAlerts(alerts)
    return WorkerSupervisor(rating_worker_command(style=True), listener=listener), alerts.stop


def _name_process(name: bytes) -> None:
    """The name ``ps``, ``top`` and ``/proc/PID/status`` show (Linux's ``PR_SET_NAME``): the
    command people ran, ``arena``, rather than the interpreter's; the worker inherits it."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(15, name, 0, 0, 0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m arena_app.server")
    parser.add_argument(
        "--embedded-pgdata", type=Path, help="the embedded PostgreSQL to release at the end"
    )
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
    except SettingsError as exc:
        raise SystemExit(f"arena: {exc}") from None

    _name_process(b"arena")
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    token = secrets.token_urlsafe(32)
    os.environ.update(REFLEX_SERVING_ENV)
    os.environ[INTERNAL_TOKEN] = token
    # The worker is forked: it starts from this small process instead of a new interpreter,
    # and no multiprocessing resource-tracker process is needed (spawn and forkserver start one).
    multiprocessing.set_start_method("fork", force=True)

    worker: WorkerSupervisor | None = None
    stop_alerts: Callable[[], None] = lambda: None  # noqa: E731
    if settings.rating_worker == "embedded":
        worker, stop_alerts = rating_worker(settings)
    server = ArenaServer(
        drain=lambda: _post_drain(settings.port, token, settings.shutdown_grace_s + DRAIN_MARGIN_S),
        started=lambda: _start_beside(settings.port, worker, server.stopping),
        target=TARGET,
        factory=True,
        address=settings.host,
        port=settings.port,
        interface=Interfaces.ASGI,
        # uvloop, named rather than left to granian's "auto" (which would prefer rloop, young,
        # if it were ever installed): it cuts a relayed round's CPU by a third at 30 concurrent
        # rounds and by a tenth at 400 against asyncio's own loop (benchmarks/relay_http.py).
        loop=Loops.uvloop,
        log_level=LogLevels(settings.log_level.lower()),
        # One worker per server: a server's metrics, its rounds in flight and its supervised
        # rating process belong to one process; with REDIS_URL an arena scales out by replicas.
        workers=int(os.environ.get("GRANIAN_WORKERS", "1")),
    )
    status: int | str | None = 0
    with _embedded_database(args.embedded_pgdata):
        try:
            server.serve()
        except SystemExit as exc:  # granian exits 1 when its worker died
            status = exc.code
        finally:
            if worker is not None:
                worker.stop()
            stop_alerts()
    raise SystemExit(status)


def _start_beside(port: int, worker: WorkerSupervisor | None, stopping: threading.Event) -> None:
    if worker is not None:
        worker.start()
    threading.Thread(
        target=_announce_when_healthy, args=(port, stopping), name="ready", daemon=True
    ).start()


if __name__ == "__main__":
    main()
