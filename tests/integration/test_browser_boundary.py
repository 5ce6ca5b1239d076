"""The browser boundary: CORS decided once (none for other sites by default, credentialed for
listed origins, read-only for any with ``*``), and the security headers on every answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, serve_arena

EVIL = "https://evil.example"
APP = "https://app.example"
PREFLIGHT = {
    "access-control-request-method": "POST",
    "access-control-request-headers": "content-type, authorization",
}
HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "x-frame-options": "DENY",
}


@pytest.fixture
async def arena(
    request: pytest.FixtureRequest, db: AsyncEngine, database_url: str, tmp_path: Path
) -> AsyncIterator[Arena]:
    env: dict[str, str] = getattr(request, "param", {})
    async with serve_arena(db, database_url, tmp_path, **env) as served:
        yield served


def _cors(answer: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in answer.headers.items() if k.startswith("access-control-")}


async def test_by_default_no_other_site_may_read_or_call(arena: Arena) -> None:
    read = await arena.client.get("/api/arena/leaderboard", headers={"origin": EVIL})
    preflight = await arena.client.options("/api/arena/chat", headers={"origin": EVIL, **PREFLIGHT})
    own = await arena.client.get("/api/arena/leaderboard", headers={"origin": arena.url})

    assert read.status_code == 200 and _cors(read) == {}
    assert preflight.status_code == 403 and preflight.json()["code"] == "origin_not_allowed"
    assert _cors(preflight) == {}
    assert own.status_code == 200 and _cors(own) == {}
    assert "origin" not in read.headers.get("vary", "").lower()


@pytest.mark.parametrize("arena", [{"ARENA_CORS_ORIGINS": f"{APP}, *"}], indirect=True)
async def test_a_listed_origin_calls_with_credentials_and_any_other_only_reads(
    arena: Arena,
) -> None:
    preflight = await arena.client.options("/api/arena/chat", headers={"origin": APP, **PREFLIGHT})
    chat = await arena.client.post(
        "/api/arena/chat", json={"prompt": "hello"}, headers={"origin": APP}
    )
    read = await arena.client.get("/api/arena/leaderboard", headers={"origin": EVIL})
    refused = await arena.client.options("/api/arena/chat", headers={"origin": EVIL, **PREFLIGHT})
    posted = await arena.client.post(
        "/api/arena/chat", json={"prompt": "hello"}, headers={"origin": EVIL}
    )

    assert preflight.status_code == 204
    assert _cors(preflight) | {"access-control-allow-methods": "…"} == {
        "access-control-allow-origin": APP,
        "access-control-allow-credentials": "true",
        "access-control-allow-methods": "…",
        "access-control-allow-headers": "content-type, authorization",
        "access-control-max-age": "600",
    }
    assert "POST" in preflight.headers["access-control-allow-methods"]
    assert chat.status_code == 200
    assert chat.headers["access-control-allow-origin"] == APP
    assert chat.headers["access-control-allow-credentials"] == "true"
    assert "X-Arena-Matchup" in chat.headers["access-control-expose-headers"]
    assert chat.headers.get_list("vary") == ["Origin"]
    assert read.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in read.headers
    assert refused.status_code == 403
    # A page of another site may send what it likes, but never reads the answer.
    assert "access-control-allow-origin" not in posted.headers


async def test_every_answer_carries_the_security_headers(arena: Arena) -> None:
    answers = [
        await arena.client.get("/api/arena/leaderboard"),
        await arena.client.get("/health"),
        await arena.client.get("/api/nothing-here"),
        await arena.client.post("/api/arena/chat", json={"prompt": "hello"}),  # SSE
        await arena.client.post("/api/arena/chat", content=b"x"),  # 415
    ]

    for answer in answers:
        for name, value in HEADERS.items():
            assert answer.headers[name] == value, (answer.request.url, name)
        assert answer.headers["content-security-policy"] == (
            "default-src 'none'; frame-ancestors 'none'"
        )
        assert "camera=()" in answer.headers["permissions-policy"]
        assert "strict-transport-security" not in answer.headers
    assert answers[3].headers["content-type"].startswith("text/event-stream")


@pytest.mark.parametrize(
    "arena", [{"ARENA_TRUST_PROXY": "127.0.0.1", "ARENA_FRAME_ANCESTORS": "self"}], indirect=True
)
async def test_over_https_hsts_and_framing_by_the_own_origin(arena: Arena) -> None:
    answer = await arena.client.get("/health", headers={"x-forwarded-proto": "https"})
    plain = await arena.client.get("/health")

    assert answer.headers["strict-transport-security"] == "max-age=31536000; includeSubDomains"
    assert "strict-transport-security" not in plain.headers
    assert answer.headers["x-frame-options"] == "SAMEORIGIN"
    assert answer.headers["content-security-policy"].endswith("frame-ancestors 'self'")


@pytest.mark.parametrize("arena", [{"ARENA_FRAME_ANCESTORS": f"self {APP}"}], indirect=True)
async def test_an_embedding_site_may_frame_the_pages(arena: Arena) -> None:
    answer = await arena.client.get("/health")

    # X-Frame-Options cannot name another site: the policy alone says it.
    assert "x-frame-options" not in answer.headers
    assert answer.headers["content-security-policy"].endswith(f"frame-ancestors 'self' {APP}")
