"""POST /api/arena/vote: signed tokens, one vote per matchup, the reveal only after storing."""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.tokens import MatchupTokenService
from tests.integration.arena_harness import SECRET, Arena, serve_arena


async def _round(arena: Arena, **body: object) -> dict[str, object]:
    response, frames = await arena.chat(**body)
    assert response.status_code == 200, response.text
    return frames[0][1]


@pytest.mark.parametrize(
    ("vote", "winner_slot", "continuable"),
    [
        pytest.param("left", "A", True, id="left"),
        pytest.param("right", "B", True, id="right"),
        pytest.param("both_good", None, False, id="both-good"),
        pytest.param("both_bad", None, False, id="both-bad"),
        pytest.param("skip", None, False, id="skip"),
    ],
)
async def test_vote_is_stored_with_a_server_derived_winner_and_reveals_both_models(
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    vote: str,
    winner_slot: str | None,
    continuable: bool,
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        started = await _round(arena, sessionId="voter-1")

        response = await arena.vote(started, vote)

        row = (await arena.rows("SELECT * FROM preferences"))[0]
        slots = (await arena.rows("SELECT slot_a_model_id, slot_b_model_id FROM matchups"))[0]
    body = response.json()
    assert response.status_code == 200
    assert body["accepted"] is True and body["continuable"] is continuable
    assert body["conversationId"] == started["conversationId"]
    assert body["models"]["A"]["id"] == str(slots.slot_a_model_id)
    assert body["models"]["B"]["id"] == str(slots.slot_b_model_id)
    assert body["models"]["A"]["displayName"].startswith("Mock ")
    expected = {"A": slots.slot_a_model_id, "B": slots.slot_b_model_id}.get(winner_slot or "")
    assert row.winner_model_id == expected
    assert row.position_bias_meta == {"selectedSlot": winner_slot}
    assert row.anonymous_session_id == "voter-1"


async def test_second_vote_on_a_matchup_is_a_409(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        started = await _round(arena)
        await arena.vote(started, "left")

        again = await arena.vote(started, "right")

    assert again.status_code == 409 and again.json()["code"] == "already_voted"


async def test_fifty_concurrent_votes_store_exactly_one_and_reveal_only_to_it(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        started = await _round(arena)

        responses = await asyncio.gather(*(arena.vote(started, "left") for _ in range(50)))

        stored = await arena.scalar("SELECT count(*) FROM preferences")
        wins = await arena.scalar("SELECT sum(wins) FROM model_vote_stats")
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] + [409] * 49
    assert stored == 1 and wins == 1
    assert all("models" not in r.json() for r in responses if r.status_code == 409)


def _tamper(token: str) -> str:
    payload, signature = token.split(".")
    claims = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    forged = base64.urlsafe_b64encode(claims.replace(b'"s"', b'"x"')).rstrip(b"=").decode()
    return f"{forged}.{signature}"


@pytest.mark.parametrize(
    ("make_token", "code"),
    [
        pytest.param(lambda t: "garbage", "invalid_token", id="forged"),
        pytest.param(lambda t: t[:-4] + "AAAA", "invalid_token", id="bad-signature"),
        pytest.param(_tamper, "invalid_token", id="tampered-claims"),
    ],
)
async def test_vote_with_a_bad_token_is_a_401_and_stores_nothing(
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    make_token,
    code: str,  # type: ignore[no-untyped-def]
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        started = await _round(arena)

        response = await arena.vote(
            {**started, "matchupToken": make_token(started["matchupToken"])}
        )

        stored = await arena.scalar("SELECT count(*) FROM preferences")
    assert response.status_code == 401 and response.json()["code"] == code
    assert stored == 0


async def test_expired_token_is_a_401(db: AsyncEngine, database_url: str, tmp_path: Path) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        started = await _round(arena)
        a, b = (await arena.rows("SELECT slot_a_model_id, slot_b_model_id FROM matchups"))[0]
        old = MatchupTokenService(SECRET.encode(), clock=lambda: time.time() - 901)
        token = old.mint(uuid.UUID(str(started["matchupId"])), a, b, None)

        response = await arena.vote({**started, "matchupToken": token})

    assert response.status_code == 401 and response.json()["code"] == "token_expired"


async def test_token_of_another_matchup_is_a_401(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        first, second = await _round(arena), await _round(arena)

        response = await arena.vote({**first, "matchupToken": second["matchupToken"]})

    assert response.status_code == 401


async def test_well_signed_token_not_served_with_this_matchup_is_a_401(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        started = await _round(arena)
        a, b = (await arena.rows("SELECT slot_a_model_id, slot_b_model_id FROM matchups"))[0]
        minted = MatchupTokenService(SECRET.encode()).mint(
            uuid.UUID(str(started["matchupId"])), a, b, None
        )

        response = await arena.vote({**started, "matchupToken": minted})

    assert response.status_code == 401


async def test_vote_on_unknown_matchup_is_a_404(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        ghost = uuid.uuid4()
        token = MatchupTokenService(SECRET.encode()).mint(ghost, uuid.uuid4(), uuid.uuid4(), None)

        response = await arena.vote({"matchupId": str(ghost), "matchupToken": token})

    assert response.status_code == 404


async def test_vote_on_a_shadow_matchup_is_a_403(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(
        db, database_url, tmp_path, ARENA_EXPOSURE="shadow", ARENA_DEFAULT_MODEL="mock-aurora"
    ) as arena:
        started = await _round(arena)
        matchup = uuid.UUID(str(started["matchupId"]))
        a, b = (await arena.rows("SELECT slot_a_model_id, slot_b_model_id FROM matchups"))[0]
        token = MatchupTokenService(SECRET.encode()).mint(matchup, a, b, None)

        response = await arena.vote({**started, "matchupToken": token})

    assert response.status_code == 403


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"matchupId": "nope", "matchupToken": "t", "vote": "left"}, id="bad-id"),
        pytest.param(
            {"matchupId": str(uuid.uuid4()), "matchupToken": "t", "vote": "win"}, id="bad-vote"
        ),
        pytest.param({"matchupId": str(uuid.uuid4()), "vote": "left"}, id="no-token"),
    ],
)
async def test_invalid_vote_body_is_a_400(
    db: AsyncEngine, database_url: str, tmp_path: Path, body: dict[str, str]
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post("/api/arena/vote", json=body)

    assert response.status_code == 400 and response.json()["code"] == "invalid_request"


async def test_matchup_read_reveals_models_only_after_the_vote(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        started = await _round(arena)
        before = (await arena.client.get(f"/api/arena/matchups/{started['matchupId']}")).json()
        await arena.vote(started, "right")
        after = (await arena.client.get(f"/api/arena/matchups/{started['matchupId']}")).json()
        bad = await arena.client.get("/api/arena/matchups/not-a-uuid")
        missing = await arena.client.get(f"/api/arena/matchups/{uuid.uuid4()}")

    assert before["votable"] is True and before["models"] is None and before["vote"] is None
    assert "matchupToken" not in before
    assert after["votable"] is False and after["vote"] == "right" and after["continuable"]
    assert set(after["models"]) == {"A", "B"}
    assert (bad.status_code, missing.status_code) == (400, 404)


async def test_leaderboard_counts_votes_per_enabled_model(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        for vote in ("left", "right", "both_good", "skip"):
            await arena.vote(await _round(arena), vote)

        board = (await arena.client.get("/api/arena/leaderboard")).json()

    models = board["models"]
    assert len(models) == 4
    assert sum(m["wins"] for m in models) == 2 and sum(m["losses"] for m in models) == 2
    assert sum(m["ties"] for m in models) == 2 and sum(m["skips"] for m in models) == 2
    for m in models:
        decided = m["wins"] + m["losses"] + m["ties"]
        assert m["totalVotes"] == decided + m["skips"]
        assert m["winRate"] == (round(m["wins"] / decided, 4) if decided else 0)
        assert m["rating"] is None and m["confidenceInterval"] is None
    order = [(-m["wins"], -m["totalVotes"], m["displayName"]) for m in models]
    assert order == sorted(order)
    assert board["components"] == {"count": None, "groups": []}
