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

With ``--prose`` the pieces are the words of a Markdown answer (a heading, paragraphs, a list,
a code block) instead of eight Greek letters, and answers vary in length around ``--tokens``
(from half to one and a half times it, in turn), as real answers do (``benchmarks/soak.py``).

Usage: python -m benchmarks._vendor --port 8000 [--rate 20] [--tokens 40] [--prose]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import time

_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)
_NOT_FOUND = b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"
_WORDS = ("alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta ", "theta ")
_PROSE_TEXT = """## In short

A JSON Web Token (JWT) is a compact, signed string that carries a few claims about a user, such \
as who they are and when the token expires. The server signs it once; any service holding the key \
can check it without a database lookup.

### How it works

1. The client signs in with a password or another factor.
2. The server returns a token made of three parts: a header, a payload and a signature.
3. The client sends it back on every request, usually as `Authorization: Bearer <token>`.

```python
import jwt

claims = jwt.decode(token, key, algorithms=["HS256"])
print(claims["sub"], claims["exp"])
```

### Things to watch

- **Keep tokens short-lived**: a stolen token works until it expires.
- Never put secrets in the payload; it is encoded, *not* encrypted.
- Rotate the signing key, and reject tokens whose `alg` you did not expect.

In practice, pair a short access token with a refresh token kept in an HTTP-only cookie.

"""
#: The answer's pieces: each word with the blank that follows it (newlines kept).
_PROSE = tuple(re.findall(r"\S+\s*", _PROSE_TEXT))


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
        self.length = protocol.server.answer_length()
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
        if self.sent < self.length:
            word = self.protocol.server.words[self.sent % len(self.protocol.server.words)]
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
    def __init__(self, rate: float, tokens: int, prose: bool = False) -> None:
        self.interval = 1 / rate if rate > 0 else 0.0
        self.tokens = tokens
        self.words = _PROSE if prose else _WORDS
        # Prose answers take 0.5x, 0.6x, ... 1.5x of ``tokens`` in turn (1x on average).
        self._scales = itertools.cycle([0.5 + k / 10 for k in range(11)] if prose else [1.0])

    def answer_length(self) -> int:
        """How many pieces the next answer has."""
        return max(1, round(self.tokens * next(self._scales)))


class VendorProtocol(asyncio.Protocol):
    def __init__(self, server: VendorServer) -> None:
        self.server = server
        self.buffer = bytearray()
        #: Bytes the request being received needs in all (head and body), once its head is in:
        #: a large body (an image) is not parsed again at every read.
        self.wanted = 0
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
        if self.streaming or len(self.buffer) < self.wanted:
            return
        head, sep, rest = bytes(self.buffer).partition(b"\r\n\r\n")
        if not sep:
            return
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if len(rest) < length:
            self.wanted = len(head) + len(sep) + length
            return
        body, self.buffer, self.wanted = rest[:length], bytearray(rest[length:]), 0
        target = head.split(b"\r\n")[0].split(b" ")[1] if head.startswith(b"POST ") else b""
        request = json.loads(body) if body else {}
        model = str(request.get("model", "vendor"))
        if target.endswith(b"/chat/completions"):
            usage = bool((request.get("stream_options") or {}).get("include_usage"))
            stream: _Stream = _Stream(self, model, usage)
        elif b":streamGenerateContent" in target:
            gemini_model = target.split(b"/models/")[-1].split(b":")[0].decode()
            stream = _GeminiStream(self, gemini_model, True)
        elif target.endswith(b"/api/chat"):
            stream = _OllamaStream(self, model, True)
        else:
            self.write(_NOT_FOUND)
            self.parse()
            return
        self.streaming = True
        stream.start()


async def serve(port: int, rate: float, tokens: int, prose: bool = False) -> None:
    server = VendorServer(rate, tokens, prose)
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
    parser.add_argument(
        "--prose", action="store_true", help="a Markdown answer of varied length, not Greek letters"
    )
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.rate, args.tokens, args.prose))


if __name__ == "__main__":
    main()
