"""Neutral failure messages and the mapping of HTTP failures onto the ``ProviderError`` tree.

Every message here may reach a blind voter as a ``slot_error``, so none of them names a model, a
provider or a vendor, and none repeats what the endpoint wrote in its error body (vendors name the
model there).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from arena_api.core.errors import ProviderHTTPError, ProviderRateLimited, ProviderStreamError

__all__ = [
    "BROKE_OFF",
    "REPORTED_ERROR",
    "TIMED_OUT",
    "TOO_LARGE",
    "UNFINISHED",
    "UNPARSABLE",
    "UNREACHABLE",
    "WRONG_TYPE",
    "parse_object",
    "status_error",
]

UNREACHABLE = "the model endpoint could not be reached"
BROKE_OFF = "the model stream broke off"
UNPARSABLE = "the model stream could not be parsed"
UNFINISHED = "the model stream ended before the answer was finished"
REPORTED_ERROR = "the model endpoint reported an error mid-stream"
TIMED_OUT = "the model endpoint did not answer in time"
TOO_LARGE = "the model stream sent a piece too large to accept"
WRONG_TYPE = "the model endpoint answered with an unexpected content type"


def status_error(status: int, retry_after_s: float | None = None) -> ProviderHTTPError:
    """The error for a non-2xx status: ``ProviderRateLimited`` for 429, else the generic one.

    Args:
        status: the response's status.
        retry_after_s: the seconds its ``Retry-After`` asked for, if it sent one.
    """
    if status == 429:
        return ProviderRateLimited(
            "the model endpoint answered 429 (rate limited)", status, retry_after_s=retry_after_s
        )
    return ProviderHTTPError(
        f"the model endpoint answered {status}", status, retry_after_s=retry_after_s
    )


def parse_object(text: str | bytes) -> Mapping[str, Any]:
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
