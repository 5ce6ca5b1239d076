"""A small RFC 6455 client riding the caller's httpx connection, for JSON messages.

The opening handshake is an ordinary ``GET`` sent with ``client.stream``, so the client's base
URL, TLS, proxy, auth, headers and timeouts apply. On a ``101`` httpcore hands the raw socket
over as ``response.extensions["network_stream"]`` (as httpx-ws does), and the frames ride it.
Framing is sans-IO (``encode_frame``, ``FrameReader``, ``_Session``), shared by ``WebSocket``
and ``AsyncWebSocket``. Every failure of the socket is a ``ConnectionLost``, whose ``code`` says
which: ``websocket_closed``, ``websocket_timeout``, ``connection_lost``,
``websocket_protocol_error``, ``websocket_message_too_large``, ``websocket_handshake_failed``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

import httpcore
import httpx

from arena_client.errors import ConnectionLost, error_from_answer

__all__ = ["AsyncWebSocket", "WebSocket", "aconnect", "connect"]

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_READ_BYTES = 65_536
_CLOSE_WAIT = 1.0  # seconds a closing client waits for the server's close frame
_BROKEN, _TOO_LARGE = "websocket_protocol_error", "websocket_message_too_large"
_CLOSE_STATUS = {_BROKEN: 1002, _TOO_LARGE: 1009}  # what our close frame says of each


def _masked(payload: bytes, mask: bytes) -> bytes:
    """``payload`` XOR the repeated 4-byte ``mask`` (masking and unmasking are the same)."""
    size = len(payload)
    key = int.from_bytes((mask * (size // 4 + 1))[:size], "big")
    return (int.from_bytes(payload, "big") ^ key).to_bytes(size, "big")


def encode_frame(
    opcode: int, payload: bytes, *, fin: bool = True, mask: bytes | None = None
) -> bytes:
    """One frame; a client's carries a 4-byte ``mask``, a server's (``None``) is bare."""
    size, bit = len(payload), 0x80 if mask is not None else 0
    head = bytes([(0x80 if fin else 0) | opcode])
    if size < 126:
        head += bytes([bit | size])
    elif size < 65_536:
        head += bytes([bit | 126]) + size.to_bytes(2, "big")
    else:
        head += bytes([bit | 127]) + size.to_bytes(8, "big")
    return head + payload if mask is None else head + mask + _masked(payload, mask)


class FrameReader:
    """Bytes in (``feed``); control frames and whole, reassembled messages out."""

    def __init__(self, max_message: int = MAX_MESSAGE_BYTES) -> None:
        self.max_message = max_message
        self._buffer = bytearray()
        self._opcode: int | None = None  # the opcode of a fragmented message under way
        self._fragments = bytearray()

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def next_frame(self) -> tuple[int, bytes] | None:
        """``(opcode, payload)`` of the next control frame or whole message; ``None`` until
        enough bytes arrived.

        Raises:
            ConnectionLost: ``websocket_protocol_error`` or ``websocket_message_too_large``.
        """
        while (frame := self._parse()) is not None:
            fin, opcode, payload = frame
            if opcode >= CLOSE:  # control frames may come between fragments
                return opcode, payload
            if (opcode == CONTINUATION) == (self._opcode is None):
                raise ConnectionLost("a continuation frame out of place", code=_BROKEN)
            if opcode != CONTINUATION:
                self._opcode, self._fragments = opcode, bytearray()
            self._fragments += payload
            if len(self._fragments) > self.max_message:
                raise ConnectionLost("an incoming message is too large", code=_TOO_LARGE)
            if fin:
                whole, self._opcode = (self._opcode or TEXT, bytes(self._fragments)), None
                return whole
        return None

    def _parse(self) -> tuple[bool, int, bytes] | None:
        buffer = self._buffer
        if len(buffer) < 2:
            return None
        fin, opcode, size, at = bool(buffer[0] & 0x80), buffer[0] & 0x0F, buffer[1] & 0x7F, 2
        if buffer[0] & 0x70 or opcode not in (CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG):
            raise ConnectionLost(f"an unknown frame (first byte {buffer[0]:#x})", code=_BROKEN)
        if opcode >= CLOSE and (size > 125 or not fin):
            raise ConnectionLost("a fragmented or long control frame", code=_BROKEN)
        if size >= 126:
            at = 4 if size == 126 else 10
            if len(buffer) < at:
                return None
            size = int.from_bytes(buffer[2:at], "big")
        if size > self.max_message:  # refused before its bytes are buffered
            raise ConnectionLost("an incoming message is too large", code=_TOO_LARGE)
        mask = bytes(buffer[at : at + 4]) if buffer[1] & 0x80 else None
        at += 4 if mask else 0
        if len(buffer) < at + size:
            return None
        payload = bytes(buffer[at : at + size])
        del buffer[: at + size]
        return fin, opcode, _masked(payload, mask) if mask else payload


def _client_frame(opcode: int, payload: bytes) -> bytes:
    return encode_frame(opcode, payload, mask=os.urandom(4))


class _Session:
    """The sans-IO half of a socket: what to send, and what each incoming frame means."""

    def __init__(self, timeout: httpx.Timeout) -> None:
        self._timeout = timeout
        self._reader = FrameReader()
        self._closed = False

    def _outgoing(self, message: Mapping[str, Any]) -> bytes:
        if self._closed:
            raise ConnectionLost("the socket is closed", code="websocket_closed")
        return _client_frame(TEXT, json.dumps(dict(message), separators=(",", ":")).encode())

    def _deadline(self, timeout: float | None) -> float | None:
        timeout = self._timeout.read if timeout is None else timeout
        return None if timeout is None else time.monotonic() + timeout

    def _next(self) -> tuple[bytes, dict[str, Any] | ConnectionLost | None]:
        """(bytes to send, then a message, an error to raise, or ``None``: read more)."""
        if self._closed:
            return b"", ConnectionLost("the socket is closed", code="websocket_closed")
        try:
            while (frame := self._reader.next_frame()) is not None:
                opcode, payload = frame
                if opcode == PING:
                    return _client_frame(PONG, payload), None
                if opcode == CLOSE:
                    self._closed = True
                    error = ConnectionLost("closed by the server", code="websocket_closed")
                    return _client_frame(CLOSE, payload[:2]), error
                if opcode in (TEXT, BINARY):
                    return b"", _decoded(payload)
        except ConnectionLost as error:
            self._closed = True
            return _client_frame(CLOSE, _CLOSE_STATUS[error.code].to_bytes(2, "big")), error
        return b"", None

    def _feed(self, data: bytes) -> None:
        if not data:
            raise ConnectionLost("the server hung up", code="connection_lost")
        self._reader.feed(data)

    def _heard_close(self) -> bool:
        """Whether the server's close frame arrived (what came before it is dropped)."""
        while (frame := self._reader.next_frame()) is not None:
            if frame[0] == CLOSE:
                return True
        return False


def _decoded(payload: bytes) -> dict[str, Any] | ConnectionLost:
    try:
        message = json.loads(payload.decode("utf-8"))
    except ValueError:
        message = None
    if isinstance(message, dict):
        return message
    return ConnectionLost(
        "the server sent a message that is not a JSON object", code="websocket_bad_message"
    )


def _remaining(deadline: float | None) -> float | None:
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise ConnectionLost("no message from the server in time", code="websocket_timeout")
    return left


@contextlib.contextmanager
def _network_errors(doing: str) -> Iterator[None]:
    """httpx's and httpcore's transport errors as ``ConnectionLost``."""
    try:
        yield
    except (httpcore.TimeoutException, httpx.TimeoutException) as exc:
        raise ConnectionLost(f"timed out {doing}", code="websocket_timeout") from exc
    except (httpcore.NetworkError, httpx.TransportError, OSError) as exc:
        raise ConnectionLost(f"connection lost {doing}: {exc}", code="connection_lost") from exc


class WebSocket(_Session):
    """An open socket (made by ``connect``); not safe to share between threads."""

    def __init__(self, stream: httpcore.NetworkStream, timeout: httpx.Timeout) -> None:
        super().__init__(timeout)
        self._stream = stream

    def send_json(self, message: Mapping[str, Any]) -> None:
        """Send ``message`` as one text frame."""
        self._write(self._outgoing(message))

    def receive_json(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message, waiting ``timeout`` seconds (``None``: the client's read timeout).

        Raises:
            ConnectionLost: the socket closed, dropped or stayed silent.
        """
        deadline = self._deadline(timeout)
        while True:
            reply, outcome = self._next()
            if reply:
                with contextlib.suppress(ConnectionLost) if outcome else contextlib.nullcontext():
                    self._write(reply)
            if isinstance(outcome, ConnectionLost):
                raise outcome
            if outcome is not None:
                return outcome
            if not reply:
                self._feed(self._read(deadline))

    def close(self, code: int = 1000) -> None:
        """Send a close frame and wait briefly for the server's; nothing if already closed."""
        if self._closed:
            return
        self._closed = True
        deadline = time.monotonic() + _CLOSE_WAIT
        with contextlib.suppress(ConnectionLost):
            self._write(_client_frame(CLOSE, code.to_bytes(2, "big")))
            while not self._heard_close():
                self._feed(self._read(deadline))

    def _read(self, deadline: float | None) -> bytes:
        with _network_errors("reading"):
            return self._stream.read(_READ_BYTES, timeout=_remaining(deadline))

    def _write(self, data: bytes) -> None:
        with _network_errors("writing"):
            self._stream.write(data, timeout=self._timeout.write)


class AsyncWebSocket(_Session):
    """An open socket (made by ``aconnect``); not safe to share between tasks."""

    def __init__(self, stream: httpcore.AsyncNetworkStream, timeout: httpx.Timeout) -> None:
        super().__init__(timeout)
        self._stream = stream

    async def send_json(self, message: Mapping[str, Any]) -> None:
        """Send ``message`` as one text frame."""
        await self._write(self._outgoing(message))

    async def receive_json(self, timeout: float | None = None) -> dict[str, Any]:  # noqa: ASYNC109
        """The next message, waiting ``timeout`` seconds (``None``: the client's read timeout).

        Raises:
            ConnectionLost: the socket closed, dropped or stayed silent.
        """
        deadline = self._deadline(timeout)
        while True:
            reply, outcome = self._next()
            if reply:
                with contextlib.suppress(ConnectionLost) if outcome else contextlib.nullcontext():
                    await self._write(reply)
            if isinstance(outcome, ConnectionLost):
                raise outcome
            if outcome is not None:
                return outcome
            if not reply:
                self._feed(await self._read(deadline))

    async def close(self, code: int = 1000) -> None:
        """Send a close frame and wait briefly for the server's; nothing if already closed."""
        if self._closed:
            return
        self._closed = True
        deadline = time.monotonic() + _CLOSE_WAIT
        with contextlib.suppress(ConnectionLost):
            await self._write(_client_frame(CLOSE, code.to_bytes(2, "big")))
            while not self._heard_close():
                self._feed(await self._read(deadline))

    async def _read(self, deadline: float | None) -> bytes:
        with _network_errors("reading"):
            return await self._stream.read(_READ_BYTES, timeout=_remaining(deadline))

    async def _write(self, data: bytes) -> None:
        with _network_errors("writing"):
            await self._stream.write(data, timeout=self._timeout.write)


def _handshake(headers: Mapping[str, str] | None) -> tuple[dict[str, str], str]:
    key = base64.b64encode(os.urandom(16)).decode()
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13"}
    return {**(headers or {}), **upgrade, "Sec-WebSocket-Key": key}, key


def _upgraded(response: httpx.Response, key: str) -> Any:
    """The raw stream of a good ``101``, else the answer's error (its body read already)."""
    if response.status_code != 101:
        raise error_from_answer(response.status_code, response.headers, response.content)
    accept = base64.b64encode(hashlib.sha1(key.encode() + _GUID, usedforsecurity=False).digest())
    stream = response.extensions.get("network_stream")
    if response.headers.get("sec-websocket-accept", "").encode() != accept or stream is None:
        raise ConnectionLost(
            "the server's 101 is not a WebSocket's", code="websocket_handshake_failed"
        )
    return stream


@contextlib.contextmanager
def connect(
    client: httpx.Client, path: str, *, headers: Mapping[str, str] | None = None
) -> Iterator[WebSocket]:
    """Open a WebSocket at ``path`` through ``client``; closed on leaving the block.

    Raises:
        ArenaError: the server refused the handshake (``error_from_answer`` of its answer).
        ConnectionLost: the network failed, or the answer is not a WebSocket's.
    """
    request_headers, key = _handshake(headers)
    with contextlib.ExitStack() as stack:
        with _network_errors("opening the socket"):
            response = stack.enter_context(client.stream("GET", path, headers=request_headers))
            if response.status_code != 101:
                response.read()
        socket = WebSocket(_upgraded(response, key), client.timeout)
        try:
            yield socket
        finally:
            socket.close()


@contextlib.asynccontextmanager
async def aconnect(
    client: httpx.AsyncClient, path: str, *, headers: Mapping[str, str] | None = None
) -> AsyncIterator[AsyncWebSocket]:
    """Open a WebSocket at ``path`` through ``client``; closed on leaving the block.

    Raises:
        ArenaError: the server refused the handshake (``error_from_answer`` of its answer).
        ConnectionLost: the network failed, or the answer is not a WebSocket's.
    """
    request_headers, key = _handshake(headers)
    async with contextlib.AsyncExitStack() as stack:
        with _network_errors("opening the socket"):
            stream = client.stream("GET", path, headers=request_headers)
            response = await stack.enter_async_context(stream)
            if response.status_code != 101:
                await response.aread()
        socket = AsyncWebSocket(_upgraded(response, key), client.timeout)
        try:
            yield socket
        finally:
            await socket.close()
