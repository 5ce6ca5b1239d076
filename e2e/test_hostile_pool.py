"""A pooled client, as a proxy or an SDK keeps one: thousands of refusals of every kind, each
followed by a good request, on the real server (granian) and behind nginx. No connection is
ever dropped: every refusal either leaves its connection usable or says ``Connection: close``.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Iterator

import httpx
import pytest

from e2e.conftest import _serving
from tests.support import ROOT, NginxServer, ProductProcess

pytestmark = [pytest.mark.slow]

#: One token per probe: the rate limit counts per token, and each probe must meet its 503s.
TOKENS = {"granian": "pool-token-granian-0123456789", "nginx": "pool-token-nginx-0123456789"}
PASSPHRASE = "correct horse battery"
BODY_LIMIT = 65_536
PAIRS = 1_500  # a refusal and a good request each: 3,000 requests
CONCURRENCY = 8
SEED = 38
ONE_MODEL = """models:
  - display_name: Mock Alone
    provider: mock
    provider_model_id: mock-alone
"""


@pytest.fixture(scope="module")
def guarded(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """Tokens, a passphrase, a rate limit, a small body limit, and one model: every refusal."""
    folder = tmp_path_factory.mktemp("guarded")
    roster = folder / "one-model.yaml"
    roster.write_text(ONE_MODEL)
    yield from _serving(
        fresh_database,
        folder,
        ARENA_API_TOKENS=",".join(TOKENS.values()),
        ARENA_PASSPHRASE=PASSPHRASE,
        ARENA_RATE_LIMIT="200/minute",
        ARENA_MAX_BODY_BYTES=str(BODY_LIMIT),
        ARENA_MODELS_FILE=str(roster),
        ARENA_TRUST_PROXY="127.0.0.1",
    )


@pytest.fixture(scope="module")
def proxied(guarded: ProductProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = (ROOT / "deploy" / "nginx.conf").read_text()
    server = server.replace("127.0.0.1:3001", f"127.0.0.1:{guarded.port}")
    with NginxServer(tmp_path_factory.mktemp("nginx"), server) as proxy:
        yield proxy.url


def _refusals(token: str, cookie: str) -> list[tuple[set[int], str, str, bytes, dict[str, str]]]:
    """(the statuses expected, method, path, body, headers): each refused before or while its
    body is read. The rate limit counts every round asked for, refused or not: past 200 a
    minute, each one asked of the chat route is a 429 first."""
    bearer = {"authorization": f"Bearer {token}"}
    json_ = {"content-type": "application/json"}
    big = b"x" * (BODY_LIMIT - 1_000)
    return [
        ({415, 429}, "POST", "/api/arena/chat", big, {**bearer, "content-type": "text/plain"}),
        ({413, 429}, "POST", "/api/arena/chat", big * 2, {**bearer, **json_}),
        ({400, 429}, "POST", "/api/arena/chat", b"{" + big, {**bearer, **json_}),
        ({401}, "POST", "/api/arena/chat", big, json_),
        ({401}, "POST", "/api/arena/chat", big, {**json_, "authorization": "Bearer wrong"}),
        ({403}, "POST", "/api/arena/vote", big, {**json_, "cookie": cookie}),
        ({404}, "POST", "/api/nothing-here", big, {**bearer, **json_}),
        ({405}, "PUT", "/api/arena/leaderboard", big, {**bearer, **json_}),
        # One model can play no round: 503 until the rate limit counts 200, then 429.
        ({503, 429}, "POST", "/api/arena/chat", b'{"prompt": "hi"}', {**bearer, **json_}),
    ]


async def _probe(url: str, token: str) -> tuple[Counter[str], list[str]]:
    """3,000 requests over a pool of connections: what came back, and every failure."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as login:
        answer = await login.post("/login", json={"passphrase": PASSPHRASE})
        assert answer.status_code == 200, answer.text
        cookie = f"arena_session={answer.cookies['arena_session']}"
    refusals = _refusals(token, cookie)
    rng = random.Random(SEED)
    plan = [rng.choice(refusals) for _ in range(PAIRS)]
    seen: Counter[str] = Counter()
    failures: list[str] = []
    gate = asyncio.Semaphore(CONCURRENCY)
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)
    good = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as pool:

        async def pair(
            expected: set[int], method: str, path: str, body: bytes, headers: dict[str, str]
        ) -> None:
            async with gate:
                try:
                    refused = await pool.request(method, path, content=body, headers=headers)
                    after = await pool.get("/api/arena/leaderboard", headers=good)
                except httpx.TransportError as exc:
                    failures.append(f"{method} {path}: {type(exc).__name__}: {exc}")
                    return
            seen[str(refused.status_code)] += 1
            if refused.status_code not in expected:
                failures.append(f"{method} {path}: {refused.status_code}, not {expected}")
            if after.status_code != 200:
                failures.append(f"the good request after {method} {path}: {after.status_code}")

        await asyncio.gather(*(pair(*request) for request in plan))
    return seen, failures


@pytest.mark.parametrize("where", ["granian", "nginx"])
async def test_a_pooled_client_loses_no_request_to_thousands_of_refusals(
    where: str, guarded: ProductProcess, proxied: str
) -> None:
    seen, failures = await _probe(guarded.url if where == "granian" else proxied, TOKENS[where])

    assert failures == [], f"{len(failures)} failures, e.g. {failures[:5]}"
    assert sum(seen.values()) == PAIRS
    assert set(seen) == {"400", "401", "403", "404", "405", "413", "415", "429", "503"}, seen
