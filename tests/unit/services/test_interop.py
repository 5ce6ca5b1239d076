"""BattleImport against an in-memory store: batches, duplicates within a file and across
imports, unknown models, bad records counted and listed, and dry runs that write nothing."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from arena_api.core.models import ModelEntry
from arena_api.interop.battles import BadRecord, Battle
from arena_api.services.interop import MAX_LISTED, BattleImport


class _Store:
    def __init__(self, known: Sequence[str]) -> None:
        self.models_by_name = {n: ModelEntry(uuid.uuid4(), n, "mock", n) for n in known}
        self.written: list[str] = []
        self.created: list[str] = []
        self.batches = 0

    async def models(self, names: Sequence[str]) -> dict[str, ModelEntry]:
        return {n: self.models_by_name[n] for n in names if n in self.models_by_name}

    async def create_models(self, names: Sequence[str]) -> dict[str, ModelEntry]:
        self.created += names
        for n in names:
            self.models_by_name[n] = ModelEntry(uuid.uuid4(), n, "imported", n)
        return await self.models(names)

    async def imported(self, source: str, ids: Sequence[str]) -> set[str]:
        return set(ids) & set(self.written)

    async def write(self, battles: Sequence[Battle], models: dict[str, ModelEntry]) -> int:
        assert all(b.model_a in models and b.model_b in models for b in battles)
        self.batches += 1
        self.written += [b.source_id for b in battles]
        return len(battles)


def _battle(n: int, a: str = "alpha", b: str = "beta", method: str = "human") -> Battle:
    return Battle(
        source="lmarena",
        source_id=f"q{n}",
        model_a=a,
        model_b=b,
        vote="left",
        voted_at=datetime(2026, 1, 1, tzinfo=UTC),
        method=method,  # type: ignore[arg-type]
    )


async def test_batches_are_written_once_and_duplicates_counted() -> None:
    store = _Store(["alpha", "beta"])
    records = [_battle(n % 25) for n in range(30)]  # q0..q4 twice
    progress: list[int] = []

    report = await BattleImport(store, batch=10).run(records, progress=progress.append)
    again = await BattleImport(store, batch=10).run(records)

    assert report.read == 30 and report.imported == 25 and report.duplicates == 5
    assert store.written == [f"q{n}" for n in range(25)] and store.batches == 3
    assert progress == [10, 20, 30]
    assert again.imported == 0 and again.duplicates == 30 and store.batches == 3


async def test_unknown_models_are_created_unless_dry() -> None:
    store = _Store(["alpha"])
    records = [_battle(1, b="gamma"), _battle(2, a="delta", method="judge")]

    dry = await BattleImport(store).run(records, dry_run=True)
    wet = await BattleImport(store).run(records)

    assert dry.imported == 2 and dry.unknown_models == {"beta", "delta", "gamma"}
    assert store.created == ["beta", "delta", "gamma"] and store.written == ["q1", "q2"]
    assert wet.by_method == {"human": 1, "judge": 1}


async def test_bad_records_are_counted_all_and_listed_up_to_a_bound() -> None:
    store = _Store(["alpha", "beta"])
    records: list[Battle | BadRecord] = [BadRecord(f"line {n}", "bad") for n in range(150)]
    records.append(_battle(1))

    report = await BattleImport(store).run(records)

    assert report.bad == 150 and len(report.problems) == MAX_LISTED
    assert report.imported == 1 and str(report.problems[0]) == "line 0: bad"
