"""The seed system's (OmniArena's) PostgreSQL read, and its rows written into ours
(``arena import --from omniarena``).

``SeedDatabase`` reads the seed a batch of whole conversations at a time, in conversation order
(``created_at``, ``id``), then the rounds it played before it had conversations, each as a
conversation of its own (``arena_api.interop.omniarena``).

``PostgresSeedImport`` writes a batch in one transaction: conversations, matchups, answers,
turns and votes keep their ids, times, modes, steers, sessions and timings; the vote goes in
through the bulk form of the one vote statement (``insert_votes_from``) as a person's vote,
which is what every seed vote is. What we compute for our own rounds and the seed does not
store is computed the same way here: a prompt's categories, language and key, and whether an
answer names its own model. Conversations already imported (``import_source = 'omniarena'``,
the seed's id) are skipped whole.

A seed model is ours when both name the same provider and provider model id, or failing that
the same display name; otherwise it is created archived under its own provider and model id (so
that listing it in the roster later makes it active with its history), or as ``imported``
when its provider is one we do not have.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

import asyncpg

from arena_api.core.categories import classify, prompt_key
from arena_api.core.identity import names_itself
from arena_api.core.ids import new_id
from arena_api.core.lifecycle import ARCHIVED
from arena_api.core.models import ModelEntry
from arena_api.db.battles import INSERT_TURNS, unnest_columns
from arena_api.db.votes import insert_votes_from
from arena_api.interop.omniarena import SeedBatch, SeedModel, check_schema, loose_round
from arena_api.language import detect_language

__all__ = ["PROVIDERS", "SOURCE", "PostgresSeedImport", "SeedDatabase"]

SOURCE = "omniarena"
#: The providers ``models.provider`` allows besides ``imported``.
PROVIDERS = frozenset({"google", "openai", "ollama", "vllm", "host-proxy", "mock"})

_HEADS = """
SELECT id, anonymous_session_id, created_at FROM conversations
 WHERE $1::timestamptz IS NULL OR (created_at, id) > ($1, $2::uuid)
 ORDER BY created_at, id LIMIT $3
"""
_LOOSE = """
SELECT m.id, m.prompt, m.slot_a_model_id, m.slot_b_model_id, m.slot_a_provider_model_id,
       m.slot_b_provider_model_id, m.harness_version, m.mode, m.steers::text AS steers,
       m.created_at, p.anonymous_session_id
  FROM matchups m LEFT JOIN preferences p ON p.matchup_id = m.id
 WHERE NOT EXISTS (SELECT 1 FROM turns t WHERE t.matchup_id = m.id)
   AND ($1::timestamptz IS NULL OR (m.created_at, m.id) > ($1, $2::uuid))
 ORDER BY m.created_at, m.id LIMIT $3
"""
_READ_TURNS = """
SELECT id, conversation_id, matchup_id, parent_response_id, turn_index, prompt, created_at
  FROM turns WHERE conversation_id = ANY($1::uuid[]) ORDER BY conversation_id, turn_index
"""
_READ_MATCHUPS = """
SELECT id, prompt, slot_a_model_id, slot_b_model_id, slot_a_provider_model_id,
       slot_b_provider_model_id, harness_version, mode, steers::text AS steers, created_at
  FROM matchups WHERE id = ANY($1::uuid[])
"""
_READ_RESPONSES = """
SELECT id, matchup_id, slot, model_id, content, latency_ms, ttft_ms, stream_duration_ms,
       output_token_count, token_count_source, markdown_density, model_version, error,
       created_at
  FROM responses WHERE matchup_id = ANY($1::uuid[])
"""
_READ_PREFERENCES = """
SELECT id, matchup_id, vote, anonymous_session_id, created_at
  FROM preferences WHERE matchup_id = ANY($1::uuid[])
"""


class SeedDatabase:
    """The seed's database on one connection; see the module's docstring."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn
        self._checked = False

    async def _check(self) -> None:
        """``SeedSchemaError``: not the seed's database, or one its newest migrations have
        not reached."""
        if not self._checked:
            rows = await self._conn.fetch(
                "SELECT table_name, column_name FROM information_schema.columns"
                " WHERE table_schema = current_schema()"
            )
            check_schema({(r["table_name"], r["column_name"]) for r in rows})
            self._checked = True

    async def models(self) -> dict[uuid.UUID, SeedModel]:
        """Every model of the seed's roster, by its id."""
        await self._check()
        rows = await self._conn.fetch(
            "SELECT id, display_name, provider, provider_model_id FROM models"
        )
        return {r["id"]: SeedModel(**dict(r)) for r in rows}

    async def count(self) -> int:
        """Conversations to read, a round without one counting as one."""
        await self._check()
        count: int = await self._conn.fetchval(
            "SELECT (SELECT count(*) FROM conversations) + (SELECT count(*) FROM matchups m"
            " WHERE NOT EXISTS (SELECT 1 FROM turns t WHERE t.matchup_id = m.id))"
        )
        return count

    async def batches(self, size: int) -> AsyncIterator[SeedBatch]:
        """The seed's conversations, ``size`` at a time, each with all its rows."""
        after: tuple[Any, Any] = (None, None)
        while heads := await self._conn.fetch(_HEADS, *after, size):
            turns = [dict(r) for r in await self._conn.fetch(_READ_TURNS, [r["id"] for r in heads])]
            yield await self._batch([dict(r) for r in heads], turns, [])
            after = (heads[-1]["created_at"], heads[-1]["id"])
        after = (None, None)
        while loose := await self._conn.fetch(_LOOSE, *after, size):
            rounds = [dict(r) for r in loose]
            pairs = [loose_round(m, m.pop("anonymous_session_id")) for m in rounds]
            yield await self._batch([c for c, _ in pairs], [t for _, t in pairs], rounds)
            after = (loose[-1]["created_at"], loose[-1]["id"])

    async def _batch(
        self, heads: list[dict[str, Any]], turns: list[dict[str, Any]], rounds: list[dict[str, Any]]
    ) -> SeedBatch:
        ids = [t["matchup_id"] for t in turns]
        if not rounds:
            rounds = [dict(r) for r in await self._conn.fetch(_READ_MATCHUPS, ids)]
        return SeedBatch(
            conversations=heads,
            turns=turns,
            matchups=rounds,
            responses=[dict(r) for r in await self._conn.fetch(_READ_RESPONSES, ids)],
            preferences=[dict(r) for r in await self._conn.fetch(_READ_PREFERENCES, ids)],
        )


_CONVERSATIONS = """
INSERT INTO conversations (id, anonymous_session_id, created_at, import_source, import_id)
SELECT id, session, at, $4, id::text
  FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS v (id, session, at)
"""
_MATCHUPS = """
INSERT INTO matchups (id, prompt, model_a_id, model_b_id, slot_a_model_id, slot_b_model_id,
                      slot_a_provider_model_id, slot_b_provider_model_id, matchup_token_hash,
                      harness_version, mode, steers, created_at, categories, language,
                      prompt_key, import_source, import_id)
SELECT id, prompt, LEAST(a, b), GREATEST(a, b), a, b, a_pmid, b_pmid, repeat('0', 64),
       harness, mode, steers::jsonb, at,
       CASE WHEN categories = '' THEN '{}'::text[] ELSE string_to_array(categories, ',') END,
       language, key, $14, id::text
  FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::text[], $6::text[],
              $7::text[], $8::text[], $9::text[], $10::timestamptz[], $11::text[], $12::text[],
              $13::text[])
       AS v (id, prompt, a, b, a_pmid, b_pmid, harness, mode, steers, at, categories,
             language, key)
"""
_RESPONSES = """
INSERT INTO responses (id, matchup_id, slot, model_id, content, latency_ms, ttft_ms,
                       stream_duration_ms, output_token_count, token_count_source,
                       markdown_density, model_version, error, created_at, names_itself)
SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::int[],
                     $7::int[], $8::int[], $9::int[], $10::text[], $11::float8[], $12::text[],
                     $13::text[], $14::timestamptz[], $15::bool[])
"""
_VOTES = insert_votes_from(
    "SELECT id, matchup, vote, a, b, session, 'human', '{}'::text[], at"
    " FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::text[],"
    " $7::timestamptz[]) AS u (id, matchup, vote, a, b, session, at)"
)


class PostgresSeedImport:
    """Writes the seed's batches; see the module's docstring."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def models(
        self, seed: dict[uuid.UUID, SeedModel], *, create: bool
    ) -> tuple[dict[uuid.UUID, ModelEntry], list[str]]:
        """Our model for each seed model, and the display names of those we did not have
        (created archived when ``create``; left out of the mapping otherwise)."""
        async with self._pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                "SELECT id, display_name, provider, provider_model_id FROM models"
            )
            by_key = {(r["provider"], r["provider_model_id"]): r for r in rows}
            by_name = {r["display_name"]: r for r in rows}
            mapped: dict[uuid.UUID, ModelEntry] = {}
            unknown: list[str] = []
            for seed_id, model in seed.items():
                provider = model.provider if model.provider in PROVIDERS else "imported"
                row = by_key.get((provider, model.provider_model_id)) or by_name.get(
                    model.display_name
                )
                if row is None:
                    unknown.append(model.display_name)
                    if not create:
                        continue
                    row = await conn.fetchrow(
                        "INSERT INTO models (id, display_name, provider, provider_model_id,"
                        " status, source) VALUES ($1, $2, $3, $4, $5, 'import')"
                        " RETURNING id, display_name, provider, provider_model_id",
                        new_id(),
                        model.display_name,
                        provider,
                        model.provider_model_id,
                        ARCHIVED,
                    )
                mapped[seed_id] = ModelEntry(
                    row["id"], row["display_name"], row["provider"], row["provider_model_id"]
                )
        return mapped, sorted(unknown)

    async def imported(self, ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
        """Which of the seed's conversations were imported already."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT import_id FROM conversations"
                " WHERE import_source = $1 AND import_id = ANY($2::text[])",
                SOURCE,
                [str(i) for i in ids],
            )
        return {uuid.UUID(r["import_id"]) for r in rows}

    async def write(self, batch: SeedBatch, models: dict[uuid.UUID, ModelEntry]) -> int:
        """Write ``batch`` (none of its conversations imported before) in one transaction;
        the number of votes written. ``ValueError``: our schema refused a row (nothing of
        the batch is written)."""
        slots: dict[uuid.UUID, tuple[ModelEntry, ModelEntry]] = {}
        turn_of = {t["matchup_id"]: t["turn_index"] for t in batch.turns}
        matchups = []
        for m in batch.matchups:
            a, b = models[m["slot_a_model_id"]], models[m["slot_b_model_id"]]
            slots[m["id"]] = (a, b)
            matchups.append(
                (
                    m["id"],
                    m["prompt"],
                    a.id,
                    b.id,
                    m["slot_a_provider_model_id"],
                    m["slot_b_provider_model_id"],
                    m["harness_version"],
                    m["mode"],
                    m["steers"],
                    m["created_at"],
                    ",".join(classify(m["prompt"], turn_index=turn_of[m["id"]])),
                    detect_language(m["prompt"]),
                    prompt_key(m["prompt"]),
                )
            )
        responses = [
            (
                r["id"],
                r["matchup_id"],
                r["slot"],
                models[r["model_id"]].id,
                r["content"],
                r["latency_ms"],
                r["ttft_ms"],
                r["stream_duration_ms"],
                r["output_token_count"],
                r["token_count_source"],
                r["markdown_density"],
                r["model_version"],
                r["error"],
                r["created_at"],
                r["error"] is None and names_itself(r["content"], models[r["model_id"]]),
            )
            for r in batch.responses
        ]
        votes = [
            (
                p["id"],
                p["matchup_id"],
                p["vote"],
                slots[p["matchup_id"]][0].id,
                slots[p["matchup_id"]][1].id,
                p["anonymous_session_id"],
                p["created_at"],
            )
            for p in batch.preferences
        ]
        conversations = [
            (c["id"], c["anonymous_session_id"], c["created_at"]) for c in batch.conversations
        ]
        turns = [
            (
                t["id"],
                t["conversation_id"],
                t["matchup_id"],
                t["parent_response_id"],
                t["turn_index"],
                t["prompt"],
                t["created_at"],
            )
            for t in batch.turns
        ]
        try:
            async with self._pool.acquire() as conn, conn.transaction():
                await conn.execute(_CONVERSATIONS, *unnest_columns(conversations, 3), SOURCE)
                await conn.execute(_MATCHUPS, *unnest_columns(matchups, 13), SOURCE)
                await conn.execute(_RESPONSES, *unnest_columns(responses, 15))
                await conn.execute(INSERT_TURNS, *unnest_columns(turns, 7))
                await conn.execute(_VOTES, *unnest_columns(votes, 7))
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise ValueError(exc.args[0] if exc.args else str(exc)) from None
        return len(votes)
