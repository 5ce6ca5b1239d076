"""A lean fake model vendor for the relay benchmark: OpenAI ``chat.completion.chunk`` SSE.

``POST /v1/chat/completions`` with ``stream: true`` answers ``--tokens`` content chunks, one every
``1 / --rate`` seconds, then a chunk with ``finish_reason: "stop"``, a usage chunk (when
``stream_options.include_usage`` asks for it) and ``data: [DONE]``, over chunked HTTP/1.1 with
keep-alive: the wire format of the ``openai`` provider's real endpoint, and what
``tests/fakes/openai_server.py`` sends.

It is written on bare ``asyncio.Protocol`` callbacks (a timer per stream, no coroutine per
token, no framework) so that hundreds of concurrent streams cost it little CPU: the benchmark
measures the servers that relay it, not the vendor.

Usage: python -m benchmarks._vendor --port 8000 [--rate 20] [--tokens 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)
_NOT_FOUND = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"
_WORDS = ("alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta ", "theta ")


def _chunked(payload: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(payload), payload)


def _event(body: dict[str, object]) -> bytes:
    return _chunked(b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n")


class _Stream:
    """One streamed answer, written by a chain of ``call_later`` timers."""

    def __init__(self, protocol: VendorProtocol, model: str, usage: bool) -> None:
        self.protocol, self.model, self.usage = protocol, model, usage
        self.sent = 0
        self.id = f"chatcmpl-{time.monotonic_ns()}"
        self.created = int(time.time())

    def _chunk(self, delta: dict[str, str], finish: str | None) -> bytes:
        return _event(
            {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
        )

    def start(self) -> None:
        self.protocol.write(_HEAD + self._chunk({"role": "assistant", "content": ""}, None))
        self.protocol.later(self.tick)

    def tick(self) -> None:
        if self.protocol.closed:
            return
        server = self.protocol.server
        if self.sent < server.tokens:
            word = _WORDS[self.sent % len(_WORDS)]
            self.sent += 1
            self.protocol.write(self._chunk({"content": word}, None))
            self.protocol.later(self.tick)
            return
        tail = self._chunk({}, "stop")
        if self.usage:
            usage = {
                "prompt_tokens": 9,
                "completion_tokens": self.sent,
                "total_tokens": 9 + self.sent,
            }
            tail += _event(
                {
                    "id": self.id,
                    "object": "chat.completion.chunk",
                    "created": self.created,
                    "model": self.model,
                    "choices": [],
                    "usage": usage,
                }
            )
        self.protocol.write(tail + _chunked(b"data: [DONE]\n\n") + b"0\r\n\r\n")
        self.protocol.streaming = False
        self.protocol.parse()  # a pipelined next request, if any


class VendorServer:
    def __init__(self, rate: float, tokens: int) -> None:
        self.interval = 1 / rate if rate > 0 else 0.0
        self.tokens = tokens


class VendorProtocol(asyncio.Protocol):
    def __init__(self, server: VendorServer) -> None:
        self.server = server
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.streaming = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True

    def write(self, data: bytes) -> None:
        if not self.closed and self.transport is not None:
            self.transport.write(data)

    def later(self, callback: object) -> None:
        asyncio.get_running_loop().call_later(self.server.interval, callback)  # type: ignore[arg-type]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        self.parse()

    def parse(self) -> None:
        if self.streaming:
            return
        head, sep, rest = self.buffer.partition(b"\r\n\r\n")
        if not sep:
            return
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if len(rest) < length:
            return
        body, self.buffer = rest[:length], rest[length:]
        if not head.startswith(b"POST ") or b"/chat/completions" not in head.split(b"\r\n")[0]:
            self.write(_NOT_FOUND)
            self.parse()
            return
        request = json.loads(body)
        usage = bool((request.get("stream_options") or {}).get("include_usage"))
        self.streaming = True
        _Stream(self, str(request.get("model", "vendor")), usage).start()


async def serve(port: int, rate: float, tokens: int) -> None:
    server = VendorServer(rate, tokens)
    loop = asyncio.get_running_loop()
    listener = await loop.create_server(
        lambda: VendorProtocol(server), "127.0.0.1", port, backlog=4096
    )
    async with listener:
        await listener.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--tokens", type=int, default=40)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.rate, args.tokens))


if __name__ == "__main__":
    main()
