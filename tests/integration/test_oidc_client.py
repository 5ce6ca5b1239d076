"""The OpenID provider adapter (``arena_api.oidc``) and the sign-in service over it, against a
provider on a loopback port that publishes its discovery document and keys as real providers do
and signs ID tokens with its RSA key (the browser flow against a certified provider is
``e2e/test_single_sign_on.py``).

What a hostile or broken provider can send: tokens signed by another key, with ``alg: none`` or
HS256 keyed by the public key, a rotated key, a discovery document naming another issuer, a
userinfo of another subject, a token endpoint that refuses the code or is down.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey, RSAKey
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from arena_api.core.oidc import OidcRefused, new_flow, seal_flow
from arena_api.core.ratelimit import parse_limits
from arena_api.db.repository import create_pool
from arena_api.db.users import PostgresUsers
from arena_api.oidc import HttpOidcProvider
from arena_api.services.access import AccessService
from arena_api.services.identity import IdentityService, OidcSettings
from tests.support import ServerThread, free_port


class FakeProvider:
    """Discovery, keys, a token endpoint and userinfo; what each answers is set per test."""

    def __init__(self, port: int) -> None:
        self.issuer = f"http://127.0.0.1:{port}"
        self.key = RSAKey.generate_key(2048, parameters={"kid": "k1"})
        self.published = [self.key]
        self.claims: dict[str, Any] = {}
        self.userinfo: dict[str, Any] = {}
        self.token_status = 200
        self.header: dict[str, Any] = {"alg": "RS256", "kid": "k1"}
        self.signing_key: Any = self.key
        self.discovery_issuer: str | None = None
        self.token_requests: list[dict[str, str]] = []

    def id_token(self) -> str:
        return jwt.encode(self.header, self.claims, self.signing_key)

    def app(self) -> Starlette:
        async def discovery(request: Request) -> JSONResponse:
            return JSONResponse(
                {
                    "issuer": self.discovery_issuer or self.issuer,
                    "authorization_endpoint": self.issuer + "/auth",
                    "token_endpoint": self.issuer + "/token",
                    "userinfo_endpoint": self.issuer + "/me",
                    "jwks_uri": self.issuer + "/jwks",
                    "id_token_signing_alg_values_supported": ["RS256"],
                }
            )

        async def jwks(request: Request) -> JSONResponse:
            return JSONResponse({"keys": [k.as_dict(private=False) for k in self.published]})

        async def token(request: Request) -> JSONResponse:
            form = await request.form()
            self.token_requests.append(
                {k: str(v) for k, v in form.items()}
                | {"authorization": request.headers.get("authorization", "")}
            )
            if self.token_status != 200:
                return JSONResponse({"error": "invalid_grant"}, status_code=self.token_status)
            return JSONResponse(
                {"access_token": "at-1", "token_type": "Bearer", "id_token": self.id_token()}
            )

        async def me(request: Request) -> JSONResponse:
            assert request.headers["authorization"] == "Bearer at-1"
            return JSONResponse(self.userinfo)

        return Starlette(
            routes=[
                Route("/.well-known/openid-configuration", discovery),
                Route("/jwks", jwks),
                Route("/token", token, methods=["POST"]),
                Route("/me", me),
            ]
        )


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    port = free_port()
    provider = FakeProvider(port)
    with ServerThread(provider.app(), port):
        yield provider


def _adapter(fake: FakeProvider) -> HttpOidcProvider:
    return HttpOidcProvider(fake.issuer, "arena", "client-secret", ("email",))


def _claims(fake: FakeProvider, nonce: str, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    return {
        "iss": fake.issuer,
        "aud": "arena",
        "sub": "subject-1",
        "exp": now + 300,
        "iat": now,
        "nonce": nonce,
        **changes,
    }


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


async def test_the_authorization_url_asks_for_a_code_with_pkce_s256(fake: FakeProvider) -> None:
    flow = new_flow("/", time.time())

    url = await _adapter(fake).authorization_url(flow, "http://arena.test/auth/oidc/callback")

    assert url.startswith(fake.issuer + "/auth?")
    params = dict(p.split("=", 1) for p in url.split("?", 1)[1].split("&"))
    assert params["response_type"] == "code" and params["client_id"] == "arena"
    assert params["code_challenge_method"] == "S256"
    assert params["state"] == flow.state and params["nonce"] == flow.nonce
    assert params["scope"] == "openid+email"
    assert params["code_challenge"] != flow.verifier


async def test_the_code_is_exchanged_with_the_verifier_and_the_client_secret(
    fake: FakeProvider,
) -> None:
    fake.claims = _claims(fake, "n")

    tokens = await _adapter(fake).exchange("the-code", "the-verifier", "http://a.test/cb")

    assert tokens["access_token"] == "at-1"
    sent = fake.token_requests[-1]
    assert sent["code"] == "the-code" and sent["code_verifier"] == "the-verifier"
    assert sent["grant_type"] == "authorization_code"
    assert sent["authorization"].startswith("Basic ")


async def test_a_token_signed_by_the_providers_key_is_read(fake: FakeProvider) -> None:
    fake.claims = _claims(fake, "n")

    claims = await _adapter(fake).id_token_claims(fake.id_token())

    assert claims["sub"] == "subject-1"


async def test_a_rotated_key_is_fetched_once_the_token_names_it(fake: FakeProvider) -> None:
    adapter = _adapter(fake)
    fake.claims = _claims(fake, "n")
    await adapter.id_token_claims(fake.id_token())  # keys cached
    fake.key = RSAKey.generate_key(2048, parameters={"kid": "k2"})
    fake.published, fake.signing_key = [fake.key], fake.key
    fake.header = {"alg": "RS256", "kid": "k2"}
    adapter._keys = (adapter._keys[0] - 120, adapter._keys[1])  # type: ignore[index]

    assert (await adapter.id_token_claims(fake.id_token()))["sub"] == "subject-1"


@pytest.mark.parametrize("forgery", ["other key", "none", "hs256 with the public key", "junk"])
async def test_a_forged_token_is_refused(fake: FakeProvider, forgery: str) -> None:
    fake.claims = _claims(fake, "n")
    if forgery == "other key":
        fake.signing_key = RSAKey.generate_key(2048)
        token = fake.id_token()
    elif forgery == "none":
        token = f"{_b64({'alg': 'none'})}.{_b64(fake.claims)}."
    elif forgery == "hs256 with the public key":
        public = json.dumps(fake.key.as_dict(private=False)).encode()
        token = jwt.encode({"alg": "HS256", "kid": "k1"}, fake.claims, OctKey.import_key(public))
    else:
        token = "not.a.token"

    with pytest.raises(OidcRefused) as refused:
        await _adapter(fake).id_token_claims(token)

    assert refused.value.code == "oidc_token_invalid"


async def test_a_provider_calling_itself_another_issuer_is_refused(fake: FakeProvider) -> None:
    fake.discovery_issuer = "https://impostor.test"

    with pytest.raises(OidcRefused) as refused:
        await _adapter(fake).authorization_url(new_flow("/", time.time()), "http://a/cb")

    assert refused.value.code == "oidc_misconfigured" and refused.value.status == 502


async def test_a_refused_code_and_a_provider_that_is_down_have_codes_of_their_own(
    fake: FakeProvider,
) -> None:
    fake.token_status = 400
    with pytest.raises(OidcRefused) as refused:
        await _adapter(fake).exchange("c", "v", "http://a/cb")
    assert refused.value.code == "oidc_code_refused"

    down = HttpOidcProvider(f"http://127.0.0.1:{free_port()}", "arena", None, ())
    with pytest.raises(OidcRefused) as unreachable:
        await down.authorization_url(new_flow("/", time.time()), "http://a/cb")
    assert unreachable.value.code == "oidc_provider_unavailable"
    assert unreachable.value.status == 502


def _service(fake: FakeProvider, users: PostgresUsers, **settings: Any) -> IdentityService:
    access = AccessService(
        passphrase=None,
        secret=b"s" * 32,
        ttl_s=3600,
        login_limits=parse_limits("5/minute"),
        single_sign_on=True,
    )
    return IdentityService(
        _adapter(fake),
        users,
        access,
        OidcSettings(client_id="arena", **settings),
        flow_key=b"f" * 32,
    )


async def _finish(service: IdentityService, fake: FakeProvider, **claims: Any) -> Any:
    flow = new_flow("/after", time.time())
    fake.claims = _claims(fake, flow.nonce, **claims)
    return await service.finish(
        {"code": "c", "state": flow.state}, seal_flow(b"f" * 32, flow), "http://a/cb"
    )


async def test_a_sign_in_records_the_user_their_role_and_the_audit_line(
    fake: FakeProvider, db: AsyncEngine, database_url: str
) -> None:
    pool = await create_pool(database_url)
    try:
        users = PostgresUsers(pool)
        service = _service(
            fake, users, role_claim="groups", admin_values=("admins",), reviewer_values=("rev",)
        )
        fake.userinfo = {"sub": "subject-1", "email": "ann@example.com", "groups": ["rev"]}

        signed, user, next_path = await _finish(service, fake, name="Ann")
        fake.userinfo["groups"] = ["admins"]
        _, again, _ = await _finish(service, fake, name="Ann B.")

        assert next_path == "/after"
        assert (signed.session.user_id, signed.session.role) == (user.id, "reviewer")
        assert (again.id, again.role, again.name) == (user.id, "admin", "Ann B.")
        async with pool.acquire() as conn:
            audit = await conn.fetch("SELECT actor, action, before, after FROM audit_log")
        assert [(r["actor"], r["action"]) for r in audit] == [("ann@example.com", "sign_in")] * 2
        assert json.loads(audit[1]["before"]) == {"role": "reviewer"}
        assert json.loads(audit[1]["after"]) == {"role": "admin", "new": False}
    finally:
        await pool.close()


async def test_without_a_role_claim_the_arena_keeps_the_role_it_holds(
    fake: FakeProvider, db: AsyncEngine, database_url: str
) -> None:
    pool = await create_pool(database_url)
    try:
        service = _service(fake, PostgresUsers(pool))
        fake.userinfo = {"sub": "subject-1", "groups": ["admins"]}
        _, first, _ = await _finish(service, fake)
        async with pool.acquire() as conn:
            await conn.execute("UPDATE users SET role = 'admin'")
        _, second, _ = await _finish(service, fake)
    finally:
        await pool.close()

    assert (first.role, second.role) == ("voter", "admin")


async def test_a_token_for_another_nonce_or_a_userinfo_of_another_subject_opens_nothing(
    fake: FakeProvider, db: AsyncEngine, database_url: str
) -> None:
    pool = await create_pool(database_url)
    try:
        service = _service(fake, PostgresUsers(pool))
        flow = new_flow("/", time.time())
        fake.claims = _claims(fake, "a-replayed-nonce")
        with pytest.raises(OidcRefused) as replayed:
            await service.finish(
                {"code": "c", "state": flow.state}, seal_flow(b"f" * 32, flow), "http://a/cb"
            )
        fake.userinfo = {"sub": "someone-else"}
        with pytest.raises(OidcRefused) as swapped:
            await _finish(service, fake)
        with pytest.raises(OidcRefused) as denied:
            await service.finish(
                {"error": "access_denied", "state": flow.state},
                seal_flow(b"f" * 32, flow),
                "http://a/cb",
            )
        async with pool.acquire() as conn:
            users = await conn.fetchval("SELECT count(*) FROM users")
    finally:
        await pool.close()

    assert "nonce" in replayed.value.message
    assert swapped.value.code == "oidc_token_invalid"
    assert denied.value.code == "oidc_provider_refused"
    assert users == 0
