"""A model's lifecycle end to end: paused and archived models keep their history on the board,
marked, and are never matched; naming one is a 409 that stores nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.lifecycle import ModelStatus
from arena_api.db.repository import seed_roster
from arena_api.roster import Roster, RosterModel
from arena_rating import RatingSettings, RatingWorker
from tests.integration.arena_harness import Arena, serve_arena


def _roster(*entries: tuple[str, str, ModelStatus]) -> Roster:
    """A roster of mock models: (display name, provider model id, status)."""
    return Roster(
        models=tuple(
            RosterModel(display_name=name, provider="mock", provider_model_id=pmid, status=status)
            for name, pmid, status in entries
        )
    )


async def _blind_votes_until(arena: Arena, games: int, *names: str) -> set[str]:
    """Blind rounds, each voted ``left``, until each of ``names`` has played ``games`` of them;
    returns every model drawn."""
    played = dict.fromkeys(names, 0)
    drawn: set[str] = set()
    for _ in range(80):
        response, frames = await arena.chat(prompt="Compare")
        assert response.status_code == 200, response.text
        vote = await arena.vote(frames[0][1], "left")
        assert vote.status_code == 200, vote.text
        pair = {m["displayName"] for m in vote.json()["models"].values()}
        drawn |= pair
        for name in pair & played.keys():
            played[name] += 1
        if min(played.values()) >= games:
            return drawn
    raise AssertionError(f"too few games in 80 rounds: {played}")


def _text(response: Any) -> str:
    assert response.status_code == 200, response.text
    chunks = [
        json.loads(line[6:])
        for line in response.text.splitlines()
        if line.startswith("data: ") and line != "data: [DONE]"
    ]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


async def test_the_board_keeps_archived_and_paused_models_with_votes_and_marks_them(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    at_start = _roster(
        ("Mock Aurora", "mock-aurora", "active"),
        ("Mock Borealis", "mock-borealis", "active"),
        ("Mock Cirrus", "mock-cirrus", "active"),
        ("Mock Dune Mini", "mock-dune-mini", "paused"),
    )
    async with serve_arena(db, database_url, tmp_path, roster=at_start) as arena:
        # Every active model plays (two Borealis–Cirrus rounds alone would leave Aurora out).
        drawn = await _blind_votes_until(arena, 2, "Mock Aurora", "Mock Borealis", "Mock Cirrus")
        # Borealis leaves the file (archived), Cirrus is paused, Dune Mini stays paused.
        seeded = await seed_roster(
            db,
            _roster(
                ("Mock Aurora", "mock-aurora", "active"),
                ("Mock Cirrus", "mock-cirrus", "paused"),
                ("Mock Dune Mini", "mock-dune-mini", "paused"),
            ),
        )
        arena.service.roster_changed()
        report = await RatingWorker(db, RatingSettings()).run_pass()

        board = (await arena.client.get("/api/arena/leaderboard")).json()
        judged = (await arena.client.get("/api/arena/leaderboard?votes=judge")).json()
        summary = (await arena.client.get("/api/arena/analytics/summary")).json()
        metrics = (await arena.client.get("/api/arena/analytics/model-metrics")).json()
        standings = _text(
            await arena.client.post(
                "/v1/chat/completions",
                json={
                    "stream": True,
                    "model": "arena-duel",
                    "messages": [{"role": "user", "content": "!leaderboard"}],
                },
            )
        )

    assert drawn == {"Mock Aurora", "Mock Borealis", "Mock Cirrus"}  # never the paused one
    assert seeded.archived == 1 and report.status == "rated"
    rows = {row["displayName"]: row for row in board["models"]}
    assert {name: row["status"] for name, row in rows.items()} == {
        "Mock Aurora": "active",
        "Mock Borealis": "archived",
        "Mock Cirrus": "paused",
    }  # the paused Dune Mini never played: nothing to show
    for name in ("Mock Borealis", "Mock Cirrus"):
        assert rows[name]["totalVotes"] >= 2 and rows[name]["rating"] is not None
        assert rows[name]["paused"] is False  # the circuit breaker's mark is another thing
    # No judge voted: the paused and archived models have nothing on that board.
    assert [row["displayName"] for row in judged["models"]] == ["Mock Aurora"]
    # Coverage counts the pairs the matchmaker can still fill: active models only.
    assert (summary["enabledModels"], summary["pairsPossible"]) == (1, 0)
    assert summary["pairsSampled"] >= 2 and summary["enabledPairsSampled"] == 0
    assert sorted(r["displayName"] for r in metrics["models"]) == sorted(rows)
    assert "| Mock Borealis (archived) " in standings
    assert "| Mock Cirrus (paused) " in standings
    assert "; paused: not matched for now; archived: no longer in the roster, history kept" in (
        standings
    )


def _five_models() -> Roster:
    return _roster(
        ("Mock Aurora", "mock-aurora", "active"),
        ("Mock Borealis", "mock-borealis", "active"),
        ("Mock Cirrus", "mock-cirrus", "active"),
        ("Mock Dune Mini", "mock-dune-mini", "paused"),
        ("Mock Eos", "mock-eos", "active"),
    )


def _without_eos() -> Roster:
    """The five models with Eos gone from the file (so archived)."""
    return Roster(models=_five_models().models[:4])


async def test_blind_rounds_never_draw_a_paused_or_archived_model(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    await seed_roster(db, _five_models())
    async with serve_arena(db, database_url, tmp_path, roster=_without_eos()) as arena:
        for _ in range(60):
            response, _ = await arena.chat(prompt="Anything")
            assert response.status_code == 200, response.text
        drawn = await arena.rows(
            "SELECT m.display_name, count(*) FROM matchups x JOIN models m "
            "ON m.id IN (x.model_a_id, x.model_b_id) GROUP BY 1 ORDER BY 1"
        )
        statuses = await arena.rows("SELECT display_name, status FROM models ORDER BY 1")

    # The matchmaker favours the least-played pairs, and the held-back models have played none:
    # still, 60 rounds draw only the three active models.
    assert [name for name, _ in drawn] == ["Mock Aurora", "Mock Borealis", "Mock Cirrus"]
    assert sum(count for _, count in drawn) == 120
    assert dict(statuses) == {
        "Mock Aurora": "active",
        "Mock Borealis": "active",
        "Mock Cirrus": "active",
        "Mock Dune Mini": "paused",
        "Mock Eos": "archived",
    }


async def test_naming_a_paused_or_archived_model_is_a_409_that_stores_nothing(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "pair.yaml").write_text(
        "name: pair\nmodels: [Mock Dune Mini, Mock Aurora]\nprompts:\n  - prompt: Say hello.\n"
    )
    await seed_roster(db, _five_models())
    async with serve_arena(
        db,
        database_url,
        tmp_path,
        roster=_without_eos(),
        ARENA_OPENAI_MODELS="both",
        ARENA_SUITES_DIR=str(suites),
    ) as arena:
        ids = dict(await arena.rows("SELECT display_name, id::text FROM models"))
        aurora, dune, eos = ids["Mock Aurora"], ids["Mock Dune Mini"], ids["Mock Eos"]

        archived, _ = await arena.chat(mode="named", models=[aurora, eos])
        paused, _ = await arena.chat(mode="named", models=[dune, aurora])
        suite = await arena.client.post("/api/suites/pair/run")
        openai = await arena.client.post(
            "/v1/chat/completions",
            json={
                "stream": True,
                "model": "Mock Eos",
                "messages": [{"role": "user", "content": "hi"}],
            },
        )
        listed = (await arena.client.get("/v1/models")).json()
        one = await arena.client.get(f"/v1/models/{eos}")
        stored = await arena.scalar("SELECT count(*) FROM matchups")
        runs = await arena.scalar("SELECT count(*) FROM suite_runs")

    assert (archived.status_code, archived.json()["code"]) == (409, "model_archived")
    assert archived.json()["details"] == {"models": [f"'Mock Eos' ({eos}) is archived"]}
    assert "'Mock Eos' is archived" in archived.json()["error"]
    assert (paused.status_code, paused.json()["code"]) == (409, "model_paused")
    assert (suite.status_code, suite.json()["code"]) == (409, "model_paused")
    assert (openai.status_code, openai.json()["code"]) == (409, "model_archived")
    assert openai.json()["details"] == {"model": [f"'Mock Eos' ({eos}) is archived"]}
    named = {card["id"] for card in listed["data"]} - {"arena-duel", "arena-a", "arena-b"}
    assert named - {"arena-single"} == {aurora, ids["Mock Borealis"], ids["Mock Cirrus"]}
    assert one.status_code == 404
    assert (stored, runs) == (0, 0)
