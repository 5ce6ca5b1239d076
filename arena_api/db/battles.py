"""Imported battles into the request-path tables, and our votes read back as battles.

An imported battle becomes what a round played here leaves behind: a conversation, one matchup
and turn per exchange (each turn's parent is the answer in slot A of the turn before), the
answers where the source has them, and one vote on the last matchup, written through the bulk
form of the one vote statement (``arena_api.db.votes.insert_votes_from``). The counting triggers
keep every summary current as the rows go in. Conversations and matchups carry the source and
the record's id (``import_source``, ``import_id``); a batch skips the records already imported
and is written in one transaction, so a failed batch leaves nothing behind.

Imported answers have no timings (``latency_ms``, ``ttft_ms`` and ``stream_duration_ms`` are
NULL): the latency summaries and the style pass leave them out, as they would any answer
without a TTFT. A model the arena does not know is created ``archived`` with provider
``imported``: it is on the board and never matched.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from arena_api.core.categories import UNDETERMINED, classify, prompt_key
from arena_api.core.identity import names_itself
from arena_api.core.ids import new_id
from arena_api.core.lifecycle import ACTIVE, ARCHIVED
from arena_api.core.models import ModelEntry
from arena_api.core.response_metrics import estimate_tokens, markdown_density
from arena_api.db.export import anonymise_session
from arena_api.db.votes import insert_votes_from
from arena_api.interop.battles import Battle, VotedRound

__all__ = ["IMPORT_HARNESS", "INSERT_TURNS", "PostgresBattles", "unnest_columns"]

#: ``matchups.harness_version`` of imported rounds.
IMPORT_HARNESS = "import"

_MODELS = """
SELECT id, display_name, provider, provider_model_id, status FROM models
 WHERE display_name = ANY($1::text[]) OR provider_model_id = ANY($1::text[])
"""

_CREATE_MODELS = """
INSERT INTO models (id, display_name, provider, provider_model_id, status, source)
SELECT unnest($1::uuid[]), unnest($2::text[]), 'imported', unnest($2::text[]), $3, 'import'
ON CONFLICT (provider, provider_model_id) DO NOTHING
"""

_IMPORTED = """
SELECT import_id FROM conversations WHERE import_source = $1 AND import_id = ANY($2::text[])
"""

_CONVERSATIONS = """
INSERT INTO conversations (id, anonymous_session_id, created_at, import_source, import_id)
SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::text[], $5::text[])
"""

_MATCHUPS = """
INSERT INTO matchups (id, prompt, model_a_id, model_b_id, slot_a_model_id, slot_b_model_id,
                      slot_a_provider_model_id, slot_b_provider_model_id, matchup_token_hash,
                      harness_version, mode, created_at, categories, language, prompt_key,
                      import_source, import_id)
SELECT v.id, v.prompt, LEAST(v.a, v.b), GREATEST(v.a, v.b), v.a, v.b, a.provider_model_id,
       b.provider_model_id, repeat('0', 64), $11, v.mode, v.at,
       CASE WHEN v.categories = '' THEN '{}'::text[] ELSE string_to_array(v.categories, ',') END,
       v.language, v.key, $12, v.import_id
  FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::text[], $6::timestamptz[],
              $7::text[], $8::text[], $9::text[], $10::text[])
       AS v (id, prompt, a, b, mode, at, categories, language, key, import_id)
  JOIN models a ON a.id = v.a
  JOIN models b ON b.id = v.b
"""

_RESPONSES = """
INSERT INTO responses (id, matchup_id, slot, model_id, content, latency_ms, ttft_ms,
                       stream_duration_ms, output_token_count, token_count_source,
                       markdown_density, created_at, names_itself)
SELECT id, matchup_id, slot, model_id, content, NULL, NULL, NULL, tokens, 'estimated',
       density, at, named
  FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::int[],
              $7::float8[], $8::timestamptz[], $9::bool[])
       AS v (id, matchup_id, slot, model_id, content, tokens, density, at, named)
"""

INSERT_TURNS = """
INSERT INTO turns (id, conversation_id, matchup_id, parent_response_id, turn_index, prompt,
                   created_at)
SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::int[], $6::text[],
                     $7::timestamptz[])
"""

# Reasons travel comma-joined (``unnest`` cannot take an array of arrays); they are slugs.
_VOTES = insert_votes_from(
    "SELECT id, matchup, vote, a, b, session, method,"
    " CASE WHEN reasons = '' THEN '{}'::text[] ELSE string_to_array(reasons, ',') END, at"
    " FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::text[],"
    " $7::text[], $8::text[], $9::timestamptz[])"
    " AS u (id, matchup, vote, a, b, session, method, reasons, at)"
)


def unnest_columns(rows: Sequence[tuple[Any, ...]], width: int) -> list[list[Any]]:
    """Rows as the column arrays ``unnest`` takes."""
    return [[row[i] for row in rows] for i in range(width)] if rows else [[] for _ in range(width)]


@dataclass
class _Rows:
    """A batch's rows, table by table, in the order of the statements' parameters."""

    conversations: list[tuple[Any, ...]]
    matchups: list[tuple[Any, ...]]
    responses: list[tuple[Any, ...]]
    turns: list[tuple[Any, ...]]
    votes: list[tuple[Any, ...]]


def _session(battle: Battle) -> str | None:
    return f"{battle.source}:{battle.voter}" if battle.voter else None


def _rows(battles: Iterable[Battle], models: dict[str, ModelEntry]) -> _Rows:
    rows = _Rows([], [], [], [], [])
    for battle in battles:
        a, b = models[battle.model_a], models[battle.model_b]
        conversation, session = new_id(), _session(battle)
        rows.conversations.append(
            (conversation, session, battle.voted_at, battle.source, battle.source_id)
        )
        exchanges = battle.exchanges or ()
        parent: uuid.UUID | None = None
        matchup = new_id()
        for index in range(battle.turns):
            matchup = new_id()
            exchange = exchanges[index] if exchanges else None
            prompt = exchange.prompt if exchange else ""
            if exchange:
                categories = ",".join(classify(prompt, turn_index=index))
                key: str | None = prompt_key(prompt)
            else:
                categories, key = "", None
            rows.matchups.append(
                (
                    matchup,
                    prompt,
                    a.id,
                    b.id,
                    "named" if battle.named else "blind",
                    battle.voted_at,
                    categories,
                    battle.language or UNDETERMINED,
                    key,
                    f"{battle.source_id}#{index}" if index else battle.source_id,
                )
            )
            answers = {}
            if exchange:
                for slot, model, answer in (
                    ("A", a, exchange.answer_a),
                    ("B", b, exchange.answer_b),
                ):
                    if answer is None:
                        continue
                    answers[slot] = new_id()
                    rows.responses.append(
                        (
                            answers[slot],
                            matchup,
                            slot,
                            model.id,
                            answer,
                            estimate_tokens(answer),
                            markdown_density(answer),
                            battle.voted_at,
                            names_itself(answer, model),
                        )
                    )
            rows.turns.append(
                (new_id(), conversation, matchup, parent, index, prompt, battle.voted_at)
            )
            parent = answers.get("A") or answers.get("B")
        rows.votes.append(
            (
                new_id(),
                matchup,
                battle.vote,
                a.id,
                b.id,
                session,
                battle.method,
                ",".join(battle.reasons),
                battle.voted_at,
            )
        )
    return rows


_VOTED_ROUNDS = """
SELECT m.id AS matchup_id, p.created_at AS voted_at, p.vote AS outcome, p.method, m.mode,
       m.language, m.image_count, ma.display_name AS model_a, mb.display_name AS model_b,
       p.anonymous_session_id AS session, coalesce(t.turn_index, 0) + 1 AS turn,
       t.conversation_id
       {text}
  FROM preferences p
  JOIN matchups m ON m.id = p.matchup_id
  JOIN models ma ON ma.id = m.slot_a_model_id
  JOIN models mb ON mb.id = m.slot_b_model_id
  LEFT JOIN turns t ON t.matchup_id = m.id{joins}
 WHERE p.vote <> 'skip'
   AND ($1::timestamptz IS NULL OR p.created_at >= $1)
   AND ($2::timestamptz IS NULL OR p.created_at < $2)
 ORDER BY p.created_at, p.id
"""
# The conversation up to the voted turn: each turn's prompt and the answers in its two slots.
_CONVERSATION = """,
       ARRAY(SELECT jsonb_build_array(h.prompt, ra.content, rb.content)
               FROM turns h
               LEFT JOIN responses ra ON ra.matchup_id = h.matchup_id AND ra.slot = 'A'
               LEFT JOIN responses rb ON rb.matchup_id = h.matchup_id AND rb.slot = 'B'
              WHERE h.conversation_id = t.conversation_id AND h.turn_index <= t.turn_index
              ORDER BY h.turn_index) AS conversation,
       m.prompt, ra0.content AS answer_a, rb0.content AS answer_b"""
_LAST_ANSWERS = """
  LEFT JOIN responses ra0 ON ra0.matchup_id = m.id AND ra0.slot = 'A'
  LEFT JOIN responses rb0 ON rb0.matchup_id = m.id AND rb0.slot = 'B'"""


class PostgresBattles:
    """Imported battles in, voted rounds out (the import and LMArena export's store); the
    voters' sessions go out hashed with ``salt``, as in the vote export."""

    def __init__(self, pool: asyncpg.Pool, salt: bytes = b"") -> None:
        self._pool = pool
        self._salt = salt

    async def models(self, names: Sequence[str]) -> dict[str, ModelEntry]:
        """The models ``names`` name, by display name first, then by provider model id (an
        active model before a paused or archived one)."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(_MODELS, list(names))
        found: dict[str, ModelEntry] = {}
        ranked = sorted(
            rows, key=lambda r: (r["status"] != ACTIVE, r["provider"] == "imported", r["id"])
        )
        for key in ("provider_model_id", "display_name"):  # display names win: written last
            for row in reversed(ranked):
                found[row[key]] = ModelEntry(
                    row["id"], row["display_name"], row["provider"], row["provider_model_id"]
                )
        return {name: found[name] for name in names if name in found}

    async def create_models(self, names: Sequence[str]) -> dict[str, ModelEntry]:
        """Models known only from imported votes, archived; returns every one of ``names``."""
        async with self._pool.acquire() as conn:
            await conn.execute(_CREATE_MODELS, [new_id() for _ in names], list(names), ARCHIVED)
        return await self.models(names)

    async def imported(self, source: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` were imported from ``source`` already."""
        async with self._pool.acquire() as conn:
            return {r["import_id"] for r in await conn.fetch(_IMPORTED, source, list(ids))}

    async def write(self, battles: Sequence[Battle], models: dict[str, ModelEntry]) -> int:
        """Write ``battles`` (none of them imported before) in one transaction."""
        if not battles:
            return 0
        rows = _rows(battles, models)
        source = battles[0].source
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(_CONVERSATIONS, *unnest_columns(rows.conversations, 5))
            await conn.execute(
                _MATCHUPS, *unnest_columns(rows.matchups, 10), IMPORT_HARNESS, source
            )
            await conn.execute(_RESPONSES, *unnest_columns(rows.responses, 9))
            await conn.execute(INSERT_TURNS, *unnest_columns(rows.turns, 7))
            await conn.execute(_VOTES, *unnest_columns(rows.votes, 9))
        return len(battles)

    async def count_voted(self, since: datetime | None, until: datetime | None) -> int:
        async with self._pool.acquire() as conn:
            count: int = await conn.fetchval(
                "SELECT count(*) FROM preferences p WHERE p.vote <> 'skip'"
                " AND ($1::timestamptz IS NULL OR p.created_at >= $1)"
                " AND ($2::timestamptz IS NULL OR p.created_at < $2)",
                since,
                until,
            )
        return count

    async def voted_rounds(
        self,
        since: datetime | None,
        until: datetime | None,
        *,
        include_text: bool,
        batch: int = 2_000,
    ) -> AsyncIterator[list[VotedRound]]:
        """Every decisive or tied vote in ``[since, until)``, in vote order, ``batch`` at a time,
        with the conversation up to it when ``include_text``."""
        query = _VOTED_ROUNDS.format(
            text=_CONVERSATION if include_text else "", joins=_LAST_ANSWERS if include_text else ""
        )
        async with self._pool.acquire() as conn, conn.transaction(readonly=True):
            rounds: list[VotedRound] = []
            async for record in conn.cursor(query, since, until, prefetch=batch):
                row = dict(record)
                row["session"] = anonymise_session(self._salt, row["session"])
                conversation = None
                if include_text:
                    history = row.pop("conversation")
                    if history:
                        conversation = [_exchange(item) for item in history]
                    else:  # a round outside any conversation: its own prompt and answers
                        conversation = [(row["prompt"], row["answer_a"], row["answer_b"])]
                rounds.append(VotedRound(row, conversation))
                if len(rounds) >= batch:
                    yield rounds
                    rounds = []
            if rounds:
                yield rounds


def _exchange(item: Any) -> tuple[str, str | None, str | None]:
    prompt, answer_a, answer_b = json.loads(item) if isinstance(item, str) else item
    return prompt, answer_a, answer_b
