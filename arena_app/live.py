"""Live feeds: the words of a streaming round, sent straight to the page that streams it.

Reflex sends state to the browser as deltas over its event socket, and every delta re-renders
the components that read it. That suits an answer's Markdown, which the arena state renders a
few times a second (``arena_app.state.arena``), but not every token of two fast models: at 200
deltas a second the page's main thread falls behind and tokens wait in its queue.

So each round also opens a feed, known by an unguessable ticket. The round's pump appends each
token to it as it arrives, and the page reads it with an ``EventSource``
(``assets/live_tail.jsx``), showing the words that the Markdown does not hold yet as plain text.
A feed carries nothing but the slot ("A" or "B") and the text of the answers the page shows
anyway, so it keeps the round blind; it lives in this process only while its round streams.

Frames are Server-Sent Events: ``data: {"slot": "A", "text": "..."}`` for text (a follower
first gets the text so far, then each piece as it comes) and ``event: end`` when the round ends.
Without the feed (an unknown ticket is a 404) the page still shows the Markdown as it grows.
A round can end before the page's ``EventSource`` connects (a slot that fails at once, a short
answer): an ended feed is kept for ``ENDED_GRACE_S``, so a late follower still gets the text and
the end rather than a 404 in the page's console.

Several replicas (``REDIS_URL``): the page's request may reach a replica that does not run the
round. Each feed then also writes its text to a shared store (``arena_api.cluster.feeds``), and a
replica that does not know a ticket answers from there (``LiveFeeds.share``).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from typing import Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena_api.core.models import SLOTS

__all__ = ["FEED_PATH", "LiveFeed", "LiveFeeds", "feeds", "live_app"]

FEED_PATH = "/_arena/live/{ticket}"
#: How long an ended feed still answers a follower (one that connected late) before it is forgotten.
ENDED_GRACE_S = 30.0
_END = b"event: end\ndata: \n\n"


class FeedMirror(Protocol):
    """One feed's copy in the shared store."""

    followed: bool

    def append(self, slot: str, text: str) -> None: ...

    def end(self) -> None: ...


class FeedStore(Protocol):
    """Feeds shared by the replicas of a cluster."""

    def writer(self, ticket: str, grace_s: float) -> FeedMirror: ...

    async def follow(self, ticket: str) -> AsyncIterator[tuple[str, str]] | None: ...


def _frame(slot: str, text: str) -> bytes:
    payload = json.dumps({"slot": slot, "text": text}, ensure_ascii=False, separators=(",", ":"))
    return f"data: {payload}\n\n".encode()


class LiveFeed:
    """The text of one round's two answers so far, and the pages following it; the page reads
    it at ``url``."""

    def __init__(self, ticket: str, mirror: FeedMirror | None = None) -> None:
        self.ticket = ticket
        self._mirror = mirror
        self.url = FEED_PATH.format(ticket=ticket)
        self._texts: dict[str, list[str]] = {slot: [] for slot in SLOTS}
        self._followers: set[asyncio.Queue[bytes | None]] = set()
        self.ended = False

    @property
    def followed(self) -> bool:
        """A page reads the feed (without it, a page sees only the answers' Markdown)."""
        return bool(self._followers) or (self._mirror is not None and self._mirror.followed)

    def append(self, slot: str, text: str) -> None:
        if self.ended or not text:
            return
        self._texts[slot].append(text)
        if self._mirror is not None:
            self._mirror.append(slot, text)
        frame = _frame(slot, text)
        for queue in self._followers:
            queue.put_nowait(frame)

    def end(self) -> None:
        self.ended = True
        if self._mirror is not None:
            self._mirror.end()
        for queue in self._followers:
            queue.put_nowait(None)

    async def follow(self) -> AsyncIterator[bytes]:
        """The text so far, then every piece until the round ends. Pieces that queued up while
        the page read are sent in one write."""
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        for slot, parts in self._texts.items():
            if parts:
                queue.put_nowait(_frame(slot, "".join(parts)))
        if self.ended:
            queue.put_nowait(None)
        self._followers.add(queue)
        try:
            while True:
                frames = [await queue.get()]
                while not queue.empty():
                    frames.append(queue.get_nowait())
                done = frames[-1] is None
                yield b"".join(frame for frame in frames if frame is not None) + (
                    _END if done else b""
                )
                if done:
                    return
        finally:
            self._followers.discard(queue)


class LiveFeeds:
    """The feeds of the rounds streaming in this process, by ticket (and, for
    ``grace_s``, of the rounds that just ended)."""

    def __init__(self, grace_s: float = ENDED_GRACE_S) -> None:
        self._feeds: dict[str, LiveFeed] = {}
        self.grace_s = grace_s
        self.store: FeedStore | None = None

    def share(self, store: FeedStore | None) -> None:
        """Copy every feed opened from now on to ``store``, and answer tickets this process
        does not know from it (``None``: this process alone)."""
        self.store = store

    def open(self) -> LiveFeed:
        ticket = secrets.token_urlsafe(18)
        mirror = None if self.store is None else self.store.writer(ticket, self.grace_s)
        feed = LiveFeed(ticket, mirror)
        self._feeds[feed.ticket] = feed
        return feed

    def get(self, ticket: str) -> LiveFeed | None:
        return self._feeds.get(ticket)

    def close(self, feed: LiveFeed) -> None:
        """End ``feed``; its ticket is forgotten after ``grace_s`` (at once outside an event
        loop). Closing it again does nothing."""
        if self._feeds.get(feed.ticket) is not feed or feed.ended:
            return
        feed.end()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or self.grace_s <= 0:
            self._forget(feed.ticket)
        else:
            loop.call_later(self.grace_s, self._forget, feed.ticket)

    def _forget(self, ticket: str) -> None:
        self._feeds.pop(ticket, None)

    def __len__(self) -> int:
        """Feeds whose round still streams."""
        return sum(1 for feed in self._feeds.values() if not feed.ended)


feeds = LiveFeeds()


async def _shared(pieces: AsyncIterator[tuple[str, str]]) -> AsyncIterator[bytes]:
    """A feed another replica streams, in this module's frames."""
    async for slot, text in pieces:
        yield _frame(slot, text)
    yield _END


async def follow_feed(request: Request) -> Response:
    ticket = request.path_params["ticket"]
    feed = feeds.get(ticket)
    frames: AsyncIterator[bytes] | None = None if feed is None else feed.follow()
    if frames is None and feeds.store is not None:
        pieces = await feeds.store.follow(ticket)
        frames = None if pieces is None else _shared(pieces)
    if frames is None:
        # The error body of the API's errors (the UI reaches no further into arena_api).
        return JSONResponse(
            {"error": "No round is streaming under this ticket", "code": "feed_not_found"},
            status_code=404,
        )
    return StreamingResponse(
        frames,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


live_app = Starlette(routes=[Route(FEED_PATH, follow_feed, methods=["GET"])])
