"""Real JavaScript clients against a real server: ``@ag-ui/client``'s ``HttpAgent`` (run
verifier on), the AI SDK's ``Chat`` + ``DefaultChatTransport`` in the v5 line and the current
line, and ``@a2ui/web_core``'s v0.9 JSON schemas and ``MessageProcessor``.

The scripts live in ``e2e/clients/`` with their own ``package.json`` and ``package-lock.json``;
``npm ci`` installs them when ``node_modules`` is missing or older than the lock file. Each
script prints one JSON verdict, which these tests assert.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.protocols._faults import (
    HEALTHY_TEXT,
    failing_vendor,
    responses_table_away,
)
from tests.support import ROOT, npm_ci

CLIENTS = ROOT / "e2e" / "clients"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None,
    reason="NODE IS NOT INSTALLED: the real-client conformance tests of AG-UI, the AI SDK and "
    "A2UI did not run. Install Node.js 20+ and npm to run them.",
)

#: (script, extra job fields) per client library.
CLIENT_RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "ag-ui-client": ("ag_ui.mjs", {}),
    "ai-sdk-current": ("vercel_ai.mjs", {"line": "ai"}),
    "ai-sdk-v5": ("vercel_ai.mjs", {"line": "ai-v5"}),
    "a2ui-web-core": ("a2ui.mjs", {}),
}


#: What each client reports when the round fails after streaming began.
RUN_ERROR_VERDICTS: dict[str, dict[str, Any]] = {
    "ag-ui-client": {"code": "stream_failed", "message": "The round failed"},
    "ai-sdk-current": {"status": "error", "error": "The round failed"},
    "ai-sdk-v5": {"status": "error", "error": "The round failed"},
    "a2ui-web-core": {"v09Statuses": ["failed", "failed"], "flatTerminal": "error:stream_failed"},
}


@pytest.fixture(scope="session")
def node_clients() -> Path:
    """``e2e/clients`` with its locked dependencies installed (``npm ci`` when stale)."""
    return npm_ci(CLIENTS)


def _run(clients: Path, client: str, arena: Arena, scenario: str) -> dict[str, Any]:
    script, extra = CLIENT_RUNS[client]
    job = json.dumps({"base": arena.url, "scenario": scenario, **extra})
    assert NODE is not None
    done = subprocess.run(
        [NODE, script, job], cwd=clients, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    verdict: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert verdict.pop("ok") is True, verdict.get("error")
    return verdict


@contextlib.asynccontextmanager
async def _server(
    db: AsyncEngine, database_url: str, tmp_path: Path, scenario: str
) -> AsyncIterator[Arena]:
    if scenario == "slot-failure":
        with failing_vendor() as (roster, env):
            async with serve_arena(db, database_url, tmp_path, roster=roster, **env) as arena:
                yield arena
    else:
        async with serve_arena(db, database_url, tmp_path) as arena:
            if scenario == "run-error":
                async with responses_table_away(db):
                    yield arena
            else:
                yield arena


@pytest.mark.parametrize("client", list(CLIENT_RUNS))
async def test_a_first_turn_a_vote_and_a_follow_up_turn(
    node_clients: Path, db: AsyncEngine, database_url: str, tmp_path: Path, client: str
) -> None:
    async with _server(db, database_url, tmp_path, "turns") as arena:
        verdict = _run(node_clients, client, arena, "turns")

    assert verdict["turnIndexes"] == [0, 1] and verdict["sameConversation"] is True
    assert all(text.startswith("[#") for text in verdict["texts"].values())
    assert set(verdict["texts"]) == {"A", "B"}


@pytest.mark.parametrize("client", list(CLIENT_RUNS))
async def test_a_slot_failure_is_reported_and_the_other_slot_completes(
    node_clients: Path, db: AsyncEngine, database_url: str, tmp_path: Path, client: str
) -> None:
    async with _server(db, database_url, tmp_path, "slot-failure") as arena:
        verdict = _run(node_clients, client, arena, "slot-failure")

    healthy = "B" if verdict["failedSlot"] == "A" else "A"
    assert verdict["texts"][healthy] == HEALTHY_TEXT


@pytest.mark.parametrize("client", list(CLIENT_RUNS))
async def test_a_round_failing_mid_stream_settles_the_client_in_error(
    node_clients: Path, db: AsyncEngine, database_url: str, tmp_path: Path, client: str
) -> None:
    async with _server(db, database_url, tmp_path, "run-error") as arena:
        verdict = _run(node_clients, client, arena, "run-error")

    assert verdict == RUN_ERROR_VERDICTS[client]


@pytest.mark.parametrize("client", ["ag-ui-client", "ai-sdk-current", "ai-sdk-v5"])
async def test_an_image_the_client_attaches_reaches_both_vision_models(
    node_clients: Path, db: AsyncEngine, database_url: str, tmp_path: Path, client: str
) -> None:
    """AG-UI's 1.0 image part (a ``DataSource``), the AI SDK's ``sendMessage({text, files})``
    file part: sent by the libraries themselves, answered by both mock vision models."""
    async with _server(db, database_url, tmp_path, "image") as arena:
        verdict = _run(node_clients, client, arena, "image")
        stored = await arena.scalar("SELECT count(*) FROM turn_images")

    assert set(verdict["texts"]) == {"A", "B"}
    assert all("I see 1 image: 1. PNG 2x2" in t for t in verdict["texts"].values()), verdict
    assert stored == 1
    if client != "ag-ui-client":
        assert verdict["sentParts"] == ["file", "text"]
