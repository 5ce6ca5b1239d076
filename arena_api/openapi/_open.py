"""The operations open to everyone, even on a private arena: health, this document, the login
pages and single sign-on, and the metrics (which check a token of their own); and who a session
is (``/api/me``)."""

from __future__ import annotations

from typing import Any

from arena_api.openapi._operation import RETRY_AFTER, Operation, json_answer, param, ref

__all__ = ["OPEN_OPERATIONS"]

_HTML = {"text/html": {"schema": {"type": "string"}}}
_COOKIES = {
    "Set-Cookie": {
        "description": "`arena_session` (HttpOnly) and `arena_csrf`, `SameSite=Lax`, `Secure` "
        "over https.",
        "schema": {"type": "string"},
    }
}
_LOCATION = {"Location": {"description": "Where to go.", "schema": {"type": "string"}}}


def _redirect(description: str, **headers: Any) -> dict[str, Any]:
    return {"description": description, "headers": {**_LOCATION, **headers}}


def _page_or_json(description: str, **headers: Any) -> dict[str, Any]:
    return {
        "description": description,
        **({"headers": headers} if headers else {}),
        "content": {**_HTML, "application/json": {"schema": ref("ErrorBody")}},
    }


_NEXT = param(
    "query",
    "next",
    {"type": "string"},
    "Where to go after signing in: a path on this site (anything else is `/`).",
)
_ACCESS = (
    Operation(
        "get",
        "/login",
        "loginPage",
        "The login page",
        "access",
        {
            "200": {"description": "The login page.", "content": _HTML},
            "303": _redirect("No passphrase is set, or the session is live: go on to `next`."),
        },
        parameters=(_NEXT,),
        guarded=False,
    ),
    Operation(
        "post",
        "/login",
        "signIn",
        "Sign in with the passphrase (`ARENA_PASSPHRASE`)",
        "access",
        {
            "200": json_answer("Signed in (a JSON request).", "SignedIn", headers=_COOKIES),
            "303": _redirect("Signed in (a form post): go on to `next`.", **_COOKIES),
            "401": _page_or_json("`wrong_passphrase` (a form post gets the page again)."),
            "429": _page_or_json(
                "Too many wrong passphrases from this address: `rate_limited`.",
                **RETRY_AFTER,
            ),
        },
        errors=(400, 404, 413),
        parameters=(_NEXT,),
        body={
            "required": True,
            "content": {
                "application/json": {"schema": ref("LoginRequest")},
                "application/x-www-form-urlencoded": {"schema": ref("LoginForm")},
            },
        },
        description="404 `not_found` when the arena has no passphrase.",
        guarded=False,
    ),
    Operation(
        "get",
        "/logout",
        "logoutPage",
        "The sign-out page (a form carrying the CSRF token)",
        "access",
        {
            "200": {"description": "The sign-out page.", "content": _HTML},
            "303": _redirect("No live session: go to `/login`."),
        },
        guarded=False,
    ),
    Operation(
        "post",
        "/logout",
        "signOut",
        "Sign out: clear the session's cookies",
        "access",
        {"303": _redirect("Signed out (or there was no session): go to `/login`.", **_COOKIES)},
        errors=(403,),
        body={
            "required": False,
            "description": "The CSRF token as a form field, unless sent as `X-CSRF-Token`.",
            "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {
                        "type": "object",
                        "properties": {"csrf_token": {"type": "string"}},
                    }
                }
            },
        },
        description="403 `csrf_failed`: a live session without its CSRF token.",
        guarded=False,
    ),
)

_SSO = (
    Operation(
        "get",
        "/auth/oidc/start",
        "startSingleSignOn",
        "Sign in with the OpenID provider (`ARENA_OIDC_ISSUER`): go there",
        "access",
        {
            "303": _redirect(
                "To the provider's authorization endpoint (code flow, PKCE S256), with the "
                "flow sealed in the `arena_oidc_flow` cookie (HttpOnly, path `/auth/oidc`)."
            ),
            "502": {
                "description": "The provider cannot be reached or names another issuer: "
                "the login page with `oidc_provider_unavailable` or `oidc_misconfigured`.",
                "content": _HTML,
            },
        },
        errors=(404,),
        parameters=(_NEXT,),
        description="404 `not_found` when the arena has no single sign-on.",
        guarded=False,
    ),
    Operation(
        "get",
        "/auth/oidc/callback",
        "finishSingleSignOn",
        "Where the provider sends the browser back: open the user's session",
        "access",
        {
            "303": _redirect("Signed in: go on to where the browser was headed.", **_COOKIES),
            "400": {
                "description": "`oidc_state_mismatch` (not this browser's sign-in, or tampered), "
                "`oidc_flow_expired`, `oidc_code_missing`: the login page again.",
                "content": _HTML,
            },
            "401": {
                "description": "`oidc_provider_refused`, `oidc_code_refused`, "
                "`oidc_token_invalid` (signature, issuer, audience, expiry or nonce).",
                "content": _HTML,
            },
            "403": {
                "description": "`oidc_domain_refused`, `oidc_email_unverified`.",
                "content": _HTML,
            },
            "502": {"description": "`oidc_provider_unavailable`.", "content": _HTML},
        },
        errors=(404,),
        parameters=tuple(
            param("query", name, {"type": "string"}, what)
            for name, what in (
                ("code", "The authorization code."),
                ("state", "The flow's state, as sent."),
                ("error", "The provider's refusal, instead of a code."),
                ("error_description", "Its words."),
                ("iss", "The provider's issuer (RFC 9207)."),
            )
        ),
        guarded=False,
    ),
    Operation(
        "get",
        "/api/me",
        "getMe",
        "Who this session is: a signed-in user and their role, or a passphrase session",
        "access",
        {"200": json_answer("The session, and its user when one signed in.", "Me")},
    ),
)

_HEALTH = json_answer("The process, its database and migrations are fine.", "Health")
_UNHEALTHY = json_answer(
    "The database is unreachable or not migrated to head, or the server is shutting down.",
    "Health",
)
_HEALTH_HEAD = {"200": {"description": "Healthy."}, "503": {"description": "Not healthy."}}

OPEN_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "get",
        "/health",
        "getHealth",
        "Is the process up, its database reachable and migrated, is it draining",
        "operations",
        {"200": _HEALTH, "503": _UNHEALTHY},
        guarded=False,
    ),
    Operation(
        "head",
        "/health",
        "headHealth",
        "The health check's status alone",
        "operations",
        _HEALTH_HEAD,
        guarded=False,
    ),
    Operation(
        "get",
        "/openapi.json",
        "getOpenApiDocument",
        "This document",
        "operations",
        {
            "200": {
                "description": "The OpenAPI 3.1 document of the HTTP API.",
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        },
        guarded=False,
    ),
    *_ACCESS,
    *_SSO,
    Operation(
        "get",
        "/metrics",
        "getMetrics",
        "Prometheus metrics of the process and of the rating process's last pass",
        "operations",
        {
            "200": {
                "description": "The Prometheus text exposition format, version 0.0.4.",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            }
        },
        errors=(401, 503),
        description="Needs `Authorization: Bearer <ARENA_METRICS_TOKEN>` when that is set (not "
        "an API token).",
        guarded=False,
        security=({}, {"metricsToken": []}),
    ),
)
