"""The HTTP every network provider streams through: one ``aiohttp`` session per process.

Why aiohttp and not httpx (or the ``openai`` SDK on httpx): relaying a few hundred answers at
once, httpcore's connection pool rescans every pooled connection whenever a request starts or a
response ends, which took most of a relaying server's CPU (``benchmarks/relay_http.py``), and the
SDK builds a model object per chunk. aiohttp keeps idle connections per host in a queue and
parses HTTP in C; the providers read the lines themselves and take from each JSON object only
what they need.

Failures become the ``ProviderError`` tree (see ``_errors``):

    non-2xx status                          -> ProviderHTTPError / ProviderRateLimited (429)
    no connection                           -> ProviderStreamError("... could not be reached")
    the session's read timeout              -> ProviderTimeout
    the connection or the body breaks       -> ProviderStreamError("... broke off")
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import aiohttp

from arena_api.core.errors import ProviderStreamError, ProviderTimeout
from arena_api.providers._errors import BROKE_OFF, TIMED_OUT, UNREACHABLE, status_error

__all__ = ["make_session", "post_lines"]

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
) -> AsyncIterator[bytes]:
    """POST ``body`` as JSON and yield the response's lines, line endings stripped (blank lines
    included: they end Server-Sent Events).

    Closing the iterator early (a stop, a disconnect, a slot timeout) closes the connection at
    once; a response read to its end leaves it to be reused.

    Raises:
        ProviderHTTPError: the status is not 2xx (the body is read, never quoted).
        ProviderTimeout: the session's read timeout passed.
        ProviderStreamError: no connection, or the connection or the body broke.
    """
    data = json.dumps(body).encode()
    try:
        response = await session.post(
            url, data=data, headers={**_JSON, **(headers or {})}, params=params
        )
    except TimeoutError as exc:
        raise ProviderTimeout(TIMED_OUT) from exc
    except aiohttp.ClientError as exc:
        raise ProviderStreamError(UNREACHABLE) from exc
    try:
        if response.status >= 300:
            await response.read()
            raise status_error(response.status)
        async for line in response.content:
            yield line.rstrip(b"\r\n")
    except TimeoutError as exc:
        raise ProviderTimeout(TIMED_OUT) from exc
    except (aiohttp.ClientError, ValueError) as exc:
        # ValueError: a line longer than the reader's buffer limit.
        raise ProviderStreamError(BROKE_OFF) from exc
    finally:
        # Read to the end, the connection is already back in the pool; otherwise drop it.
        response.close()
