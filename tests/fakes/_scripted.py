"""A streaming response that plays fixed body pieces, then ends, breaks off or stalls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from tests.fakes._recording import Recorder

__all__ = ["STALL_SECONDS", "BrokenStream", "Ending", "ScriptedStream"]

Ending = Literal["end", "break", "stall"]
STALL_SECONDS = 30.0


class BrokenStream(Exception):
    """Raised after the response started, so the server drops the connection mid-body."""


class ScriptedStream(Response):
    """Sends ``pieces`` as a chunked 200 body (``interval`` seconds apart), then:

    * ``end``: finishes the body properly;
    * ``break``: raises ``BrokenStream``; uvicorn logs it and closes the socket without the
      final chunk, which the client sees as a broken stream;
    * ``stall``: sends nothing more for ``STALL_SECONDS`` and records when the client hangs up.
    """

    def __init__(
        self,
        pieces: Sequence[bytes],
        *,
        media_type: str,
        recorder: Recorder,
        ending: Ending = "end",
        interval: float = 0.0,
    ) -> None:
        self.status_code = 200
        self.media_type = media_type
        self.background = None
        self.init_headers()  # no `body` attribute, so no content-length: the body is chunked
        self.pieces = list(pieces)
        self.recorder = recorder
        self.ending = ending
        self.interval = interval

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        for piece in self.pieces:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
            if self.interval:
                await anyio.sleep(self.interval)
        if self.ending == "break":
            raise BrokenStream("the fake drops the connection mid-body")
        if self.ending == "stall":
            with anyio.move_on_after(STALL_SECONDS):
                # The request body was read already, so the next message is the disconnect.
                while (await receive())["type"] != "http.disconnect":
                    pass
                self.recorder.mark_disconnected()
                return
        await send({"type": "http.response.body", "body": b"", "more_body": False})
