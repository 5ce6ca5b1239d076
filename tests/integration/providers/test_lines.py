"""``post_lines`` against a raw HTTP server that cuts its body where it likes: lines split across
network reads, CRLF endings, an unterminated last line, lines too long."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest

from arena_api.core.errors import ProviderTooLarge
from arena_api.providers import make_session
from arena_api.providers._http import MAX_LINE_BYTES, post_lines

_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


async def _serve(pieces: Sequence[bytes]) -> tuple[asyncio.Server, str]:
    """A server answering every POST with ``pieces``, each written (and flushed) on its own."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        await reader.readexactly(length)
        writer.write(_HEAD)
        for piece in pieces:
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            await asyncio.sleep(0.005)  # most likely a read of its own at the other end
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/v1/chat/completions"


async def _lines(pieces: Sequence[bytes]) -> AsyncIterator[list[bytes]]:
    server, url = await _serve(pieces)
    session = make_session()
    try:
        async for batch in post_lines(session, url, {"stream": True}):
            yield batch
    finally:
        await session.close()
        server.close()
        await server.wait_closed()


async def _all_lines(pieces: Sequence[bytes]) -> list[bytes]:
    return [line async for batch in _lines(pieces) for line in batch]


async def test_lines_are_whole_wherever_the_reads_cut_them() -> None:
    pieces = [b'data: {"a"', b": 1}\r\n\r\ndata: x\n", b"\n: comment\r", b"\ndata: last"]

    lines = await _all_lines(pieces)

    assert lines == [b'data: {"a": 1}', b"", b"data: x", b"", b": comment", b"data: last"]


async def test_each_read_comes_as_one_list() -> None:
    batches = [batch async for batch in _lines([b"data: 1\n\ndata: 2\n\n"])]

    assert batches == [[b"data: 1", b"", b"data: 2", b""]]


async def test_the_lines_before_a_line_too_long_come_first() -> None:
    pieces = [b"data: ok\n\n" + b"x" * (MAX_LINE_BYTES + 1) + b"\ndata: never\n"]
    seen: list[bytes] = []

    with pytest.raises(ProviderTooLarge):
        async for batch in _lines(pieces):
            seen.extend(batch)

    assert seen == [b"data: ok", b""]


async def test_a_line_that_grows_past_the_limit_over_many_reads_ends_the_answer() -> None:
    pieces = [b"data: ok\n"] + [b"y" * (256 << 10)] * 5

    with pytest.raises(ProviderTooLarge):
        await _all_lines(pieces)


async def test_a_line_exactly_at_the_limit_is_read() -> None:
    line = b"z" * MAX_LINE_BYTES

    lines = await _all_lines([line[:1000], line[1000:] + b"\n"])

    assert lines == [line]
