"""PostgreSQL implementations of the ports. Rows and ``select()`` never leave this package."""

from __future__ import annotations

import math
import operator
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce
from typing import Any, cast

import asyncpg
from sqlalchemy import BigInteger, and_, case, column, false, func, select, text, union_all, update
from sqlalchemy.dialects.postgresql import UUID, insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql import ColumnElement, FromClause, Select

from arena_api.core.boards import DEFAULT_BOARD, Board
from arena_api.core.clock import SYSTEM_CLOCK, Clock
from arena_api.core.errors import ConversationError
from arena_api.core.events import SlotResult
from arena_api.core.ids import new_id
from arena_api.core.lifecycle import (
    ACTIVE,
    ARCHIVED,
    IMPORTED_PROVIDER,
    ModelStatus,
)
from arena_api.core.media import ImageRef
from arena_api.core.models import ModelEntry, ModelWithStatus, Prices, Slot
from arena_api.core.populations import HUMAN, REVIEWER
from arena_api.core.ports import (
    LeaderboardRecords,
    MatchmakingSnapshot,
    RatedModelRecord,
    RatingPassRecord,
    StyleCoefficient,
    StyleSpread,
)
from arena_api.core.records import (
    ConversationRecord,
    MatchupRecord,
    NewRound,
    StoredAnswer,
    TurnRecord,
)
from arena_api.core.refresh import Refreshed
from arena_api.core.sides import OUTCOME_COUNTERS, SKIP, SLOT_PICKED, TIE_VOTES, side_counter
from arena_api.core.style_features import SPREAD_COLUMNS, STYLE_SUM_KINDS
from arena_api.db.answers import AnswerWriter
from arena_api.db.media import attach_images, images_transaction, turn_image_refs
from arena_api.db.outages import raises_unavailable
from arena_api.db.tables import (
    category_pair_stats,
    conversations,
    matchups,
    model_population_ratings,
    model_ratings,
    model_style_ratings,
    model_vote_stats,
    models,
    pair_outcome_stats,
    pair_style_stats,
    preferences,
    rating_passes,
    responses,
    style_control_coefficients,
    turns,
)
from arena_api.roster import Roster

__all__ = [
    "ModelStatusError",
    "PostgresRepository",
    "create_pool",
    "SeedResult",
    "list_enabled_models",
    "list_models",
    "seed_roster",
    "set_model_status",
]


@dataclass(frozen=True)
class SeedResult:
    inserted: int
    updated: int
    #: Models the file no longer lists, archived by this seed.
    archived: int


async def seed_roster(engine: AsyncEngine, roster: Roster) -> SeedResult:
    """Make the ``models`` table match the roster, in one transaction.

    A model is identified by (provider, provider_model_id): its UUID is minted on first insert and
    kept forever; later seeds update its display name, status and prices. The rule for status:

    - a model the file lists takes the file's ``status`` (``active`` unless it says otherwise),
      whatever it had before (so ``arena models set-status`` lasts until the next start only for
      a model the file lists);
    - a model the file does not list is archived, never deleted, so its history stays;
    - a model added in the admin console (``source = 'console'``) or known only from an import
      (provider ``imported``) is left as it is; the file takes over a console model it lists.
    """
    async with engine.begin() as conn:
        rows_now = (
            await conn.execute(
                select(models.c.provider, models.c.provider_model_id, models.c.source)
            )
        ).all()
        existing = {(row.provider, row.provider_model_id) for row in rows_now}
        kept = {(r.provider, r.provider_model_id) for r in rows_now if r.source != "file"}
        rows = [
            {
                "id": new_id(),
                "display_name": m.display_name,
                "provider": m.provider,
                "provider_model_id": m.provider_model_id,
                "status": m.status,
                "input_price_per_mtok": None if m.price is None else m.price.input,
                "output_price_per_mtok": None if m.price is None else m.price.output,
                "source": "file",
                "vision": m.vision,
            }
            for m in roster.models
        ]
        stmt = insert(models).values(rows)
        await conn.execute(
            stmt.on_conflict_do_update(
                index_elements=[models.c.provider, models.c.provider_model_id],
                set_={
                    name: stmt.excluded[name]
                    for name in (
                        "display_name",
                        "status",
                        "input_price_per_mtok",
                        "output_price_per_mtok",
                        "source",
                        "vision",
                    )
                },
            )
        )
        listed = {(m.provider, m.provider_model_id) for m in roster.models}
        archived = 0
        for provider, provider_model_id in existing - listed:
            if provider == IMPORTED_PROVIDER or (provider, provider_model_id) in kept:
                continue
            result = await conn.execute(
                update(models)
                .where(models.c.provider == provider)
                .where(models.c.provider_model_id == provider_model_id)
                .where(models.c.status != ARCHIVED)
                .values(status=ARCHIVED)
            )
            archived += result.rowcount
    inserted = len(listed - existing)
    return SeedResult(inserted=inserted, updated=len(listed) - inserted, archived=archived)


def _entry(row: Any, prefix: str = "") -> ModelEntry:
    input_price = getattr(row, f"{prefix}input_price_per_mtok", None)
    output_price = getattr(row, f"{prefix}output_price_per_mtok", None)
    return ModelEntry(
        id=getattr(row, f"{prefix}id"),
        display_name=getattr(row, f"{prefix}display_name"),
        provider=getattr(row, f"{prefix}provider"),
        provider_model_id=getattr(row, f"{prefix}provider_model_id"),
        prices=None
        if input_price is None or output_price is None
        else Prices(input_per_mtok=input_price, output_per_mtok=output_price),
        vision=bool(getattr(row, f"{prefix}vision", False)),
    )


_MODEL_COLUMNS = (
    models.c.id,
    models.c.display_name,
    models.c.provider,
    models.c.provider_model_id,
    models.c.input_price_per_mtok,
    models.c.output_price_per_mtok,
    models.c.vision,
)


async def list_enabled_models(engine: AsyncEngine) -> list[ModelEntry]:
    """The enabled roster, ordered by display name."""
    query = select(*_MODEL_COLUMNS).where(models.c.enabled).order_by(models.c.display_name)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [_entry(r) for r in rows]


async def list_models(engine: AsyncEngine, *, held_back: bool = False) -> list[ModelWithStatus]:
    """Every model with its status, active ones first, then by display name; ``held_back``:
    only the paused and archived ones (the models no round may name)."""
    query = select(*_MODEL_COLUMNS, models.c.status).order_by(
        models.c.status != ACTIVE, models.c.display_name, models.c.id
    )
    if held_back:
        query = query.where(~models.c.enabled)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [ModelWithStatus(_entry(r), r.status) for r in rows]


class ModelStatusError(ValueError):
    """``set_model_status`` was given a name that matches no model or several, or a status a
    model cannot take."""


async def set_model_status(
    engine: AsyncEngine, name: str, status: ModelStatus
) -> tuple[ModelWithStatus, ModelStatus]:
    """Give the model ``name`` names (its id, display name or ``provider:provider_model_id``)
    ``status``; returns it as it is now and the status it had.

    The next start's seed puts back the roster file's status for a model the file lists.

    Raises:
        ModelStatusError: no model or several match ``name``, or ``active`` was asked for a
            model known only from an import (nothing can answer as it).
    """
    wanted = name.strip().lower()
    async with engine.begin() as conn:
        rows = (await conn.execute(select(*_MODEL_COLUMNS, models.c.status))).all()
        found = [
            r
            for r in rows
            if wanted
            in (str(r.id), r.display_name.lower(), f"{r.provider}:{r.provider_model_id}".lower())
        ]
        if not found:
            raise ModelStatusError(
                f"no model is {name!r} (give its id, display name or provider:provider_model_id)"
            )
        if len(found) > 1:
            ids = ", ".join(str(r.id) for r in found)
            raise ModelStatusError(f"{len(found)} models are {name!r} ({ids}): give the id")
        row = found[0]
        if status == ACTIVE and row.provider == IMPORTED_PROVIDER:
            raise ModelStatusError(
                f"{row.display_name!r} is known only from imported votes: no provider can "
                "answer as it, so it cannot be active"
            )
        await conn.execute(update(models).where(models.c.id == row.id).values(status=status))
    return ModelWithStatus(_entry(row), status), row.status


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


_ENTRY_FIELDS = frozenset({"id", "display_name", "provider", "provider_model_id", "vision"})


# The request path's hot statements run on asyncpg directly: one round trip each, prepared once
# per connection, without the ORM layer's per-statement cost (about 2 ms of CPU per round).
_CREATE_ROUND = """
WITH conversation AS (
  INSERT INTO conversations (id, anonymous_session_id)
  SELECT $1, $2 WHERE $3
), matchup AS (
  INSERT INTO matchups (id, prompt, model_a_id, model_b_id, slot_a_model_id, slot_b_model_id,
                        slot_a_provider_model_id, slot_b_provider_model_id, matchup_token_hash,
                        harness_version, mode, categories, language, prompt_key, replica,
                        image_count)
  VALUES ($4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $18, $19, $20, $21, $22)
  RETURNING id
)
INSERT INTO turns (id, conversation_id, matchup_id, parent_response_id, turn_index, prompt)
SELECT $15, $1, matchup.id, $16, $17, $5 FROM matchup
"""

_GET_MATCHUP = """
SELECT m.id, m.mode, m.matchup_token_hash, t.conversation_id, t.turn_index, p.vote,
       a.id AS a_id, a.display_name AS a_name, a.provider AS a_provider,
       a.provider_model_id AS a_pmid,
       b.id AS b_id, b.display_name AS b_name, b.provider AS b_provider,
       b.provider_model_id AS b_pmid
FROM matchups m
JOIN models a ON a.id = m.slot_a_model_id
JOIN models b ON b.id = m.slot_b_model_id
LEFT JOIN turns t ON t.matchup_id = m.id
LEFT JOIN preferences p ON p.matchup_id = m.id
WHERE m.id = $1
"""


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Nothing to reset: the hot path's statements leave no session state behind (no ``SET``,
    no ``LISTEN``, no lock held past its transaction). asyncpg's default reset would send
    ``RESET ALL`` and friends on every release: a round trip per statement."""


async def create_pool(url: str, *, max_size: int = 20) -> asyncpg.Pool:
    """The asyncpg pool of the hot path. ``url`` may be in any accepted form."""
    dsn = "postgresql://" + url.partition("://")[2]
    return await asyncpg.create_pool(dsn, min_size=1, max_size=max_size, reset=_keep_session)


@raises_unavailable
class PostgresRepository:
    """The request path's reads and writes.

    Args:
        engine: SQLAlchemy engine for the reads that are not on the hot path.
        pool: asyncpg pool for the statements every round runs.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        pool: asyncpg.Pool,
        *,
        snapshot_ttl_s: float = 2.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._engine = engine
        self._pool = pool
        self._answers = AnswerWriter(pool)
        self._snapshot = Refreshed(self._read_snapshot, snapshot_ttl_s, clock.monotonic)

    async def enabled_models(self) -> list[ModelEntry]:
        return await list_enabled_models(self._engine)

    async def held_back_models(self) -> list[ModelWithStatus]:
        return await list_models(self._engine, held_back=True)

    # -- rounds ----------------------------------------------------------------------------------

    async def create_round(self, new: NewRound) -> None:
        """Insert conversation (turn 0 only), matchup and turn in one statement.

        One statement is one implicit transaction and one round trip: the conversation and the
        matchup go in as data-modifying CTEs, the turn references both.

        Raises:
            ConversationError: 409 ``conversation_conflict`` when another request already took
                this turn's position or parent.
        """
        a, b = new.slot_a, new.slot_b
        low, high = sorted((a.id, b.id), key=lambda u: u.bytes)
        turn_id = new_id()
        try:
            async with self._pool.acquire() as conn, images_transaction(conn, new.images):
                await conn.execute(
                    _CREATE_ROUND,
                    new.conversation_id,
                    new.session_id,
                    new.new_conversation,
                    new.matchup_id,
                    new.prompt,
                    low,
                    high,
                    a.id,
                    b.id,
                    a.provider_model_id,
                    b.provider_model_id,
                    new.token_hash,
                    new.harness_version,
                    new.mode,
                    turn_id,
                    new.parent_response_id,
                    new.turn_index,
                    list(new.categories),
                    new.language,
                    new.prompt_key,
                    new.replica,
                    len(new.images),
                )
                if new.images:
                    await attach_images(conn, turn_id, new.images)
        except asyncpg.UniqueViolationError as exc:
            if (exc.constraint_name or "").startswith("turns_"):
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
        await self._answers.save(matchup_id, slot, model_id, result)

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

    async def get_matchup_content(
        self, matchup_id: uuid.UUID
    ) -> tuple[str, tuple[StoredAnswer, ...]] | None:
        """A matchup's prompt and stored answers (slot order), or ``None`` if unknown."""
        async with self._pool.acquire() as conn:
            prompt = await conn.fetchval("SELECT prompt FROM matchups WHERE id = $1", matchup_id)
            if prompt is None:
                return None
            rows = await conn.fetch(
                "SELECT slot, id, content, error FROM responses WHERE matchup_id = $1 "
                "ORDER BY slot",
                matchup_id,
            )
        return prompt, tuple(
            StoredAnswer(
                slot=r["slot"], response_id=r["id"], content=r["content"], error=r["error"]
            )
            for r in rows
        )

    async def get_matchup(self, matchup_id: uuid.UUID) -> MatchupRecord | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_GET_MATCHUP, matchup_id)
        if row is None:
            return None
        return MatchupRecord(
            id=row["id"],
            conversation_id=row["conversation_id"],
            turn_index=row["turn_index"],
            mode=row["mode"],
            token_hash=row["matchup_token_hash"],
            slot_a=ModelEntry(row["a_id"], row["a_name"], row["a_provider"], row["a_pmid"]),
            slot_b=ModelEntry(row["b_id"], row["b_name"], row["b_provider"], row["b_pmid"]),
            vote=row["vote"],
        )

    async def get_conversation(self, conversation_id: uuid.UUID) -> ConversationRecord | None:
        """The conversation with every turn, its answers and its vote, in turn order."""
        turn_query = _with_slot_models(
            select(
                turns.c.turn_index,
                turns.c.prompt,
                matchups.c.id,
                matchups.c.mode,
                matchups.c.image_count,
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
        images: dict[uuid.UUID, tuple[ImageRef, ...]] = {}
        if any(t.image_count for t in turn_rows):
            async with self._pool.acquire() as pool_conn:
                images = await turn_image_refs(pool_conn, (t.id for t in turn_rows))
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
                    images=images.get(t.id, ()),
                )
                for t in turn_rows
            ),
        )

    # -- votes -----------------------------------------------------------------------------------

    # -- matchmaking and leaderboard -------------------------------------------------------------

    async def snapshot(self) -> MatchmakingSnapshot:
        """Pair records, ratings and interval widths, re-read at most every ``snapshot_ttl_s``
        seconds.

        All come from small tables (``pair_outcome_stats``, ``model_ratings``), so the cost does
        not grow with the number of stored votes.
        """
        return await self._snapshot.get()

    async def _read_snapshot(self) -> MatchmakingSnapshot:
        o = pair_outcome_stats.c
        lo = func.least(o.slot_a_model_id, o.slot_b_model_id)
        hi = func.greatest(o.slot_a_model_id, o.slot_b_model_id)
        a_is_lo = o.slot_a_model_id < o.slot_b_model_id
        lo_wins = case(
            (a_is_lo, o[side_counter("lo", a_is_lo=True)]),
            else_=o[side_counter("lo", a_is_lo=False)],
        )
        ties = _counted(pair_outcome_stats, TIE_VOTES)
        games = func.sum(_counted(pair_outcome_stats, (*SLOT_PICKED, *TIE_VOTES)))
        async with self._engine.connect() as conn:
            # The matchmaker serves people: it balances the pairs people have voted on.
            pairs = (
                await conn.execute(
                    select(
                        lo.label("model_lo"),
                        hi.label("model_hi"),
                        games.label("games"),
                        (func.sum(lo_wins) + 0.5 * func.sum(ties)).label("points"),
                    )
                    .where(o.method == HUMAN)
                    .group_by(lo, hi)
                    .having(games > 0)
                )
            ).all()
            rated = (
                await conn.execute(
                    select(
                        model_ratings.c.model_id,
                        model_ratings.c.rating,
                        model_ratings.c.ci_upper - model_ratings.c.ci_lower,
                    )
                )
            ).all()
        snapshot = MatchmakingSnapshot(
            games={(r.model_lo, r.model_hi): int(r.games) for r in pairs},
            points={(r.model_lo, r.model_hi): float(r.points) for r in pairs},
            ci_width={cast(uuid.UUID, r[0]): float(r[2]) for r in rated},
            rating={cast(uuid.UUID, r[0]): float(r[1]) for r in rated},
        )
        return snapshot

    async def last_rating_pass(self) -> RatingPassRecord | None:
        """The rating process's latest pass (``rating_passes``), with its latest fit's time."""
        async with self._engine.connect() as conn:
            row = (
                await conn.execute(
                    select(
                        rating_passes,
                        select(func.max(rating_passes.c.finished_at))
                        .where(rating_passes.c.status == "rated")
                        .scalar_subquery()
                        .label("last_fit_at"),
                    )
                    .order_by(rating_passes.c.id.desc())
                    .limit(1)
                )
            ).first()
        if row is None:
            return None
        return RatingPassRecord(
            finished_at=row.finished_at,
            seconds=row.seconds,
            votes=row.votes,
            votes_excluded=row.votes_excluded,
            sessions_excluded=row.sessions_excluded,
            last_fit_at=row.last_fit_at,
            votes_identity_leaks=row.votes_identity_leaks,
            votes_duplicates=row.votes_duplicates,
        )

    async def leaderboard(self, board: Board = DEFAULT_BOARD) -> LeaderboardRecords:
        """``board``'s models with their status, vote records and (when rated) both ratings,
        plus the style coefficients and the spread of the style deltas.

        Every active model is listed; a paused or archived one only while it has a vote or a
        rating on this board (its history stays; a model never played that takes no round has
        nothing to show).

        Sorted rating DESC NULLS LAST, then wins DESC, total votes DESC, display name. Reads
        only counters and rating rows: its cost does not grow with the stored votes.
        """
        rated: FromClause = model_ratings
        population = board.stored_population
        has_style = board.has_style
        if board.is_blind_variant and population is not None:
            # The fit with the named rounds' votes, or without the filters; while it has no
            # rows it is the blind board (nothing named, nothing filtered), style included.
            async with self._engine.connect() as conn:
                other = await _population_ratings(conn, population)
            if other is not None:
                rated = other
            else:
                has_style = DEFAULT_BOARD.has_style
        elif population != HUMAN:
            # another population's or slice's fit (none: a board no fit is made for)
            pop = model_population_ratings
            kept = pop.c.population == population if population is not None else false()
            rated = select(pop).where(kept).subquery("rated")
        # The style pass fits people's blind, filtered votes on every prompt.
        styled: FromClause = (
            model_style_ratings
            if has_style
            else select(model_style_ratings).where(false()).subquery("styled")
        )
        counts = _vote_records(board)
        wins = func.coalesce(counts.c.wins, 0)
        losses = func.coalesce(counts.c.losses, 0)
        ties = func.coalesce(counts.c.ties, 0)
        skips = func.coalesce(counts.c.skips, 0)
        query = (
            select(
                *_MODEL_COLUMNS,
                models.c.status,
                wins.label("wins"),
                losses.label("losses"),
                ties.label("ties"),
                skips.label("skips"),
                rated.c.rating,
                rated.c.rating_stderr,
                rated.c.ci_lower,
                rated.c.ci_upper,
                rated.c.component_id,
                rated.c.games,
                styled.c.component_id.label("style_component_id"),
                styled.c.style_controlled_rating,
                styled.c.style_controlled_stderr,
                styled.c.style_ci_lower,
                styled.c.style_ci_upper,
            )
            .select_from(models)
            .outerjoin(counts, counts.c.model_id == models.c.id)
            .outerjoin(rated, rated.c.model_id == models.c.id)
            .outerjoin(styled, styled.c.model_id == models.c.id)
            .where(
                models.c.enabled | (wins + losses + ties + skips > 0) | rated.c.rating.isnot(None)
            )
            .order_by(
                rated.c.rating.desc().nulls_last(),
                wins.desc(),
                (wins + losses + ties + skips).desc(),
                models.c.display_name,
            )
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(query)).all()
            coefficients = (
                (
                    await conn.execute(
                        select(
                            style_control_coefficients.c.feature,
                            style_control_coefficients.c.coefficient,
                            style_control_coefficients.c.computed_at,
                        )
                    )
                ).all()
                if styled is model_style_ratings  # only beside the style pass's own ratings
                else []
            )
            spread = await _style_spread(conn) if coefficients else StyleSpread()
        return LeaderboardRecords(
            models=[
                RatedModelRecord(
                    model=_entry(r),
                    status=r.status,
                    wins=r.wins,
                    losses=r.losses,
                    ties=r.ties,
                    skips=r.skips,
                    rating=r.rating,
                    rating_stderr=r.rating_stderr,
                    ci_lower=r.ci_lower,
                    ci_upper=r.ci_upper,
                    component_id=r.component_id,
                    games=r.games,
                    style_component_id=r.style_component_id,
                    style_rating=r.style_controlled_rating,
                    style_stderr=r.style_controlled_stderr,
                    style_ci_lower=r.style_ci_lower,
                    style_ci_upper=r.style_ci_upper,
                )
                for r in rows
            ],
            coefficients=[
                StyleCoefficient(
                    feature=c.feature, coefficient=c.coefficient, computed_at=c.computed_at
                )
                for c in coefficients
            ],
            spread=spread,
        )


# The expert reviewers' verdicts per model, each side of each reviewed round.
_REVIEWER_RECORDS = """
SELECT s.model_id, sum(s.wins)::bigint AS wins, sum(s.losses)::bigint AS losses,
       sum(s.ties)::bigint AS ties, sum(s.skips)::bigint AS skips
  FROM review_verdicts v
  JOIN review_items i ON i.id = v.item_id
  JOIN matchups m ON m.id = i.matchup_id
 CROSS JOIN LATERAL (VALUES
       (m.slot_a_model_id, (v.vote = 'left')::int, (v.vote = 'right')::int,
        (v.vote IN ('both_good', 'both_bad'))::int, (v.vote = 'skip')::int),
       (m.slot_b_model_id, (v.vote = 'right')::int, (v.vote = 'left')::int,
        (v.vote IN ('both_good', 'both_bad'))::int, (v.vote = 'skip')::int)
     ) AS s (model_id, wins, losses, ties, skips)
 GROUP BY s.model_id
"""


def _vote_records(board: Board) -> FromClause:
    """Each model's wins, losses, ties and skips among ``board``'s votes: from
    ``model_vote_stats``, or from the slice's pair summary (``category_pair_stats``, each side
    of each ordered pair); the reviewers' from their verdicts (a review queue is small)."""
    methods, category = board.methods, board.category
    if board.population == REVIEWER:
        return (
            text(_REVIEWER_RECORDS)
            .columns(
                column("model_id", UUID(as_uuid=True)),
                column("wins", BigInteger),
                column("losses", BigInteger),
                column("ties", BigInteger),
                column("skips", BigInteger),
            )
            .subquery("counts")
        )
    if category is None:
        v = model_vote_stats.c
        return (
            select(
                v.model_id,
                func.sum(v.wins).label("wins"),
                func.sum(v.losses).label("losses"),
                func.sum(v.ties).label("ties"),
                func.sum(v.skips).label("skips"),
            )
            .where(v.method.in_(methods))
            .group_by(v.model_id)
            .subquery("counts")
        )
    c = category_pair_stats.c
    ties = _counted(category_pair_stats, TIE_VOTES)
    kept = and_(c.category == category, c.method.in_(methods))
    # A slot's wins are the votes picking it; the other slot's, its losses.
    a_wins, b_wins = (
        _counted(category_pair_stats, [v for v in SLOT_PICKED if SLOT_PICKED[v] == slot])
        for slot in ("A", "B")
    )
    skips = _counted(category_pair_stats, [SKIP])
    sides = union_all(
        select(
            c.slot_a_model_id.label("model_id"),
            a_wins.label("wins"),
            b_wins.label("losses"),
            ties.label("ties"),
            skips.label("skips"),
        ).where(kept),
        select(c.slot_b_model_id, b_wins, a_wins, ties, skips).where(kept),
    ).subquery("sides")
    return (
        select(
            sides.c.model_id,
            func.sum(sides.c.wins).label("wins"),
            func.sum(sides.c.losses).label("losses"),
            func.sum(sides.c.ties).label("ties"),
            func.sum(sides.c.skips).label("skips"),
        )
        .group_by(sides.c.model_id)
        .subquery("counts")
    )


def _counted(summary: FromClause, votes: Iterable[str]) -> ColumnElement[Any]:
    """The sum of a summary row's counters of ``votes`` (``OUTCOME_COUNTERS``)."""
    return reduce(operator.add, (summary.c[OUTCOME_COUNTERS[v]] for v in votes))


async def _population_ratings(conn: AsyncConnection, name: str) -> FromClause | None:
    """The fit of another population of people's votes: ``with_named`` (the named rounds'
    votes added to the blind ones) or ``unfiltered`` (the filtered votes kept); None while it
    has no rows (the population is then the blind one)."""
    pop = model_population_ratings
    population = select(pop).where(pop.c.population == name)
    if (await conn.execute(select(population.exists()))).scalar_one():
        return population.subquery("rated")
    return None


async def _style_spread(conn: AsyncConnection) -> StyleSpread:
    """Standard deviations of the style deltas over the usable votes, every model's: the style
    pass fits them all (paused and archived models' too), so its per-deviation coefficients
    read in units by these.

    Read from ``pair_style_stats`` (one row per pair), never from the votes themselves.
    """
    s = pair_style_stats.c
    sums = [
        func.coalesce(func.sum(s[f"{column}_{kind}"]), 0.0)
        for column in SPREAD_COLUMNS.values()
        for kind in STYLE_SUM_KINDS
    ]
    query = (
        select(func.coalesce(func.sum(s.votes), 0), *sums)
        .select_from(pair_style_stats)
        .where(s.method == HUMAN)  # the spread the style pass saw: people's votes
    )
    votes, *totals = (await conn.execute(query)).one()
    std_dev = {
        feature: _std_dev(int(votes), float(totals[2 * k]), float(totals[2 * k + 1]))
        for k, feature in enumerate(SPREAD_COLUMNS)
    }
    return StyleSpread(votes=int(votes), std_dev=std_dev)


def _std_dev(count: int, total: float, squares: float) -> float | None:
    """Population standard deviation from a count, a sum and a sum of squares (numpy's ``std``,
    which the rating process scales its covariates with); ``None`` without spread."""
    if count == 0:
        return None
    mean_square = squares / count
    variance = mean_square - (total / count) ** 2
    # Sums of squares carry rounding of about 1e-16 relative; below that there is no spread.
    return math.sqrt(variance) if variance > 1e-12 * mean_square else None
