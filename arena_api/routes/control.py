"""``GET /api/arena/control``: the WebSocket control plane (stop and steer a live matchup).

Messages are JSON both ways. A malformed frame gets an error frame; the socket stays open, so a
misbehaving client never disturbs anything but itself.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena_api.routes._request import parse_json, services_of
from arena_api.services import ArenaService

__all__ = ["MAX_FRAME_CHARS", "routes"]

MAX_FRAME_CHARS = 16_384
MAX_INSTRUCTION_CHARS = 4_000
_INVALID_JSON = {"type": "error", "message": "Invalid JSON control message"}
_MALFORMED = {"type": "error", "message": "Unknown or malformed control message"}
_TOO_LARGE = {"type": "error", "message": f"Control message over {MAX_FRAME_CHARS} characters"}


def _parse(message: Any) -> tuple[str, uuid.UUID, str | None, str | None] | None:
    """(type, matchup id, token, instruction) of a well-formed message, else ``None``."""
    if not isinstance(message, dict) or message.get("type") not in ("stop", "steer"):
        return None
    try:
        matchup_id = uuid.UUID(str(message.get("matchupId")))
    except ValueError:
        return None
    token = message.get("matchupToken")
    if token is not None and not isinstance(token, str):
        return None
    instruction = message.get("instruction")
    if message["type"] == "steer" and (
        not isinstance(instruction, str)
        or not instruction.strip()
        or len(instruction) > MAX_INSTRUCTION_CHARS
    ):
        return None
    return message["type"], matchup_id, token, instruction


async def _reply(arena: ArenaService, text: str) -> dict[str, Any]:
    if len(text) > MAX_FRAME_CHARS:
        return _TOO_LARGE
    try:
        message = parse_json(text)
    except ValueError:  # TooDeep included
        return _INVALID_JSON
    parsed = _parse(message)
    if parsed is None:
        return _MALFORMED
    kind, matchup_id, token, instruction = parsed
    if kind == "stop":
        outcome = await arena.stop(matchup_id, token)
        reply: dict[str, Any] = {"type": "stopped", "matchupId": str(matchup_id), "ok": outcome.ok}
    else:
        assert instruction is not None
        outcome = await arena.steer(matchup_id, instruction.strip(), token)
        reply = {"type": "steer_ack", "matchupId": str(matchup_id), "accepted": outcome.ok}
    if outcome.reason is not None:
        reply["reason"] = outcome.reason
    if outcome.code is not None:
        reply["code"] = outcome.code
    return reply


async def control(websocket: WebSocket) -> None:
    arena = services_of(websocket).arena
    await websocket.accept()
    try:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                return
            text = frame.get("text")
            if text is None:
                raw = frame.get("bytes") or b""
                text = raw.decode("utf-8", errors="replace") if len(raw) <= MAX_FRAME_CHARS else ""
                if len(raw) > MAX_FRAME_CHARS:
                    await websocket.send_json(_TOO_LARGE)
                    continue
            await websocket.send_json(await _reply(arena, text))
    except WebSocketDisconnect:
        return


routes: list[BaseRoute] = [WebSocketRoute("/api/arena/control", control, name="control")]
