"""The live feeds of the arena page (``arena_api.services.live_feeds``, served by
``arena_api.routes.live``) over a real HTTP server and socket."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator

import httpx
import pytest
import uvicorn
from redis.asyncio import Redis
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena_api.cluster.feeds import FLUSH_S, RedisFeeds
from arena_api.routes.live import feed_response
from arena_api.services.live_feeds import FEED_PATH, LiveFeeds
from tests.support import free_port


@pytest.fixture
def feeds() -> LiveFeeds:
    """The feeds of the process under test (``Services.feeds``)."""
    return LiveFeeds()


def _feed_app(feeds: LiveFeeds) -> Starlette:
    """The feed route of ``arena_api.routes.live``, answering from ``feeds``."""

    async def follow(request: Request) -> Response:
        return await feed_response(feeds, request)

    return Starlette(routes=[Route(FEED_PATH, follow, methods=["GET"])])


@contextlib.asynccontextmanager
async def _serving(feeds: LiveFeeds) -> AsyncIterator[str]:
    """The feed route on a loopback port, in this event loop (feeds are not thread-safe)."""
    port = free_port()
    config = uvicorn.Config(_feed_app(feeds), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:  # noqa: ASYNC110 (uvicorn offers no event to wait on)
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


def _texts(body: str) -> tuple[dict[str, str], list[str]]:
    """The text of each slot in a feed's frames, and the frames' event names in order."""
    texts = {"A": "", "B": ""}
    names = []
    for block in filter(None, body.split("\n\n")):
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        names.append(fields.get("event", "message"))
        if names[-1] == "message":
            data = json.loads(fields["data"])
            texts[data["slot"]] += data["text"]
    return texts, names


async def test_a_follower_gets_the_text_so_far_then_each_piece_until_the_round_ends(
    feeds: LiveFeeds,
) -> None:
    feed = feeds.open()
    feed.append("A", "Hel")
    feed.append("B", "## Wor")
    async with _serving(feeds) as url, httpx.AsyncClient(base_url=url) as client:
        async with client.stream("GET", feed.url) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            assert response.headers["cache-control"] == "no-cache"
            feed.append("A", "lo ✓ 😀")
            feed.append("B", "ld\n\n")
            feed.append("A", "")  # nothing to send
            feeds.close(feed)
            body = (await response.aread()).decode()

    texts, names = _texts(body)
    assert texts == {"A": "Hello ✓ 😀", "B": "## World\n\n"}
    assert names[-1] == "end" and names.count("end") == 1
    feed.append("A", " after the end")  # ignored: the round is over
    assert "after the end" not in body


async def test_a_page_that_follows_late_gets_the_whole_text_in_one_frame_per_slot(
    feeds: LiveFeeds,
) -> None:
    feed = feeds.open()
    for word in ("one ", "two ", "three"):
        feed.append("B", word)
    async with _serving(feeds) as url, httpx.AsyncClient(base_url=url) as client:
        async with client.stream("GET", feed.url) as response:
            chunks = response.aiter_text()
            first = await anext(chunks)
            feeds.close(feed)
            rest = "".join([chunk async for chunk in chunks])

    assert [json.loads(line[6:]) for line in first.split("\n") if line.startswith("data: {")] == [
        {"slot": "B", "text": "one two three"}
    ]
    assert _texts(rest)[1] == ["end"]


async def test_an_unknown_or_forgotten_ticket_is_a_404_with_a_code(
    monkeypatch: pytest.MonkeyPatch,
    feeds: LiveFeeds,
) -> None:
    monkeypatch.setattr(feeds, "grace_s", 0)  # forgotten as it closes: no grace to wait out
    feed = feeds.open()
    feeds.close(feed)
    async with _serving(feeds) as url, httpx.AsyncClient(base_url=url) as client:
        for unknown in ("/_arena/live/no-such-ticket", feed.url):
            response = await client.get(unknown)
            assert response.status_code == 404
            assert response.json()["code"] == "feed_not_found"
        assert (await client.post(feed.url)).status_code == 405


async def test_a_follower_arriving_just_after_the_end_gets_the_text_and_the_end(
    feeds: LiveFeeds,
) -> None:
    """A round can end before the page's EventSource connects: no 404 in its console."""
    feed = feeds.open()
    feed.append("A", "all ")
    feed.append("A", "done")
    feeds.close(feed)

    async with _serving(feeds) as url, httpx.AsyncClient(base_url=url) as client:
        response = await client.get(feed.url)

    assert response.status_code == 200
    texts, events = _texts(response.text)
    assert texts == {"A": "all done", "B": ""} and events == ["message", "end"]
    assert len(feeds) == 0


async def test_a_follower_that_leaves_does_not_disturb_the_others(feeds: LiveFeeds) -> None:
    feed = feeds.open()
    async with _serving(feeds) as url, httpx.AsyncClient(base_url=url) as client:
        async with client.stream("GET", feed.url) as leaving:
            assert leaving.status_code == 200
        async with client.stream("GET", feed.url) as staying:
            for _ in range(50):
                feed.append("A", "x")
                await asyncio.sleep(0)
            feeds.close(feed)
            body = (await staying.aread()).decode()

    assert _texts(body)[0]["A"] == "x" * 50


def test_tickets_are_unguessable_and_closing_forgets_them() -> None:
    registry = LiveFeeds()
    opened = [registry.open() for _ in range(100)]
    tickets = {feed.ticket for feed in opened}
    assert len(tickets) == 100 and all(len(ticket) >= 24 for ticket in tickets)
    assert all(feed.url == f"/_arena/live/{feed.ticket}" for feed in opened)
    assert len(registry) == 100
    for feed in opened:
        registry.close(feed)
    registry.close(opened[0])  # closing again does nothing
    assert len(registry) == 0 and registry.get(opened[0].ticket) is None


# -- several replicas ----------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _replica_pair(redis_url: str) -> AsyncIterator[tuple[LiveFeeds, str]]:
    """Feeds of a replica that runs the rounds, and the URL of another one serving the pages,
    both sharing ``redis_url``."""
    redis = Redis.from_url(redis_url)
    owner = LiveFeeds(store=RedisFeeds(redis))
    try:
        async with _serving(LiveFeeds(store=RedisFeeds(redis))) as url:
            yield owner, url
    finally:
        await redis.aclose()


async def test_a_page_on_another_replica_follows_the_feed_through_redis(redis_url: str) -> None:
    async with _replica_pair(redis_url) as (owner, url), httpx.AsyncClient(base_url=url) as client:
        feed = owner.open()
        feed.append("A", "Hel")
        feed.append("B", "## Wor")
        await asyncio.sleep(FLUSH_S * 4)
        unfollowed = feed.followed
        async with client.stream("GET", feed.url) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            feed.append("A", "lo ✓ 😀")
            feed.append("B", "ld\n\n")
            await asyncio.sleep(FLUSH_S * 4)
            followed = feed.followed
            owner.close(feed)
            body = (await asyncio.wait_for(response.aread(), 5)).decode()

    texts, names = _texts(body)
    assert texts == {"A": "Hello ✓ 😀", "B": "## World\n\n"}
    assert names[-1] == "end" and names.count("end") == 1
    assert (unfollowed, followed) == (False, True)


async def test_a_late_page_on_another_replica_gets_the_whole_text_and_the_end(
    redis_url: str,
) -> None:
    async with _replica_pair(redis_url) as (owner, url), httpx.AsyncClient(base_url=url) as client:
        feed = owner.open()
        for piece in ("a", "b", "c"):
            feed.append("A", piece)
        owner.close(feed)
        await asyncio.sleep(FLUSH_S * 4)
        response = await client.get(feed.url, timeout=5)
        unknown = await client.get("/_arena/live/nobody-has-this-ticket")

    texts, names = _texts(response.text)
    assert texts == {"A": "abc", "B": ""} and names[-1] == "end"
    assert unknown.status_code == 404 and unknown.json()["code"] == "feed_not_found"


def _last_id(body: str) -> str:
    return [line for line in body.split("\n") if line.startswith("id: ")][-1][4:]


async def test_a_page_that_reconnects_to_another_replica_gets_only_what_it_has_not_seen(
    redis_url: str,
) -> None:
    async with _replica_pair(redis_url) as (owner, url), httpx.AsyncClient(base_url=url) as client:
        feed = owner.open()
        feed.append("A", "Hello ")
        feed.append("B", "ça ")
        await asyncio.sleep(FLUSH_S * 4)
        async with client.stream("GET", feed.url) as response:
            first = ""
            async for chunk in response.aiter_text():
                first += chunk
                if "ça" in first:
                    break  # the connection breaks here
        feed.append("A", "world")
        feed.append("B", "va")
        owner.close(feed)
        await asyncio.sleep(FLUSH_S * 4)
        resumed = await client.get(feed.url, headers={"Last-Event-ID": _last_id(first)})

    texts, names = _texts(resumed.text)
    assert _last_id(first) == "6.3"
    assert texts == {"A": "world", "B": "va"} and names[-1] == "end"
    assert _last_id(resumed.text) == "11.5"


async def test_a_page_that_reconnects_to_the_same_replica_gets_only_what_it_has_not_seen(
    feeds: LiveFeeds,
) -> None:
    feed = feeds.open()
    for slot, text in (("A", "Hello "), ("B", "ça "), ("A", "world"), ("B", "va")):
        feed.append(slot, text)
    feeds.close(feed)
    async with _serving(feeds) as url, httpx.AsyncClient(base_url=url) as client:
        resumed = await client.get(feed.url, headers={"Last-Event-ID": "6.3"})
        garbled = await client.get(feed.url, headers={"Last-Event-ID": "x.y"})

    assert _texts(resumed.text)[0] == {"A": "world", "B": "va"}
    assert _texts(garbled.text)[0] == {"A": "Hello world", "B": "ça va"}


async def test_the_api_serves_the_feeds_of_its_services(api_url: str) -> None:
    """The API app (the one Reflex mounts) answers the feed path from ``Services.feeds``."""
    async with httpx.AsyncClient(base_url=api_url) as client:
        response = await client.get("/_arena/live/no-such-ticket")

    assert response.status_code == 404
    assert response.json() == {
        "error": "No round is streaming under this ticket",
        "code": "feed_not_found",
    }
