"""The circuit breaker through real rounds: a model whose provider cannot be reached is paused
after its failures, shown as paused by /health, /metrics and the leaderboard, drawn no more;
with too few models left a round is a 503 ``models_paused`` that says when to try again."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, roster_of, serve_arena
from tests.integration.test_alert_webhook import Receiver, receiving, until
from tests.support import free_port

BROKEN = "Broken Model"


def _env() -> dict[str, str]:
    """A model whose OpenAI-compatible endpoint refuses every connection (nothing listens)."""
    return {
        "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
        "OPENAI_API_KEY": "sk-test",
        "ARENA_PROVIDER_RETRIES": "0",
        "ARENA_BREAKER_FAILURES": "2",
        "ARENA_BREAKER_WINDOW": "3",
        "ARENA_BREAKER_COOLDOWN_S": "120",
    }


async def _play_until_paused(arena: Arena, rounds: int = 40) -> list[list[str]]:
    """Blind rounds until the broken model was drawn twice; each round's error codes."""
    errors: list[list[str]] = []
    for _ in range(rounds):
        answer, frames = await arena.chat()
        assert answer.status_code == 200, answer.text
        codes = [p.get("code", "") for kind, p in frames if kind == "slot_error"]
        errors.append(codes)
        if sum(bool(c) for c in errors) == 2:
            return errors
    pytest.fail("the broken model was never drawn twice")


async def test_a_model_that_keeps_failing_is_paused_and_shown_as_paused(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    roster = roster_of(
        ("Mock Aurora", "mock", "mock-aurora"),
        ("Mock Borealis", "mock", "mock-borealis"),
        (BROKEN, "openai", "gpt-unreachable"),
    )
    receiver = Receiver()
    with receiving(receiver) as hook:
        env = {**_env(), "ARENA_ALERT_WEBHOOK_URL": hook}
        async with serve_arena(db, database_url, tmp_path, roster=roster, **env) as arena:
            errors = await _play_until_paused(arena)
            health = (await arena.client.get("/health")).json()
            metrics = (await arena.client.get("/metrics")).text
            board = (await arena.client.get("/api/arena/leaderboard")).json()
            later = [await arena.chat() for _ in range(6)]
            await until(lambda: "model_paused" in receiver.events())

    assert [c for c in errors if c] == [["provider_unreachable"]] * 2
    assert health["models"] == {"usable": 3, "paused": [BROKEN]}
    assert f'arena_model_paused{{model="{BROKEN}"}} 1.0' in metrics
    paused = {m["displayName"]: m["paused"] for m in board["models"]}
    assert paused == {"Mock Aurora": False, "Mock Borealis": False, BROKEN: True}
    # No round draws it any more: the two others play every one.
    assert all(a.status_code == 200 for a, _ in later)
    assert all(not [f for f in frames if f[0] == "slot_error"] for _, frames in later)
    alert = receiver.posts[receiver.events().index("model_paused")]
    assert alert["subject"] == BROKEN
    assert alert["details"] == {"failures": 2, "window": 3, "cooldown_s": 120.0}


async def test_too_few_models_left_is_a_503_models_paused(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    roster = roster_of(("Mock Aurora", "mock", "mock-aurora"), (BROKEN, "openai", "gpt-x"))
    async with serve_arena(db, database_url, tmp_path, roster=roster, **_env()) as arena:
        await _play_until_paused(arena)
        refused, _ = await arena.chat()

    assert refused.status_code == 503
    assert refused.json()["code"] == "models_paused"
    assert 1 <= int(refused.headers["retry-after"]) <= 120
    assert "paused after failing repeatedly" in refused.json()["error"]
