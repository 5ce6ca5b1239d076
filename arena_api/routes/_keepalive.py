"""A refusal leaves its keep-alive connection usable.

Many answers come before the request's body is read: a 415 for a wrong content type, a 413 by
``Content-Length``, a 405, a 401 or 403 of access control, a 429. The server then cannot read
the next request on that connection (the unread body is in the way), so it closed it without a
word, and a client that pools connections (a proxy, an SDK) saw its *next* request fail with
"server disconnected without a response".

This layer, the outermost of the API, watches whether the body was read to its end by the time
the response starts. If not, it reads and discards the rest when ``Content-Length`` says it is
at most ``drain_bytes``, so the connection stays good. That bound is a few times the body limit:
a body just past the limit (a 413) is drained too, because closing a connection whose client is
still sending resets it, and the client may lose the answer. A larger or a chunked body gets
``Connection: close``, which tells the client to open a new connection for its next request.
"""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["DRAIN_FACTOR", "KeepAlive"]

#: How many times the body limit a refused body may be read and discarded.
DRAIN_FACTOR = 4


class KeepAlive:
    def __init__(self, app: ASGIApp, drain_bytes: int) -> None:
        self.app = app
        self.drain_bytes = drain_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length", b"").strip()
        declared = int(length) if length.isdigit() else None
        chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
        read = {"all": declared in (None, 0) and not chunked}

        async def tracked() -> Message:
            message = await receive()
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                read["all"] = True
            return message

        async def start(message: Message) -> None:
            if declared is not None and declared <= self.drain_bytes:
                while not read["all"]:
                    await tracked()
            else:
                message = {
                    **message,
                    "headers": [*message.get("headers", ()), (b"connection", b"close")],
                }
            await send(message)

        # Not a coroutine: a body message is handed on as it is, with no step of ours per write.
        def respond(message: Message) -> Awaitable[None]:
            if message["type"] == "http.response.start" and not read["all"]:
                return start(message)
            return send(message)

        await self.app(scope, tracked, respond)
