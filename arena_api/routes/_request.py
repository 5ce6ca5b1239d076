"""Reading request bodies and parameters at the edge, with the API's error shape.

A JSON body is read under these rules (every POST route):

* ``Content-Type`` must be JSON: ``application/json`` or any ``+json`` type, parameters such as
  ``charset`` allowed. A request with no ``Content-Type`` is read as JSON too (minimal clients
  omit it). Anything else (``text/plain``, a form) is ``415 unsupported_media_type``.
* The body is at most ``ARENA_MAX_BODY_BYTES`` (default 1 MiB), or the ``max_bytes`` its route
  gives (the chat routes, whose bodies may carry images, give ``max_round_body_bytes``); past
  it, ``413 too_large``, checked against ``Content-Length`` first and then while reading, so a
  lying or chunked client cannot exceed it.
* Malformed JSON (or bytes that are not UTF-8) is ``400 invalid_request``.
* JSON nested deeper than ``MAX_JSON_DEPTH`` (64), or holding more than ``MAX_JSON_VALUES``
  (10,000) arrays and objects, is ``400 invalid_json``: found before parsing (a recursive parser
  would run out of stack on ``[`` x 100,000) and, as a backstop, while parsing.
"""

from __future__ import annotations

import contextlib
import json
import re
import uuid
from typing import Any

from starlette.requests import HTTPConnection, Request

from arena_api.core.errors import ArenaError, InvalidRequest
from arena_api.services.container import Services

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_JSON_VALUES",
    "TooDeep",
    "attach_services",
    "detach_services",
    "opened_services",
    "parse_json",
    "read_json",
    "read_object",
    "services_of",
    "uuid_param",
]

MAX_BODY_BYTES = 1024 * 1024
#: No request of ours nests deeper than a handful of levels; 64 leaves room for any client.
MAX_JSON_DEPTH = 64
#: Nor holds more than a few hundred arrays and objects (a long chat's messages and parts).
MAX_JSON_VALUES = 10_000

_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")


def _nesting_problem(data: bytes) -> str | None:
    """Why ``data`` nests too much (too deep, or too many arrays and objects), or None.

    Strings are dropped (their brackets do not nest) and so is every byte but a bracket, in C;
    the brackets left, at most ``MAX_JSON_VALUES`` of them, are walked, stopping as soon as the
    depth passes ``MAX_JSON_DEPTH`` (a bomb does at its start)."""
    brackets = _STRINGS.sub(b"", data).translate(None, _NOT_BRACKETS)
    if len(brackets) > 2 * MAX_JSON_VALUES:
        return f"JSON holds more than {MAX_JSON_VALUES:,} arrays and objects"
    depth = 0
    for byte in brackets:
        depth += 1 if byte in (0x5B, 0x7B) else -1
        if depth > MAX_JSON_DEPTH:
            return f"JSON nested deeper than {MAX_JSON_DEPTH} levels"
    return None


class TooDeep(ValueError):
    """A JSON text nests deeper than ``MAX_JSON_DEPTH``, or holds more than
    ``MAX_JSON_VALUES`` arrays and objects."""


def parse_json(raw: bytes | bytearray | str) -> Any:
    """``json.loads`` with the nesting bounded.

    Raises:
        TooDeep: nested deeper than ``MAX_JSON_DEPTH``.
        ValueError: not JSON (``UnicodeDecodeError`` included).
    """
    data = raw.encode() if isinstance(raw, str) else bytes(raw)
    if data.count(b"[") + data.count(b"{") > MAX_JSON_DEPTH:
        problem = _nesting_problem(data)
        if problem is not None:
            raise TooDeep(problem)
    try:
        return json.loads(data)
    except RecursionError:
        raise TooDeep(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None


def _is_json(content_type: str | None) -> bool:
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _too_large() -> ArenaError:
    return ArenaError("Request body too large", status=413, code="too_large")


#: A string that may be an image's bytes: a ``data:`` URL, or base64 (its first characters).
_IMAGE_PAYLOAD = re.compile(r"data:|[A-Za-z0-9+/_-]{64}")
_SHORTEST_PAYLOAD = 256


def image_payload_chars(body: Any) -> int:
    """How many characters of ``body`` (parsed JSON) may be images' bytes: its strings of a
    ``data:`` URL or base64, at least ``_SHORTEST_PAYLOAD`` long, wherever they stand (each
    protocol puts its image parts elsewhere; the round checks what they hold)."""
    total, pending = 0, [body]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif (
            isinstance(value, str)
            and len(value) >= _SHORTEST_PAYLOAD
            and _IMAGE_PAYLOAD.match(value)
        ):
            total += len(value)
    return total


async def read_json(request: Request, *, max_bytes: int | None = None, image_room: int = 0) -> Any:
    """The request's JSON body.

    Args:
        max_bytes: the most it may hold (default ``ARENA_MAX_BODY_BYTES``).
        image_room: how much more it may hold in images' bytes (a body that may start a round):
            past ``max_bytes``, only images may take the room, so a body of text alone keeps
            the limit.

    Raises:
        ArenaError: 415 ``unsupported_media_type`` for a non-JSON ``Content-Type``; 413
            ``too_large`` past ``max_bytes`` (with what is not images).
        InvalidRequest: the body is not JSON.
    """
    if max_bytes is None:
        services = opened_services(request.app)
        max_bytes = services.settings.max_body_bytes if services else MAX_BODY_BYTES
    content_type = request.headers.get("content-type")
    if not _is_json(content_type):
        raise ArenaError(
            f"Content-Type must be application/json, not {content_type}",
            status=415,
            code="unsupported_media_type",
        )
    most = max_bytes + image_room
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > most:
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > most:
            raise _too_large()
    try:
        parsed = parse_json(body)
    except TooDeep as exc:
        if len(body) > max_bytes:
            raise _too_large() from None
        raise InvalidRequest(str(exc), code="invalid_json", details={"body": [str(exc)]}) from None
    except ValueError:  # UnicodeDecodeError is one too
        if len(body) > max_bytes:
            raise _too_large() from None
        raise InvalidRequest("Invalid JSON body", details={"body": ["not valid JSON"]}) from None
    if len(body) > max_bytes and len(body) - image_payload_chars(parsed) > max_bytes:
        raise _too_large()
    return parsed


def uuid_param(request: Request, name: str) -> uuid.UUID:
    raw = request.path_params[name]
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise InvalidRequest(
            f"{name} must be a UUID", details={name: ["not a valid UUID"]}
        ) from None


async def read_object(request: Request, *, max_bytes: int | None = None) -> dict[str, Any]:
    """The request's JSON body, which must be an object.

    Raises:
        InvalidRequest: it is another JSON value; and what ``read_json`` raises.
    """
    body = await read_json(request, max_bytes=max_bytes)
    if not isinstance(body, dict):
        raise InvalidRequest("The body must be a JSON object")
    return body


# -- the services -------------------------------------------------------------------------------


def attach_services(app: Any, services: Services) -> None:
    """Give ``app`` (the API's Starlette app) the services its lifespan opened."""
    app.state.services = services


def detach_services(app: Any) -> None:
    """The services of ``app`` are closing: requests find none from now on."""
    with contextlib.suppress(AttributeError):
        del app.state.services


def opened_services(app: Any) -> Services | None:
    """The services of ``app`` (an ASGI scope's ``app``), or ``None`` while it is starting."""
    services = getattr(getattr(app, "state", None), "services", None)
    return services if isinstance(services, Services) else None


def services_of(connection: HTTPConnection) -> Services:
    """The services of the app a request or a socket reached.

    Raises:
        RuntimeError: the app's lifespan has not opened them (a server still starting).
    """
    services = opened_services(connection.app)
    if services is None:
        raise RuntimeError("the services are not open: the app's lifespan has not started")
    return services
