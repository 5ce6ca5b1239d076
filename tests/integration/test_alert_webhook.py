"""The alert webhook against a real receiver on a loopback port: what it POSTs, once per change,
within the rate limit, again after a 500, never waiting on a receiver that hangs; and the two
signals wired end to end, a database that goes away and comes back and a rating process that
keeps dying."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from arena_api.app import create_api
from arena_api.db.engine import create_engine, embedded_postgres
from arena_api.db.migrations import upgrade
from arena_api.db.status import PostgresProbe
from arena_api.services.alerts import Alerts
from arena_api.webhook import AlertsThread, RatingWorkerAlerts, WebhookSender, open_alerts
from arena_rating import WorkerSupervisor
from tests.integration.test_database_outage import Database
from tests.support import ProductProcess, ServerThread, free_port, make_settings


class Receiver:
    """A webhook that records every POST's JSON body; the first ``failing`` answer 500, and
    with ``hang`` none is answered until the test ends."""

    def __init__(self, *, failing: int = 0, hang: bool = False) -> None:
        self.failing = failing
        self.hang = hang
        self.attempts = 0
        self.posts: list[dict[str, Any]] = []
        self.released = threading.Event()
        self.app = Starlette(routes=[Route("/hook", self.hook, methods=["POST"])])

    async def hook(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.attempts += 1
        if self.hang:
            await asyncio.to_thread(self.released.wait, 60)
        if self.attempts <= self.failing:
            return JSONResponse({"ok": False}, status_code=500)
        self.posts.append(body)
        return JSONResponse({"ok": True})

    def events(self) -> list[str]:
        return [post["event"] for post in self.posts]


@contextmanager
def receiving(receiver: Receiver) -> Iterator[str]:
    """The receiver on a free loopback port; yields its URL."""
    with ServerThread(receiver.app, free_port()) as server:
        try:
            yield f"{server.url}/hook"
        finally:
            receiver.released.set()


async def until(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


async def test_an_alert_reaches_the_webhook_once_per_change_as_slack_compatible_json() -> None:
    receiver = Receiver()
    with receiving(receiver) as url:
        async with open_alerts(url) as alerts:
            alerts.model_paused("Mock Aurora", failures=5, window=10, cooldown_s=60)
            alerts.model_paused("Mock Aurora", failures=6, window=10, cooldown_s=60)
            alerts.model_resumed("Mock Aurora")
            await until(lambda: len(receiver.posts) == 2)

    paused, resumed = receiver.posts
    assert paused["text"].startswith('[arena warning] Model "Mock Aurora" paused: 5 of its last')
    assert paused["event"] == "model_paused" and paused["severity"] == "warning"
    assert paused["subject"] == "Mock Aurora"
    assert paused["details"] == {"failures": 5, "window": 10, "cooldown_s": 60}
    assert paused["at"].endswith("+00:00")
    assert resumed["event"] == "model_resumed" and resumed["severity"] == "info"
    assert receiver.attempts == 2


async def test_the_webhook_url_stays_out_of_the_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    receiver = Receiver(failing=1)
    with receiving(receiver) as url:
        async with open_alerts(url) as alerts:
            alerts.database_unavailable("refused")
            await until(lambda: len(receiver.posts) == 1)

    assert "the webhook answered 500" in caplog.text
    assert url not in caplog.text and "/hook" not in caplog.text


async def test_no_more_than_the_rate_limit_is_posted() -> None:
    receiver = Receiver()
    with receiving(receiver) as url:
        async with httpx.AsyncClient(timeout=5) as client:
            async with Alerts(WebhookSender(client, url), per_minute=2).running() as alerts:
                for n in range(4):
                    alerts.model_paused(f"Model {n}", failures=5, window=10, cooldown_s=60)

    assert [post["subject"] for post in receiver.posts] == ["Model 0", "Model 1"]


async def test_an_alert_the_webhook_answered_500_is_posted_again() -> None:
    receiver = Receiver(failing=1)
    with receiving(receiver) as url:
        async with httpx.AsyncClient(timeout=5) as client:
            sender = WebhookSender(client, url)
            async with Alerts(sender, backoff_s=0.05).running() as alerts:
                alerts.database_unavailable("ConnectionRefusedError: [Errno 111]")
                await until(lambda: len(receiver.posts) == 1)

    assert receiver.attempts == 2
    assert receiver.events() == ["database_unavailable"]


async def test_a_webhook_that_hangs_holds_up_neither_the_reporter_nor_the_event_loop() -> None:
    receiver = Receiver(hang=True)
    with receiving(receiver) as url:
        async with open_alerts(url, timeout_s=30) as alerts:
            started = time.monotonic()
            for n in range(20):
                alerts.model_paused(f"Model {n}", failures=5, window=10, cooldown_s=60)
            reported = time.monotonic() - started
            await until(lambda: receiver.attempts == 1)
            ticked = time.monotonic()
            await asyncio.sleep(0.01)
            tick = time.monotonic() - ticked
        closed = time.monotonic() - started
        attempts = receiver.attempts

    assert reported < 0.05
    assert tick < 0.5
    assert closed < 10  # the flush waits briefly, then the stuck delivery is abandoned
    assert attempts == 1  # one delivery at a time: the rest waited in the queue


# -- the signals, end to end ------------------------------------------------------------------


@asynccontextmanager
async def arena_alerting(
    tmp_path: Path, webhook: str
) -> AsyncIterator[tuple[Database, httpx.AsyncClient]]:
    """The API on a database of its own, alerting to ``webhook``."""
    with embedded_postgres(tmp_path / "pg") as pg:
        engine = create_engine(pg.url)
        await upgrade(engine)
        await engine.dispose()
        settings = make_settings(
            pg.url, ARENA_DATA_DIR=str(tmp_path / "data"), ARENA_ALERT_WEBHOOK_URL=webhook
        )
        with ServerThread(create_api(settings, standalone=True), free_port()) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
                yield Database(pg.pgdata, pg.url), client


class Watcher:
    """Records what the database probe tells."""

    def __init__(self) -> None:
        self.heard: list[str] = []

    def database_unavailable(self, reason: str) -> None:
        self.heard.append(reason)

    def database_back(self) -> None:
        self.heard.append("back")


async def test_the_database_watch_notices_an_outage_with_nobody_asking() -> None:
    watcher = Watcher()
    engine = create_engine(f"postgresql://arena:arena@127.0.0.1:{free_port()}/arena")
    probe = PostgresProbe(engine, watcher=watcher)

    async with probe.watching(0.05):
        await until(lambda: len(watcher.heard) >= 2)
    await engine.dispose()

    assert "back" not in watcher.heard
    assert watcher.heard[0].startswith(("ConnectionRefusedError", "OSError"))


def database_up(metrics: str) -> float:
    (family,) = (
        f for f in text_string_to_metric_families(metrics) if f.name == "arena_database_up"
    )
    return family.samples[0].value


@pytest.mark.slow
async def test_a_database_that_goes_away_is_alerted_once_and_again_when_it_is_back(
    tmp_path: Path,
) -> None:
    receiver = Receiver()
    with receiving(receiver) as url:
        async with arena_alerting(tmp_path, url) as (database, client):
            before = await client.get("/metrics")
            await asyncio.to_thread(database.stop)
            health = [(await client.get("/health")).status_code for _ in range(3)]
            during = await client.get("/metrics")
            await until(lambda: receiver.events() == ["database_unavailable"])
            await asyncio.to_thread(database.start)
            for _ in range(80):  # the pool finds its connections dead, then reconnects
                if (await client.get("/health")).status_code == 200:
                    break
                await asyncio.sleep(0.25)
            await until(lambda: len(receiver.posts) == 2)

    assert health == [503, 503, 503]
    assert database_up(before.text) == 1
    assert during.status_code == 200 and database_up(during.text) == 0
    assert receiver.events() == ["database_unavailable", "database_back"]
    lost = receiver.posts[0]
    assert lost["severity"] == "critical" and lost["subject"] == "database"
    assert lost["details"]["reason"]


async def test_a_rating_process_that_dies_twice_in_a_row_is_alerted_and_so_is_its_recovery(
    tmp_path: Path,
) -> None:
    receiver = Receiver()
    runs = tmp_path / "runs"
    fails_twice = (
        "import pathlib, sys, time; p = pathlib.Path(sys.argv[1]); "
        "n = int(p.read_text()) + 1 if p.exists() else 1; p.write_text(str(n)); "
        "sys.exit(3) if n <= 2 else time.sleep(60)"
    )
    with receiving(receiver) as url:
        alerts = AlertsThread(url)
        alerts.start()
        supervisor = WorkerSupervisor(
            [sys.executable, "-c", fails_twice, str(runs)],
            initial_backoff_s=0.05,
            healthy_after_s=1.0,
            listener=RatingWorkerAlerts(alerts),
        )
        with supervisor:
            await until(lambda: len(receiver.posts) == 2)
        alerts.stop()

    failing, recovered = receiver.posts
    assert failing["event"] == "rating_failing" and failing["severity"] == "critical"
    assert failing["details"] == {"consecutive": 2, "error": "exit status 3"}
    assert recovered["event"] == "rating_recovered"


def rating_worker_of(parent: int) -> int | None:
    """The pid of ``parent``'s rating process (``python -m arena_rating``), if one runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # it ended meanwhile
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"arena_rating" in command:
            return int(entry.name)
    return None


@pytest.mark.slow
async def test_arena_serve_alerts_when_its_rating_process_is_killed_twice_in_a_row(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    receiver = Receiver()
    with receiving(receiver) as url:
        env = {
            "DATABASE_URL": fresh_database(),
            "ARENA_DATA_DIR": str(tmp_path / "data"),
            "ARENA_MOCK_PROVIDER": "1",
            "ARENA_ALLOW_DEV_SECRET": "1",
            "ARENA_RATING_WORKER": "embedded",
            "ARENA_ALERT_WEBHOOK_URL": url,
        }
        product = ProductProcess(env, free_port(), tmp_path / "serve.log").start()
        assert product.process is not None
        serve, killed = product.process.pid, list[int]()
        try:
            for _ in range(2):
                await until(lambda: rating_worker_of(serve) not in (None, *killed))
                worker = rating_worker_of(serve)
                assert worker is not None
                os.kill(worker, signal.SIGKILL)
                killed.append(worker)
            await until(lambda: len(receiver.posts) == 1)
        finally:
            product.stop()

    (failing,) = receiver.posts
    assert failing["event"] == "rating_failing"
    assert failing["details"] == {"consecutive": 2, "error": f"exit status {-signal.SIGKILL}"}
