"""ARENA_PASSPHRASE: the login page, the session cookie, CSRF on cookie requests, and API tokens
checked before the cookie; every refusal a JSON 401/403 with its code."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from openai import AsyncOpenAI
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.sessions import SessionSigner, derive_session_key
from tests.integration.arena_harness import SECRET, Arena, serve_arena

PASSPHRASE = "correct horse battery"
TOKEN = "api-token-0123456789abcdef"
ENV = {"ARENA_PASSPHRASE": PASSPHRASE}
BOTH = {**ENV, "ARENA_API_TOKENS": TOKEN}
HTML = {"accept": "text/html,application/xhtml+xml"}


def _client(arena: Arena, **headers: str) -> httpx.AsyncClient:
    """A browser of its own: a fresh cookie jar."""
    return httpx.AsyncClient(base_url=arena.url, timeout=30, headers=headers)


async def _signed_in(arena: Arena) -> tuple[httpx.AsyncClient, str]:
    """A client holding a session, and the session's CSRF token."""
    browser = _client(arena)
    answer = await browser.post("/login", json={"passphrase": PASSPHRASE})
    assert answer.status_code == 200, answer.text
    return browser, answer.json()["csrfToken"]


@pytest.fixture
async def arena(db: AsyncEngine, database_url: str, tmp_path: Path) -> AsyncIterator[Arena]:
    async with serve_arena(db, database_url, tmp_path, **ENV) as served:
        yield served


async def test_a_page_without_a_session_redirects_to_the_login_page(arena: Arena) -> None:
    async with _client(arena, **HTML) as browser:
        page = await browser.get("/insights/rankings?x=1")
        login = await browser.get(page.headers["location"])

    assert page.status_code == 303
    assert page.headers["location"] == "/login?next=%2Finsights%2Frankings%3Fx%3D1"
    assert login.status_code == 200 and 'type="password"' in login.text
    assert login.headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    "path", ["/api/arena/leaderboard", "/_arena/live/some-ticket", "/assets/app.js", "/_upload"]
)
async def test_without_a_session_everything_but_the_open_routes_is_a_401(
    arena: Arena, path: str
) -> None:
    async with _client(arena) as browser:
        answer = await browser.get(path)
        health = await browser.get("/health")
        metrics = await browser.get("/metrics")

    assert answer.status_code == 401
    assert answer.json()["code"] == "login_required"
    assert health.status_code == 200 and metrics.status_code == 200


@pytest.mark.parametrize("path", ["/_event/?EIO=4&transport=websocket", "/api/arena/control"])
async def test_a_socket_without_a_session_is_refused_at_its_handshake(
    arena: Arena, path: str
) -> None:
    url = arena.url.replace("http://", "ws://") + path

    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(url):
            pass

    assert refused.value.response.status_code == 401
    assert json.loads(refused.value.response.body)["code"] == "login_required"


async def test_the_control_socket_opens_with_a_session(arena: Arena) -> None:
    browser, _ = await _signed_in(arena)
    cookie = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
    url = arena.url.replace("http://", "ws://") + "/api/arena/control"

    async with websockets.connect(url, additional_headers={"cookie": cookie}) as socket:
        await socket.send(json.dumps({"type": "stop", "matchupId": "not-a-uuid"}))
        reply = json.loads(await socket.recv())
    await browser.aclose()

    assert reply["type"] == "error"  # answered, so it was let in


async def test_the_right_passphrase_sets_a_signed_httponly_lax_cookie(arena: Arena) -> None:
    async with _client(arena) as browser:
        answer = await browser.post(
            "/login?next=%2Finsights",
            data={"passphrase": PASSPHRASE, "next": "/insights"},
        )
        board = await browser.get("/api/arena/leaderboard")

    cookies = answer.headers.get_list("set-cookie")
    session = next(c for c in cookies if c.startswith("arena_session="))
    csrf = next(c for c in cookies if c.startswith("arena_csrf="))
    assert answer.status_code == 303 and answer.headers["location"] == "/insights"
    assert "HttpOnly" in session and "SameSite=lax" in session and "Max-Age=604800" in session
    assert "HttpOnly" not in csrf and "SameSite=lax" in csrf
    assert "Secure" not in session  # plain http
    assert board.status_code == 200


async def test_a_wrong_passphrase_shows_the_page_again_with_the_reason(arena: Arena) -> None:
    async with _client(arena) as browser:
        page = await browser.post("/login", data={"passphrase": "wrong", "next": "/"})
        scripted = await browser.post("/login", json={"passphrase": "wrong"})

    assert page.status_code == 401 and "not right" in page.text and 'role="alert"' in page.text
    assert "set-cookie" not in page.headers
    assert scripted.status_code == 401 and scripted.json()["code"] == "wrong_passphrase"


@pytest.mark.parametrize(
    "target", ["//evil.example/x", "https://evil.example", "/\\evil", "/login"]
)
async def test_the_login_never_redirects_off_the_site(arena: Arena, target: str) -> None:
    async with _client(arena) as browser:
        answer = await browser.post("/login", data={"passphrase": PASSPHRASE, "next": target})

    assert answer.headers["location"] == "/"


async def test_wrong_passphrases_are_rate_limited_honestly(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {**ENV, "ARENA_LOGIN_RATE_LIMIT": "2/minute"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena, _client(arena) as browser:
        wrong = [await browser.post("/login", json={"passphrase": "guess"}) for _ in range(2)]
        refused = await browser.post("/login", json={"passphrase": PASSPHRASE})
        page = await browser.post("/login", data={"passphrase": PASSPHRASE})

    assert [w.status_code for w in wrong] == [401, 401]
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert page.status_code == 429 and "retry-after" in page.headers


async def test_behind_a_trusted_https_proxy_the_cookies_are_secure(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {**ENV, "ARENA_TRUST_PROXY": "1"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena, _client(arena) as browser:
        answer = await browser.post(
            "/login", json={"passphrase": PASSPHRASE}, headers={"x-forwarded-proto": "https"}
        )

    assert all("Secure" in c for c in answer.headers.get_list("set-cookie"))


def _cookie(ttl_s: int, clock: float) -> str:
    signer = SessionSigner(derive_session_key(SECRET.encode(), PASSPHRASE), ttl_s, lambda: clock)
    return signer.issue()[1]


@pytest.mark.parametrize(
    "cookie",
    [
        pytest.param(lambda: _cookie(60, 1_000_000.0), id="expired"),
        pytest.param(lambda: _cookie(3600, 4e9)[:-3] + "abc", id="forged-signature"),
        pytest.param(
            lambda: SessionSigner(b"k" * 32, 3600).issue()[1], id="signed-with-another-key"
        ),
        pytest.param(lambda: "v1.x.9999999999.y", id="made-up"),
    ],
)
async def test_an_expired_or_forged_cookie_is_no_session(arena: Arena, cookie: Any) -> None:
    async with _client(arena) as browser:
        answer = await browser.get(
            "/api/arena/leaderboard", headers={"cookie": f"arena_session={cookie()}"}
        )

    assert answer.status_code == 401 and answer.json()["code"] == "login_required"


async def test_a_cookie_request_that_changes_state_needs_the_csrf_double_submit(
    arena: Arena,
) -> None:
    browser, csrf = await _signed_in(arena)
    body = {"prompt": "hi"}

    missing = await browser.post("/api/arena/chat", json=body)
    wrong = await browser.post("/api/arena/chat", json=body, headers={"x-csrf-token": "x" * 43})
    no_cookie = await browser.post(
        "/api/arena/chat",
        json=body,
        headers={
            "x-csrf-token": csrf,
            "cookie": f"arena_session={browser.cookies['arena_session']}",
        },
    )
    right = await browser.post("/api/arena/chat", json=body, headers={"x-csrf-token": csrf})
    await browser.aclose()
    stored = await arena.scalar("SELECT count(*) FROM matchups")

    for refused in (missing, wrong, no_cookie):
        assert refused.status_code == 403 and refused.json()["code"] == "csrf_failed"
    assert right.status_code == 200 and "matchup_done" in right.text
    assert stored == 1


async def test_an_ag_ui_client_hears_a_missing_session_in_band(arena: Arena) -> None:
    async with _client(arena) as browser:
        answer = await browser.post("/api/arena/chat?protocol=ag-ui", json={"prompt": "x"})

    events = [json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "login_required"


async def test_sign_out_needs_its_csrf_token_and_then_clears_the_session(arena: Arena) -> None:
    browser, csrf = await _signed_in(arena)

    page = await browser.get("/logout")
    forged = await browser.post("/logout", data={"csrf_token": "nope"})
    out = await browser.post("/logout", data={"csrf_token": csrf})
    after = await browser.get("/api/arena/leaderboard")
    await browser.aclose()

    assert page.status_code == 200 and csrf in page.text
    assert forged.status_code == 403
    assert out.status_code == 303 and out.headers["location"] == "/login"
    assert after.status_code == 401


@pytest.fixture
async def both(db: AsyncEngine, database_url: str, tmp_path: Path) -> AsyncIterator[Arena]:
    async with serve_arena(db, database_url, tmp_path, **BOTH) as served:
        yield served


@pytest.mark.parametrize(
    ("bearer", "with_cookie", "status", "code"),
    [
        pytest.param(TOKEN, False, 200, None, id="bearer-right"),
        pytest.param("wrong-token-0123456789", False, 401, "invalid_api_token", id="bearer-wrong"),
        pytest.param(TOKEN, True, 200, None, id="bearer-and-cookie"),
        pytest.param(
            "wrong-token-0123456789", True, 401, "invalid_api_token", id="wrong-bearer-and-cookie"
        ),
        pytest.param(None, False, 401, "unauthorized", id="neither"),
    ],
)
async def test_the_bearer_is_checked_before_the_cookie_and_skips_csrf(
    both: Arena, bearer: str | None, with_cookie: bool, status: int, code: str | None
) -> None:
    browser, _ = await _signed_in(both) if with_cookie else (_client(both), "")
    headers = {"authorization": f"Bearer {bearer}"} if bearer else {}

    answer = await browser.post("/api/arena/chat", json={"prompt": "hi"}, headers=headers)
    await browser.aclose()

    assert answer.status_code == status, answer.text[:200]
    if code is not None:
        assert answer.json()["code"] == code


async def test_a_signed_in_person_without_a_token_does_not_export_the_votes(both: Arena) -> None:
    browser, _ = await _signed_in(both)
    refused = await browser.get("/api/arena/export")
    allowed = await browser.get("/api/arena/export", headers={"authorization": f"Bearer {TOKEN}"})
    await browser.aclose()

    assert refused.status_code == 403 and refused.json()["code"] == "api_token_required"
    assert allowed.status_code == 200


async def test_the_openai_sdk_with_its_api_key_works_beside_a_passphrase(both: Arena) -> None:
    client = AsyncOpenAI(base_url=both.url + "/v1", api_key=TOKEN)

    listed = [m.id async for m in client.models.list()]
    stream = await client.chat.completions.create(
        model="arena-duel", stream=True, messages=[{"role": "user", "content": "hi"}]
    )
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])

    assert "arena-duel" in listed and "Answer A" in text
