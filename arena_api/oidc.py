"""The OpenID provider over HTTP: discovery, the authorization URL, the code exchange, the ID
token's signature and the userinfo endpoint (``services.identity.OidcProvider``).

Authlib writes the authorization URL with the PKCE challenge (S256) and the code's token
request (sent with httpx, the client secret as HTTP Basic, or none for a public client);
joserfc checks the ID token's signature against the provider's published keys, with the
algorithms the provider names (never ``none``, never an HMAC keyed by something the browser
saw). The discovery document
is read once and kept for an hour; the keys are read again when a token names a key id they lack
(the provider rotated), at most once a minute.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Mapping
from typing import Any

import httpx
from authlib.oauth2.rfc6749.parameters import prepare_grant_uri, prepare_token_request
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet

from arena_api.core.oidc import Flow, OidcRefused

__all__ = ["HttpOidcProvider"]

_DISCOVERY_TTL_S = 3600.0
_KEYS_REFRESH_S = 60.0
_TIMEOUT = httpx.Timeout(10.0)
_ASYMMETRIC = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)


def _unreachable(what: str, exc: Exception) -> OidcRefused:
    return OidcRefused(
        "oidc_provider_unavailable",
        f"The sign-in provider could not be reached ({what}: {type(exc).__name__}). "
        "Try again shortly.",
        status=502,
    )


class HttpOidcProvider:
    def __init__(
        self,
        issuer: str,
        client_id: str,
        client_secret: str | None,
        scopes: tuple[str, ...],
    ) -> None:
        self.issuer = issuer
        self._client_id = client_id
        self._client_secret = client_secret
        self._scope = " ".join(dict.fromkeys(("openid", *scopes)))
        self._discovery: tuple[float, dict[str, Any]] | None = None
        self._keys: tuple[float, KeySet] | None = None

    async def _get_json(self, url: str, what: str, **headers: str) -> dict[str, Any]:
        try:
            async with httpx.AsyncClient(timeout=_TIMEOUT) as http:
                response = await http.get(url, headers=headers)
            response.raise_for_status()
            body = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise _unreachable(what, exc) from exc
        if not isinstance(body, dict):
            raise _unreachable(what, ValueError("not a JSON object"))
        return body

    async def discovery(self) -> dict[str, Any]:
        """The provider's metadata; its ``issuer`` must be the one configured (OIDC Discovery
        §4.3)."""
        now = time.monotonic()
        if self._discovery is not None and now - self._discovery[0] < _DISCOVERY_TTL_S:
            return self._discovery[1]
        document = await self._get_json(
            self.issuer + "/.well-known/openid-configuration", "discovery"
        )
        if document.get("issuer") != self.issuer:
            raise OidcRefused(
                "oidc_misconfigured",
                f"The provider calls itself {document.get('issuer')!r}, not {self.issuer!r} "
                "(ARENA_OIDC_ISSUER).",
                status=502,
            )
        self._discovery = (now, document)
        return document

    async def authorization_url(self, flow: Flow, redirect_uri: str) -> str:
        endpoint = (await self.discovery())["authorization_endpoint"]
        return str(
            prepare_grant_uri(
                endpoint,
                self._client_id,
                "code",
                redirect_uri,
                self._scope,
                flow.state,
                nonce=flow.nonce,
                code_challenge=create_s256_code_challenge(flow.verifier),
                code_challenge_method="S256",
            )
        )

    async def exchange(self, code: str, verifier: str, redirect_uri: str) -> Mapping[str, Any]:
        """The tokens the code buys.

        Raises:
            OidcRefused: ``oidc_code_refused`` (the provider said no) or
                ``oidc_provider_unavailable``.
        """
        endpoint = (await self.discovery())["token_endpoint"]
        body = prepare_token_request(
            "authorization_code", redirect_uri=redirect_uri, code=code, code_verifier=verifier
        )
        headers = {
            "content-type": "application/x-www-form-urlencoded",
            "accept": "application/json",
        }
        if self._client_secret is None:  # a public client names itself in the body
            body += "&" + str(httpx.QueryParams({"client_id": self._client_id}))
        else:  # client_secret_basic (RFC 6749 §2.3.1)
            credentials = f"{self._client_id}:{self._client_secret}".encode()
            headers["authorization"] = "Basic " + base64.b64encode(credentials).decode("ascii")
        try:
            async with httpx.AsyncClient(timeout=_TIMEOUT) as http:
                response = await http.post(endpoint, content=body, headers=headers)
            token = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise _unreachable("token", exc) from exc
        if not isinstance(token, dict) or response.status_code >= 500:
            raise _unreachable("token", ValueError(f"status {response.status_code}"))
        if response.status_code != 200 or "error" in token:
            error = str(token.get("error", response.status_code))[:100]
            raise OidcRefused(
                "oidc_code_refused",
                f"The provider refused the sign-in code ({error}). Sign in again.",
                status=401,
            )
        if not isinstance(token.get("id_token"), str):
            raise OidcRefused("oidc_token_invalid", "The provider sent no ID token.", status=401)
        return token

    async def _key_set(self, refresh: bool) -> KeySet:
        now = time.monotonic()
        if self._keys is not None and not (refresh and now - self._keys[0] >= _KEYS_REFRESH_S):
            return self._keys[1]
        document = await self._get_json((await self.discovery())["jwks_uri"], "keys")
        try:
            keys = KeySet.import_key_set(document)  # type: ignore[arg-type]
        except (JoseError, ValueError, TypeError) as exc:
            raise _unreachable("keys", exc) from exc
        self._keys = (now, keys)
        return keys

    async def id_token_claims(self, id_token: str) -> dict[str, Any]:
        """The ID token's claims once its signature checks (the claims themselves are the
        core's to check).

        Raises:
            OidcRefused: ``oidc_token_invalid``: a bad signature, an unknown key, an algorithm
                the provider does not announce, or not a JWT at all.
        """
        announced = (await self.discovery()).get("id_token_signing_alg_values_supported") or [
            "RS256"
        ]
        algorithms = [a for a in announced if a in _ASYMMETRIC]
        for refresh in (False, True):
            keys = await self._key_set(refresh)
            try:
                return dict(jwt.decode(id_token, keys, algorithms=algorithms).claims)
            except (JoseError, ValueError) as exc:
                if refresh or not isinstance(exc, InvalidKeyIdError):
                    raise OidcRefused(
                        "oidc_token_invalid",
                        "The provider's ID token does not carry a valid signature.",
                        status=401,
                    ) from exc
        raise AssertionError("unreachable")

    async def userinfo(self, access_token: str) -> dict[str, Any]:
        """The userinfo endpoint's claims; empty when the provider has none."""
        endpoint = (await self.discovery()).get("userinfo_endpoint")
        if not isinstance(endpoint, str):
            return {}
        return await self._get_json(endpoint, "userinfo", authorization=f"Bearer {access_token}")
