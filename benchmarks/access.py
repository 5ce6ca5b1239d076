"""What access control costs a round: the middleware alone, and full rounds with it on and off.

1. In process: ``AccessControl`` around an app that does nothing, per request, for an open
   arena, a bearer token (``ARENA_API_TOKENS``), and a passphrase session (``ARENA_PASSPHRASE``:
   the cookie's HMAC checked, and on a POST the CSRF double submit), against calling the app
   directly (the baseline), in nanoseconds per request.
2. Full rounds of the in-process mock at 64 concurrent, with the vote (two guarded requests per
   round), through our server (``create_api`` under granian): open, bearer, and session cookie
   with CSRF, alternating, in the same run. Target: guarded / open >= 0.98.

Usage: python benchmarks/access.py [--seconds 8] [--repeats 3] [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.routes._access import AccessControl  # noqa: E402
from arena_api.services.access import AccessService  # noqa: E402
from benchmarks.relay_http import MOCK_ROSTER, arena_server, measure  # noqa: E402

CALLS = 100_000
TOKEN = "bench-token-0123456789abcdef"
PASSPHRASE = "correct horse battery"


async def _nothing(scope: Any, receive: Any, send: Any) -> None:
    return None


def _scope(method: str, headers: list[tuple[bytes, bytes]], services: Any) -> dict[str, Any]:
    return {
        "type": "http",
        "method": method,
        "path": "/api/arena/vote",
        "headers": headers,
        "query_string": b"",
        "client": ("10.0.0.1", 1234),
        "app": SimpleNamespace(state=SimpleNamespace(services=services)),
    }


async def _per_call(app: Any, scope: dict[str, Any]) -> float:
    started = time.perf_counter_ns()
    for _ in range(CALLS):
        await app(scope, _nothing, _nothing)
    return (time.perf_counter_ns() - started) / CALLS


async def middleware_cost() -> dict[str, float]:
    """ns per request of each path through the middleware, and of the bare app."""
    access = AccessService(passphrase=PASSPHRASE, secret=b"s" * 32, ttl_s=3600, login_limits=())
    services = SimpleNamespace(access=access)
    signed = await access.sign_in(PASSPHRASE, "10.0.0.1")
    cookie = f"arena_session={signed.cookie}; arena_csrf={signed.csrf_token}".encode()
    open_ = AccessControl(_nothing)
    tokens = AccessControl(_nothing, tokens=(TOKEN.encode(), b"other-token-0123456789"))
    sessions = AccessControl(_nothing, sessions=True)
    plain = _scope("POST", [(b"content-type", b"application/json")], services)
    bearer = _scope("POST", [(b"authorization", f"Bearer {TOKEN}".encode())], services)
    get = _scope("GET", [(b"cookie", cookie)], services)
    post = _scope(
        "POST", [(b"cookie", cookie), (b"x-csrf-token", signed.csrf_token.encode())], services
    )
    return {
        "bare app": await _per_call(_nothing, plain),
        "open": await _per_call(open_, plain),
        "bearer": await _per_call(tokens, bearer),
        "session GET": await _per_call(sessions, get),
        "session POST + CSRF": await _per_call(sessions, post),
    }


def _session_headers(url: str) -> str:
    answer = httpx.post(url + "/login", json={"passphrase": PASSPHRASE}, timeout=30)
    answer.raise_for_status()
    csrf = answer.json()["csrfToken"]
    cookie = f"arena_session={answer.cookies['arena_session']}; arena_csrf={csrf}"
    return f"Cookie: {cookie}\r\nX-CSRF-Token: {csrf}\r\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()

    costs = asyncio.run(middleware_cost())
    bare = costs.pop("bare app")
    print(f"the middleware alone (ns per request; the bare app call: {bare:.0f} ns):")
    for name, ns in costs.items():
        print(f"  {name:<22}{ns:>8.0f} ns  ({ns - bare:+.0f} ns over the bare call)")

    env = {
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_MOCK_TOKENS": "4",
        "ARENA_MOCK_TOKENS_PER_SECOND": "0",
    }
    variants = {
        "open": {},
        "bearer": {"ARENA_API_TOKENS": TOKEN},
        "session": {"ARENA_PASSPHRASE": PASSPHRASE},
    }
    figures: dict[str, list[float]] = {name: [] for name in variants}
    print(f"full mock rounds with the vote, 64 concurrent, {args.seconds:g} s per run")
    for _ in range(args.repeats):
        for name, extra in variants.items():
            with arena_server(args.database_url, MOCK_ROSTER, {**env, **extra}) as (url, pid):
                headers = {
                    "open": "",
                    "bearer": f"Authorization: Bearer {TOKEN}\r\n",
                    "session": _session_headers(url) if name == "session" else "",
                }[name]
                level = measure(
                    name, url, "/api/arena/chat", pid, [64], args.seconds, True, headers
                )[0]
            assert level.failed == 0, f"{name}: {level.failed} rounds failed"
            figures[name].append(level.rounds_per_s)
    open_rate = statistics.median(figures["open"])
    summary = ", ".join(
        f"{name} {statistics.median(rates):.1f} ({statistics.median(rates) / open_rate:.3f})"
        for name, rates in figures.items()
    )
    print(f"  median rounds/s (guarded / open, target >= 0.98): {summary}")


if __name__ == "__main__":
    main()
