from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.repository import list_enabled_models, seed_roster
from arena_api.db.tables import models
from arena_api.roster import Roster, RosterModel


def _roster(*entries: tuple[str, str]) -> Roster:
    return Roster(
        models=tuple(
            RosterModel(display_name=name, provider="mock", provider_model_id=pmid)
            for name, pmid in entries
        )
    )


async def _all(engine: AsyncEngine) -> dict[str, tuple[object, str, bool]]:
    async with engine.connect() as conn:
        result = await conn.execute(select(models))
    return {r.provider_model_id: (r.id, r.display_name, r.enabled) for r in result}


async def test_seeding_twice_keeps_ids_and_never_duplicates(db: AsyncEngine) -> None:
    roster = _roster(("A", "a"), ("B", "b"))
    first = await seed_roster(db, roster)
    before = await _all(db)

    second = await seed_roster(db, roster)

    assert (first.inserted, second.inserted, second.updated) == (2, 0, 2)
    assert await _all(db) == before


async def test_reseeding_updates_names_and_disables_removed_models(db: AsyncEngine) -> None:
    await seed_roster(db, _roster(("A", "a"), ("B", "b")))
    ids = {k: v[0] for k, v in (await _all(db)).items()}

    result = await seed_roster(db, _roster(("A renamed", "a")))

    after = await _all(db)
    assert result.disabled == 1
    assert after["a"] == (ids["a"], "A renamed", True)
    assert after["b"] == (ids["b"], "B", False)
    assert [m.display_name for m in await list_enabled_models(db)] == ["A renamed"]


async def test_a_disabled_model_is_enabled_again_when_it_returns(db: AsyncEngine) -> None:
    await seed_roster(db, _roster(("A", "a"), ("B", "b")))
    await seed_roster(db, _roster(("A", "a")))

    await seed_roster(db, _roster(("A", "a"), ("B", "b")))

    assert [m.display_name for m in await list_enabled_models(db)] == ["A", "B"]
