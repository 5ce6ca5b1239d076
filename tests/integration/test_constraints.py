"""Every integrity rule of the data model is enforced by the database itself."""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable

import pytest
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from arena_api.db import tables
from tests.integration import rows

Violation = Callable[[AsyncConnection], Awaitable[object]]


async def _self_match_models(conn: AsyncConnection) -> None:
    a = await rows.model(conn)
    await rows.matchup(conn, a, a, slot_b_model_id=await rows.model(conn, "other"))


async def _self_match_slots(conn: AsyncConnection) -> None:
    a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
    await rows.matchup(conn, a, b, slot_a_model_id=a, slot_b_model_id=a)


async def _unknown_mode(conn: AsyncConnection) -> None:
    a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
    await rows.matchup(conn, a, b, mode="open")


async def _second_vote(conn: AsyncConnection) -> None:
    a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
    m = await rows.matchup(conn, a, b)
    await rows.preference(conn, m, "left", winner_model_id=a)
    await rows.preference(conn, m, "right", winner_model_id=b)


async def _unknown_vote(conn: AsyncConnection) -> None:
    a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
    await rows.preference(conn, await rows.matchup(conn, a, b), "maybe")


async def _two_turns(conn: AsyncConnection) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID, uuid.UUID]:
    """A conversation whose turn 0 has a winning response; returns (conv, a, b, winner)."""
    a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
    m0 = await rows.matchup(conn, a, b)
    winner = await rows.response(conn, m0, a, "A")
    conv = await rows.conversation(conn)
    await rows.turn(conn, conv, m0, 0, None)
    return conv, a, b, winner


async def _branching_turn(conn: AsyncConnection) -> None:
    conv, a, b, winner = await _two_turns(conn)
    await rows.turn(conn, conv, await rows.matchup(conn, a, b), 1, winner)
    other = await rows.conversation(conn)
    await rows.turn(conn, other, await rows.matchup(conn, a, b), 1, winner)


async def _duplicate_turn_index(conn: AsyncConnection) -> None:
    conv, a, b, _ = await _two_turns(conn)
    await rows.turn(conn, conv, await rows.matchup(conn, a, b), 0, None)


async def _turn_zero_with_parent(conn: AsyncConnection) -> None:
    _, a, b, winner = await _two_turns(conn)
    await rows.turn(conn, await rows.conversation(conn), await rows.matchup(conn, a, b), 0, winner)


async def _later_turn_without_parent(conn: AsyncConnection) -> None:
    conv, a, b, _ = await _two_turns(conn)
    await rows.turn(conn, conv, await rows.matchup(conn, a, b), 1, None)


async def _negative_turn_index(conn: AsyncConnection) -> None:
    _, a, b, _ = await _two_turns(conn)
    await rows.turn(conn, await rows.conversation(conn), await rows.matchup(conn, a, b), -1, None)


async def _response(conn: AsyncConnection, **overrides: object) -> None:
    a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
    await rows.response(conn, await rows.matchup(conn, a, b), a, **overrides)


async def _duplicate_slot(conn: AsyncConnection) -> None:
    a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
    m = await rows.matchup(conn, a, b)
    await rows.response(conn, m, a, "A")
    await rows.response(conn, m, b, "A")


async def _duplicate_model(conn: AsyncConnection) -> None:
    await conn.execute(
        insert(tables.models).values(
            id=uuid.uuid4(), display_name="x", provider="mock", provider_model_id="same"
        )
    )
    await conn.execute(
        insert(tables.models).values(
            id=uuid.uuid4(), display_name="y", provider="mock", provider_model_id="same"
        )
    )


async def _bad_rating_interval(conn: AsyncConnection) -> None:
    a = await rows.model(conn)
    await conn.execute(
        insert(tables.model_ratings).values(
            model_id=a,
            rating=1000,
            rating_stderr=1,
            ci_lower=1010,
            ci_upper=990,
            component_id=0,
            games=1,
        )
    )


@pytest.mark.parametrize(
    ("violation", "constraint"),
    [
        pytest.param(_self_match_models, "matchups_distinct_models_check", id="self-match"),
        pytest.param(_self_match_slots, "matchups_distinct_slots_check", id="self-match-slots"),
        pytest.param(_unknown_mode, "matchups_mode_check", id="unknown-mode"),
        pytest.param(_second_vote, "preferences_matchup_id_key", id="second-vote"),
        pytest.param(_unknown_vote, "preferences_vote_check", id="unknown-vote"),
        pytest.param(_branching_turn, "turns_parent_response_id_key", id="branching-turn"),
        pytest.param(
            _duplicate_turn_index, "turns_conversation_id_turn_index_key", id="same-position"
        ),
        pytest.param(_turn_zero_with_parent, "turns_parent_pairing_check", id="turn0-parent"),
        pytest.param(
            _later_turn_without_parent, "turns_parent_pairing_check", id="turn1-no-parent"
        ),
        pytest.param(
            _negative_turn_index,
            "turns_(turn_index|parent_pairing)_check",
            id="negative-turn-index",
        ),
        pytest.param(
            lambda c: _response(c, token_count_source="guessed"),
            "responses_token_source_check",
            id="token-count-source",
        ),
        pytest.param(
            lambda c: _response(c, markdown_density=1.01),
            "responses_markdown_density_check",
            id="markdown-density-above-1",
        ),
        pytest.param(
            lambda c: _response(c, markdown_density=-0.01),
            "responses_markdown_density_check",
            id="markdown-density-below-0",
        ),
        pytest.param(lambda c: _response(c, ttft_ms=-1), "responses_ttft_check", id="ttft"),
        pytest.param(
            lambda c: _response(c, stream_duration_ms=-1),
            "responses_duration_check",
            id="duration",
        ),
        pytest.param(lambda c: _response(c, slot="C"), "responses_slot_check", id="slot"),
        pytest.param(_duplicate_slot, "responses_matchup_id_slot_key", id="duplicate-slot"),
        pytest.param(
            _duplicate_model, "models_provider_provider_model_id_key", id="duplicate-model"
        ),
        pytest.param(_bad_rating_interval, "model_ratings_ci_order_check", id="rating-interval"),
    ],
)
async def test_database_rejects(db: AsyncEngine, violation: Violation, constraint: str) -> None:
    async with db.connect() as conn:
        with pytest.raises(IntegrityError) as caught:
            await violation(conn)
        await conn.rollback()

    assert caught.value.orig is not None
    assert re.search(constraint, str(caught.value.orig))


async def test_replayed_slot_done_does_not_duplicate_a_response(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
        m = await rows.matchup(conn, a, b)
        await rows.response(conn, m, a, "A", content="first")
        values = dict(
            id=uuid.uuid4(),
            matchup_id=m,
            slot="A",
            model_id=a,
            content="replayed",
            latency_ms=1,
            stream_duration_ms=1,
            output_token_count=1,
            token_count_source="provider",
            markdown_density=0,
        )

        result = await conn.execute(
            insert(tables.responses)
            .values(**values)
            .on_conflict_do_nothing(
                index_elements=[tables.responses.c.matchup_id, tables.responses.c.slot]
            )
        )

    assert result.rowcount == 0


async def test_valid_linear_history_is_accepted(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        conv, a, b, winner = await _two_turns(conn)
        await rows.turn(conn, conv, await rows.matchup(conn, a, b), 1, winner)
        await rows.preference(conn, await rows.matchup(conn, a, b), "skip")
