"""Trigger x exposure: which requests become a matchup, a shadow round or a single answer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.bootstrap import build_arena
from arena_api.core.errors import RoundConfigError
from arena_api.core.ports import NoObserver
from arena_api.db.repository import PostgresRepository, create_pool, seed_roster
from arena_api.db.votes import PostgresVotes
from arena_api.providers import build_registry
from arena_api.roster import load_roster
from arena_api.services.votes import VoteRecorder
from tests.integration.arena_harness import serve_arena
from tests.support import ROOT, make_settings


async def test_manual_trigger_serves_a_single_round_unless_the_request_opts_in(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_TRIGGER": "manual", "ARENA_DEFAULT_MODEL": "Mock Cirrus"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        plain, plain_frames = await arena.chat()
        stored_after_single = await arena.scalar("SELECT count(*) FROM matchups")
        opted, opted_frames = await arena.chat(arena=True)
        header = await arena.client.post(
            "/api/arena/chat", json={"prompt": "hi"}, headers={"x-arena": "on"}
        )

    single = plain_frames[0][1]
    assert plain.status_code == 200
    assert single["mode"] == "single" and single["slots"] == ["A"] and single["votable"] is False
    assert not {"matchupToken", "conversationId", "turnIndex"} & single.keys()
    assert {d["slot"] for n, d in plain_frames if n == "token"} == {"A"}
    assert plain_frames[-1][0] == "matchup_done"
    assert stored_after_single == 0
    assert opted_frames[0][1]["mode"] == "matchup" and opted_frames[0][1]["votable"]
    assert '"mode":"matchup"' in header.headers["x-arena-matchup"]


@pytest.mark.parametrize(("rate", "mode"), [("0", "single"), ("1", "matchup")])
async def test_sampled_trigger_engages_at_the_sample_rate(
    db: AsyncEngine, database_url: str, tmp_path: Path, rate: str, mode: str
) -> None:
    env = {
        "ARENA_TRIGGER": "sampled",
        "ARENA_SAMPLE_RATE": rate,
        "ARENA_DEFAULT_MODEL": "mock-cirrus",
    }
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        modes = {(await arena.chat())[1][0][1]["mode"] for _ in range(5)}

    assert modes == {mode}


async def test_shadow_streams_the_incumbent_and_records_both(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_EXPOSURE": "shadow", "ARENA_DEFAULT_MODEL": "mock:mock-aurora"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        response, frames = await arena.chat(sessionId="s")
        for _ in range(50):
            if await arena.scalar("SELECT count(*) FROM responses") == 2:
                break
            await asyncio.sleep(0.05)
        matchup = (await arena.rows("SELECT * FROM matchups"))[0]
        incumbent = await arena.scalar(
            "SELECT id FROM models WHERE provider_model_id = 'mock-aurora'"
        )
        slots = await arena.rows("SELECT slot FROM responses ORDER BY slot")

    started = frames[0][1]
    assert started["mode"] == "shadow" and started["slots"] == ["A"]
    assert started["votable"] is False and "matchupToken" not in started
    assert {"conversationId", "turnIndex"} <= started.keys()
    assert {d.get("slot") for n, d in frames if n in ("token", "slot_done")} == {"A"}
    assert frames[-1][0] == "matchup_done"
    assert matchup.mode == "shadow" and matchup.slot_a_model_id == incumbent
    assert matchup.slot_b_model_id != incumbent
    assert [s.slot for s in slots] == ["A", "B"]


async def test_default_model_that_matches_nothing_fails_at_boot(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    await seed_roster(db, load_roster(ROOT / "models.yaml"))
    settings = make_settings(
        database_url,
        ARENA_TRIGGER="manual",
        ARENA_DEFAULT_MODEL="gpt-nonexistent",
        ARENA_DATA_DIR=str(tmp_path),
    )
    pool = await create_pool(database_url)
    async with httpx.AsyncClient() as http:
        arena = build_arena(
            settings,
            PostgresRepository(db, pool),
            votes=VoteRecorder(PostgresVotes(pool), NoObserver()),
            providers=build_registry(settings, http),
        )

        with pytest.raises(RoundConfigError) as caught:
            await arena.start()
    await pool.close()

    assert caught.value.code == "default_model_missing"
    assert "Mock Aurora" in caught.value.message


async def test_default_model_disabled_after_boot_is_a_500_default_model_missing(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_TRIGGER": "manual", "ARENA_DEFAULT_MODEL": "mock-cirrus"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        async with db.begin() as conn:
            await conn.execute(
                text("UPDATE models SET status = 'paused' WHERE provider_model_id = 'mock-cirrus'")
            )
        arena.service.roster_changed()  # as the roster's editors will say

        response, _ = await arena.chat()

    assert response.status_code == 500
    assert response.json()["code"] == "default_model_missing"
