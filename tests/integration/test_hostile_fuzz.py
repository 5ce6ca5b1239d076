"""3,000 random and hostile requests over every route of the API: never a 5xx, every refusal a
JSON body with a ``code``, and the server still answers a plain round afterwards."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.routing import Route

from arena_api.app import api_routes
from tests.integration.arena_harness import serve_arena

REQUESTS = 3_000
SEED = 19
CONCURRENCY = 16

_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
_PARAMS = (
    "00000000-0000-0000-0000-000000000000",
    "not-a-uuid",
    "%00",
    "..%2F..%2Fetc%2Fpasswd",
    "x" * 2_000,
    "%F0%9F%92%A5",
    "%FF%FE",
    "1e999",
    "-1",
    "arena-duel",
)
_QUERIES = (
    "",
    "since=2026-07-01T00:00:00Z",
    "since=0001-01-01T00:00:00%2B14:00",
    "since=9999-12-31T23:59:59-14:00",
    "since=%00",
    "bucket=%00",
    "bucket=week",
    "points=99999999999999999999999",
    "points=-5",
    "include=named&include=everything",
    "protocol=ag-ui",
    "protocol=openai",
    "protocol=../../x",
    "sessionId=" + "s" * 5_000,
    "api_token=%00",
    "&&&===",
    "a[b][c]=1",
)


def _bodies(rng: random.Random) -> list[bytes]:
    """Hostile bodies: broken JSON, wrong shapes and types, control characters, floods."""
    fixed = [
        b"",
        b"null",
        b"[]",
        b"{}",
        b"true",
        b"\xff\xfe\xfd",
        b"{" * 5_000,
        b"[" * 100_000,
        b'{"a":' * 2_000 + b"1" + b"}" * 2_000,
        b'{"prompt": 1}',
        b'{"prompt": null}',
        b'{"prompt": ""}',
        b'{"prompt": "\\u0000"}',
        b'{"prompt": "\\ud800"}',
        b'{"prompt": "hi", "sessionId": "\\u0000"}',
        b'{"prompt": "hi", "sessionId": 1e999}',
        b'{"prompt": "hi", "mode": "named", "models": ["x", "x"]}',
        b'{"prompt": "hi", "conversationId": "not-a-uuid"}',
        b'{"prompt": "' + b"x" * 300_000 + b'"}',
        b'{"matchupId": "00000000-0000-0000-0000-000000000000", "matchupToken": "x", '
        b'"vote": "left"}',
        b'{"matchupId": [], "matchupToken": {}, "vote": 7}',
        b'{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}',
        b'{"messages": "hi", "stream": "yes"}',
        b'{"model": "arena-duel", "messages": [{"role": "user", "content": "hi"}], "stream": true}',
        b'{"threadId": 1, "runId": null, "messages": [{"id": 1}]}',
        b'{"passphrase": ["a"]}',
        b"passphrase=%00&next=//evil.example",
        b'{"__proto__": {"admin": true}}',
        b'{"prompt": "hi", "prompt": {"dup": 1}}',
        b"\x00" * 1_000,
    ]
    random_ones = [rng.randbytes(rng.randint(1, 2_000)) for _ in range(20)]
    printable = [
        "".join(rng.choice('{}[]":,0123456789abc\\u ') for _ in range(rng.randint(1, 300))).encode()
        for _ in range(20)
    ]
    return fixed + random_ones + printable


_CONTENT_TYPES = (
    "application/json",
    "application/json; charset=latin-1",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/vnd.ag-ui+json",
    "",
)
_ACCEPTS = ("*/*", "text/event-stream", "application/json", "text/html", "\u00ff/\u00ff")


def _requests(rng: random.Random) -> list[tuple[str, str, bytes, dict[str, str]]]:
    templates = [
        (route.path, sorted(route.methods or {"GET"}))
        for route in api_routes()
        if isinstance(route, Route) and not route.path.startswith("/_arena")
    ] + [("/login", ["GET", "POST"]), ("/logout", ["GET", "POST"])]
    bodies = _bodies(rng)
    planned = []
    for _ in range(REQUESTS):
        path, methods = rng.choice(templates)
        path = re.sub(r"\{[^}]+\}", lambda _: rng.choice(_PARAMS), path)
        method = rng.choice(methods) if rng.random() < 0.8 else rng.choice(_METHODS)
        query = rng.choice(_QUERIES)
        headers = {"accept": rng.choice(_ACCEPTS)}
        content_type = rng.choice(_CONTENT_TYPES)
        if content_type:
            headers["content-type"] = content_type
        if rng.random() < 0.1:
            headers["x-arena"] = rng.choice(("on", "off", "\u00e9", "1" * 500))
        body = rng.choice(bodies) if method in ("POST", "PUT", "PATCH", "DELETE") else b""
        planned.append((method, f"{path}?{query}" if query else path, body, headers))
    return planned


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({}, id="open"),
        pytest.param(
            {"ARENA_PASSPHRASE": "correct horse battery", "ARENA_API_TOKENS": "t" * 20},
            id="private",
        ),
    ],
)
async def test_thousands_of_hostile_requests_never_get_a_5xx(
    db: AsyncEngine, database_url: str, tmp_path: Path, env: dict[str, str]
) -> None:
    planned = _requests(random.Random(SEED))
    failures: list[str] = []
    statuses: dict[int, int] = {}
    gate = asyncio.Semaphore(CONCURRENCY)

    async with serve_arena(db, database_url, tmp_path, ARENA_JOIN_WINDOW_MS="0", **env) as arena:

        async def send(method: str, url: str, body: bytes, headers: dict[str, str]) -> None:
            async with gate:
                raw = {name: value.encode("latin-1") for name, value in headers.items()}
                answer = await arena.client.request(method, url, content=body, headers=raw)
            statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
            where = f"{method} {url[:120]} {body[:80]!r}"
            if answer.status_code >= 500:
                failures.append(f"{answer.status_code} {where}: {answer.text[:200]}")
            elif answer.status_code >= 400 and method != "HEAD":
                kind = answer.headers.get("content-type", "")
                if "json" not in kind:
                    if not (url.startswith("/login") or url.startswith("/logout")):
                        failures.append(f"{answer.status_code} not JSON {where}: {kind}")
                elif "code" not in json.loads(answer.content):
                    failures.append(f"{answer.status_code} without code {where}")

        await asyncio.gather(*(send(*request) for request in planned))
        after, frames = await arena.chat()

    assert failures == [], f"{len(failures)} bad answers, e.g. {failures[:5]}"
    assert sum(statuses.values()) == REQUESTS
    if not env:
        assert sum(n for s, n in statuses.items() if s < 300) > 100  # not all refused
        assert after.status_code == 200 and frames[-1][0] == "matchup_done"
    else:
        assert statuses.get(401, 0) > 1_000 and after.status_code == 401
