"""Faults every fake vendor can play, picked by the model name like the other behaviours.

Before any byte of an answer (the vendor's own error body where there is one):

* ``rate-limited-retry-after``: 429 with ``Retry-After: 1``;
* ``rate-limited-retry-date``: 429 with ``Retry-After`` as an HTTP-date one second ahead;
* ``bad-gateway``: 502; ``unavailable``: 503 (``server-error``, 500, is each vendor's own);
* ``reset``: the connection is reset (RST) as soon as the request was read;
* ``html``: 200 with an HTML page (``text/html``), as a captive portal or a proxy answers;
* ``silent``: 200 and the stream's headers, then nothing.

In the vendor's stream format (each fake builds these): ``reset-after-token`` (a token, then an
RST), ``malformed`` (the first event is not JSON), ``drip`` (a token every ``DRIP_INTERVAL_S``),
``oversized`` (a token, then one event of ``OVERSIZED_BYTES``).

A behaviour ending in ``-once`` or ``-twice`` (``unavailable-twice``, ``reset-twice``,
``rate-limited-retry-after-once``) plays its fault for the first one or two requests for that
model and answers normally after.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from starlette.responses import HTMLResponse, Response

from tests.fakes._recording import Recorder
from tests.fakes._scripted import ResetConnection, ScriptedStream

__all__ = [
    "DRIP_INTERVAL_S",
    "FAULTS_BEFORE_ANSWER",
    "OVERSIZED_BYTES",
    "STREAM_FAULTS",
    "fault_response",
    "filler",
    "resolve_behaviour",
]

#: Seconds between the slow drip's tokens (tests run with a slot timeout well below it).
DRIP_INTERVAL_S = 4.0
DRIP_TOKENS = 3
#: The size of the oversized event: far beyond the product's 1 MiB cap, sent in small pieces so
#: the fake itself holds little, and beyond what the loopback's socket buffers can hold (Linux
#: lets them grow to 32 MiB received and 4 MiB sent): a fake that could write it all before the
#: product hung up would never see the hang-up.
OVERSIZED_BYTES = 64 << 20
_FILLER_PIECE = b"x" * (64 << 10)
_PORTAL_PAGE = "<!doctype html><html><body><h1>Sign in to the Wi-Fi</h1></body></html>"

FAULTS_BEFORE_ANSWER = frozenset(
    {
        "rate-limited-retry-after",
        "rate-limited-retry-date",
        "bad-gateway",
        "unavailable",
        "reset",
        "html",
        "silent",
    }
)
STREAM_FAULTS = frozenset({"reset-after-token", "malformed", "drip", "oversized"})
_REPEATS = {"-once": 1, "-twice": 2}

ErrorBody = Callable[[int, str], Response]


def resolve_behaviour(behaviour: str, model: str, recorder: Recorder) -> str:
    """``behaviour`` itself, or for ``<fault>-once`` / ``<fault>-twice`` the fault on the first
    requests for ``model`` and ``ok`` after (the request being answered is recorded already)."""
    for suffix, times in _REPEATS.items():
        if behaviour.endswith(suffix):
            fault = behaviour.removesuffix(suffix)
            return fault if recorder.requests_for(model) <= times else "ok"
    return behaviour


def fault_response(
    behaviour: str, *, error: ErrorBody, media_type: str, recorder: Recorder, label: str
) -> Response | None:
    """The response of a fault before any byte of an answer, or ``None`` for another behaviour.

    Args:
        behaviour: the requested behaviour.
        error: builds the vendor's error response from a status and a message.
        media_type: the vendor's stream content type (for ``silent``).
        recorder: the fake's recorder.
        label: the requested model (for the recorder).
    """
    if behaviour.startswith("rate-limited-retry-"):
        response = error(429, "Too many requests. Please retry shortly.")
        if behaviour.endswith("after"):
            response.headers["retry-after"] = "1"
        else:
            when = datetime.now(UTC) + timedelta(seconds=2)
            response.headers["retry-after"] = format_datetime(when, usegmt=True)
        return response
    if behaviour == "bad-gateway":
        return error(502, "Bad gateway.")
    if behaviour == "unavailable":
        return error(503, "The service is temporarily overloaded.")
    if behaviour == "reset":
        return ResetConnection(recorder, label=label)
    if behaviour == "html":
        return HTMLResponse(
            "<!doctype html><html><body><h1>Sign in to the Wi-Fi</h1></body></html>"
        )
    if behaviour == "silent":
        return ScriptedStream(
            [], media_type=media_type, recorder=recorder, ending="stall", label=label
        )
    return None


def filler() -> list[bytes]:
    """``OVERSIZED_BYTES`` of text, as pieces that are one shared object (cheap to hold)."""
    return [_FILLER_PIECE] * (OVERSIZED_BYTES // len(_FILLER_PIECE))
