"""The client's own WebSocket (``arena_client._websocket``), blocking and asyncio, against the
real control plane, and against a scripted loopback server for what the arena never sends
(pings, fragments, a close frame, a hang-up)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import re
import socket
import threading
import uuid
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_client._websocket import (
    BINARY,
    CLOSE,
    CONTINUATION,
    PING,
    PONG,
    TEXT,
    FrameReader,
    WebSocket,
    aconnect,
    connect,
    encode_frame,
)
from arena_client.errors import ConnectionLost, Unauthorized
from tests.integration.arena_harness import Arena, serve_arena
from tests.support import parse_sse

CONTROL = "/api/arena/control"
MODES = [pytest.param("sync", id="sync"), pytest.param("async", id="async")]
TOKEN = "api-token-0123456789abcdef"
GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Socket(Protocol):
    async def send_json(self, message: Mapping[str, Any]) -> None: ...
    async def receive_json(self, timeout: float | None = None) -> dict[str, Any]: ...  # noqa: ASYNC109


class Threaded:
    """The blocking socket driven from the test's event loop, each call in a worker thread."""

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket

    async def send_json(self, message: Mapping[str, Any]) -> None:
        await asyncio.to_thread(self.socket.send_json, message)

    async def receive_json(self, timeout: float | None = None) -> dict[str, Any]:  # noqa: ASYNC109
        return await asyncio.to_thread(self.socket.receive_json, timeout)


@contextlib.asynccontextmanager
async def open_socket(
    url: str, mode: str, *, headers: Mapping[str, str] | None = None
) -> AsyncIterator[Socket]:
    """``connect`` (``sync``) or ``aconnect`` (``async``) through a new client of ``url``."""
    if mode == "async":
        async with (
            httpx.AsyncClient(base_url=url, headers=headers, timeout=10) as client,
            aconnect(client, CONTROL) as opened,
        ):
            yield opened
        return
    with httpx.Client(base_url=url, headers=headers, timeout=10) as blocking_client:
        stack = contextlib.ExitStack()
        opening = connect(blocking_client, CONTROL)
        blocking = await asyncio.to_thread(stack.enter_context, opening)
        try:
            yield Threaded(blocking)
        finally:
            await asyncio.to_thread(stack.close)


async def listen(url: str, mode: str) -> tuple[list[dict[str, Any]], ConnectionLost]:
    """Every message until the socket fails, and how it failed."""
    messages = []
    async with open_socket(url, mode) as opened:
        with pytest.raises(ConnectionLost) as failure:
            while True:
                messages.append(await opened.receive_json(timeout=5))
    return messages, failure.value


class RoundReader:
    """Streams a round in the background; ``started`` is set on its ``matchup_started``."""

    def __init__(self, arena: Arena) -> None:
        self.text = ""
        self.started = asyncio.Event()
        self.task = asyncio.create_task(self._run(arena))

    async def _run(self, arena: Arena) -> None:
        body = {"prompt": "a long answer please"}
        async with arena.client.stream("POST", "/api/arena/chat", json=body) as response:
            async for chunk in response.aiter_text():
                self.text += chunk
                if self.frames:
                    self.started.set()

    @property
    def frames(self) -> list[tuple[str, dict[str, Any]]]:
        """The frames received whole so far."""
        return parse_sse(self.text.replace("\r\n", "\n").rpartition("\n\n")[0])

    async def matchup(self) -> dict[str, Any]:
        await asyncio.wait_for(self.started.wait(), timeout=10)
        name, started = self.frames[0]
        assert name == "matchup_started"
        return started


class ScriptedServer:
    """A loopback server that answers one handshake, sends ``script`` in the same write as its
    101, then keeps what the client sends until the client hangs up (or hangs up itself)."""

    def __init__(self, script: bytes, *, hang_up: bool = False, accept: bytes | None = None):
        self.script, self.hang_up, self.accept = script, hang_up, accept
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.received = b""
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.thread.join(timeout=5)
        self.listener.close()

    def _serve(self) -> None:
        connection, _ = self.listener.accept()
        with connection:
            connection.settimeout(5)
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(4096)
            key = re.search(rb"sec-websocket-key:\s*(\S+)", request, re.IGNORECASE)
            assert key is not None
            accept = self.accept or base64.b64encode(hashlib.sha1(key[1] + GUID).digest())
            head = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade"
            connection.sendall(
                head + b"\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n" + self.script
            )
            with contextlib.suppress(OSError):
                while not self.hang_up and (chunk := connection.recv(65_536)):
                    self.received += chunk

    @property
    def frames(self) -> list[tuple[int, bytes]]:
        """The client's frames, unmasked."""
        reader, frames = FrameReader(), []
        reader.feed(self.received)
        while (frame := reader.next_frame()) is not None:
            frames.append(frame)
        return frames


@pytest.mark.parametrize("mode", MODES)
async def test_a_malformed_message_gets_an_error_frame_and_the_socket_stays_usable(
    db: AsyncEngine, database_url: str, tmp_path: Path, mode: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        async with open_socket(arena.url, mode) as opened:
            await opened.send_json({"type": "dance"})
            error = await opened.receive_json()
            await opened.send_json({"type": "stop", "matchupId": str(uuid.uuid4())})
            after = await opened.receive_json()

    assert error == {"type": "error", "message": "Unknown or malformed control message"}
    assert after["type"] == "stopped"


@pytest.mark.parametrize("mode", MODES)
async def test_stopping_an_unknown_matchup_answers_stopped_not_ok(
    db: AsyncEngine, database_url: str, tmp_path: Path, mode: str
) -> None:
    matchup = str(uuid.uuid4())
    async with serve_arena(db, database_url, tmp_path) as arena:
        async with open_socket(arena.url, mode) as opened:
            await opened.send_json({"type": "stop", "matchupId": matchup})
            reply = await opened.receive_json()

    assert reply["type"] == "stopped" and reply["matchupId"] == matchup
    assert reply["ok"] is False and reply["reason"]


@pytest.mark.parametrize("mode", MODES)
async def test_stopping_a_running_round_is_acknowledged_and_ends_its_stream(
    db: AsyncEngine, database_url: str, tmp_path: Path, mode: str
) -> None:
    slow = serve_arena(
        db, database_url, tmp_path, ARENA_MOCK_TOKENS_PER_SECOND="20", ARENA_MOCK_TOKENS="400"
    )
    async with slow as arena:
        reader = RoundReader(arena)
        started = await reader.matchup()
        stop = {k: started[k] for k in ("matchupId", "matchupToken")}

        async with open_socket(arena.url, mode) as opened:
            await opened.send_json({"type": "stop", **stop})
            reply = await opened.receive_json()
        await asyncio.wait_for(reader.task, timeout=5)

    assert reply == {"type": "stopped", "matchupId": started["matchupId"], "ok": True}
    assert reader.frames[-1][0] == "matchup_done"


@pytest.mark.parametrize("mode", MODES)
async def test_a_steer_of_a_running_round_gets_a_steer_ack(
    db: AsyncEngine, database_url: str, tmp_path: Path, mode: str
) -> None:
    brisk = serve_arena(
        db, database_url, tmp_path, ARENA_MOCK_TOKENS_PER_SECOND="50", ARENA_MOCK_TOKENS="30"
    )
    async with brisk as arena:
        reader = RoundReader(arena)
        started = await reader.matchup()
        steer = {k: started[k] for k in ("matchupId", "matchupToken")}

        async with open_socket(arena.url, mode) as opened:
            await opened.send_json({"type": "steer", "instruction": "be brief", **steer})
            reply = await opened.receive_json()
        await asyncio.wait_for(reader.task, timeout=10)

    assert reply == {"type": "steer_ack", "matchupId": started["matchupId"], "accepted": True}
    assert [name for name, _ in reader.frames].count("steered") == 1


@pytest.mark.parametrize("mode", MODES)
async def test_replies_to_messages_sent_at_once_all_arrive_in_order(
    db: AsyncEngine, database_url: str, tmp_path: Path, mode: str
) -> None:
    matchups = [str(uuid.uuid4()) for _ in range(20)]
    async with serve_arena(db, database_url, tmp_path) as arena:
        async with open_socket(arena.url, mode) as opened:
            for matchup in matchups:
                await opened.send_json({"type": "stop", "matchupId": matchup})
            replies = [await opened.receive_json() for _ in matchups]

    assert [reply["matchupId"] for reply in replies] == matchups


@pytest.mark.parametrize("mode", MODES)
async def test_a_silent_server_times_out_and_the_socket_stays_usable(
    db: AsyncEngine, database_url: str, tmp_path: Path, mode: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        async with open_socket(arena.url, mode) as opened:
            with pytest.raises(ConnectionLost) as silent:
                await opened.receive_json(timeout=0.2)
            await opened.send_json({"type": "stop", "matchupId": str(uuid.uuid4())})
            after = await opened.receive_json()

    assert silent.value.code == "websocket_timeout"
    assert after["type"] == "stopped"


@pytest.mark.parametrize("mode", MODES)
async def test_a_handshake_without_a_token_is_refused(
    db: AsyncEngine, database_url: str, tmp_path: Path, mode: str
) -> None:
    """The edge refuses the socket with the HTTP answer of any refused request (the WebSocket
    denial response): 401, the server's code and ``WWW-Authenticate``."""
    async with serve_arena(db, database_url, tmp_path, ARENA_API_TOKENS=TOKEN) as arena:
        with pytest.raises(Unauthorized) as refused:
            async with open_socket(arena.url, mode):
                pass

    assert refused.value.status == 401 and refused.value.code == "unauthorized"


@pytest.mark.parametrize("mode", MODES)
async def test_the_clients_bearer_token_opens_the_socket(
    db: AsyncEngine, database_url: str, tmp_path: Path, mode: str
) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with serve_arena(db, database_url, tmp_path, ARENA_API_TOKENS=TOKEN) as arena:
        async with open_socket(arena.url, mode, headers=headers) as opened:
            await opened.send_json({"type": "stop", "matchupId": str(uuid.uuid4())})
            reply = await opened.receive_json()

    assert reply["type"] == "stopped" and reply["ok"] is False


@pytest.mark.parametrize("mode", MODES)
async def test_frames_arriving_together_are_all_read_pings_answered_fragments_joined(
    mode: str,
) -> None:
    script = (
        encode_frame(PING, b"are you there")
        + encode_frame(TEXT, b'{"a":', fin=False)
        + encode_frame(PONG, b"")
        + encode_frame(CONTINUATION, b"1}")
        + encode_frame(BINARY, b'{"b":2}')
        + encode_frame(TEXT, b'{"c":3}')
        + encode_frame(CLOSE, (1000).to_bytes(2, "big"))
    )
    with ScriptedServer(script) as server:
        messages, failure = await listen(server.url, mode)

    assert messages == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert failure.code == "websocket_closed"
    assert server.frames == [(PONG, b"are you there"), (CLOSE, (1000).to_bytes(2, "big"))]


@pytest.mark.parametrize("mode", MODES)
async def test_a_server_that_closes_gets_its_close_echoed_in_a_masked_frame(mode: str) -> None:
    with ScriptedServer(encode_frame(CLOSE, (1001).to_bytes(2, "big") + b"bye")) as server:
        messages, failure = await listen(server.url, mode)

    assert messages == [] and str(failure) == "websocket_closed: closed by the server"
    assert server.frames == [(CLOSE, (1001).to_bytes(2, "big"))]
    assert server.received[1] & 0x80  # masked, as a client's frames must be


@pytest.mark.parametrize("mode", MODES)
async def test_a_server_that_hangs_up_is_a_lost_connection(mode: str) -> None:
    with ScriptedServer(encode_frame(TEXT, b'{"last":true}'), hang_up=True) as server:
        messages, failure = await listen(server.url, mode)

    assert messages == [{"last": True}]
    assert failure.code == "connection_lost"


@pytest.mark.parametrize("mode", MODES)
async def test_a_101_with_a_wrong_accept_is_not_a_websocket(mode: str) -> None:
    with ScriptedServer(b"", accept=b"bm90IHRoZSByaWdodCBrZXk=") as server:
        with pytest.raises(ConnectionLost) as failure:
            await listen(server.url, mode)

    assert failure.value.code == "websocket_handshake_failed"
