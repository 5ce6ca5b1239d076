"""Reading request bodies and parameters at the edge, with the API's error shape."""

from __future__ import annotations

import json
import uuid
from typing import Any

from starlette.requests import Request

from arena_api.core.errors import ArenaError, InvalidRequest

__all__ = ["MAX_BODY_BYTES", "read_json", "uuid_param"]

MAX_BODY_BYTES = 1_000_000


async def read_json(request: Request) -> Any:
    """The request's JSON body.

    Raises:
        InvalidRequest: the body is not JSON.
        ArenaError: 413 ``too_large`` past ``MAX_BODY_BYTES``.
    """
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise ArenaError("Request body too large", status=413, code="too_large")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise ArenaError("Request body too large", status=413, code="too_large")
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise InvalidRequest("Invalid JSON body", details={"body": ["not valid JSON"]}) from None


def uuid_param(request: Request, name: str) -> uuid.UUID:
    raw = request.path_params[name]
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise InvalidRequest(
            f"{name} must be a UUID", details={name: ["not a valid UUID"]}
        ) from None
