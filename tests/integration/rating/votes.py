"""Bulk insertion of synthetic votes: models, matchups, both responses and the preference.

One statement through ``unnest`` of arrays, so tens of thousands of votes load in about a second.
The counters' triggers are switched off for the load and the counters recounted after it
(``arena_rebuild_vote_stats``), all in the caller's transaction: a statement firing one trigger
per vote would be slow and runs out of lock memory on large loads.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import insert, text
from sqlalchemy.ext.asyncio import AsyncConnection

from arena_api.db import tables
from tests.unit.rating.synthetic import Simulated, VoteLog

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class VoteRows:
    """Per-vote columns; ``None`` in a metric list writes NULL, ``has_*`` False writes no row."""

    slot_a: Sequence[int]
    slot_b: Sequence[int]
    votes: Sequence[str]
    sessions: Sequence[str | None]
    seconds: Sequence[float]
    tokens_a: Sequence[int]
    tokens_b: Sequence[int]
    markdown_a: Sequence[float]
    markdown_b: Sequence[float]
    ttft_a: Sequence[int | None]
    ttft_b: Sequence[int | None]
    duration_a: Sequence[int]
    duration_b: Sequence[int]
    error_a: Sequence[str | None] = field(default_factory=list)
    error_b: Sequence[str | None] = field(default_factory=list)
    has_a: Sequence[bool] = field(default_factory=list)
    has_b: Sequence[bool] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.slot_a)
        self.error_a = list(self.error_a) or [None] * n
        self.error_b = list(self.error_b) or [None] * n
        self.has_a = list(self.has_a) or [True] * n
        self.has_b = list(self.has_b) or [True] * n


def _ints(values: NDArray[np.float64]) -> list[int]:
    return [int(v) for v in np.rint(values)]


def rows_from_simulation(sim: Simulated, labels: NDArray[np.str_]) -> VoteRows:
    """A simulated arena as rows (session-less votes one second apart)."""
    n = sim.n_votes
    return VoteRows(
        slot_a=sim.slot_a.tolist(),
        slot_b=sim.slot_b.tolist(),
        votes=labels.tolist(),
        sessions=[None] * n,
        seconds=np.arange(n, dtype=float).tolist(),
        tokens_a=_ints(sim.tokens_a),
        tokens_b=_ints(sim.tokens_b),
        markdown_a=sim.markdown_a.tolist(),
        markdown_b=sim.markdown_b.tolist(),
        ttft_a=_ints(sim.ttft_a),
        ttft_b=_ints(sim.ttft_b),
        duration_a=_ints(sim.duration_a),
        duration_b=_ints(sim.duration_b),
    )


def rows_from_log(log: VoteLog) -> VoteRows:
    """A session log as rows with constant metrics."""
    return constant_rows(
        log.slot_a.tolist(),
        log.slot_b.tolist(),
        log.votes.tolist(),
        log.session_ids.tolist(),
        log.timestamps_s.tolist(),
    )


def constant_rows(
    slot_a: Sequence[int],
    slot_b: Sequence[int],
    votes: Sequence[str],
    sessions: Sequence[str | None],
    seconds: Sequence[float],
) -> VoteRows:
    """Votes with the same answer metrics throughout."""
    n = len(slot_a)
    return VoteRows(
        slot_a=slot_a,
        slot_b=slot_b,
        votes=votes,
        sessions=sessions,
        seconds=seconds,
        tokens_a=[300] * n,
        tokens_b=[300] * n,
        markdown_a=[0.1] * n,
        markdown_b=[0.1] * n,
        ttft_a=[200] * n,
        ttft_b=[200] * n,
        duration_a=[5000] * n,
        duration_b=[5000] * n,
    )


async def insert_models(
    conn: AsyncConnection, count: int, *, enabled: bool = True
) -> list[uuid.UUID]:
    ids = sorted(uuid.uuid4() for _ in range(count))
    await conn.execute(
        insert(tables.models),
        [
            {
                "id": model_id,
                "display_name": f"Model {i}",
                "provider": "mock",
                "provider_model_id": f"model-{model_id}",
                "status": "active" if enabled else "archived",
            }
            for i, model_id in enumerate(ids)
        ],
    )
    return ids


_LOAD = """
WITH v AS (
  SELECT gen_random_uuid() AS matchup_id, ma.id AS a, mb.id AS b, x.*
  FROM unnest(
    CAST(:a AS int[]), CAST(:b AS int[]), CAST(:vote AS text[]), CAST(:session AS text[]),
    CAST(:at AS timestamptz[]), CAST(:tok_a AS int[]), CAST(:tok_b AS int[]),
    CAST(:md_a AS float8[]), CAST(:md_b AS float8[]), CAST(:ttft_a AS int[]),
    CAST(:ttft_b AS int[]), CAST(:dur_a AS int[]), CAST(:dur_b AS int[]),
    CAST(:err_a AS text[]), CAST(:err_b AS text[]), CAST(:has_a AS bool[]),
    CAST(:has_b AS bool[])
  ) AS x (ai, bi, vote, session, at, tok_a, tok_b, md_a, md_b, ttft_a, ttft_b, dur_a, dur_b,
          err_a, err_b, has_a, has_b)
  JOIN unnest(CAST(:models AS uuid[])) WITH ORDINALITY AS ma (id, ord) ON ma.ord = x.ai + 1
  JOIN unnest(CAST(:models AS uuid[])) WITH ORDINALITY AS mb (id, ord) ON mb.ord = x.bi + 1
), m AS (
  INSERT INTO matchups (id, prompt, model_a_id, model_b_id, slot_a_model_id, slot_b_model_id,
                        slot_a_provider_model_id, slot_b_provider_model_id, matchup_token_hash,
                        created_at)
  SELECT matchup_id, 'p', LEAST(a, b), GREATEST(a, b), a, b, 'pa', 'pb', md5(matchup_id::text),
         at
  FROM v
), r AS (
  INSERT INTO responses (id, matchup_id, slot, model_id, content, latency_ms, ttft_ms,
                         stream_duration_ms, output_token_count, token_count_source,
                         markdown_density, error, created_at)
  SELECT gen_random_uuid(), matchup_id, s.slot, CASE s.slot WHEN 'A' THEN a ELSE b END, 'c',
         CASE s.slot WHEN 'A' THEN dur_a ELSE dur_b END,
         CASE s.slot WHEN 'A' THEN ttft_a ELSE ttft_b END,
         CASE s.slot WHEN 'A' THEN dur_a ELSE dur_b END,
         CASE s.slot WHEN 'A' THEN tok_a ELSE tok_b END, 'estimated',
         CASE s.slot WHEN 'A' THEN md_a ELSE md_b END,
         CASE s.slot WHEN 'A' THEN err_a ELSE err_b END, at
  FROM v CROSS JOIN (VALUES ('A'), ('B')) AS s (slot)
  WHERE CASE s.slot WHEN 'A' THEN has_a ELSE has_b END
)
INSERT INTO preferences (id, matchup_id, vote, winner_model_id, anonymous_session_id,
                         position_bias_meta, created_at)
SELECT gen_random_uuid(), matchup_id, vote,
       CASE vote WHEN 'left' THEN a WHEN 'right' THEN b END, session,
       jsonb_build_object('selectedSlot',
                          CASE vote WHEN 'left' THEN 'A' WHEN 'right' THEN 'B' END),
       at
FROM v
"""


async def insert_votes(conn: AsyncConnection, models: Sequence[uuid.UUID], rows: VoteRows) -> None:
    """Insert one matchup, its responses and its preference per row (a CTE chain)."""
    for table in ("matchups", "responses", "preferences"):
        await conn.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
    await conn.execute(
        text(_LOAD),
        {
            "a": list(rows.slot_a),
            "b": list(rows.slot_b),
            "vote": list(rows.votes),
            "session": list(rows.sessions),
            "at": [EPOCH + timedelta(seconds=s) for s in rows.seconds],
            "tok_a": list(rows.tokens_a),
            "tok_b": list(rows.tokens_b),
            "md_a": list(rows.markdown_a),
            "md_b": list(rows.markdown_b),
            "ttft_a": list(rows.ttft_a),
            "ttft_b": list(rows.ttft_b),
            "dur_a": list(rows.duration_a),
            "dur_b": list(rows.duration_b),
            "err_a": list(rows.error_a),
            "err_b": list(rows.error_b),
            "has_a": list(rows.has_a),
            "has_b": list(rows.has_b),
            "models": list(models),
        },
    )
    for table in ("matchups", "responses", "preferences"):
        await conn.execute(text(f"ALTER TABLE {table} ENABLE TRIGGER USER"))
    await conn.execute(text("SELECT arena_rebuild_vote_stats()"))
