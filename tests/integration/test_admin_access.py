"""Roles and API tokens at the edge, and the admin routes, on a real server with sign-in on.

Users are rows as a sign-in writes them (``PostgresUsers.sign_in``); their browser sessions are
the cookies the server itself opens for them (``AccessService.open_user_session``), so every
request below crosses the real edge: cookies, CSRF, bearer tokens, role and scope checks.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.users import Role, User
from arena_api.db.repository import create_pool, seed_roster
from arena_api.db.users import PostgresUsers
from arena_api.routes._request import opened_services
from arena_api.services.access import AccessService
from tests.fakes._recording import Recorder
from tests.fakes.openai_server import create_app
from tests.integration.arena_harness import SECRET, Arena, roster_of, serve_arena
from tests.support import ServerThread, free_port, parse_sse

SSO = {
    "ARENA_OIDC_ISSUER": "http://127.0.0.1:9",  # never reached: no one signs in through it here
    "ARENA_OIDC_CLIENT_ID": "arena",
}
STATIC = "static-token-0123456789abcdef"


@pytest.fixture
async def arena(db: AsyncEngine, database_url: str, tmp_path: Path) -> AsyncIterator[Arena]:
    async with serve_arena(db, database_url, tmp_path, ARENA_API_TOKENS=STATIC, **SSO) as arena:
        yield arena


class Person:
    """A signed-in browser: its session and CSRF cookies, and the CSRF header for writes."""

    def __init__(self, arena: Arena, user: User) -> None:
        services = opened_services(arena.app)
        assert services is not None
        signed = services.access.open_user_session(user)
        self.user = user
        self.client = httpx.AsyncClient(
            base_url=arena.url,
            timeout=30,
            cookies={"arena_session": signed.cookie, "arena_csrf": signed.csrf_token},
            headers={"x-csrf-token": signed.csrf_token},
        )

    async def __aenter__(self) -> Person:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()


UserMaker = Callable[[str, Role], Awaitable[User]]


@pytest.fixture
async def user(database_url: str) -> AsyncIterator[UserMaker]:
    """Users as their first sign-in writes them (through the test's own pool: the server's
    belongs to its thread's loop)."""
    pool = await create_pool(database_url)

    async def make(subject: str, role: Role) -> User:
        email = f"{subject}@example.com"
        return await PostgresUsers(pool).sign_in(
            SSO["ARENA_OIDC_ISSUER"], subject, email, subject, role
        )

    yield make
    await pool.close()


def _code(response: httpx.Response) -> str:
    return str(response.json()["code"])


async def test_the_admin_routes_need_an_admin(arena: Arena, user: UserMaker) -> None:
    admin = await user("ada", "admin")
    reviewer = await user("rex", "reviewer")
    voter = await user("vic", "voter")

    async with Person(arena, admin) as a, Person(arena, reviewer) as r, Person(arena, voter) as v:
        as_admin = await a.client.get("/api/admin/users")
        as_reviewer = await r.client.get("/api/admin/users")
        as_voter = await v.client.get("/api/admin/users")
    anonymous = await arena.client.get("/api/admin/users")
    static = await arena.client.get(
        "/api/admin/users", headers={"authorization": f"Bearer {STATIC}"}
    )

    assert as_admin.status_code == 200
    assert [u["email"] for u in as_admin.json()["users"]] == [
        "ada@example.com",
        "rex@example.com",
        "vic@example.com",
    ]
    assert as_reviewer.status_code == 403 and _code(as_reviewer) == "forbidden_role"
    assert as_voter.status_code == 403 and _code(as_voter) == "forbidden_role"
    assert anonymous.status_code == 401
    assert static.status_code == 200


async def test_a_role_taken_away_stops_at_once_and_the_last_admin_stays(
    arena: Arena, user: UserMaker
) -> None:
    ada, bea = await user("ada", "admin"), await user("bea", "admin")

    async with Person(arena, ada) as a, Person(arena, bea) as b:
        no_csrf = await a.client.patch(
            f"/api/admin/users/{bea.id}", json={"role": "voter"}, headers={"x-csrf-token": ""}
        )
        demoted = await a.client.patch(f"/api/admin/users/{bea.id}", json={"role": "voter"})
        her_session = await b.client.get("/api/admin/users")  # her cookie still says admin
        last = await a.client.patch(f"/api/admin/users/{ada.id}", json={"role": "reviewer"})
        bad_role = await a.client.patch(f"/api/admin/users/{bea.id}", json={"role": "root"})
        nobody = await a.client.patch(
            "/api/admin/users/00000000-0000-4000-8000-000000000000", json={"role": "voter"}
        )
        audit = (await a.client.get("/api/admin/audit")).json()["entries"]

    assert no_csrf.status_code == 403 and _code(no_csrf) == "csrf_failed"
    assert demoted.status_code == 200
    assert demoted.json()["roleBefore"] == "admin" and demoted.json()["user"]["role"] == "voter"
    assert her_session.status_code == 403 and _code(her_session) == "forbidden_role"
    assert last.status_code == 409 and _code(last) == "last_admin"
    assert bad_role.status_code == 400 and nobody.status_code == 404
    changes = [e for e in audit if e["action"] == "user_role"]
    assert len(changes) == 1
    assert changes[0]["actor"] == "ada@example.com"
    assert changes[0]["target"] == f"user:{bea.id}"
    assert (changes[0]["before"], changes[0]["after"]) == ({"role": "admin"}, {"role": "voter"})


async def _token(person: Person, *scopes: str, name: str = "ci") -> dict[str, Any]:
    created = await person.client.post("/api/me/tokens", json={"name": name, "scopes": scopes})
    assert created.status_code == 201, created.text
    return dict(created.json())


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


async def test_a_tokens_scopes_decide_what_it_may_do(arena: Arena, user: UserMaker) -> None:
    ada, vic = await user("ada", "admin"), await user("vic", "voter")
    async with Person(arena, ada) as a, Person(arena, vic) as v:
        reader = (await _token(v, "read"))["token"]
        voter = (await _token(v, "read", "vote"))["token"]
        admin = (await _token(a, "admin"))["token"]
        voter_wants_admin = await v.client.post(
            "/api/me/tokens", json={"name": "x", "scopes": ["admin"]}
        )

    c = arena.client
    read = await c.get("/api/arena/leaderboard", headers=_bearer(reader))
    read_chat = await c.post("/api/arena/chat", json={"prompt": "hi"}, headers=_bearer(reader))
    vote_chat = await c.post("/api/arena/chat", json={"prompt": "hi"}, headers=_bearer(voter))
    vote_admin = await c.get("/api/admin/users", headers=_bearer(voter))
    admin_admin = await c.get("/api/admin/users", headers=_bearer(admin))
    admin_export = await c.get("/api/arena/export", headers=_bearer(admin))
    voter_export = await c.get("/api/arena/export", headers=_bearer(voter))
    forged = await c.get("/api/arena/leaderboard", headers=_bearer(reader[:-2] + "xx"))

    assert read.status_code == 200
    assert read_chat.status_code == 403 and _code(read_chat) == "insufficient_scope"
    assert vote_chat.status_code == 200
    assert vote_admin.status_code == 403 and _code(vote_admin) == "insufficient_scope"
    assert admin_admin.status_code == 200
    assert admin_export.status_code == 200
    assert voter_export.status_code == 403
    assert forged.status_code == 401 and _code(forged) == "invalid_api_token"
    assert voter_wants_admin.status_code == 403 and _code(voter_wants_admin) == "forbidden_role"


async def test_a_token_is_shown_once_kept_hashed_and_revoked_at_once(
    arena: Arena, user: UserMaker
) -> None:
    vic = await user("vic", "voter")
    async with Person(arena, vic) as v:
        created = await _token(v, "read", name="notebook")
        token = created["token"]
        before = await arena.client.get("/api/arena/leaderboard", headers=_bearer(token))
        listed = (await v.client.get("/api/me/tokens")).json()["tokens"]
        by_token = await arena.client.post(
            "/api/me/tokens", json={"name": "more"}, headers=_bearer(token)
        )
        revoked = await v.client.delete(f"/api/me/tokens/{created['info']['id']}")
        again = await v.client.delete(f"/api/me/tokens/{created['info']['id']}")
    after = await arena.client.get("/api/arena/leaderboard", headers=_bearer(token))
    stored = await arena.scalar(
        "SELECT count(*) FROM user_tokens WHERE token_hash = :h AND hint = :hint",
        h=hashlib.sha256(token.encode()).digest(),
        hint=token[:10],
    )
    anywhere = await arena.scalar(
        "SELECT count(*) FROM user_tokens WHERE name = :t OR hint = :t", t=token
    )

    assert token.startswith("arena_") and len(token) >= 40
    assert before.status_code == 200
    assert [(t["name"], t["hint"], t["scopes"]) for t in listed] == [
        ("notebook", token[:10], ["read"])
    ]
    assert "token" not in listed[0] and token not in str(listed)
    assert by_token.status_code == 403 and _code(by_token) == "insufficient_scope"
    assert revoked.status_code == 200 and revoked.json()["token"]["revokedAt"]
    assert again.status_code == 404
    assert after.status_code == 401
    assert (stored, anywhere) == (1, 0)


async def test_tokens_are_made_in_a_session_and_someone_elses_cannot_be_revoked(
    arena: Arena, user: UserMaker
) -> None:
    ada, vic = await user("ada", "admin"), await user("vic", "voter")
    async with Person(arena, ada) as a, Person(arena, vic) as v:
        hers = await _token(v, "read", "vote")
        by_voter_token = await arena.client.post(
            "/api/me/tokens",
            json={"name": "more", "scopes": ["read"]},
            headers=_bearer(hers["token"]),
        )
        not_his = await a.client.delete(f"/api/me/tokens/{hers['info']['id']}")
        by_admin = await a.client.delete(f"/api/admin/tokens/{hers['info']['id']}")
        bad: list[httpx.Response] = [
            await v.client.post("/api/me/tokens", json={"name": "", "scopes": ["read"]}),
            await v.client.post("/api/me/tokens", json={"name": "x", "scopes": ["root"]}),
            await v.client.post("/api/me/tokens", json={"name": "x", "scopes": []}),
            await v.client.post("/api/me/tokens", json=["not", "an", "object"]),
            await a.client.get("/api/admin/audit", params={"limit": "0"}),
        ]
        audit = (await a.client.get("/api/admin/audit", params={"limit": "2"})).json()

    assert by_voter_token.status_code == 403 and _code(by_voter_token) == "session_required"
    assert not_his.status_code == 404
    assert by_admin.status_code == 200
    assert [r.status_code for r in bad] == [400] * 5
    assert [e["action"] for e in audit["entries"]] == ["token_revoke", "token_create"]
    assert audit["entries"][0]["actor"] == "ada@example.com"
    assert audit["before"] == audit["entries"][-1]["id"]  # a full page: there may be more


async def test_an_open_arena_keeps_its_admin_routes_shut(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        refused = await arena.client.get("/api/admin/audit")
        board = await arena.client.get("/api/arena/leaderboard")

    assert refused.status_code == 403 and _code(refused) == "access_not_configured"
    assert board.status_code == 200


@pytest.fixture
async def vendor_arena(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Arena, Recorder]]:
    """The arena with sign-in, its roster file two models of a fake OpenAI vendor."""
    recorder = Recorder()
    roster = roster_of(("Alpha", "openai", "alpha--ok"), ("Beta", "openai", "beta--ok"))
    with ServerThread(create_app(recorder), free_port()) as vendor:
        async with serve_arena(
            db,
            database_url,
            tmp_path,
            roster=roster,
            ARENA_MOCK_PROVIDER="0",
            OPENAI_BASE_URL=f"{vendor.url}/v1",
            OPENAI_API_KEY="sk-test",
            **SSO,
        ) as arena:
            yield arena, recorder


async def test_an_admin_adds_tests_pauses_and_prices_a_model_and_the_seed_keeps_it(
    vendor_arena: tuple[Arena, Recorder], user: UserMaker, db: AsyncEngine
) -> None:
    arena, recorder = vendor_arena
    ada = await user("ada", "admin")
    async with Person(arena, ada) as a:
        listed = (await a.client.get("/api/admin/models")).json()
        added = await a.client.post(
            "/api/admin/models",
            json={
                "displayName": "Gamma",
                "provider": "openai",
                "providerModelId": "gamma--ok",
                "prices": [0.5, 1.5],
            },
        )
        gamma = added.json()["model"]
        again = await a.client.post(
            "/api/admin/models",
            json={"displayName": "G2", "provider": "openai", "providerModelId": "gamma--ok"},
        )
        unknown_provider = await a.client.post(
            "/api/admin/models",
            json={"displayName": "X", "provider": "google", "providerModelId": "gemini"},
        )
        probe = (await a.client.post(f"/api/admin/models/{gamma['id']}/test")).json()
        broken = await a.client.post(
            "/api/admin/models",
            json={
                "displayName": "Down",
                "provider": "openai",
                "providerModelId": "down--unavailable",
            },
        )
        failed = (
            await a.client.post(f"/api/admin/models/{broken.json()['model']['id']}/test")
        ).json()
        paused = await a.client.patch(
            f"/api/admin/models/{gamma['id']}", json={"status": "paused", "prices": None}
        )
        bad = [
            await a.client.patch(f"/api/admin/models/{gamma['id']}", json={"status": "gone"}),
            await a.client.patch(f"/api/admin/models/{gamma['id']}", json={"prices": [-1, 2]}),
            await a.client.patch(f"/api/admin/models/{gamma['id']}", json={"prices": ["a", 2]}),
            await a.client.patch(f"/api/admin/models/{gamma['id']}", json={"displayName": ""}),
        ]
        missing = await a.client.patch("/api/admin/models/not-a-model", json={"status": "paused"})
        audit = (await a.client.get("/api/admin/audit")).json()["entries"]

    assert [m["displayName"] for m in listed["models"]] == ["Alpha", "Beta"]
    assert {m["source"] for m in listed["models"]} == {"file"}
    assert "openai" in listed["providers"] and "google" not in listed["providers"]
    assert added.status_code == 201
    assert (gamma["source"], gamma["status"], gamma["prices"]) == ("console", "active", [0.5, 1.5])
    assert again.status_code == 409 and _code(again) == "model_exists"
    assert unknown_provider.status_code == 400
    assert probe["ok"] is True and probe["text"] and probe["firstTokenMs"] is not None
    asked = [r.json["model"] for r in recorder.requests]
    # The vendor was asked as in a round (a 503 retried as a round retries it).
    assert asked[0] == "gamma--ok" and set(asked[1:]) == {"down--unavailable"}
    assert failed["ok"] is False and failed["errorCode"] == "provider_unavailable"
    assert paused.status_code == 200
    assert (paused.json()["model"]["status"], paused.json()["model"]["prices"]) == ("paused", None)
    assert paused.json()["before"]["status"] == "active"
    assert [r.status_code for r in bad] == [400] * 4
    assert missing.status_code == 404
    edits = [e for e in audit if e["action"] == "model_edit"]
    assert edits[0]["targetLabel"] == "Gamma"
    assert edits[0]["before"] == {"status": "active", "prices": ["0.500000", "1.500000"]}
    assert edits[0]["after"] == {"status": "paused", "prices": None}
    assert [e["action"] for e in audit].count("model_add") == 2

    # The next start seeds the file again: its models, not the console's, are the file's.
    await seed_roster(db, roster_of(("Alpha", "openai", "alpha--ok")))
    rows = await arena.scalar(
        "SELECT string_agg(display_name || '=' || status || '/' || source, ',' "
        "ORDER BY display_name) FROM models"
    )
    assert rows == "Alpha=active/file,Beta=archived/file,Down=active/console,Gamma=paused/console"


async def test_a_paused_console_model_is_never_matched_and_an_active_one_is(
    vendor_arena: tuple[Arena, Recorder], user: UserMaker
) -> None:
    arena, _ = vendor_arena
    ada = await user("ada", "admin")
    async with Person(arena, ada) as a:
        models = (await a.client.get("/api/admin/models")).json()["models"]
        beta = next(m for m in models if m["displayName"] == "Beta")
        await a.client.patch(f"/api/admin/models/{beta['id']}", json={"status": "paused"})
        await a.client.post(
            "/api/admin/models",
            json={"displayName": "Gamma", "provider": "openai", "providerModelId": "gamma--ok"},
        )
        for _ in range(4):
            response = await a.client.post(
                "/api/arena/chat", json={"prompt": "hello", "sessionId": "s-1"}
            )
            assert response.status_code == 200
        pairs = await arena.scalar(
            "SELECT string_agg(DISTINCT m.display_name, ',' ORDER BY m.display_name) "
            "FROM responses r JOIN models m ON m.id = r.model_id"
        )

    assert pairs == "Alpha,Gamma"


async def test_a_signed_in_persons_votes_carry_them_and_stop_at_the_daily_cap(
    db: AsyncEngine, database_url: str, tmp_path: Path, user: UserMaker
) -> None:
    async with serve_arena(
        db, database_url, tmp_path, ARENA_API_TOKENS=STATIC, ARENA_USER_VOTE_CAP="2", **SSO
    ) as arena:
        vic = await user("vic", "voter")
        async with Person(arena, vic) as v:
            token = (await _token(v, "read", "vote"))["token"]
            statuses = []
            for client, headers in ((v.client, {}), (arena.client, _bearer(token))) * 2:
                response = await client.post(
                    "/api/arena/chat", json={"prompt": "hello"}, headers=headers
                )
                started = next(d for e, d in parse_sse(response.text) if e == "matchup_started")
                voted = await client.post(
                    "/api/arena/vote",
                    json={
                        "matchupId": started["matchupId"],
                        "matchupToken": started["matchupToken"],
                        "vote": "left",
                    },
                    headers=headers,
                )
                statuses.append(voted.status_code)
            refused = voted
        arena.client.headers.update(_bearer(STATIC))  # a script's token: no person behind it
        anonymous, _ = await arena.chat()
        started = next(d for e, d in parse_sse(anonymous.text) if e == "matchup_started")
        assert (await arena.vote(started)).status_code == 200
        export = await arena.client.get("/api/arena/export", headers=_bearer(STATIC))
        owners = await arena.scalar(
            "SELECT string_agg(coalesce(user_id::text, '-'), ',' ORDER BY created_at) "
            "FROM preferences"
        )

    assert statuses == [200, 200, 429, 429]
    assert _code(refused) == "user_vote_cap" and int(refused.headers["retry-after"]) > 80_000
    assert owners == f"{vic.id},{vic.id},-"  # the refused ones stored nothing
    rows = [json.loads(line) for line in export.text.splitlines()]
    users = [r["user"] for r in rows]
    assert users[0] == users[1] and users[0] not in (None, vic.id) and users[2] is None


async def test_the_settings_in_force_show_where_they_came_from_and_never_a_secret(
    arena: Arena, user: UserMaker
) -> None:
    ada, vic = await user("ada", "admin"), await user("vic", "voter")
    async with Person(arena, ada) as a, Person(arena, vic) as v:
        listed = await a.client.get("/api/admin/settings")
        refused = await v.client.get("/api/admin/settings")

    rows = {r["name"]: r for r in listed.json()["settings"]}
    assert rows["ARENA_API_TOKENS"] == {
        "name": "ARENA_API_TOKENS",
        "value": "1 set",
        "source": "env",
        "group": "app",
        "secret": True,
    }
    assert rows["MATCHUP_TOKEN_SECRET"]["value"] == "•••••• (set)"
    assert rows["ARENA_OIDC_ISSUER"]["value"] == SSO["ARENA_OIDC_ISSUER"]
    assert rows["ARENA_USER_VOTE_CAP"] == {**rows["ARENA_USER_VOTE_CAP"], "source": "default"}
    assert STATIC not in listed.text and "test-secret-of-sufficient-length" not in listed.text
    assert refused.status_code == 403


async def test_with_anonymous_voting_on_anyone_plays_and_votes_but_the_rest_needs_a_sign_in(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_OIDC_ANONYMOUS="1", **SSO) as arena:
        response, frames = await arena.chat()
        started = next(d for e, d in frames if e == "matchup_started")
        voted = await arena.vote(started)
        board = await arena.client.get("/api/arena/leaderboard")
        admin = await arena.client.get("/api/admin/users")
        review = await arena.client.get("/api/review/queues")
        tokens = await arena.client.get("/api/me/tokens")
        export = await arena.client.get("/api/arena/export")
        owner = await arena.scalar("SELECT user_id FROM preferences")

    assert (response.status_code, voted.status_code, board.status_code) == (200, 200, 200)
    assert owner is None  # an anonymous vote names nobody
    assert admin.status_code == 401 and _code(admin) == "login_required"
    assert review.status_code == 401
    assert tokens.status_code == 401 and _code(tokens) == "login_required"
    assert export.status_code in (401, 403)


async def test_an_expired_session_of_a_signed_in_person_is_no_session(
    arena: Arena, user: UserMaker
) -> None:
    """The cookie the server itself would have issued two hours ago, with a one-hour life."""
    ada = await user("ada", "admin")
    yesterday = AccessService(
        passphrase=None,
        secret=SECRET.encode(),
        ttl_s=3600,
        login_limits=(),
        single_sign_on=True,
        clock=lambda: time.time() - 7200,
    ).open_user_session(ada)
    fresh = opened_services(arena.app).access.open_user_session(ada)  # type: ignore[union-attr]

    answers = []
    for signed in (yesterday, fresh):
        cookies = {"arena_session": signed.cookie}
        async with httpx.AsyncClient(base_url=arena.url, timeout=30, cookies=cookies) as client:
            answers.append(await client.get("/api/admin/users"))
    expired, live = answers

    assert expired.status_code == 401 and _code(expired) == "unauthorized"  # tokens are on
    assert live.status_code == 200
