"""Users, roles, API tokens and the audit log over HTTP: ``/api/admin/*`` (admins only, the edge
checks) and a user's own tokens at ``/api/me/tokens`` (a signed-in browser session).

* ``GET /api/admin/users``; ``PATCH /api/admin/users/{id}`` ``{"role": ...}`` (409
  ``last_admin`` rather than leave the arena without one).
* ``GET /api/admin/tokens`` (everyone's), ``DELETE /api/admin/tokens/{id}``.
* ``GET /api/admin/audit?limit=&before=``: newest first, ``before`` an entry's id to page on.
* ``GET /api/admin/settings``: every variable in force and where it came from, secrets masked.
* ``GET /api/admin/models`` (the roster, each model's status and source, and the providers this
  server has), ``POST /api/admin/models``, ``PATCH /api/admin/models/{id}``,
  ``POST /api/admin/models/{id}/test`` (a one-prompt probe: latency and the first tokens).
* ``GET /api/me/tokens``, ``POST /api/me/tokens`` ``{"name", "scopes"}`` (201, the token shown
  this once), ``DELETE /api/me/tokens/{id}``.

Every change is in the audit log with who made it, and the state before and after.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import ArenaError, InvalidRequest
from arena_api.core.models import RosterItem
from arena_api.core.users import AuditRecord, Member, TokenInfo, User
from arena_api.routes._access import CLIENT_KEY, grant_of
from arena_api.routes._request import read_object, services_of
from arena_api.services.roster import RosterAdmin
from arena_api.services.settings_view import settings_in_force
from arena_api.services.users import UserAdmin

__all__ = ["routes"]

_NO_STORE = {"cache-control": "no-store"}
_MAX_AUDIT_PAGE = 500


def _users(request: Request) -> UserAdmin:
    users = services_of(request).users
    if users is None:  # pragma: no cover - bootstrap always builds it
        raise ArenaError("Users are not available", status=503, code="starting")
    return users


def _roster(request: Request) -> RosterAdmin:
    roster = services_of(request).roster
    if roster is None:  # pragma: no cover - bootstrap always builds it
        raise ArenaError("The roster is not available", status=503, code="starting")
    return roster


def _model(item: RosterItem) -> dict[str, Any]:
    model, prices = item.model, item.model.prices
    return {
        "id": str(model.id),
        "displayName": model.display_name,
        "provider": model.provider,
        "providerModelId": model.provider_model_id,
        "status": item.status,
        "vision": model.vision,
        "source": item.source,
        "prices": None
        if prices is None
        else [float(prices.input_per_mtok), float(prices.output_per_mtok)],
    }


async def _session_user(request: Request) -> User:
    """The signed-in person of a browser session (tokens do not make tokens)."""
    grant = grant_of(request)
    if grant.user_id is None or str(request.scope.get(CLIENT_KEY, "")).startswith("token:"):
        raise ArenaError(
            "Tokens are managed from a signed-in browser session",
            status=403,
            code="session_required",
        )
    _, user = await _users(request).actor(grant)
    assert user is not None
    return user


def _when(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def _member(member: Member) -> dict[str, Any]:
    return {**_user(member.user), "firstSeenAt": _when(member.first_seen_at)} | {
        "lastSeenAt": _when(member.last_seen_at)
    }


def _user(user: User) -> dict[str, Any]:
    return {"id": user.id, "email": user.email, "name": user.name, "role": user.role}


def _token(token: TokenInfo) -> dict[str, Any]:
    return {
        "id": token.id,
        "owner": token.owner,
        "name": token.name,
        "hint": token.hint,
        "scopes": list(token.scopes),
        "createdAt": _when(token.created_at),
        "lastUsedAt": _when(token.last_used_at),
        "revokedAt": _when(token.revoked_at),
    }


def _audit(record: AuditRecord) -> dict[str, Any]:
    entry = record.entry
    return {
        "id": record.id,
        "at": _when(record.at),
        "actor": entry.actor,
        "actorId": entry.actor_id,
        "action": entry.action,
        "target": entry.target,
        "targetLabel": record.target_label,
        "before": entry.before,
        "after": entry.after,
    }


def _int_param(request: Request, name: str, lo: int, hi: int, default: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not lo <= int(raw) <= hi:
        raise InvalidRequest(
            f"{name} must be a whole number from {lo} to {hi}",
            details={name: [f"{lo}..{hi}"]},
        )
    return int(raw)


async def list_users(request: Request) -> JSONResponse:
    members = await _users(request).members()
    return JSONResponse({"users": [_member(m) for m in members]}, headers=_NO_STORE)


async def set_role(request: Request) -> JSONResponse:
    body = await read_object(request)
    role = body.get("role")
    if not isinstance(role, str):
        raise InvalidRequest("role is required", details={"role": ["required"]})
    actor, _ = await _users(request).actor(grant_of(request))
    before, user = await _users(request).set_role(request.path_params["user_id"], role, actor)
    return JSONResponse({"user": _user(user), "roleBefore": before}, headers=_NO_STORE)


async def all_tokens(request: Request) -> JSONResponse:
    tokens = await _users(request).tokens(None)
    return JSONResponse({"tokens": [_token(t) for t in tokens]}, headers=_NO_STORE)


async def revoke_any_token(request: Request) -> JSONResponse:
    actor, _ = await _users(request).actor(grant_of(request))
    token = await _users(request).revoke_token(request.path_params["token_id"], actor, None)
    return JSONResponse({"token": _token(token)}, headers=_NO_STORE)


async def audit_log(request: Request) -> JSONResponse:
    limit = _int_param(request, "limit", 1, _MAX_AUDIT_PAGE, 100)
    before = _int_param(request, "before", 1, 2**62, None)
    assert limit is not None
    records = await _users(request).audit(limit, before)
    following = records[-1].id if len(records) == limit else None
    return JSONResponse(
        {"entries": [_audit(r) for r in records], "before": following}, headers=_NO_STORE
    )


async def list_models(request: Request) -> JSONResponse:
    roster = _roster(request)
    items = await roster.items()
    return JSONResponse(
        {"models": [_model(i) for i in items], "providers": roster.providers()},
        headers=_NO_STORE,
    )


async def add_model(request: Request) -> JSONResponse:
    body = await read_object(request)
    actor, _ = await _users(request).actor(grant_of(request))
    item = await _roster(request).add(body, actor)
    return JSONResponse({"model": _model(item)}, status_code=201, headers=_NO_STORE)


async def edit_model(request: Request) -> JSONResponse:
    body = await read_object(request)
    actor, _ = await _users(request).actor(grant_of(request))
    before, after = await _roster(request).edit(request.path_params["model_id"], body, actor)
    return JSONResponse({"model": _model(after), "before": _model(before)}, headers=_NO_STORE)


async def test_model(request: Request) -> JSONResponse:
    probe = await _roster(request).probe(request.path_params["model_id"])
    return JSONResponse(
        {
            "ok": probe.ok,
            "firstTokenMs": probe.first_token_ms,
            "totalMs": probe.total_ms,
            "text": probe.text,
            "errorCode": probe.error_code,
            "error": probe.error,
        },
        headers=_NO_STORE,
    )


async def settings_list(request: Request) -> JSONResponse:
    rows = settings_in_force(services_of(request).settings)
    return JSONResponse(
        {
            "settings": [
                {
                    "name": r.name,
                    "value": r.value,
                    "source": r.source,
                    "group": r.group,
                    "secret": r.secret,
                }
                for r in rows
            ]
        },
        headers=_NO_STORE,
    )


async def my_tokens(request: Request) -> JSONResponse:
    user = await _session_user(request)
    tokens = await _users(request).tokens(user.id)
    return JSONResponse({"tokens": [_token(t) for t in tokens]}, headers=_NO_STORE)


async def create_token(request: Request) -> JSONResponse:
    user = await _session_user(request)
    body = await read_object(request)
    name, scopes = body.get("name"), body.get("scopes", ["read", "vote"])
    if not isinstance(name, str):
        raise InvalidRequest("name is required", details={"name": ["required"]})
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise InvalidRequest("scopes must be a list", details={"scopes": ["a list of strings"]})
    info, value = await _users(request).create_token(user, name, scopes)
    return JSONResponse({"token": value, "info": _token(info)}, status_code=201, headers=_NO_STORE)


async def revoke_my_token(request: Request) -> Response:
    user = await _session_user(request)
    token = await _users(request).revoke_token(request.path_params["token_id"], user.actor, user.id)
    return JSONResponse({"token": _token(token)}, headers=_NO_STORE)


routes: list[BaseRoute] = [
    Route("/api/admin/users", list_users, methods=["GET"], name="admin_users"),
    Route("/api/admin/users/{user_id}", set_role, methods=["PATCH"], name="admin_set_role"),
    Route("/api/admin/tokens", all_tokens, methods=["GET"], name="admin_tokens"),
    Route(
        "/api/admin/tokens/{token_id}",
        revoke_any_token,
        methods=["DELETE"],
        name="admin_revoke_token",
    ),
    Route("/api/admin/audit", audit_log, methods=["GET"], name="admin_audit"),
    Route("/api/admin/settings", settings_list, methods=["GET"], name="admin_settings"),
    Route("/api/admin/models", list_models, methods=["GET"], name="admin_models"),
    Route("/api/admin/models", add_model, methods=["POST"], name="admin_add_model"),
    Route("/api/admin/models/{model_id}", edit_model, methods=["PATCH"], name="admin_edit_model"),
    Route(
        "/api/admin/models/{model_id}/test", test_model, methods=["POST"], name="admin_test_model"
    ),
    Route("/api/me/tokens", my_tokens, methods=["GET"], name="my_tokens"),
    Route("/api/me/tokens", create_token, methods=["POST"], name="create_token"),
    Route("/api/me/tokens/{token_id}", revoke_my_token, methods=["DELETE"], name="revoke_my_token"),
]
