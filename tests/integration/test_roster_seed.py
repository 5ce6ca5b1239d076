"""Seeding the roster file into ``models``: ids kept forever, and the status rule (a listed model
takes the file's status, an unlisted one is archived, an imported one is left alone)."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.lifecycle import ModelStatus
from arena_api.db.repository import (
    ModelStatusError,
    list_enabled_models,
    seed_roster,
    set_model_status,
)
from arena_api.db.tables import models
from arena_api.roster import Roster, RosterModel


def _roster(*entries: tuple[str, str] | tuple[str, str, ModelStatus]) -> Roster:
    return Roster(
        models=tuple(
            RosterModel(
                display_name=entry[0],
                provider="mock",
                provider_model_id=entry[1],
                status=entry[2] if len(entry) == 3 else "active",
            )
            for entry in entries
        )
    )


async def _all(engine: AsyncEngine) -> dict[str, tuple[object, str, bool]]:
    async with engine.connect() as conn:
        result = await conn.execute(select(models))
    return {r.provider_model_id: (r.id, r.display_name, r.enabled) for r in result}


async def _statuses(engine: AsyncEngine) -> dict[str, str]:
    async with engine.connect() as conn:
        result = await conn.execute(select(models.c.provider_model_id, models.c.status))
    return {pmid: status for pmid, status in result}


async def test_seeding_twice_keeps_ids_and_never_duplicates(db: AsyncEngine) -> None:
    roster = _roster(("A", "a"), ("B", "b"))
    first = await seed_roster(db, roster)
    before = await _all(db)

    second = await seed_roster(db, roster)

    assert (first.inserted, second.inserted, second.updated) == (2, 0, 2)
    assert await _all(db) == before


async def test_reseeding_updates_names_and_archives_removed_models(db: AsyncEngine) -> None:
    await seed_roster(db, _roster(("A", "a"), ("B", "b")))
    ids = {k: v[0] for k, v in (await _all(db)).items()}

    result = await seed_roster(db, _roster(("A renamed", "a")))

    after = await _all(db)
    assert result.archived == 1
    assert after["a"] == (ids["a"], "A renamed", True)
    assert after["b"] == (ids["b"], "B", False)
    assert await _statuses(db) == {"a": "active", "b": "archived"}
    assert [m.display_name for m in await list_enabled_models(db)] == ["A renamed"]


async def test_an_archived_model_takes_the_files_status_when_it_is_listed_again(
    db: AsyncEngine,
) -> None:
    await seed_roster(db, _roster(("A", "a"), ("B", "b"), ("C", "c")))
    await seed_roster(db, _roster(("A", "a")))

    again = await seed_roster(db, _roster(("A", "a"), ("B", "b"), ("C", "c", "paused")))

    assert again.archived == 0
    assert await _statuses(db) == {"a": "active", "b": "active", "c": "paused"}
    assert [m.display_name for m in await list_enabled_models(db)] == ["A", "B"]


async def test_the_file_gives_every_listed_model_its_status(db: AsyncEngine) -> None:
    result = await seed_roster(
        db, _roster(("A", "a"), ("B", "b", "paused"), ("C", "c", "archived"))
    )

    assert (result.inserted, result.archived) == (3, 0)
    assert await _statuses(db) == {"a": "active", "b": "paused", "c": "archived"}
    assert [m.display_name for m in await list_enabled_models(db)] == ["A"]


async def test_a_status_set_between_starts_lasts_until_the_file_says_otherwise(
    db: AsyncEngine,
) -> None:
    await seed_roster(db, _roster(("A", "a"), ("B", "b")))
    await seed_roster(db, _roster(("A", "a")))  # B archived
    changed, before = await set_model_status(db, "mock:a", "paused")
    revived, _ = await set_model_status(db, "b", "active")  # by display name
    assert (before, changed.status, revived.status) == ("active", "paused", "active")
    assert await _statuses(db) == {"a": "paused", "b": "active"}

    await seed_roster(db, _roster(("A", "a")))

    # The file lists A (active) and not B: at the next start the file wins for both.
    assert await _statuses(db) == {"a": "active", "b": "archived"}


async def test_models_known_only_from_imports_are_left_as_they_are(db: AsyncEngine) -> None:
    async with db.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO models (id, display_name, provider, provider_model_id, status) "
                "VALUES (gen_random_uuid(), 'Old GPT', 'imported', 'old-gpt', 'archived'), "
                "(gen_random_uuid(), 'Odd', 'imported', 'odd', 'paused')"
            )
        )

    result = await seed_roster(db, _roster(("A", "a")))

    assert result.archived == 0
    assert await _statuses(db) == {"a": "active", "old-gpt": "archived", "odd": "paused"}


async def test_set_status_refuses_what_it_cannot_do_and_changes_nothing(db: AsyncEngine) -> None:
    await seed_roster(db, _roster(("Twin", "twin-1"), ("Twin", "twin-2", "archived")))
    async with db.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO models (id, display_name, provider, provider_model_id, status) "
                "VALUES (gen_random_uuid(), 'Old GPT', 'imported', 'old-gpt', 'archived')"
            )
        )

    with pytest.raises(ModelStatusError, match="2 models are 'twin'"):
        await set_model_status(db, "twin", "paused")
    with pytest.raises(ModelStatusError, match="no model is 'nobody'"):
        await set_model_status(db, "nobody", "paused")
    with pytest.raises(ModelStatusError, match="known only from imported votes"):
        await set_model_status(db, "Old GPT", "active")

    assert await _statuses(db) == {"twin-1": "active", "twin-2": "archived", "old-gpt": "archived"}
