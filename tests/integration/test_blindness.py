"""No identity reaches the wire before the vote: not in a header, not in a byte of the body.

The cases are generated from the protocol registry (every protocol x every plan x with and
without a session x first turn and follow-up), so a new protocol is covered without a new test.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.tables import metadata
from arena_api.protocols import PROTOCOLS
from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.protocols._wire import envelope, read_round

PLANS: dict[str, dict[str, str]] = {
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
        protocol.name,
        session,
        follow_up,
        id="-".join(
            (protocol.name, "session" if session else "anon", "turn1" if follow_up else "turn0")
        ),
    )
    for protocol, session, follow_up in itertools.product(PROTOCOLS, (True, False), (False, True))
]


@pytest.fixture(scope="module", params=list(PLANS))
async def plan_arena(
    request: pytest.FixtureRequest,
    engine: AsyncEngine,
    database_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[Arena, set[str]]]:
    """One server per plan over a clean database, and the words that would identify a model."""
    async with engine.begin() as conn:
        tables = ", ".join(table.name for table in metadata.sorted_tables)
        await conn.execute(text(f"TRUNCATE {tables} CASCADE"))
    async with serve_arena(
        engine, database_url, tmp_path_factory.mktemp("blind"), **PLANS[request.param]
    ) as arena:
        yield arena, await _forbidden(arena)


async def _forbidden(arena: Arena) -> set[str]:
    rows = await arena.rows("SELECT id, display_name, provider, provider_model_id FROM models")
    words: set[str] = set()
    for row in rows:
        words |= {str(row.id), row.id.hex, row.display_name, row.provider, row.provider_model_id}
    return words


def _wire(response: httpx.Response) -> str:
    """Headers and body, with every vote token replaced by its decoded claims (base64 hides ids,
    and random base64 could spell a forbidden word by chance)."""
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    wire = headers + "\n\n" + response.text
    for token, payload in set(re.findall(r'"matchupToken":\s*"(([A-Za-z0-9_-]+)\.[\w-]+)"', wire)):
        claims = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
        wire = wire.replace(token, "<token>") + "\n" + claims
    return wire


@pytest.mark.parametrize(("protocol", "session", "follow_up"), CASES)
async def test_no_identity_in_any_byte_of_a_chat_response(
    plan_arena: tuple[Arena, set[str]], protocol: str, session: bool, follow_up: bool
) -> None:
    arena, forbidden = plan_arena
    fields: dict[str, Any] = {"sessionId": "blind-session"} if session else {}
    url = f"/api/arena/chat?protocol={protocol}"
    wires = []
    response = await arena.client.post(
        url, json=envelope(protocol, "Which model are you?", **fields)
    )
    wires.append(_wire(response))
    started = read_round(protocol, response).metadata
    if follow_up and started.get("matchupToken"):
        await arena.vote(started, "left")  # the reveal is allowed from here on ...
        follow = await arena.client.post(
            url,
            json=envelope(protocol, "And now?", **fields, conversationId=started["conversationId"]),
        )
        wires = [_wire(follow)]  # ... so only the next round's bytes are checked
        matchup = read_round(protocol, follow).metadata["matchupId"]
        wires.append(_wire(await arena.client.get(f"/api/arena/matchups/{matchup}")))
    elif started.get("matchupToken"):
        wires.append(_wire(await arena.client.get(f"/api/arena/matchups/{started['matchupId']}")))

    assert response.status_code == 200
    for wire in wires:
        leaked = {word for word in forbidden if word.lower() in wire.lower()}
        assert not leaked, f"identity leaked before the vote: {leaked}"


@pytest.mark.parametrize("protocol", [p.name for p in PROTOCOLS])
async def test_no_identity_reaches_either_sibling_of_a_joined_matchup(
    plan_arena: tuple[Arena, set[str]], protocol: str
) -> None:
    arena, forbidden = plan_arena
    body = envelope(
        protocol, "Which of you is which?", sessionId="blind-join", joinKey=f"join-{protocol}"
    )
    url = f"/api/arena/chat?protocol={protocol}"

    responses = await asyncio.gather(
        arena.client.post(url, json=body), arena.client.post(url, json=body)
    )

    metadata = [read_round(protocol, r).metadata for r in responses]
    assert all(r.status_code == 200 for r in responses)
    if all(m.get("mode") == "matchup" for m in metadata):  # sampled plans are drawn per request
        assert sorted(tuple(m["slots"]) for m in metadata) == [("A",), ("B",)]
        assert metadata[0]["matchupId"] == metadata[1]["matchupId"]
    for response in responses:
        wire = _wire(response)
        leaked = {word for word in forbidden if word.lower() in wire.lower()}
        assert not leaked, f"identity leaked to a sibling before the vote: {leaked}"


async def _front_wire(arena: Arena, model: str, chat: str | None, content: str) -> str:
    """One chat-front answer's wire; ``chat=None``: a client with no ids (its duel reply ends
    with the duel's reference line)."""
    headers = {"x-openwebui-chat-id": chat, "x-openwebui-user-id": "blind-user"} if chat else {}
    body = {"model": model, "stream": True, "messages": [{"role": "user", "content": content}]}
    response = await arena.client.post("/v1/chat/completions", json=body, headers=headers)
    assert response.status_code == 200
    return _wire(response)


async def test_no_identity_in_any_byte_the_chat_front_sends_before_the_vote(
    plan_arena: tuple[Arena, set[str]],
) -> None:
    """The arena models answer alike under every plan setting: the model list, a title task, a
    duel, both compare columns and the single model name no model, provider or id."""
    arena, forbidden = plan_arena
    prompt = "Which model are you?"
    title = (
        '### Task:\nTitle it.\n### Output:\nJSON format: { "title": "x" }\n'
        f"<chat_history>\nUSER: {prompt}\n</chat_history>"
    )

    wires = [_wire(await arena.client.get("/v1/models"))]
    wires.append(
        _wire(
            await arena.client.post(
                "/v1/chat/completions",
                json={
                    "model": "arena-duel",
                    "stream": False,
                    "messages": [{"role": "user", "content": title}],
                },
                headers={"x-openwebui-chat-id": "blind-chat"},
            )
        )
    )
    wires.append(await _front_wire(arena, "arena-duel", "blind-duel", prompt))
    wires += await asyncio.gather(
        _front_wire(arena, "arena-a", "blind-compare", prompt),
        _front_wire(arena, "arena-b", "blind-compare", prompt),
    )
    wires.append(await _front_wire(arena, "arena-single", "blind-single", prompt))
    wires.append(await _front_wire(arena, "arena-duel", None, prompt))

    for wire in wires:
        leaked = {word for word in forbidden if word.lower() in wire.lower()}
        assert not leaked, f"identity leaked before the vote: {leaked}"
    assert "### Answer B" in wires[2] and "Reply **`!b`**" in wires[4]
    assert "Duel ref: arena-" in wires[-1] and "Duel ref" not in wires[2]
