"""The response a round streams as Server-Sent Events: sse-starlette's, run on a lighter path.

sse-starlette runs every response in an anyio task group of four tasks (the body, the pings,
the server's exit signal, the client's disconnect) and wraps each write in a cancel scope. At a
few hundred rounds a second that setup is a noticeable share of a worker's CPU, so
``EventStream`` keeps sse-starlette's headers, bytes and body handling (its own
``_stream_response``) and replaces only the scaffolding around them:

    sse-starlette                               EventStream
    a task writing the body                     the request's own task writes it
    a task watching for the disconnect          the same (one task per response)
    a task pinging every ``ping`` seconds       a timer; a task only when a ping is due
    a task waiting for the server's exit        none: see below
    a cancel scope around every write           none when there is no ``send_timeout``

When the client disconnects, the body's iterator is cancelled (its ``finally`` runs, as under
the task group) and the response ends without another write. The server's exit, which
sse-starlette learns of from uvicorn, is left to the arena's own drain, which stops every
running round and so ends its stream; a response that starts after uvicorn's exit, one to a
HEAD request, or one with a send timeout, a data sender or a shutdown event takes
sse-starlette's own path.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import UTC, datetime
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.event import ensure_bytes
from sse_starlette.sse import AppStatus
from starlette.types import Message, Receive, Scope, Send

__all__ = ["EventStream"]

#: The ping timer under way, or the ping being written (what ending the response cancels).
_Pings = list[asyncio.TimerHandle | asyncio.Task[None]]


class EventStream(EventSourceResponse):
    """An ``EventSourceResponse`` with less set up per response (see the module's docstring)."""

    _is_gone = False  # the client disconnected and the watcher cancelled the body
    _failure: Exception | None = None  # a ping's write failed and cancelled the body
    _task: asyncio.Task[None] | None = None  # the task that writes the body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"].upper() == "HEAD"
            or self.send_timeout is not None
            or self.data_sender_callable is not None
            or self._shutdown_event is not None
            or AppStatus.should_exit
        ):
            await super().__call__(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        task = self._task = asyncio.current_task()
        assert task is not None
        watcher = loop.create_task(self._guarded(self._watch(receive, task)))
        pings: _Pings = []
        if self.ping_interval > 0:
            pings.append(loop.call_later(self.ping_interval, self._ping_due, send, pings))
        try:
            await self._stream_response(send)
        except asyncio.CancelledError:
            # The watcher's cancel (the client went) ends the response quietly, as the task
            # group's would, and a failed ping's raises its error; anyone else's goes on up.
            if not (self._is_gone or self._failure) or task.uncancel() > 0:
                raise
            if self._failure is not None:
                raise self._failure from None
        finally:
            watcher.cancel()
            for ping in pings:
                ping.cancel()
        if self.background is not None:
            await self.background()

    async def _send_with_timeout(self, send: Send, message: Message) -> None:
        if self.send_timeout is not None:
            await super()._send_with_timeout(send, message)
            return
        try:
            await send(message)
        except BaseException:
            self._send_interrupted = True
            raise

    async def _watch(self, receive: Receive, task: asyncio.Task[None]) -> None:
        """Wait for the client's disconnect; then stop the body where it is."""
        while self.active:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.active = False
                self._client_disconnected = True
                if self.client_close_handler_callable is not None:
                    await self.client_close_handler_callable(message)
                self._is_gone = True
                task.cancel()
                return

    async def _guarded(self, work: Coroutine[Any, Any, None]) -> None:
        """Run a helper task's ``work``; its failure ends the response with its error, as a
        failed task ends sse-starlette's task group."""
        try:
            await work
        except Exception as exc:
            if self._task is not None and self._failure is None:
                self._failure = exc
                self._task.cancel()

    def _ping_due(self, send: Send, pings: _Pings) -> None:
        if self.active:
            loop = asyncio.get_running_loop()
            pings.append(loop.create_task(self._guarded(self._write_ping(send, pings))))

    async def _write_ping(self, send: Send, pings: _Pings) -> None:
        """One keep-alive comment, written as sse-starlette writes its own; then the next."""
        ping = (
            self.ping_message_factory()
            if self.ping_message_factory
            else ServerSentEvent(comment=f"ping - {datetime.now(UTC)}", sep=self.sep)
        )
        async with self._send_lock:
            if self.active:
                await self._send_with_timeout(
                    send,
                    {
                        "type": "http.response.body",
                        "body": ensure_bytes(ping, self.sep),
                        "more_body": True,
                    },
                )
        if self.active:
            loop = asyncio.get_running_loop()
            pings.clear()
            pings.append(loop.call_later(self.ping_interval, self._ping_due, send, pings))
