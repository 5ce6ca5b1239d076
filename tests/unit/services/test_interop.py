"""BattleImport against an in-memory store: batches, duplicates within a file and across
imports, unknown models, bad records counted and listed, and dry runs that write nothing."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime

from arena_api.core.models import ModelEntry
from arena_api.interop.battles import BadRecord, Battle
from arena_api.interop.omniarena import SeedBatch, SeedModel
from arena_api.services.interop import MAX_LISTED, BattleImport, SeedImport


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


def _seed_batch(ids: Sequence[uuid.UUID]) -> SeedBatch:
    """One round per conversation, each voted."""
    rounds = {c: uuid.uuid4() for c in ids}
    return SeedBatch(
        conversations=[{"id": c} for c in ids],
        turns=[{"conversation_id": c, "matchup_id": m} for c, m in rounds.items()],
        matchups=[{"id": m} for m in rounds.values()],
        responses=[],
        preferences=[{"matchup_id": m} for m in rounds.values()],
    )


class _Seed:
    def __init__(self, ids: Sequence[uuid.UUID], size: int) -> None:
        self.batches_of = [_seed_batch(ids[i : i + size]) for i in range(0, len(ids), size)]
        self.model = SeedModel(uuid.uuid4(), "Old model", "google", "old-1")

    async def models(self) -> dict[uuid.UUID, SeedModel]:
        return {self.model.id: self.model}

    async def count(self) -> int:
        return sum(len(b.conversations) for b in self.batches_of)

    async def batches(self, size: int) -> AsyncIterator[SeedBatch]:
        for batch in self.batches_of:
            yield batch


class _SeedStore:
    def __init__(self, refused: frozenset[uuid.UUID] = frozenset()) -> None:
        self.refused = refused
        self.written: list[uuid.UUID] = []
        self.created = False

    async def models(
        self, seed: dict[uuid.UUID, SeedModel], *, create: bool
    ) -> tuple[dict[uuid.UUID, ModelEntry], list[str]]:
        self.created = self.created or create
        return (
            {
                i: ModelEntry(uuid.uuid4(), m.display_name, "google", "old-1")
                for i, m in seed.items()
            }
            if create
            else {}
        ), [m.display_name for m in seed.values()]

    async def imported(self, ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
        return set(ids) & set(self.written)

    async def write(self, batch: SeedBatch, models: dict[uuid.UUID, ModelEntry]) -> int:
        if self.refused & set(batch.conversation_ids):
            raise ValueError("new row violates check constraint")
        self.written += batch.conversation_ids
        return len(batch.preferences)


async def test_the_seeds_conversations_are_copied_once_and_a_dry_run_writes_nothing() -> None:
    ids = [uuid.uuid4() for _ in range(7)]
    source, store = _Seed(ids, 3), _SeedStore()
    progress: list[int] = []

    dry = await SeedImport(source, store).run(dry_run=True)
    created_by_dry = store.created
    first = await SeedImport(source, store).run(progress=progress.append)
    again = await SeedImport(source, store).run()

    assert dry.imported == 7 and dry.by_method == {"human": 7} and not created_by_dry
    assert dry.unknown_models == {"Old model"}
    assert first.imported == 7 and first.by_method == {"human": 7} and store.written == ids
    assert progress == [3, 3, 1]
    assert again.read == 7 and again.imported == 0 and again.duplicates == 7


async def test_a_refused_batch_is_written_a_conversation_at_a_time_and_only_the_bad_reported() -> (
    None
):
    ids = [uuid.uuid4() for _ in range(5)]
    store = _SeedStore(refused=frozenset({ids[1], ids[3]}))

    report = await SeedImport(_Seed(ids, 5), store).run()

    assert store.written == [ids[0], ids[2], ids[4]]
    assert report.imported == 3 and report.bad == 2 and report.by_method == {"human": 3}
    assert [p.where for p in report.problems] == [str(ids[1]), str(ids[3])]
    assert "check constraint" in report.problems[0].why
