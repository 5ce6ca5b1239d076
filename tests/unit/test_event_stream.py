"""``EventStream`` writes what sse-starlette's ``EventSourceResponse`` writes, on its lighter path:
the same messages, pings, the end on a disconnect, a cancel from outside passed on."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sse_starlette import EventSourceResponse
from starlette.types import Message, Scope

from arena_api.routes._event_stream import EventStream

SCOPE: Scope = {"type": "http", "method": "POST", "path": "/", "headers": []}


class Client:
    """The server's side of one request: what was written, and a disconnect on demand."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.gone = asyncio.Event()
        self.has_body = asyncio.Event()  # the first event was written

    async def receive(self) -> Message:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.sent.append(message)
        if message.get("body"):
            self.has_body.set()


async def _frames(pause_s: float = 0.0, closed: list[bool] | None = None) -> AsyncIterator[bytes]:
    try:
        for index in range(3):
            yield f"event: token\ndata: {index}\n\n".encode()
            await asyncio.sleep(pause_s)
    finally:
        if closed is not None:
            closed.append(True)


async def _written(response: EventSourceResponse) -> list[Message]:
    client = Client()
    await response(SCOPE, client.receive, client.send)
    return client.sent


async def test_it_writes_what_sse_starlette_writes() -> None:
    ours = await _written(EventStream(_frames(), headers={"x-a": "1"}, ping=15, sep="\n"))
    theirs = await _written(EventSourceResponse(_frames(), headers={"x-a": "1"}, ping=15, sep="\n"))

    assert ours == theirs
    assert ours[-1] == {"type": "http.response.body", "body": b"", "more_body": False}


async def test_a_quiet_stream_is_pinged() -> None:
    sent = await _written(EventStream(_frames(pause_s=0.08), ping=0.05, sep="\n"))

    pings = [m["body"] for m in sent if m.get("body", b"").startswith(b": ping - ")]
    assert pings and all(p.endswith(b"\n\n") for p in pings)
    assert all(m.get("more_body") for m in sent[1:-1])


async def test_a_disconnect_ends_the_body_without_another_write() -> None:
    client, closed = Client(), []
    response = EventStream(_frames(pause_s=3600, closed=closed), ping=15)
    task = asyncio.create_task(response(SCOPE, client.receive, client.send))
    await client.has_body.wait()

    client.gone.set()
    await asyncio.wait_for(task, timeout=1)

    assert closed == [True] and len(client.sent) == 2
    assert not task.cancelled()


async def test_a_cancel_from_outside_is_passed_on() -> None:
    client = Client()
    response = EventStream(_frames(pause_s=3600), ping=15)
    task = asyncio.create_task(response(SCOPE, client.receive, client.send))
    await client.has_body.wait()

    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
