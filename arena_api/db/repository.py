"""PostgreSQL implementations of the ports. Rows and ``select()`` never leave this package."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql import Select

from arena_api.core.errors import ConversationError
from arena_api.core.events import SlotResult
from arena_api.core.models import ModelEntry, Slot
from arena_api.core.ports import MatchmakingSnapshot
from arena_api.core.records import (
    ConversationRecord,
    LeaderboardRow,
    MatchupRecord,
    NewRound,
    StoredAnswer,
    TurnRecord,
    Vote,
)
from arena_api.db.tables import (
    conversations,
    matchups,
    model_ratings,
    model_style_ratings,
    model_vote_stats,
    models,
    pair_vote_stats,
    preferences,
    responses,
    turns,
)
from arena_api.roster import Roster

__all__ = [
    "PostgresRepository",
    "SeedResult",
    "list_enabled_models",
    "seed_roster",
]


@dataclass(frozen=True)
class SeedResult:
    inserted: int
    updated: int
    disabled: int


async def seed_roster(engine: AsyncEngine, roster: Roster) -> SeedResult:
    """Make the ``models`` table match the roster, in one transaction.

    A model is identified by (provider, provider_model_id): its UUID is minted on first insert and
    kept forever; later seeds update its display name and enabled flag. Models absent from the
    roster are disabled, never deleted, so their history stays intact.
    """
    async with engine.begin() as conn:
        existing = {
            (row.provider, row.provider_model_id)
            for row in await conn.execute(select(models.c.provider, models.c.provider_model_id))
        }
        rows = [
            {
                "id": uuid.uuid4(),
                "display_name": m.display_name,
                "provider": m.provider,
                "provider_model_id": m.provider_model_id,
                "enabled": m.enabled,
            }
            for m in roster.models
        ]
        stmt = insert(models).values(rows)
        await conn.execute(
            stmt.on_conflict_do_update(
                index_elements=[models.c.provider, models.c.provider_model_id],
                set_={"display_name": stmt.excluded.display_name, "enabled": stmt.excluded.enabled},
            )
        )
        listed = {(m.provider, m.provider_model_id) for m in roster.models}
        disabled = 0
        for provider, provider_model_id in existing - listed:
            result = await conn.execute(
                update(models)
                .where(models.c.provider == provider)
                .where(models.c.provider_model_id == provider_model_id)
                .where(models.c.enabled)
                .values(enabled=False)
            )
            disabled += result.rowcount
    inserted = len(listed - existing)
    return SeedResult(inserted=inserted, updated=len(listed) - inserted, disabled=disabled)


def _entry(row: Any, prefix: str = "") -> ModelEntry:
    return ModelEntry(
        id=getattr(row, f"{prefix}id"),
        display_name=getattr(row, f"{prefix}display_name"),
        provider=getattr(row, f"{prefix}provider"),
        provider_model_id=getattr(row, f"{prefix}provider_model_id"),
    )


_MODEL_COLUMNS = (models.c.id, models.c.display_name, models.c.provider, models.c.provider_model_id)


async def list_enabled_models(engine: AsyncEngine) -> list[ModelEntry]:
    """The enabled roster, ordered by display name."""
    query = select(*_MODEL_COLUMNS).where(models.c.enabled).order_by(models.c.display_name)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [_entry(r) for r in rows]


_model_a = models.alias("model_a")
_model_b = models.alias("model_b")


def _with_slot_models(query: Select[Any]) -> Select[Any]:
    """Add both slots' model columns (``a_*``, ``b_*``) to a query over ``matchups``."""
    return (
        query.add_columns(
            *(c.label(f"a_{c.name}") for c in _model_a.c if c.name in _ENTRY_FIELDS),
            *(c.label(f"b_{c.name}") for c in _model_b.c if c.name in _ENTRY_FIELDS),
        )
        .join_from(matchups, _model_a, _model_a.c.id == matchups.c.slot_a_model_id)
        .join(_model_b, _model_b.c.id == matchups.c.slot_b_model_id)
    )


_ENTRY_FIELDS = frozenset({"id", "display_name", "provider", "provider_model_id"})


class PostgresRepository:
    """The request path's reads and writes."""

    def __init__(self, engine: AsyncEngine, *, snapshot_ttl_s: float = 2.0) -> None:
        self._engine = engine
        self._snapshot_ttl_s = snapshot_ttl_s
        self._snapshot: tuple[float, MatchmakingSnapshot] | None = None

    async def enabled_models(self) -> list[ModelEntry]:
        return await list_enabled_models(self._engine)

    # -- rounds ----------------------------------------------------------------------------------

    async def create_round(self, new: NewRound) -> None:
        """Insert conversation (turn 0 only), matchup and turn in one transaction.

        Raises:
            ConversationError: 409 ``conversation_conflict`` when another request already took
                this turn's position or parent.
        """
        try:
            async with self._engine.begin() as conn:
                if new.new_conversation:
                    await conn.execute(
                        insert(conversations).values(
                            id=new.conversation_id, anonymous_session_id=new.session_id
                        )
                    )
                await conn.execute(
                    insert(matchups).values(
                        id=new.matchup_id,
                        prompt=new.prompt,
                        model_a_id=min(new.slot_a.id, new.slot_b.id, key=lambda u: u.bytes),
                        model_b_id=max(new.slot_a.id, new.slot_b.id, key=lambda u: u.bytes),
                        slot_a_model_id=new.slot_a.id,
                        slot_b_model_id=new.slot_b.id,
                        slot_a_provider_model_id=new.slot_a.provider_model_id,
                        slot_b_provider_model_id=new.slot_b.provider_model_id,
                        matchup_token_hash=new.token_hash,
                        harness_version=new.harness_version,
                        mode=new.mode,
                    )
                )
                await conn.execute(
                    insert(turns).values(
                        id=uuid.uuid4(),
                        conversation_id=new.conversation_id,
                        matchup_id=new.matchup_id,
                        parent_response_id=new.parent_response_id,
                        turn_index=new.turn_index,
                        prompt=new.prompt,
                    )
                )
        except IntegrityError as exc:
            constraint = getattr(exc.orig, "constraint_name", None) or str(exc.orig)
            if "turns_" in constraint:
                raise ConversationError(
                    "Another request already advanced this conversation",
                    status=409,
                    code="conversation_conflict",
                ) from None
            raise

    async def save_response(
        self, matchup_id: uuid.UUID, slot: Slot, model_id: uuid.UUID, result: SlotResult
    ) -> None:
        """Persist a slot's answer; a replayed ``slot_done`` is ignored (ON CONFLICT DO NOTHING)."""
        stmt = insert(responses).values(
            id=uuid.uuid4(),
            matchup_id=matchup_id,
            slot=slot,
            model_id=model_id,
            **result.model_dump(),
        )
        async with self._engine.begin() as conn:
            await conn.execute(
                stmt.on_conflict_do_nothing(
                    index_elements=[responses.c.matchup_id, responses.c.slot]
                )
            )

    async def add_steer(self, matchup_id: uuid.UUID, instruction: str, at: str) -> None:
        entry = func.jsonb_build_array(
            func.jsonb_build_object("instruction", instruction, "at", at)
        )
        async with self._engine.begin() as conn:
            await conn.execute(
                update(matchups)
                .where(matchups.c.id == matchup_id)
                .values(steers=matchups.c.steers.op("||")(entry))
            )

    # -- reads -----------------------------------------------------------------------------------

    async def get_matchup(self, matchup_id: uuid.UUID) -> MatchupRecord | None:
        query = _with_slot_models(
            select(
                matchups.c.id,
                matchups.c.mode,
                matchups.c.matchup_token_hash,
                turns.c.conversation_id,
                turns.c.turn_index,
                preferences.c.vote,
            )
        )
        query = (
            query.outerjoin(turns, turns.c.matchup_id == matchups.c.id)
            .outerjoin(preferences, preferences.c.matchup_id == matchups.c.id)
            .where(matchups.c.id == matchup_id)
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        return MatchupRecord(
            id=row.id,
            conversation_id=row.conversation_id,
            turn_index=row.turn_index,
            mode=row.mode,
            token_hash=row.matchup_token_hash,
            slot_a=_entry(row, "a_"),
            slot_b=_entry(row, "b_"),
            vote=row.vote,
        )

    async def get_conversation(self, conversation_id: uuid.UUID) -> ConversationRecord | None:
        """The conversation with every turn, its answers and its vote, in turn order."""
        turn_query = _with_slot_models(
            select(
                turns.c.turn_index,
                turns.c.prompt,
                matchups.c.id,
                matchups.c.mode,
                preferences.c.vote,
            )
        )
        turn_query = (
            turn_query.join(turns, turns.c.matchup_id == matchups.c.id)
            .outerjoin(preferences, preferences.c.matchup_id == matchups.c.id)
            .where(turns.c.conversation_id == conversation_id)
            .order_by(turns.c.turn_index)
        )
        async with self._engine.connect() as conn:
            owner = (
                await conn.execute(
                    select(conversations.c.anonymous_session_id).where(
                        conversations.c.id == conversation_id
                    )
                )
            ).first()
            if owner is None:
                return None
            turn_rows = (await conn.execute(turn_query)).all()
            answer_rows = (
                await conn.execute(
                    select(
                        responses.c.matchup_id,
                        responses.c.slot,
                        responses.c.id,
                        responses.c.content,
                        responses.c.error,
                    )
                    .join(turns, turns.c.matchup_id == responses.c.matchup_id)
                    .where(turns.c.conversation_id == conversation_id)
                )
            ).all()
        answers: dict[uuid.UUID, list[StoredAnswer]] = {}
        for a in answer_rows:
            answers.setdefault(a.matchup_id, []).append(
                StoredAnswer(slot=a.slot, response_id=a.id, content=a.content, error=a.error)
            )
        return ConversationRecord(
            id=conversation_id,
            session_id=owner.anonymous_session_id,
            turns=tuple(
                TurnRecord(
                    turn_index=t.turn_index,
                    matchup_id=t.id,
                    prompt=t.prompt,
                    mode=t.mode,
                    vote=t.vote,
                    answers=tuple(sorted(answers.get(t.id, []), key=lambda a: a.slot)),
                    slot_a=_entry(t, "a_"),
                    slot_b=_entry(t, "b_"),
                )
                for t in turn_rows
            ),
        )

    # -- votes -----------------------------------------------------------------------------------

    async def record_vote(
        self,
        matchup_id: uuid.UUID,
        vote: Vote,
        winner_model_id: uuid.UUID | None,
        session_id: str | None,
        selected_slot: Slot | None,
    ) -> bool:
        """Store the vote unless one exists; ``False`` when this matchup already has one.

        The vote counters are kept current by a trigger in the same transaction.
        """
        stmt = (
            insert(preferences)
            .values(
                id=uuid.uuid4(),
                matchup_id=matchup_id,
                vote=vote,
                winner_model_id=winner_model_id,
                anonymous_session_id=session_id,
                position_bias_meta={"selectedSlot": selected_slot},
            )
            .on_conflict_do_nothing(index_elements=[preferences.c.matchup_id])
            .returning(preferences.c.id)
        )
        async with self._engine.begin() as conn:
            inserted = (await conn.execute(stmt)).first()
        return inserted is not None

    # -- matchmaking and leaderboard -------------------------------------------------------------

    async def snapshot(self) -> MatchmakingSnapshot:
        """Pair counts and interval widths, re-read at most every ``snapshot_ttl_s`` seconds.

        Both come from small tables (``pair_vote_stats``, ``model_ratings``), so the cost does
        not grow with the number of stored votes.
        """
        now = time.monotonic()
        if self._snapshot is not None and now - self._snapshot[0] < self._snapshot_ttl_s:
            return self._snapshot[1]
        async with self._engine.connect() as conn:
            pairs = (await conn.execute(select(pair_vote_stats))).all()
            widths = (
                await conn.execute(
                    select(
                        model_ratings.c.model_id,
                        model_ratings.c.ci_upper - model_ratings.c.ci_lower,
                    )
                )
            ).all()
        snapshot = MatchmakingSnapshot(
            games={(r.model_lo, r.model_hi): r.games for r in pairs},
            ci_width={cast(uuid.UUID, r[0]): float(r[1]) for r in widths},
        )
        self._snapshot = (now, snapshot)
        return snapshot

    async def leaderboard(self) -> list[LeaderboardRow]:
        """Enabled models with their vote records and (when rated) both ratings.

        Sorted rating DESC NULLS LAST, then wins DESC, total votes DESC, display name.
        """
        wins = func.coalesce(model_vote_stats.c.wins, 0)
        losses = func.coalesce(model_vote_stats.c.losses, 0)
        ties = func.coalesce(model_vote_stats.c.ties, 0)
        skips = func.coalesce(model_vote_stats.c.skips, 0)
        query = (
            select(
                *_MODEL_COLUMNS,
                wins.label("wins"),
                losses.label("losses"),
                ties.label("ties"),
                skips.label("skips"),
                model_ratings.c.rating,
                model_ratings.c.rating_stderr,
                model_ratings.c.ci_lower,
                model_ratings.c.ci_upper,
                model_ratings.c.component_id,
                model_style_ratings.c.style_controlled_rating,
                model_style_ratings.c.style_controlled_stderr,
                model_style_ratings.c.style_ci_lower,
                model_style_ratings.c.style_ci_upper,
            )
            .select_from(models)
            .outerjoin(model_vote_stats, model_vote_stats.c.model_id == models.c.id)
            .outerjoin(model_ratings, model_ratings.c.model_id == models.c.id)
            .outerjoin(model_style_ratings, model_style_ratings.c.model_id == models.c.id)
            .where(models.c.enabled)
            .order_by(
                model_ratings.c.rating.desc().nulls_last(),
                wins.desc(),
                (wins + losses + ties + skips).desc(),
                models.c.display_name,
            )
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            LeaderboardRow(
                model=_entry(r),
                wins=r.wins,
                losses=r.losses,
                ties=r.ties,
                skips=r.skips,
                rating=r.rating,
                rating_stderr=r.rating_stderr,
                ci_lower=r.ci_lower,
                ci_upper=r.ci_upper,
                component_id=r.component_id,
                style_rating=r.style_controlled_rating,
                style_stderr=r.style_controlled_stderr,
                style_ci_lower=r.style_ci_lower,
                style_ci_upper=r.style_ci_upper,
            )
            for r in rows
        ]
