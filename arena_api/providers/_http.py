"""The HTTP every network provider streams through: one ``aiohttp`` session per process.

Why aiohttp and not httpx (or the ``openai`` SDK on httpx): relaying a few hundred answers at
once, httpcore's connection pool rescans every pooled connection whenever a request starts or a
response ends, which took most of a relaying server's CPU (``benchmarks/relay_http.py``), and the
SDK builds a model object per chunk. aiohttp keeps idle connections per host in a queue and
parses HTTP in C; the providers read the lines themselves and take from each JSON object only
what they need.

Failures become the ``ProviderError`` tree (see ``_errors``):

    non-2xx status                          -> ProviderHTTPError (5xx, 4xx) / ProviderRateLimited
                                               (429), with the ``Retry-After`` it asked for
    no connection (refused, DNS, connect    -> ProviderUnreachable
    timeout)
    the connection reset or dropped         -> ProviderReset
    the session's read timeout              -> ProviderTimeout
    a 2xx of another content type           -> ProviderStreamError (e.g. an HTML error page)
    a line longer than ``MAX_LINE_BYTES``   -> ProviderTooLarge, read no further (bounded memory)

Retrying is not done here but around a whole answer (``_retry``): only a provider knows when its
first token has been shown.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Collection, Mapping
from typing import Any

import aiohttp

from arena_api.core.errors import (
    ProviderError,
    ProviderReset,
    ProviderStreamError,
    ProviderTimeout,
    ProviderTooLarge,
    ProviderUnreachable,
)
from arena_api.providers._errors import (
    BROKE_OFF,
    TIMED_OUT,
    TOO_LARGE,
    UNREACHABLE,
    WRONG_TYPE,
    status_error,
)
from arena_api.providers._retry import parse_retry_after

__all__ = ["MAX_LINE_BYTES", "make_session", "post_lines"]

#: The longest line (an SSE field, an NDJSON object) read from a model endpoint: a real event is
#: a few hundred bytes; one beyond this ends the answer rather than growing a buffer.
MAX_LINE_BYTES = 1 << 20
#: How much of an error response's body is read (and thrown away) so its connection can be reused.
_ERROR_BODY_BYTES = 64 << 10

_JSON = {"content-type": "application/json", "accept": "text/event-stream, application/json"}


def make_session(
    *, connect_timeout_s: float = 10.0, read_timeout_s: float | None = None
) -> aiohttp.ClientSession:
    """The process-wide session: no overall deadline (a slot's own timeout governs an answer),
    no cap on concurrent connections, idle connections kept per host for reuse.

    Args:
        connect_timeout_s: how long opening a connection may take.
        read_timeout_s: the longest silence within one response; ``None`` leaves it to the slot.
    """
    timeout = aiohttp.ClientTimeout(
        total=None,
        connect=connect_timeout_s,
        sock_connect=connect_timeout_s,
        sock_read=read_timeout_s,
    )
    connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=30, enable_cleanup_closed=False)
    return aiohttp.ClientSession(
        connector=connector, timeout=timeout, json_serialize=json.dumps, raise_for_status=False
    )


async def post_lines(
    session: aiohttp.ClientSession,
    url: str,
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, str] | None = None,
    media_types: Collection[str] = (),
) -> AsyncIterator[list[bytes]]:
    """POST ``body`` as JSON and yield the response's lines, line endings stripped (blank lines
    included: they end Server-Sent Events), in lists: the whole lines of each network read.

    A list per read, not a line each, because every step of an async generator costs: relaying
    a token is two lines of SSE (and several generators deep), once per token per answer.

    Closing the iterator early (a stop, a disconnect, a slot timeout) closes the connection at
    once; a response read to its end leaves it to be reused.

    Args:
        media_types: the content types a 2xx answer may have (lower case, no parameters); empty
            accepts any. A response without a ``content-type`` is accepted.

    Raises:
        ProviderHTTPError: the status is not 2xx (the body is read, never quoted).
        ProviderUnreachable: no connection could be opened.
        ProviderReset: the connection was reset or dropped.
        ProviderTimeout: the session's read timeout passed.
        ProviderTooLarge: a line exceeded ``MAX_LINE_BYTES`` (after the lines before it).
        ProviderStreamError: the answer is not of one of ``media_types``.
    """
    data = json.dumps(body).encode()
    try:
        response = await session.post(
            url, data=data, headers={**_JSON, **(headers or {})}, params=params
        )
    except Exception as exc:
        error = _provider_error(exc)
        if error is None:
            raise
        raise error from exc
    try:
        if response.status >= 300:
            await _discard(response)
            raise status_error(
                response.status, parse_retry_after(response.headers.get("retry-after"))
            )
        content_type = response.headers.get("content-type")
        if content_type and media_types:
            if content_type.partition(";")[0].strip().lower() not in media_types:
                raise ProviderStreamError(WRONG_TYPE)
        # The lines are split here rather than in a generator of their own: one step fewer
        # per read.
        content = response.content
        pending = bytearray()  # the start of a line whose end has not come yet
        while chunk := await content.readany():
            if pending:
                pending += chunk
                if b"\n" in chunk:
                    chunk = bytes(pending)
                    pending.clear()
                elif len(pending) > MAX_LINE_BYTES:
                    raise ProviderTooLarge(TOO_LARGE)
                else:
                    continue
            *lines, tail = chunk.split(b"\n")
            # The lines before a too-long one still go out, then the error.
            too_long = next((i for i, line in enumerate(lines) if len(line) > MAX_LINE_BYTES), None)
            if too_long is not None:
                del lines[too_long:]
            if lines:
                yield _without_cr(lines) if b"\r" in chunk else lines
            pending += tail
            if too_long is not None or len(pending) > MAX_LINE_BYTES:
                raise ProviderTooLarge(TOO_LARGE)
        if pending:
            yield [bytes(pending).rstrip(b"\r")]
    except ProviderError:
        raise
    except Exception as exc:
        error = _provider_error(exc, is_streaming=True)
        if error is None:
            raise
        raise error from exc
    finally:
        # Read to the end, the connection is already back in the pool; otherwise drop it.
        response.close()


def _provider_error(exc: Exception, *, is_streaming: bool = False) -> ProviderError | None:
    """The ``ProviderError`` for what the HTTP client raised; ``None`` for anything else (a bug
    is not dressed up as a provider's fault)."""
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return ProviderUnreachable(UNREACHABLE)
    if isinstance(exc, TimeoutError):
        return ProviderTimeout(TIMED_OUT)
    if isinstance(exc, aiohttp.ClientConnectorError):
        return ProviderUnreachable(UNREACHABLE)
    if isinstance(exc, aiohttp.ClientConnectionError | aiohttp.ClientPayloadError | OSError):
        return ProviderReset(BROKE_OFF)
    if isinstance(exc, aiohttp.ClientError):
        return ProviderReset(BROKE_OFF) if is_streaming else ProviderUnreachable(UNREACHABLE)
    return None


async def _discard(response: aiohttp.ClientResponse) -> None:
    """Read (a bounded part of) an error body, so a small one leaves its connection reusable;
    a body that breaks off changes nothing (the status is the news)."""
    seen = 0
    with contextlib.suppress(aiohttp.ClientError, OSError):
        async for chunk in response.content.iter_any():
            seen += len(chunk)
            if seen > _ERROR_BODY_BYTES:
                return  # too long to drain: the connection is dropped instead


def _without_cr(lines: list[bytes]) -> list[bytes]:
    """``lines`` with the ``\r`` of a CRLF line ending taken off."""
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]
