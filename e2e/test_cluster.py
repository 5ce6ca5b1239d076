"""Two replicas of ``arena serve`` on two ports, sharing PostgreSQL and a Redis of the test's own,
behind Debian's nginx with deploy/nginx-cluster.conf (round-robin, no sticky sessions).

Through nginx: a browser round with a vote, blindness over both replicas, a page whose event
socket and live feed reconnect to the other replica mid-round. Forced onto different replicas:
slot joins in both orders, stop and steer, a rate limit. Each replica supervises a rating
process; the advisory lock lets only one pass run at a time. Last, one replica is killed with
SIGKILL mid-round.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import websockets
from playwright.async_api import Browser, Page, expect

from e2e.conftest import screenshot
from e2e.test_arena_ui import _ask, _open, _roster, _wait_votable
from tests.support import (
    ROOT,
    EventSocket,
    NginxServer,
    ProductProcess,
    RedisServer,
    free_port,
    open_twice,
    parse_sse,
    reconnect_early,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECRET = "cluster-test-secret-of-sufficient-length"
UPSTREAM = "    server app:3001 max_fails=1 fail_timeout=5s;\n"
STREAM_TIMEOUT = 60_000
Frames = list[tuple[str, dict[str, Any]]]


def cluster_site(*replicas: ProductProcess) -> str:
    """deploy/nginx-cluster.conf with ``replicas`` as its upstream."""
    text = (ROOT / "deploy" / "nginx-cluster.conf").read_text()
    assert UPSTREAM in text
    lines = "".join(
        f"    server 127.0.0.1:{r.port} max_fails=1 fail_timeout=5s;\n" for r in replicas
    )
    return text.replace(UPSTREAM, lines)


@dataclass
class Cluster:
    one: ProductProcess
    two: ProductProcess
    nginx: NginxServer
    database_url: str
    folder: Path


@pytest.fixture(scope="module")
def cluster(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("cluster")
    database_url = fresh_database()
    with RedisServer(folder) as redis:
        env = {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis.url,
            "MATCHUP_TOKEN_SECRET": SECRET,
            "ARENA_MOCK_PROVIDER": "1",
            "ARENA_TRUST_PROXY": "127.0.0.1",
            "ARENA_RATING_WORKER": "embedded",
            "RATING_MIN_INTERVAL_S": "1",
            "ARENA_MOCK_TOKENS_PER_SECOND": "25",
            "ARENA_MOCK_TOKENS": "100",
            "ARENA_RATE_LIMIT": "60/minute",
        }
        replicas: list[ProductProcess] = []
        try:
            for name in ("one", "two"):  # one after the other: the first may build the UI
                replica = ProductProcess(
                    {**env, "ARENA_DATA_DIR": str(folder / name)},
                    free_port(),
                    folder / f"{name}.log",
                )
                replicas.append(replica)
                replica.start()
            one, two = replicas
            with NginxServer(folder / "nginx", cluster_site(one, two)) as nginx:
                yield Cluster(one, two, nginx, database_url, folder)
        finally:
            for replica in replicas:
                if replica.process is not None and replica.process.poll() is None:
                    replica.stop()


# -- helpers -------------------------------------------------------------------------------------


def _body(key: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"prompt": "Compare these", "sessionId": "cluster-session", **extra}
    if key is not None:
        body["joinKey"] = key
    return body


async def _post(url: str, body: dict[str, Any], **headers: str) -> tuple[int, str]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        response = await client.post("/api/arena/chat", json=body, headers=headers)
        return response.status_code, response.text


class Reader:
    """Streams a chat response in the background, keeping its text."""

    def __init__(self, url: str, body: dict[str, Any]) -> None:
        self.text = ""
        self.started = asyncio.Event()
        self.broken = False  # the connection died before the stream ended
        self.task = asyncio.create_task(self._run(url, body))

    async def _run(self, url: str, body: dict[str, Any]) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            try:
                async with client.stream("POST", "/api/arena/chat", json=body) as response:
                    async for chunk in response.aiter_text():
                        self.text += chunk
                        if "event: token" in self.text:
                            self.started.set()
            except httpx.HTTPError:
                self.broken = True

    @property
    def frames(self) -> Frames:
        return parse_sse(self.text)


async def _control(replica: ProductProcess, message: dict[str, Any]) -> dict[str, Any]:
    url = replica.url.replace("http://", "ws://") + "/api/arena/control"
    async with websockets.connect(url) as socket:
        await socket.send(json.dumps(message))
        reply: dict[str, Any] = json.loads(await asyncio.wait_for(socket.recv(), 10))
        return reply


async def _rounds_served(replica: ProductProcess) -> float:
    """Rounds this replica started (its own /metrics)."""
    async with httpx.AsyncClient(base_url=replica.url, timeout=10) as client:
        text = (await client.get("/metrics")).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("arena_rounds_total")
    )


async def _rows_once(
    database_url: str, sql: str, *args: Any, until: Callable[[list[asyncpg.Record]], bool]
) -> list[asyncpg.Record]:
    """The rows of ``sql`` as soon as ``until`` holds for them (or after 30 s, as they are)."""
    rows: list[asyncpg.Record] = []
    conn = await asyncpg.connect(database_url)
    try:
        for _ in range(60):
            rows = list(await conn.fetch(sql, *args))
            if until(rows):
                break
            await asyncio.sleep(0.5)
    finally:
        await conn.close()
    return rows


def _kill_tree(pid: int) -> None:
    """SIGKILL ``pid`` and every process it started, children first."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    order, pending = [], [pid]
    while pending:
        current = pending.pop()
        order.append(current)
        pending.extend(children.get(current, []))
    for process in reversed(order):
        with contextlib.suppress(ProcessLookupError):
            os.kill(process, signal.SIGKILL)


@pytest.fixture
async def watched_page(browser: Browser) -> AsyncIterator[tuple[Page, list[str]]]:
    """A page whose console errors the test judges itself (a replica switch drops sockets)."""
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page, errors
    await context.close()


# -- through nginx -------------------------------------------------------------------------------


async def test_a_browser_round_with_a_vote_through_the_round_robin(
    cluster: Cluster, page: Page
) -> None:
    before = [await _rounds_served(r) for r in (cluster.one, cluster.two)]
    await _open(page, cluster.nginx.url + "/")
    await _ask(page, "Which replica answers?")
    await expect(page.get_by_test_id("pane-A")).not_to_be_empty(timeout=STREAM_TIMEOUT)
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()
    await screenshot(page, "cluster-round-desktop")
    await page.set_viewport_size({"width": 390, "height": 844})
    await screenshot(page, "cluster-round-phone")
    after = [await _rounds_served(r) for r in (cluster.one, cluster.two)]

    assert sum(after) - sum(before) == 1


async def test_no_identity_reaches_the_wire_from_either_replica(cluster: Cluster) -> None:
    forbidden = await _roster(cluster.one)
    plain = await asyncio.gather(*(_post(cluster.nginx.url, _body()) for _ in range(4)))
    joined = await asyncio.gather(
        _post(cluster.one.url, _body("blind")), _post(cluster.two.url, _body("blind"))
    )
    served = [await _rounds_served(r) for r in (cluster.one, cluster.two)]

    assert all(status == 200 for status, _ in [*plain, *joined])
    for _, text in [*plain, *joined]:
        leaked = {word for word in forbidden if word in text}
        assert not leaked, f"identities on the wire before the vote: {leaked}"
    assert all(count > 0 for count in served)  # nginx spread the rounds over both


@pytest.mark.parametrize("order", ["one leads", "two leads"])
async def test_a_slot_join_forced_across_replicas(cluster: Cluster, order: str) -> None:
    first, second = (
        (cluster.one, cluster.two) if order == "one leads" else (cluster.two, cluster.one)
    )
    key = f"join-{uuid.uuid4()}"
    leading = asyncio.create_task(_post(first.url, _body(key)))
    await asyncio.sleep(0.2)
    following = await _post(second.url, _body(key))
    (status_1, text_1), (status_2, text_2) = await leading, following
    frames_1, frames_2 = parse_sse(text_1), parse_sse(text_2)
    started_1, started_2 = frames_1[0][1], frames_2[0][1]
    async with httpx.AsyncClient(base_url=second.url, timeout=30) as client:
        vote = await client.post(
            "/api/arena/vote",
            json={
                "matchupId": started_2["matchupId"],
                "matchupToken": started_2["matchupToken"],
                "vote": "right",
            },
        )

    assert (status_1, status_2) == (200, 200)
    assert (started_1["slots"], started_2["slots"]) == (["A"], ["B"])
    assert started_1["matchupId"] == started_2["matchupId"]
    assert {d["slot"] for n, d in frames_2 if n == "token"} == {"B"}
    assert frames_1[-1][0] == frames_2[-1][0] == "matchup_done"
    assert vote.status_code == 200


async def test_stop_and_steer_from_the_other_replica(cluster: Cluster) -> None:
    stopped = Reader(cluster.one.url, _body())
    steered = Reader(cluster.one.url, _body())
    await asyncio.gather(stopped.started.wait(), steered.started.wait())
    started = steered.frames[0][1]

    steer = await _control(
        cluster.two,
        {
            "type": "steer",
            "matchupId": started["matchupId"],
            "matchupToken": started["matchupToken"],
            "instruction": "be brief",
        },
    )
    stop = await _control(
        cluster.two, {"type": "stop", "matchupId": stopped.frames[0][1]["matchupId"]}
    )
    await asyncio.wait_for(stopped.task, 10)
    for _ in range(100):  # the restart is announced in the stream once it happened
        if "event: steered" in steered.text:
            break
        await asyncio.sleep(0.1)
    steered.task.cancel()

    assert stop["ok"] is True and steer["accepted"] is True
    assert stopped.frames[-1][0] == "matchup_done"
    assert "steered" in [name for name, _ in steered.frames]


async def test_a_rate_limit_is_counted_across_replicas(cluster: Cluster) -> None:
    # Each request names its client (nginx's way, trusted from 127.0.0.1); an empty body is
    # refused with 400 after the limit counted it.
    client = {"X-Forwarded-For": "198.51.100.7"}
    statuses = [
        (await _post(replica.url, {}, **client))[0]
        for _ in range(30)
        for replica in (cluster.one, cluster.two)
    ]
    refused, _ = await _post(cluster.one.url, {}, **client)
    other, _ = await _post(cluster.two.url, {}, **{"X-Forwarded-For": "198.51.100.8"})

    assert statuses == [400] * 60
    assert refused == 429 and other == 400


async def test_the_page_follows_its_round_when_its_sockets_move_to_the_other_replica(
    cluster: Cluster, watched_page: tuple[Page, list[str]]
) -> None:
    page, errors = watched_page
    with NginxServer(cluster.folder / "pinned", cluster_site(cluster.one)) as pinned:
        await _open(page, pinned.url + "/")
        await _ask(page, "Tell me a long story")
        pane = page.get_by_test_id("pane-A")
        await expect(pane).not_to_be_empty(timeout=STREAM_TIMEOUT)
        # From now on nginx sends everything to replica two; within a second the old worker
        # closes the page's event socket and live feed, and the page reconnects.
        pinned.reload(cluster_site(cluster.two))
        moved_at = time.monotonic()
        length = len(await pane.inner_text())
        await page.wait_for_function(
            "n => document.querySelector('[data-testid=pane-A]').innerText.length > n + 40",
            arg=length,
            timeout=STREAM_TIMEOUT,
        )
        await _wait_votable(page)
        await page.get_by_test_id("vote-left").click()
        await expect(page.get_by_test_id("reveal-A")).to_be_visible()
        log = (cluster.folder / "pinned" / "access.log").read_text()
        await screenshot(page, "cluster-moved-replica")

    after_move = [line for line in log.splitlines() if "/_event" in line or "/_arena/live" in line]
    assert after_move, "the page never reconnected"
    assert time.monotonic() - moved_at < 60
    unexpected = [e for e in errors if "WebSocket" not in e and "ERR_" not in e]
    assert not unexpected, unexpected


async def test_a_socket_that_moves_keeps_its_session_and_a_duplicated_tab_gets_its_own(
    cluster: Cluster,
) -> None:
    # The page's socket reconnects to replica two before replica one has let the old one go
    # (a proxy reload, a restart): it keeps its token, so its state (its round) too.
    token = str(uuid.uuid4())
    moved = await reconnect_early(cluster.one, cluster.two, token)
    twin = await open_twice(cluster.one, cluster.two, token)

    assert moved == []
    assert len(twin) == 1 and twin[0] != token


async def test_the_rating_process_runs_once_per_cluster(cluster: Cluster) -> None:
    passes = await _rows_once(
        cluster.database_url,
        "SELECT finished_at, seconds, votes FROM rating_passes WHERE status = 'rated' "
        "ORDER BY finished_at",
        until=lambda rows: bool(rows) and rows[-1]["votes"] >= 2,
    )
    logs = [(cluster.folder / f"{name}.log").read_text() for name in ("one", "two")]

    assert passes and passes[-1]["votes"] >= 2
    # Both replicas run a rating process; no two passes ever overlapped in time.
    assert all("rating" in log for log in logs)
    for earlier, later in zip(passes, passes[1:], strict=False):
        started = later["finished_at"].timestamp() - later["seconds"]
        assert started >= earlier["finished_at"].timestamp() - 0.05


# -- last: a replica dies ------------------------------------------------------------------------


async def test_a_replica_killed_mid_round(cluster: Cluster) -> None:
    key = f"join-{uuid.uuid4()}"
    leader = Reader(cluster.one.url, _body(key))
    await asyncio.sleep(0.2)
    follower = Reader(cluster.two.url, _body(key))
    alone = Reader(cluster.one.url, _body())
    survivor = Reader(cluster.two.url, _body())
    await asyncio.gather(
        leader.started.wait(),
        follower.started.wait(),
        alone.started.wait(),
        survivor.started.wait(),
    )
    matchups = [uuid.UUID(r.frames[0][1]["matchupId"]) for r in (leader, alone)]
    page_token = str(uuid.uuid4())
    page_socket = await EventSocket(cluster.one, page_token).__aenter__()

    assert cluster.one.process is not None
    _kill_tree(cluster.one.process.pid)  # as a container dies: the server and all it started
    cluster.one.process.wait(timeout=10)
    killed_at = time.monotonic()
    await asyncio.wait_for(follower.task, 15)
    follower_ended_in = time.monotonic() - killed_at
    await asyncio.wait_for(asyncio.gather(leader.task, alone.task), 15)
    stop = await _control(cluster.two, {"type": "stop", "matchupId": str(matchups[1])})
    await asyncio.wait_for(survivor.task, 30)
    rows = await _rows_once(
        cluster.database_url,
        "SELECT matchup_id, slot, error FROM responses WHERE matchup_id = ANY($1) "
        "ORDER BY matchup_id, slot",
        matchups,
        until=lambda rows: len(rows) == 4,
    )
    # The page's socket reconnects to the survivor, where the dead replica's link to its token
    # is taken over at once (it stays in Redis until the token expires).
    await page_socket.__aexit__()
    reconnecting = time.monotonic()
    async with EventSocket(cluster.two, page_token) as moved:
        reconnected_in = time.monotonic() - reconnecting
    async with httpx.AsyncClient(timeout=10) as client:
        health = await client.get(cluster.nginx.url + "/health")
    after, _ = await _post(cluster.nginx.url, _body())

    assert follower.frames[-1] == (
        "run_error",
        {
            "type": "run_error",
            "code": "replica_lost",
            "message": "The server running this round stopped",
        },
    )
    assert follower_ended_in < 12  # the heartbeat's 8 s, and a watch interval
    assert leader.broken and alone.broken  # their connections died with the replica
    assert stop["ok"] is False and stop["reason"] == "unknown or finished matchup"
    assert survivor.frames[-1][0] == "matchup_done"
    assert [r["error"] for r in rows] == ["replica_lost"] * 4
    assert moved.new_tokens == [] and reconnected_in < 2
    assert health.status_code == 200 and after == 200
