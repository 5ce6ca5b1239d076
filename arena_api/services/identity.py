"""Sign-in with OpenID Connect: the flow from the login page to a user's session.

``start`` makes a flow (``core.oidc``) and the provider's authorization URL; ``finish`` checks
the callback against the sealed flow, exchanges the code, checks the ID token (signature by the
adapter, claims by the core), reads the userinfo claims (providers put email and groups there
for the code flow), decides who may enter and as what, records the user and the sign-in in the
audit log, and opens a session that carries the user's id and role. The provider is reached
through ``OidcProvider`` (``arena_api.oidc`` over HTTP), the users through ``UserStore``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from arena_api.core.oidc import (
    Flow,
    OidcRefused,
    check_email,
    check_id_token,
    new_flow,
    open_flow,
    role_for,
    seal_flow,
)
from arena_api.core.users import AuditEntry, Role, User
from arena_api.services.access import AccessService, SignedIn

__all__ = ["IdentityService", "OidcProvider", "OidcSettings", "UserStore"]


class OidcProvider(Protocol):
    issuer: str

    async def authorization_url(self, flow: Flow, redirect_uri: str) -> str: ...

    async def exchange(self, code: str, verifier: str, redirect_uri: str) -> Mapping[str, Any]: ...

    async def id_token_claims(self, id_token: str) -> dict[str, Any]: ...

    async def userinfo(self, access_token: str) -> dict[str, Any]: ...


class UserStore(Protocol):
    async def sign_in(
        self, issuer: str, subject: str, email: str | None, name: str | None, role: Role | None
    ) -> User: ...

    async def get(self, user_id: str) -> User | None: ...

    async def audit(self, entry: AuditEntry) -> None: ...


@dataclass(frozen=True)
class OidcSettings:
    client_id: str
    #: What the login page calls the provider.
    name: str = "single sign-on"
    allowed_domains: tuple[str, ...] = ()
    role_claim: str | None = None
    admin_values: tuple[str, ...] = ()
    reviewer_values: tuple[str, ...] = ()


class IdentityService:
    def __init__(
        self,
        provider: OidcProvider,
        users: UserStore,
        access: AccessService,
        settings: OidcSettings,
        *,
        flow_key: bytes,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._provider = provider
        self._users = users
        self._access = access
        self._settings = settings
        self._flow_key = flow_key
        self._clock = clock

    @property
    def provider_name(self) -> str:
        return self._settings.name

    async def start(self, next_path: str, redirect_uri: str) -> tuple[str, str]:
        """Where to send the browser, and the sealed flow for its cookie."""
        flow = new_flow(next_path, self._clock())
        url = await self._provider.authorization_url(flow, redirect_uri)
        return url, seal_flow(self._flow_key, flow)

    async def finish(
        self, params: Mapping[str, str], sealed: str | None, redirect_uri: str
    ) -> tuple[SignedIn, User, str]:
        """The callback's ``params`` (``code``, ``state``, or the provider's ``error``) turned
        into a session: the session, its user, and where to go next.

        Raises:
            OidcRefused: with the code that says why (the flow, the provider, the token, the
                domain).
        """
        flow = open_flow(self._flow_key, sealed, params.get("state"), self._clock())
        if "error" in params:
            raise OidcRefused(
                "oidc_provider_refused",
                f"The provider did not sign you in ({params['error'][:100]}).",
                status=401,
            )
        code = params.get("code")
        if not code:
            raise OidcRefused("oidc_code_missing", "The provider sent no code. Sign in again.")
        tokens = await self._provider.exchange(code, flow.verifier, redirect_uri)
        claims = await self._provider.id_token_claims(tokens["id_token"])
        check_id_token(
            claims,
            issuer=self._provider.issuer,
            client_id=self._settings.client_id,
            nonce=flow.nonce,
            now=self._clock(),
        )
        access_token = tokens.get("access_token")
        if isinstance(access_token, str):
            info = await self._provider.userinfo(access_token)
            if info.get("sub") not in (None, claims["sub"]):
                raise OidcRefused(
                    "oidc_token_invalid",
                    "The provider's userinfo names another subject.",
                    status=401,
                )
            claims = {**info, **claims}
        try:
            email = check_email(claims, self._settings.allowed_domains)
        except OidcRefused as refused:  # a person the provider knows, refused here: on record
            who = claims.get("email") if isinstance(claims.get("email"), str) else claims["sub"]
            await self._users.audit(
                AuditEntry(
                    None,
                    str(who),
                    "sign_in_refused",
                    target=f"subject:{claims['sub']}",
                    after={"code": refused.code},
                )
            )
            raise
        role = (
            role_for(
                claims,
                self._settings.role_claim,
                self._settings.admin_values,
                self._settings.reviewer_values,
            )
            if self._settings.role_claim
            else None
        )
        name = claims.get("name") if isinstance(claims.get("name"), str) else None
        user = await self._users.sign_in(self._provider.issuer, claims["sub"], email, name, role)
        return self._access.open_user_session(user), user, flow.next_path

    async def user(self, user_id: str) -> User | None:
        return await self._users.get(user_id)

    async def signed_out(self, user_id: str) -> None:
        user = await self._users.get(user_id)
        if user is not None:
            await self._users.audit(
                AuditEntry(user.id, user.label, "sign_out", target=f"user:{user.id}")
            )
