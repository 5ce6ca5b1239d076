"""A failing model endpoint fails only its own slot, end to end through the chat route.

The second model is served by a loopback server speaking OpenAI's real wire format.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fakes._recording import Recorder
from tests.fakes.openai_server import create_app
from tests.integration.arena_harness import roster_of, serve_arena
from tests.support import ServerThread, free_port


@pytest.mark.parametrize(
    ("behaviour", "partial"),
    [
        pytest.param("server-error", False, id="fails-before-first-token"),
        pytest.param("rate-limited", False, id="rate-limited"),
        pytest.param("disconnect", True, id="breaks-off-mid-stream"),
        pytest.param("stall", True, id="stalls-past-the-slot-timeout"),
    ],
)
async def test_failing_endpoint_fails_its_slot_and_the_other_slot_completes(
    db: AsyncEngine, database_url: str, tmp_path: Path, behaviour: str, partial: bool
) -> None:
    roster = roster_of(
        ("Healthy", "openai", "healthy--ok"), ("Flaky", "openai", f"flaky--{behaviour}")
    )
    with ServerThread(create_app(Recorder()), free_port()) as vendor:
        async with serve_arena(
            db,
            database_url,
            tmp_path,
            roster=roster,
            OPENAI_BASE_URL=f"{vendor.url}/v1",
            OPENAI_API_KEY="sk-test",
            ARENA_SLOT_TIMEOUT_S="1",
            ARENA_MOCK_PROVIDER="0",
        ) as arena:
            response, frames = await asyncio.wait_for(arena.chat(), timeout=20)
            rows = {
                r.provider_model_id: r
                for r in await arena.rows(
                    "SELECT m.provider_model_id, r.slot, r.content, r.error FROM responses r "
                    "JOIN models m ON m.id = r.model_id"
                )
            }

    flaky, healthy = rows[f"flaky--{behaviour}"], rows["healthy--ok"]
    errors = [d for n, d in frames if n == "slot_error"]
    assert response.status_code == 200 and frames[-1][0] == "matchup_done"
    assert [e["slot"] for e in errors] == [flaky.slot]
    assert "flaky" not in errors[0]["message"].lower() and "openai" not in errors[0]["message"]
    assert sorted(d["slot"] for n, d in frames if n == "slot_done") == ["A", "B"]
    assert healthy.error is None and healthy.content == "Hello from the fake."
    assert flaky.error and bool(flaky.content) is partial
