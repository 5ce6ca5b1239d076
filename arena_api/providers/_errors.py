"""Neutral failure messages and the mapping of HTTP failures onto the ``ProviderError`` tree.

Every message here may reach a blind voter as a ``slot_error``, so none of them names a model, a
provider or a vendor, and none repeats what the endpoint wrote in its error body (vendors name the
model there).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from arena_api.core.errors import (
    ProviderError,
    ProviderHTTPError,
    ProviderRateLimited,
    ProviderStreamError,
    ProviderTimeout,
)

__all__ = [
    "BROKE_OFF",
    "REPORTED_ERROR",
    "TIMED_OUT",
    "UNFINISHED",
    "UNPARSABLE",
    "UNREACHABLE",
    "parse_object",
    "raise_for_status",
    "status_error",
    "transport_error",
]

UNREACHABLE = "the model endpoint could not be reached"
BROKE_OFF = "the model stream broke off"
UNPARSABLE = "the model stream could not be parsed"
UNFINISHED = "the model stream ended before the answer was finished"
REPORTED_ERROR = "the model endpoint reported an error mid-stream"
TIMED_OUT = "the model endpoint did not answer in time"


def status_error(status: int) -> ProviderHTTPError:
    """The error for a non-2xx status: ``ProviderRateLimited`` for 429, else the generic one."""
    if status == 429:
        return ProviderRateLimited("the model endpoint answered 429 (rate limited)", status)
    return ProviderHTTPError(f"the model endpoint answered {status}", status)


def transport_error(exc: httpx.HTTPError) -> ProviderError:
    """The error for a failure of ``httpx`` below the HTTP status (connect, read, protocol)."""
    if isinstance(exc, httpx.TimeoutException):
        return ProviderTimeout(TIMED_OUT)
    if isinstance(exc, httpx.ConnectError):
        return ProviderStreamError(UNREACHABLE)
    return ProviderStreamError(BROKE_OFF)


async def raise_for_status(response: httpx.Response) -> None:
    """Raise ``status_error`` unless ``response`` is a 2xx.

    The error body is read (so the connection can be reused) but never quoted.

    Raises:
        ProviderHTTPError: the status is not 2xx (``ProviderRateLimited`` for 429).
    """
    if response.is_success:
        return
    await response.aread()
    raise status_error(response.status_code)


def parse_object(text: str) -> Mapping[str, Any]:
    """One JSON object of a stream (an NDJSON line, an SSE data field).

    Raises:
        ProviderStreamError: ``text`` is not a JSON object.
    """
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ProviderStreamError(UNPARSABLE) from exc
    if not isinstance(value, dict):
        raise ProviderStreamError(UNPARSABLE)
    return value
