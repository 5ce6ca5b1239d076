"""A lean fake model vendor for the relay benchmark, in each vendor's own wire format.

Every answer is ``--tokens`` pieces of text, one every ``1 / --rate`` seconds, over chunked
HTTP/1.1 with keep-alive, in the format the request's path names (as ``tests/fakes/`` sends):

* ``POST .../chat/completions``: OpenAI ``chat.completion.chunk`` SSE, then a chunk with
  ``finish_reason: "stop"``, a usage chunk (when ``stream_options.include_usage`` asks for it)
  and ``data: [DONE]`` (OpenAI, vLLM, a host proxy);
* ``POST .../models/{model}:streamGenerateContent``: Gemini's SSE of ``GenerateContentResponse``,
  the last with ``finishReason`` and ``usageMetadata``;
* ``POST /api/chat``: Ollama's NDJSON, then the ``done`` line with ``eval_count``.

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
    """One streamed answer in OpenAI's format, written by a chain of ``call_later`` timers."""

    head = _HEAD

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

    def opening(self) -> bytes:
        return self._chunk({"role": "assistant", "content": ""}, None)

    def piece(self, word: str) -> bytes:
        return self._chunk({"content": word}, None)

    def closing(self) -> bytes:
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
        return tail + _chunked(b"data: [DONE]\n\n")

    def start(self) -> None:
        self.protocol.write(self.head + self.opening())
        self.protocol.later(self.tick)

    def tick(self) -> None:
        if self.protocol.closed:
            return
        if self.sent < self.protocol.server.tokens:
            word = _WORDS[self.sent % len(_WORDS)]
            self.sent += 1
            self.protocol.write(self.piece(word))
            self.protocol.later(self.tick)
            return
        self.protocol.write(self.closing() + b"0\r\n\r\n")
        self.protocol.streaming = False
        self.protocol.parse()  # a pipelined next request, if any


class _GeminiStream(_Stream):
    """``streamGenerateContent?alt=sse``: one ``GenerateContentResponse`` per event."""

    def _response(self, text: str, finish: bool) -> bytes:
        candidate: dict[str, object] = {
            "content": {"parts": [{"text": text}], "role": "model"},
            "index": 0,
        }
        body: dict[str, object] = {"candidates": [candidate], "modelVersion": self.model}
        if finish:
            candidate["finishReason"] = "STOP"
            body["usageMetadata"] = {"promptTokenCount": 9, "candidatesTokenCount": self.sent}
        return _event(body)

    def opening(self) -> bytes:
        return b""

    def piece(self, word: str) -> bytes:
        return self._response(word, False)

    def closing(self) -> bytes:
        return self._response("", True)


class _OllamaStream(_Stream):
    """``/api/chat``: NDJSON, one message delta a line, then the ``done`` line."""

    head = _HEAD.replace(b"text/event-stream", b"application/x-ndjson")

    def _line(self, body: dict[str, object]) -> bytes:
        return _chunked(json.dumps(body, separators=(",", ":")).encode() + b"\n")

    def opening(self) -> bytes:
        return b""

    def piece(self, word: str) -> bytes:
        message = {"role": "assistant", "content": word}
        return self._line({"model": self.model, "message": message, "done": False})

    def closing(self) -> bytes:
        message = {"role": "assistant", "content": ""}
        return self._line(
            {
                "model": self.model,
                "message": message,
                "done": True,
                "done_reason": "stop",
                "eval_count": self.sent,
            }
        )


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
        target = head.split(b"\r\n")[0].split(b" ")[1] if head.startswith(b"POST ") else b""
        request = json.loads(body) if body else {}
        model = str(request.get("model", "vendor"))
        if target.endswith(b"/chat/completions"):
            usage = bool((request.get("stream_options") or {}).get("include_usage"))
            stream: _Stream = _Stream(self, model, usage)
        elif b":streamGenerateContent" in target:
            name = target.split(b"/models/")[-1].split(b":")[0].decode()
            stream = _GeminiStream(self, name, True)
        elif target.endswith(b"/api/chat"):
            stream = _OllamaStream(self, model, True)
        else:
            self.write(_NOT_FOUND)
            self.parse()
            return
        self.streaming = True
        stream.start()


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
