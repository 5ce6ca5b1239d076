"""Linear multi-turn history: continue from the winner only; ties and unvoted turns end it."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.errors import ConversationError
from arena_api.core.records import NewRound
from arena_api.db.repository import PostgresRepository, create_pool, seed_roster
from arena_api.roster import load_roster
from tests.integration.arena_harness import Arena, serve_arena
from tests.support import ROOT


async def _voted_turn(arena: Arena, vote: str = "left", **body: object) -> dict[str, object]:
    response, frames = await arena.chat(**body)
    assert response.status_code == 200, response.text
    started = frames[0][1]
    if vote:
        assert (await arena.vote(started, vote)).status_code == 200
    return started


async def test_decisive_vote_lets_the_conversation_continue_from_the_winner(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        first = await _voted_turn(arena, "right", sessionId="s1")

        response, frames = await arena.chat(
            prompt="Go deeper", sessionId="s1", conversationId=first["conversationId"]
        )

        second = frames[0][1]
        winner = await arena.scalar(
            "SELECT id FROM responses WHERE matchup_id = :m AND slot = 'B'",
            m=uuid.UUID(str(first["matchupId"])),
        )
        parent = await arena.scalar("SELECT parent_response_id FROM turns WHERE turn_index = 1")
    assert response.status_code == 200
    assert second["conversationId"] == first["conversationId"] and second["turnIndex"] == 1
    assert parent == winner


@pytest.mark.parametrize("vote", ["both_good", "both_bad", "skip", ""])
async def test_a_turn_without_a_decisive_vote_cannot_be_continued(
    db: AsyncEngine, database_url: str, tmp_path: Path, vote: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        first = await _voted_turn(arena, vote)

        response, _ = await arena.chat(prompt="more", conversationId=first["conversationId"])
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    assert response.status_code == 409
    assert response.json()["code"] == "conversation_not_ready"
    assert stored == 1


async def test_unknown_conversation_is_a_404(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response, _ = await arena.chat(conversationId=str(uuid.uuid4()))

    assert response.status_code == 404
    assert response.json()["code"] == "conversation_not_found"


async def test_another_sessions_conversation_is_a_403(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        first = await _voted_turn(arena, "left", sessionId="owner")

        stranger, _ = await arena.chat(conversationId=first["conversationId"], sessionId="other")
        anonymous, _ = await arena.chat(conversationId=first["conversationId"])

    assert stranger.status_code == 403 and anonymous.status_code == 403
    assert stranger.json()["code"] == "conversation_forbidden"


async def test_concurrent_continuations_of_one_conversation_exactly_one_wins(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """Requests that raced past the check lose at the insert (conflict); later ones see the
    new unvoted turn (not ready). Either way exactly one continues and nothing is left over."""
    async with serve_arena(db, database_url, tmp_path) as arena:
        first = await _voted_turn(arena, "left")

        results = await asyncio.gather(
            *(
                arena.chat(prompt=f"next {i}", conversationId=first["conversationId"])
                for i in range(6)
            )
        )

        turns = await arena.scalar("SELECT count(*) FROM turns")
        orphan_matchups = await arena.scalar(
            "SELECT count(*) FROM matchups m WHERE NOT EXISTS "
            "(SELECT 1 FROM turns t WHERE t.matchup_id = m.id)"
        )
    statuses = sorted(r.status_code for r, _ in results)
    assert statuses == [200] + [409] * 5
    codes = {r.json()["code"] for r, _ in results if r.status_code == 409}
    assert codes <= {"conversation_conflict", "conversation_not_ready"}
    assert turns == 2 and orphan_matchups == 0


async def test_conversation_read_is_scoped_and_hides_the_pending_round(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        first = await _voted_turn(arena, "left", sessionId="me")
        await _voted_turn(
            arena, "", sessionId="me", conversationId=first["conversationId"], prompt="Go deeper"
        )
        url = f"/api/arena/conversations/{first['conversationId']}"

        mine = await arena.client.get(url, params={"sessionId": "me"})
        theirs = await arena.client.get(url, params={"sessionId": "you"})
        missing = await arena.client.get(f"/api/arena/conversations/{uuid.uuid4()}")
        malformed = await arena.client.get("/api/arena/conversations/xyz")

    body = mine.json()
    assert mine.status_code == 200
    assert (body["continuable"], body["nextTurnIndex"]) == (False, 2)
    assert [t["turnIndex"] for t in body["turns"]] == [0, 1]
    assert body["turns"][0]["vote"] == "left" and set(body["turns"][0]["models"]) == {"A", "B"}
    assert body["turns"][1]["vote"] is None and body["turns"][1]["models"] is None
    assert body["turns"][1]["votable"] is True and body["turns"][1]["prompt"] == "Go deeper"
    assert [a["slot"] for a in body["turns"][1]["answers"]] == ["A", "B"]
    assert theirs.status_code == 403 and missing.status_code == 404
    assert malformed.status_code == 400


async def test_two_concurrent_continuations_one_wins_the_other_conflicts(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        first = await _voted_turn(arena, "left")
        body = {"conversationId": first["conversationId"]}

        results = await asyncio.gather(
            arena.chat(prompt="left branch", **body), arena.chat(prompt="right branch", **body)
        )

    outcomes = sorted(
        (r.status_code, r.json()["code"] if r.status_code != 200 else "") for r, _ in results
    )
    assert outcomes == [(200, ""), (409, "conversation_conflict")]


async def test_a_second_insert_at_the_same_turn_position_is_a_conversation_conflict(
    db: AsyncEngine, database_url: str
) -> None:
    pool = await create_pool(database_url)
    repository = PostgresRepository(db, pool)
    await seed_roster(db, load_roster(ROOT / "models.yaml"))
    a, b = (await repository.enabled_models())[:2]
    conversation = uuid.uuid4()

    def round_at(index: int) -> NewRound:
        return NewRound(
            matchup_id=uuid.uuid4(),
            conversation_id=conversation,
            new_conversation=index == 0,
            session_id=None,
            turn_index=0,
            parent_response_id=None,
            prompt="p",
            slot_a=a,
            slot_b=b,
            token_hash="h",
            harness_version="v1",
            mode="blind",
        )

    await repository.create_round(round_at(0))
    with pytest.raises(ConversationError) as caught:
        await repository.create_round(round_at(1))

    assert (caught.value.status, caught.value.code) == (409, "conversation_conflict")
    async with db.connect() as conn:
        matchups = (await conn.execute(text("SELECT count(*) FROM matchups"))).scalar()
    await pool.close()
    assert matchups == 1
