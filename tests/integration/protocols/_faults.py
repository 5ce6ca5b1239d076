"""Ways to make a round fail for real, for the failure cases of every protocol.

* ``failing_vendor``: a roster of two models behind a loopback OpenAI-format server, the second
  of which answers 500, so one slot fails and the other completes.
* ``responses_table_away``: the ``responses`` table renamed for the duration, so the round starts
  (its rows are written at the start) and then fails when the first answer is persisted. That
  is a real database failure after streaming began: the server emits ``run_error``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.roster import Roster
from tests.fakes._recording import Recorder
from tests.fakes.openai_server import OK_TOKENS, create_app
from tests.integration.arena_harness import roster_of
from tests.support import ServerThread, free_port

__all__ = ["HEALTHY_TEXT", "failing_vendor", "responses_table_away"]

HEALTHY_TEXT = "".join(OK_TOKENS)


@contextlib.contextmanager
def failing_vendor() -> Iterator[tuple[Roster, dict[str, Any]]]:
    """(roster, serve_arena keyword arguments) of a round where one slot fails before a token."""
    roster = roster_of(
        ("Healthy", "openai", "healthy--ok"), ("Flaky", "openai", "flaky--server-error")
    )
    with ServerThread(create_app(Recorder()), free_port()) as vendor:
        yield (
            roster,
            {
                "OPENAI_BASE_URL": f"{vendor.url}/v1",
                "OPENAI_API_KEY": "sk-test",
                "ARENA_SLOT_TIMEOUT_S": "5",
                "ARENA_MOCK_PROVIDER": "0",
            },
        )


@contextlib.asynccontextmanager
async def responses_table_away(engine: AsyncEngine) -> AsyncIterator[None]:
    async with engine.begin() as conn:
        await conn.execute(text("ALTER TABLE responses RENAME TO responses_away"))
    try:
        yield
    finally:
        async with engine.begin() as conn:
            await conn.execute(text("ALTER TABLE responses_away RENAME TO responses"))
