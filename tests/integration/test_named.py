"""Named side-by-side rounds: two models a person picks, named from the start, votes kept out of
the blind rating unless the leaderboard is asked to include them."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_rating import RatingSettings, RatingWorker
from tests.integration.arena_harness import Arena, serve_arena


async def _models(arena: Arena) -> list[tuple[str, str]]:
    rows = await arena.rows(
        "SELECT id::text, display_name FROM models WHERE enabled ORDER BY display_name"
    )
    return [(r[0], r[1]) for r in rows]


async def _named(arena: Arena, a: str, b: str, vote: str | None = "left") -> dict[str, Any]:
    response, frames = await arena.chat(prompt="Compare", mode="named", models=[a, b])
    assert response.status_code == 200, response.text
    started = frames[0][1]
    if vote:
        assert (await arena.vote(started, vote)).status_code == 200
    return started


async def test_a_named_round_names_both_models_from_its_start_and_records_its_mode(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        (a, a_name), (b, b_name) = (await _models(arena))[:2]

        response, frames = await arena.chat(prompt="Compare", mode="named", models=[b, a])

        started = frames[0][1]
        stored = await arena.rows(
            "SELECT mode, slot_a_model_id::text, slot_b_model_id::text FROM matchups"
        )
        view = (await arena.client.get(f"/api/arena/matchups/{started['matchupId']}")).json()
        vote = await arena.vote(started, "right")

    assert response.status_code == 200
    assert started["mode"] == "named" and started["votable"] is True
    assert started["models"] == {
        "A": {"id": b, "displayName": b_name},
        "B": {"id": a, "displayName": a_name},
    }
    assert [e for e, _ in frames][-1] == "matchup_done"
    assert [tuple(r) for r in stored] == [("named", b, a)]
    assert view["mode"] == "named" and view["models"]["A"]["displayName"] == b_name
    assert vote.status_code == 200 and vote.json()["models"]["B"]["id"] == a


async def test_a_blind_round_still_names_nobody_before_its_vote(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        _, frames = await arena.chat(prompt="Blind as ever")
        stored = await arena.scalar("SELECT mode FROM matchups")

    assert "models" not in frames[0][1] and frames[0][1]["mode"] == "matchup"
    assert stored == "blind"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"mode": "named"}, "models"),
        ({"models": ["x", "y"]}, "models"),
        ({"mode": "named", "models": ["same", "same"]}, "models"),
        ({"mode": "named", "models": ["only-one"]}, "models"),
        ({"mode": "sideways"}, "mode"),
    ],
)
async def test_a_malformed_named_request_is_a_400_that_stores_nothing(
    db: AsyncEngine, database_url: str, tmp_path: Path, body: dict[str, Any], field: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response, _ = await arena.chat(**body)
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"
    assert {key.split(".")[0] for key in response.json()["details"]} == {field}
    assert stored == 0


async def test_an_unknown_model_is_a_400_and_a_paused_one_a_409_naming_it(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        (a, _), (b, b_name) = (await _models(arena))[:2]
        async with db.begin() as conn:
            await conn.execute(text("UPDATE models SET status = 'paused' WHERE id = :b"), {"b": b})
        arena.service.roster_changed()
        ghost = str(uuid.uuid4())

        response, _ = await arena.chat(mode="named", models=[a, ghost])
        paused, _ = await arena.chat(mode="named", models=[a, b])
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    assert response.status_code == 400
    assert response.json()["details"]["models"] == [f"no enabled model has the id '{ghost}'"]
    assert paused.status_code == 409 and paused.json()["code"] == "model_paused"
    assert paused.json()["details"]["models"] == [f"{b_name!r} ({b}) is paused"]
    assert stored == 0


async def test_named_votes_stay_out_of_the_blind_rating_unless_the_board_includes_them(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        models = await _models(arena)
        (a, _), (b, _), (c, _) = models[:3]
        for _ in range(3):
            started = await _named(arena, a, b, vote=None)
            assert (await arena.vote(started, "left")).status_code == 200
        for _ in range(4):
            _, frames = await arena.chat(prompt="blind")
            assert (await arena.vote(frames[0][1], "left")).status_code == 200
        blind_games = await arena.scalar(
            "SELECT count(*) FROM preferences p JOIN matchups m ON m.id = p.matchup_id "
            "WHERE m.mode = 'blind'"
        )

        report = await RatingWorker(db, RatingSettings()).run_pass()

        blind = (await arena.client.get("/api/arena/leaderboard")).json()
        with_named = (await arena.client.get("/api/arena/leaderboard?include=named")).json()
        bad = await arena.client.get("/api/arena/leaderboard?include=everything")

    assert report.status == "rated" and report.votes == blind_games == 4
    assert blind["namedVotes"] == "excluded" and with_named["namedVotes"] == "included"
    games = {m["id"]: m["games"] or 0 for m in blind["models"]}
    games_with_named = {m["id"]: m["games"] or 0 for m in with_named["models"]}
    assert sum(games.values()) == 2 * 4
    assert sum(games_with_named.values()) == 2 * 7
    assert games_with_named[a] - games.get(a, 0) == 3 and games_with_named[b] - games.get(b, 0) == 3
    assert c in games  # every enabled model is listed either way
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"
