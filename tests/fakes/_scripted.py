"""A streaming response that plays fixed body pieces, then ends, breaks off, resets or stalls;
and a response that resets the connection before any byte of an answer."""

from __future__ import annotations

import socket
import struct
from collections.abc import Sequence
from typing import Literal

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from tests.fakes._recording import Recorder

__all__ = [
    "STALL_SECONDS",
    "BrokenStream",
    "Ending",
    "ResetConnection",
    "ScriptedStream",
    "reset_connection",
]

Ending = Literal["end", "break", "reset", "stall"]
STALL_SECONDS = 30.0


class BrokenStream(Exception):
    """Raised after the response started, so the server drops the connection mid-body."""


def reset_connection(receive: Receive) -> bool:
    """Reset the request's TCP connection (an RST, not a FIN): what a crashed vendor or a load
    balancer in between does. Reaches uvicorn's transport through its ``receive`` (the fakes
    wrap no middleware around it); ``False`` when it cannot, and the caller drops the connection
    another way.
    """
    transport = getattr(getattr(receive, "__self__", None), "transport", None)
    if transport is None:
        return False
    sock = transport.get_extra_info("socket")
    if sock is not None:
        # Linger on, timeout 0: closing sends RST and discards what was not sent.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
    return True


class ResetConnection(Response):
    """No answer at all: the connection is reset as soon as the request was read."""

    def __init__(self, recorder: Recorder, *, label: str | None = None) -> None:
        self.recorder = recorder
        self.label = label
        self.background = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not reset_connection(receive):
            raise BrokenStream("the fake could not reset the connection")
        self.recorder.mark_disconnected(self.label)
        await anyio.sleep(0.05)  # let the server see the connection gone before returning


class ScriptedStream(Response):
    """Sends ``pieces`` as a chunked 200 body (``interval`` seconds apart), then:

    * ``end``: finishes the body properly;
    * ``break``: raises ``BrokenStream``; uvicorn logs it and closes the socket without the
      final chunk, which the client sees as a broken stream;
    * ``reset``: resets the connection (RST);
    * ``stall``: sends nothing more for ``STALL_SECONDS``.

    Whenever the client hangs up before the body ended, the recorder notes it (and the stream
    stops at once); the recorder also counts the streams still being played. ``label`` (the
    requested model) tells the recorder's counts apart.
    """

    def __init__(
        self,
        pieces: Sequence[bytes],
        *,
        media_type: str,
        recorder: Recorder,
        ending: Ending = "end",
        interval: float = 0.0,
        label: str | None = None,
    ) -> None:
        self.status_code = 200
        self.media_type = media_type
        self.background = None
        self.init_headers()  # no `body` attribute, so no content-length: the body is chunked
        self.pieces = list(pieces)
        self.recorder = recorder
        self.ending = ending
        self.interval = interval
        self.label = label

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.recorder.stream_started(self.label)
        is_finished = False
        try:
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    # The request body was read already, so the next message is the disconnect.
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    if not is_finished:
                        self.recorder.mark_disconnected(self.label)
                    group.cancel_scope.cancel()

                group.start_soon(watch)
                await send(
                    {"type": "http.response.start", "status": 200, "headers": self.raw_headers}
                )
                for piece in self.pieces:
                    await send({"type": "http.response.body", "body": piece, "more_body": True})
                    self.recorder.sent(len(piece))
                    # A send to a client that has gone returns at once: let the watcher see it.
                    await anyio.sleep(self.interval)
                if self.ending == "break":
                    raise BrokenStream("the fake drops the connection mid-body")
                if self.ending == "reset":
                    if not reset_connection(receive):
                        raise BrokenStream("the fake could not reset the connection")
                    await anyio.sleep(STALL_SECONDS)  # until the watcher sees the disconnect
                if self.ending == "stall":
                    await anyio.sleep(STALL_SECONDS)
                is_finished = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                group.cancel_scope.cancel()
        except BaseExceptionGroup as group_error:
            # ``break`` must reach uvicorn as itself, so it drops the connection mid-body.
            broken = group_error.subgroup(BrokenStream)
            if broken is not None:
                raise broken.exceptions[0] from None
            raise
        finally:
            self.recorder.stream_ended(self.label)
