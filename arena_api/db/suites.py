"""Suite runs on PostgreSQL: a run's row, its per-prompt results, and the runs a stop cut short."""

from __future__ import annotations

import json
import uuid
from typing import Any

import asyncpg

from arena_api.core.ids import new_id
from arena_api.core.suite_runs import SuiteResultRecord, SuiteRunRecord
from arena_api.db.outages import raises_unavailable

__all__ = ["PostgresSuiteRuns"]


_RESULTS = """
SELECT r.run_id, r.prompt_index, r.matchup_id, r.outcome, r.winner_model_id, r.cost_usd, r.error,
       w.display_name AS winner_name, a.display_name AS slot_a_name,
       b.display_name AS slot_b_name
  FROM suite_results r
  LEFT JOIN models w ON w.id = r.winner_model_id
  LEFT JOIN matchups m ON m.id = r.matchup_id
  LEFT JOIN models a ON a.id = m.slot_a_model_id
  LEFT JOIN models b ON b.id = m.slot_b_model_id
 WHERE r.run_id = ANY($1::uuid[])
 ORDER BY r.run_id, r.prompt_index
"""

_RUN = """
SELECT r.*, (SELECT sum(cost_usd) FROM suite_results WHERE run_id = r.id) AS cost_usd
  FROM suite_runs r
"""

# The answers' and the judge's cost of a matchup (NULL when nothing in it had a price).
_MATCHUP_COST = """
SELECT (SELECT sum(cost_usd) FROM responses WHERE matchup_id = $1)
     + coalesce((SELECT sum(cost_usd) FROM judge_verdicts WHERE matchup_id = $1), 0)
"""


@raises_unavailable
class PostgresSuiteRuns:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def create(
        self, suite: str, prompts: list[dict[str, Any]], models: list[str] | None
    ) -> uuid.UUID:
        run_id = new_id()
        async with self._pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO suite_runs (id, suite, status, total, prompts, models) "
                "VALUES ($1, $2, 'running', $3, $4::jsonb, $5::jsonb)",
                run_id,
                suite,
                len(prompts),
                json.dumps(prompts),
                None if models is None else json.dumps(models),
            )
        return run_id

    async def add_result(
        self,
        run_id: uuid.UUID,
        prompt_index: int,
        *,
        matchup_id: uuid.UUID | None,
        outcome: str,
        winner_model_id: uuid.UUID | None,
        error: str | None,
    ) -> None:
        """Record a prompt's verdict and count it, in one transaction (once per prompt)."""
        async with self._pool.acquire() as conn, conn.transaction():
            cost = await conn.fetchval(_MATCHUP_COST, matchup_id) if matchup_id else None
            inserted = await conn.fetchval(
                "INSERT INTO suite_results (run_id, prompt_index, matchup_id, outcome, "
                "winner_model_id, cost_usd, error) VALUES ($1, $2, $3, $4, $5, $6, $7) "
                "ON CONFLICT (run_id, prompt_index) DO NOTHING RETURNING prompt_index",
                run_id,
                prompt_index,
                matchup_id,
                outcome,
                winner_model_id,
                cost,
                error,
            )
            if inserted is not None:
                await conn.execute(
                    "UPDATE suite_runs SET completed = completed + 1 WHERE id = $1", run_id
                )

    async def set_status(self, run_id: uuid.UUID, status: str, error: str | None = None) -> None:
        finished = status in ("done", "failed")
        async with self._pool.acquire() as conn:
            await conn.execute(
                "UPDATE suite_runs SET status = $2, error = $3, "
                "finished_at = CASE WHEN $4 THEN now() END WHERE id = $1",
                run_id,
                status,
                error,
                finished,
            )

    async def resume(self, run_id: uuid.UUID) -> bool:
        """Mark an interrupted or failed run running again; False when it is not one."""
        async with self._pool.acquire() as conn:
            resumed = await conn.fetchval(
                "UPDATE suite_runs SET status = 'running', error = NULL, finished_at = NULL "
                "WHERE id = $1 AND status IN ('interrupted', 'failed') RETURNING id",
                run_id,
            )
        return resumed is not None

    async def interrupt_running(self) -> int:
        """Runs left ``running`` by a server that stopped: ``interrupted`` (resumable)."""
        async with self._pool.acquire() as conn:
            status = await conn.execute(
                "UPDATE suite_runs SET status = 'interrupted' WHERE status = 'running'"
            )
        return int(status.split()[-1])

    async def get(self, run_id: uuid.UUID) -> SuiteRunRecord | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(f"{_RUN} WHERE r.id = $1", run_id)
            if row is None:
                return None
            results = await conn.fetch(_RESULTS, [run_id])
        return _run(row, results)

    async def recent(self, suite: str | None = None, limit: int = 50) -> list[SuiteRunRecord]:
        """The latest runs (of ``suite``), newest first, with their results (one more read)."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                f"{_RUN} WHERE $1::text IS NULL OR r.suite = $1 "
                "ORDER BY r.created_at DESC LIMIT $2",
                suite,
                limit,
            )
            by_run: dict[uuid.UUID, list[asyncpg.Record]] = {r["id"]: [] for r in rows}
            for result in await conn.fetch(_RESULTS, list(by_run)):
                by_run[result["run_id"]].append(result)
        return [_run(r, by_run[r["id"]]) for r in rows]


def _run(row: asyncpg.Record, results: list[asyncpg.Record]) -> SuiteRunRecord:
    return SuiteRunRecord(
        id=row["id"],
        suite=row["suite"],
        status=row["status"],
        total=row["total"],
        completed=row["completed"],
        prompts=json.loads(row["prompts"]),
        models=None if row["models"] is None else json.loads(row["models"]),
        error=row["error"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        cost_usd=row["cost_usd"],
        results=tuple(
            SuiteResultRecord(
                prompt_index=r["prompt_index"],
                matchup_id=r["matchup_id"],
                outcome=r["outcome"],
                winner_model_id=r["winner_model_id"],
                winner_name=r["winner_name"],
                slot_a_name=r["slot_a_name"],
                slot_b_name=r["slot_b_name"],
                cost_usd=r["cost_usd"],
                error=r["error"],
            )
            for r in results
        ),
    )
