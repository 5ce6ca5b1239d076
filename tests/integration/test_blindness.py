"""No identity reaches the wire before the vote: not in a header, not in a byte of the body."""

from __future__ import annotations

import base64
import itertools
import re
from pathlib import Path

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, serve_arena
from tests.support import parse_sse

PLANS = {
    "matchup": {},
    "single": {"ARENA_TRIGGER": "manual", "ARENA_DEFAULT_MODEL": "mock-cirrus"},
    "shadow": {"ARENA_EXPOSURE": "shadow", "ARENA_DEFAULT_MODEL": "Mock Aurora"},
    "sampled": {
        "ARENA_TRIGGER": "sampled",
        "ARENA_SAMPLE_RATE": "0.5",
        "ARENA_DEFAULT_MODEL": "mock:mock-borealis",
    },
}
CASES = [
    pytest.param(
        plan,
        session,
        follow_up,
        id=f"{plan}-{'session' if session else 'anon'}-{'turn1' if follow_up else 'turn0'}",
    )
    for plan, session, follow_up in itertools.product(PLANS, (True, False), (False, True))
]


async def _forbidden(arena: Arena) -> set[str]:
    rows = await arena.rows("SELECT id, display_name, provider, provider_model_id FROM models")
    words: set[str] = set()
    for row in rows:
        words |= {str(row.id), row.id.hex, row.display_name, row.provider, row.provider_model_id}
    return words


def _wire(response: httpx.Response) -> str:
    """Headers and body, plus the decoded claims of any vote token in them (base64 hides ids)."""
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    wire = headers + "\n\n" + response.text
    for payload in re.findall(r'"matchupToken":\s*"([A-Za-z0-9_-]+)\.', wire):
        wire += "\n" + base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    return wire


@pytest.mark.parametrize(("plan", "session", "follow_up"), CASES)
async def test_no_identity_in_any_byte_of_a_chat_response(
    db: AsyncEngine, database_url: str, tmp_path: Path, plan: str, session: bool, follow_up: bool
) -> None:
    body: dict[str, object] = {"prompt": "Which model are you?"}
    if session:
        body["sessionId"] = "blind-session"
    async with serve_arena(db, database_url, tmp_path, **PLANS[plan]) as arena:
        forbidden = await _forbidden(arena)
        wires = []
        response = await arena.client.post("/api/arena/chat", json=body)
        wires.append(_wire(response))
        started = parse_sse(response.text)[0][1]
        if follow_up and started.get("matchupToken"):
            await arena.vote(started, "left")  # the reveal is allowed from here on ...
            follow = await arena.client.post(
                "/api/arena/chat",
                json={**body, "prompt": "And now?", "conversationId": started["conversationId"]},
            )
            wires = [_wire(follow)]  # ... so only the next round's bytes are checked
            matchup = parse_sse(follow.text)[0][1]["matchupId"]
            wires.append(_wire(await arena.client.get(f"/api/arena/matchups/{matchup}")))
        elif started.get("matchupToken"):
            wires.append(
                _wire(await arena.client.get(f"/api/arena/matchups/{started['matchupId']}"))
            )

    for wire in wires:
        leaked = {word for word in forbidden if word.lower() in wire.lower()}
        assert not leaked, f"identity leaked before the vote: {leaked}"
