"""An eval suite run as stored, and the port that stores it (``arena_api.db.suites``)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

__all__ = ["SuiteResultRecord", "SuiteRunRecord", "SuiteRunStore"]


@dataclass(frozen=True)
class SuiteResultRecord:
    prompt_index: int
    matchup_id: uuid.UUID | None
    outcome: str
    winner_model_id: uuid.UUID | None
    winner_name: str | None
    slot_a_name: str | None
    slot_b_name: str | None
    cost_usd: Decimal | None
    error: str | None


@dataclass(frozen=True)
class SuiteRunRecord:
    id: uuid.UUID
    suite: str
    status: str
    total: int
    completed: int
    prompts: list[dict[str, Any]]
    models: list[str] | None
    error: str | None
    created_at: datetime
    finished_at: datetime | None
    results: tuple[SuiteResultRecord, ...]
    #: What the judged prompts' rounds and verdicts cost (None: nothing in them had a price).
    cost_usd: Decimal | None = None


class SuiteRunStore(Protocol):
    async def create(
        self, suite: str, prompts: list[dict[str, Any]], models: list[str] | None
    ) -> uuid.UUID: ...

    async def add_result(
        self,
        run_id: uuid.UUID,
        prompt_index: int,
        *,
        matchup_id: uuid.UUID | None,
        outcome: str,
        winner_model_id: uuid.UUID | None,
        error: str | None,
    ) -> None: ...

    async def set_status(
        self, run_id: uuid.UUID, status: str, error: str | None = None
    ) -> None: ...

    async def resume(self, run_id: uuid.UUID) -> bool: ...

    async def interrupt_running(self) -> int: ...

    async def get(self, run_id: uuid.UUID) -> SuiteRunRecord | None: ...

    async def recent(self, suite: str | None = None, limit: int = 50) -> list[SuiteRunRecord]: ...
