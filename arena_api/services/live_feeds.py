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
Each text frame's ``id`` is how much of each answer the feed has sent up to it (``12.40``:
characters of A and of B). A page whose connection broke reconnects with it as
``Last-Event-ID``, to this or another replica, and gets only the text it has not seen.
Without the feed (an unknown ticket is a 404) the page still shows the Markdown as it grows.
A round can end before the page's ``EventSource`` connects (a slot that fails at once, a short
answer): an ended feed is kept for ``ENDED_GRACE_S``, so a late follower still gets the text and
the end rather than a 404 in the page's console.

Several replicas (``REDIS_URL``): the page's request may reach a replica that does not run the
round. Each feed then also writes its text to a shared store (``arena_api.cluster.feeds``), and a
replica that does not know a ticket answers from there (the ``store`` of ``LiveFeeds``).

The feeds are a service of the container ``bootstrap`` builds (``Services.feeds``): the arena
state opens them, and the endpoint ``arena_api.routes.live`` serves them.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from typing import Protocol

from arena_api.core.models import SLOTS

__all__ = ["FEED_PATH", "FeedMirror", "FeedStore", "LiveFeed", "LiveFeeds", "resume_point"]

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


def _frame(slot: str, text: str, sent: dict[str, int]) -> bytes:
    """A text frame; ``sent`` is each slot's length up to and including it."""
    payload = json.dumps({"slot": slot, "text": text}, ensure_ascii=False, separators=(",", ":"))
    return f"id: {sent['A']}.{sent['B']}\ndata: {payload}\n\n".encode()


def resume_point(last_event_id: str | None) -> dict[str, int]:
    """How much of each answer a reconnecting page has (its ``Last-Event-ID``); 0 if unknown."""
    a, _, b = (last_event_id or "").partition(".")
    if a.isdigit() and b.isdigit():
        return {"A": int(a), "B": int(b)}
    return {slot: 0 for slot in SLOTS}


def _unseen(slot: str, text: str, before: int, seen: dict[str, int]) -> str:
    """The part of ``text`` (which starts at ``before`` in its answer) a page has not seen."""
    return text[max(0, seen[slot] - before) :]


class LiveFeed:
    """The text of one round's two answers so far, and the pages following it; the page reads
    it at ``url``."""

    def __init__(self, ticket: str, mirror: FeedMirror | None = None) -> None:
        self.ticket = ticket
        self._mirror = mirror
        self.url = FEED_PATH.format(ticket=ticket)
        self._texts: dict[str, list[str]] = {slot: [] for slot in SLOTS}
        self._sent: dict[str, int] = dict.fromkeys(SLOTS, 0)
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
        self._sent[slot] += len(text)
        if self._mirror is not None:
            self._mirror.append(slot, text)
        frame = _frame(slot, text, self._sent)
        for queue in self._followers:
            queue.put_nowait(frame)

    def end(self) -> None:
        self.ended = True
        if self._mirror is not None:
            self._mirror.end()
        for queue in self._followers:
            queue.put_nowait(None)

    async def follow(self, seen: dict[str, int] | None = None) -> AsyncIterator[bytes]:
        """The text so far (past what a reconnecting page has ``seen``), then every piece until
        the round ends. Pieces that queued up while the page read are sent in one write."""
        seen = seen or resume_point(None)
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        for slot, parts in self._texts.items():
            text = _unseen(slot, "".join(parts), 0, seen)
            if text:
                queue.put_nowait(_frame(slot, text, self._sent))
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

    def __init__(self, grace_s: float = ENDED_GRACE_S, store: FeedStore | None = None) -> None:
        """Feeds of this process.

        Args:
            grace_s: how long an ended feed still answers a late follower.
            store: where every feed is copied, and where tickets this process does not know
                are answered from (``None``: this process alone).
        """
        self._feeds: dict[str, LiveFeed] = {}
        self.grace_s = grace_s
        self.store = store

    def open(self) -> LiveFeed:
        ticket = secrets.token_urlsafe(18)
        mirror = None if self.store is None else self.store.writer(ticket, self.grace_s)
        feed = LiveFeed(ticket, mirror)
        self._feeds[feed.ticket] = feed
        return feed

    def get(self, ticket: str) -> LiveFeed | None:
        return self._feeds.get(ticket)

    async def frames(self, ticket: str, seen: dict[str, int]) -> AsyncIterator[bytes] | None:
        """What a page following ``ticket`` reads, past what it has ``seen``: the feed of this
        process, else the one another replica shares; ``None`` if no feed has the ticket."""
        feed = self._feeds.get(ticket)
        if feed is not None:
            return feed.follow(seen)
        if self.store is None:
            return None
        pieces = await self.store.follow(ticket)
        return None if pieces is None else _shared(pieces, seen)

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


async def _shared(
    pieces: AsyncIterator[tuple[str, str]], seen: dict[str, int]
) -> AsyncIterator[bytes]:
    """A feed another replica streams, in this module's frames, past what the page has seen."""
    sent: dict[str, int] = dict.fromkeys(SLOTS, 0)
    async for slot, text in pieces:
        before = sent[slot]
        sent[slot] += len(text)
        unseen = _unseen(slot, text, before, seen)
        if unseen:
            yield _frame(slot, unseen, sent)
    yield _END
