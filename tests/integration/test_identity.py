"""Each stored answer says whether it named its own model: checked when it is stored."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fakes._recording import Recorder
from tests.fakes.openai_server import create_app
from tests.integration.arena_harness import roster_of, serve_arena
from tests.support import ServerThread, free_port


async def test_an_answer_that_names_its_model_is_marked_when_stored(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    # The fake answers "Hello from the fake.": the model named "The Fake" gives itself away.
    roster = roster_of(("The Fake", "openai", "alpha--ok"), ("Beta", "openai", "beta--ok"))
    with ServerThread(create_app(Recorder()), free_port()) as vendor:
        async with serve_arena(
            db,
            database_url,
            tmp_path,
            roster=roster,
            OPENAI_BASE_URL=f"{vendor.url}/v1",
            OPENAI_API_KEY="sk-test",
            ARENA_MOCK_PROVIDER="0",
        ) as arena:
            response, _ = await arena.chat()
            stored = await arena.rows(
                "SELECT m.display_name, r.names_itself FROM responses r "
                "JOIN models m ON m.id = r.model_id"
            )

    assert response.status_code == 200
    assert dict(stored) == {"The Fake": True, "Beta": False}
