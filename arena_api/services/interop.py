"""Bringing other arenas' votes in, and ours out in their formats.

``BattleImport`` takes the battles a reader yields (``arena_api.interop``) and writes them in
batches: each batch skips what was imported before (the source's record ids), finds its models
by name (by display name, then provider model id) and creates the unknown ones archived, then
is written in one transaction. A record a reader could not use is counted and reported with its
place in the input; it never stops the others. With ``dry_run`` nothing is written: the report
says what an import would do (records, duplicates, unknown models, problems).

``SeedImport`` copies the seed system's (OmniArena's) database a batch of whole conversations
at a time, the same way: what was imported before is skipped, unknown models are created
archived, a batch is one transaction; a batch our schema refuses is retried a conversation at a
time, so only the conversations at fault are left out and reported by id.

``LMArenaExport`` writes our votes as LMArena battle records, JSON Lines, so that FastChat's
and arena-rank's notebooks read them unchanged.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import BinaryIO, Protocol
from uuid import UUID

from arena_api.core.models import ModelEntry
from arena_api.interop.battles import BadRecord, Battle, VotedRound
from arena_api.interop.lmarena import battle_record
from arena_api.interop.omniarena import SeedBatch, SeedModel

__all__ = [
    "BattleImport",
    "BattleStore",
    "ImportReport",
    "LMArenaExport",
    "SeedImport",
    "SeedSource",
    "SeedStore",
    "VotedRounds",
]

#: Battles per transaction.
BATCH = 1_000
#: Problems a report keeps word for word (all of them are counted).
MAX_LISTED = 100


class BattleStore(Protocol):
    """Where imported battles go (``arena_api.db.battles.PostgresBattles``)."""

    async def models(self, names: Sequence[str]) -> dict[str, ModelEntry]: ...

    async def create_models(self, names: Sequence[str]) -> dict[str, ModelEntry]: ...

    async def imported(self, source: str, ids: Sequence[str]) -> set[str]: ...

    async def write(self, battles: Sequence[Battle], models: dict[str, ModelEntry]) -> int: ...


@dataclass
class ImportReport:
    """What an import did (or, dry, would do)."""

    dry_run: bool
    read: int = 0
    imported: int = 0
    duplicates: int = 0
    bad: int = 0
    problems: list[BadRecord] = field(default_factory=list)
    #: Models named in the input that the arena did not know (created archived unless dry).
    unknown_models: set[str] = field(default_factory=set)
    by_method: Counter[str] = field(default_factory=Counter)

    def problem(self, record: BadRecord) -> None:
        self.bad += 1
        if len(self.problems) < MAX_LISTED:
            self.problems.append(record)


class BattleImport:
    """Writes battles from any reader, a batch at a time (see the module's docstring)."""

    def __init__(self, store: BattleStore, *, batch: int = BATCH) -> None:
        self._store = store
        self._batch = batch

    async def run(
        self,
        records: Iterable[Battle | BadRecord],
        *,
        dry_run: bool = False,
        progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Import ``records``; ``progress`` is told how many records each batch held."""
        report = ImportReport(dry_run=dry_run)
        pending: list[Battle] = []
        seen: set[tuple[str, str]] = set()
        for record in records:
            report.read += 1
            if isinstance(record, BadRecord):
                report.problem(record)
            elif (record.source, record.source_id) in seen:
                report.duplicates += 1
            else:
                seen.add((record.source, record.source_id))
                pending.append(record)
            if len(pending) >= self._batch:
                await self._flush(pending, report, progress)
                pending = []
        await self._flush(pending, report, progress)
        return report

    async def _flush(
        self,
        battles: list[Battle],
        report: ImportReport,
        progress: Callable[[int], None] | None,
    ) -> None:
        if battles:
            source = battles[0].source
            done = await self._store.imported(source, [b.source_id for b in battles])
            fresh = [b for b in battles if b.source_id not in done]
            report.duplicates += len(battles) - len(fresh)
            models = await self._models(fresh, report)
            if fresh and not report.dry_run:
                await self._store.write(fresh, models)
            report.imported += len(fresh)
            report.by_method.update(b.method for b in fresh)
        if progress is not None:
            progress(report.read)

    async def _models(self, battles: list[Battle], report: ImportReport) -> dict[str, ModelEntry]:
        names = sorted({b.model_a for b in battles} | {b.model_b for b in battles})
        known = await self._store.models(names)
        unknown = [name for name in names if name not in known]
        report.unknown_models.update(unknown)
        if unknown and not report.dry_run:
            known |= await self._store.create_models(unknown)
        return known


class SeedSource(Protocol):
    """The seed system's database (``arena_api.db.omniarena.SeedDatabase``)."""

    async def models(self) -> dict[UUID, SeedModel]: ...

    async def count(self) -> int: ...

    def batches(self, size: int) -> AsyncIterator[SeedBatch]: ...


class SeedStore(Protocol):
    """Where the seed's rows go (``arena_api.db.omniarena.PostgresSeedImport``)."""

    async def models(
        self, seed: dict[UUID, SeedModel], *, create: bool
    ) -> tuple[dict[UUID, ModelEntry], list[str]]: ...

    async def imported(self, ids: Sequence[UUID]) -> set[UUID]: ...

    async def write(self, batch: SeedBatch, models: dict[UUID, ModelEntry]) -> int: ...


class SeedImport:
    """Copies the seed's conversations (see the module's docstring). The report counts
    conversations as its records and the votes they hold by method."""

    def __init__(self, source: SeedSource, store: SeedStore, *, batch: int = 500) -> None:
        self._source = source
        self._store = store
        self._batch = batch

    async def count(self) -> int:
        return await self._source.count()

    async def run(
        self, *, dry_run: bool = False, progress: Callable[[int], None] | None = None
    ) -> ImportReport:
        report = ImportReport(dry_run=dry_run)
        models, unknown = await self._store.models(await self._source.models(), create=not dry_run)
        report.unknown_models.update(unknown)
        async for batch in self._source.batches(self._batch):
            report.read += len(batch.conversations)
            ids = batch.conversation_ids
            done = await self._store.imported(ids)
            fresh = batch.only(i for i in ids if i not in done)
            report.duplicates += len(done)
            if dry_run:
                report.imported += len(fresh.conversations)
                report.by_method["human"] += len(fresh.preferences)
            elif fresh.conversations:
                await self._write(fresh, models, report)
            if progress is not None:
                progress(len(batch.conversations))
        return report

    async def _write(
        self, batch: SeedBatch, models: dict[UUID, ModelEntry], report: ImportReport
    ) -> None:
        try:
            report.by_method["human"] += await self._store.write(batch, models)
            report.imported += len(batch.conversations)
            return
        except ValueError:
            if len(batch.conversations) == 1:
                raise
        for conversation in batch.conversation_ids:
            try:
                await self._write(batch.only([conversation]), models, report)
            except ValueError as exc:
                report.problem(BadRecord(str(conversation), str(exc)))


class VotedRounds(Protocol):
    """Our votes in vote order (``arena_api.db.battles.PostgresBattles``)."""

    async def count_voted(self, since: datetime | None, until: datetime | None) -> int: ...

    def voted_rounds(
        self, since: datetime | None, until: datetime | None, *, include_text: bool
    ) -> AsyncIterator[Sequence[VotedRound]]: ...


class LMArenaExport:
    """Our votes as LMArena battle records (skips, which LMArena has no form for, left out)."""

    def __init__(self, rounds: VotedRounds) -> None:
        self._rounds = rounds

    async def count(self, since: datetime | None, until: datetime | None) -> int:
        return await self._rounds.count_voted(since, until)

    async def write(
        self,
        target: BinaryIO,
        *,
        since: datetime | None,
        until: datetime | None,
        include_text: bool,
        scrub: Callable[[str], str] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Write the records as JSON Lines to ``target``; ``scrub`` rewrites every text."""
        written = 0
        async for rounds in self._rounds.voted_rounds(since, until, include_text=include_text):
            lines = []
            for voted in rounds:
                conversation = voted.conversation
                if conversation is not None and scrub is not None:
                    conversation = [
                        (scrub(p), _maybe(scrub, a), _maybe(scrub, b)) for p, a, b in conversation
                    ]
                record = battle_record(voted.row, conversation)
                if record is not None:
                    lines.append(json.dumps(record, ensure_ascii=False) + "\n")
            target.write("".join(lines).encode())
            written += len(lines)
            if progress is not None:
                progress(len(rounds))
        return written


def _maybe(scrub: Callable[[str], str], text: str | None) -> str | None:
    return None if text is None else scrub(text)
