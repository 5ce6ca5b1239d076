"""Rating passes against a real, migrated PostgreSQL: what they write, and when they do not."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Callable

import numpy as np
import pytest
from sqlalchemy import RowMapping, Table, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db import tables
from arena_api.db.tables import SCHEMA_LOCK_KEY
from arena_rating import (
    SCALE,
    STYLE_FEATURES,
    RatingSettings,
    RatingWorker,
    RefitMode,
    SchemaMissing,
    WorkerOptions,
    create_rating_engine,
    fit_rao_kupper,
)
from arena_rating.trigger import read_fingerprint
from arena_rating.writeback import RATING_LOCK_KEY
from tests.integration.rating.votes import (
    constant_rows,
    insert_models,
    insert_votes,
    rows_from_log,
    rows_from_simulation,
)
from tests.unit.rating.synthetic import (
    HONEST,
    PLANTED_STYLE,
    centred_strengths,
    planted_standardised,
    simulate,
    simulate_sessions,
)

SETTINGS = RatingSettings(full_refit_every=2)


async def _arena(db: AsyncEngine, n_models: int, n_votes: int, seed: int) -> list[uuid.UUID]:
    rng = np.random.default_rng(seed)
    sim = simulate(rng, centred_strengths(rng, n_models), n_votes)
    async with db.begin() as conn:
        models = await insert_models(conn, n_models)
        await insert_votes(conn, models, rows_from_simulation(sim, sim.vote_labels(rng)))
    return models


async def _rows(db: AsyncEngine, table: Table) -> list[RowMapping]:
    async with db.connect() as conn:
        return list((await conn.execute(select(table))).mappings())


async def test_an_empty_database_writes_nothing(db: AsyncEngine) -> None:
    report = await RatingWorker(db, SETTINGS, WorkerOptions(style=True)).run_pass()

    assert report.status == "empty"
    assert await _rows(db, tables.model_ratings) == []
    assert await _rows(db, tables.model_rating_history) == []


async def test_a_pass_writes_ratings_and_the_same_rows_to_the_history(db: AsyncEngine) -> None:
    models = await _arena(db, 5, 2_000, seed=71)

    report = await RatingWorker(db, SETTINGS).run_pass()

    ratings = {r["model_id"]: r for r in await _rows(db, tables.model_ratings)}
    history = {
        r["model_id"]: {k: v for k, v in r.items() if k != "population"}
        for r in await _rows(db, tables.model_rating_history)
        if r["population"] == "human"
    }
    assert report.status == "rated" and report.mode is RefitMode.FULL
    assert set(ratings) == set(history) == set(models)
    assert ratings == history
    assert {r["computed_at"] for r in ratings.values()} == {report.computed_at}
    assert sum(r["games"] for r in ratings.values()) == 2 * 2_000
    assert np.mean([r["rating"] for r in ratings.values()]) == pytest.approx(1000.0)


async def test_a_second_pass_upserts_in_place_and_appends_one_snapshot(db: AsyncEngine) -> None:
    await _arena(db, 4, 1_000, seed=72)
    worker = RatingWorker(db, SETTINGS)
    await worker.run_pass()
    first = {r["model_id"]: r["rating"] for r in await _rows(db, tables.model_ratings)}

    await worker.run_pass()

    second = {r["model_id"]: r["rating"] for r in await _rows(db, tables.model_ratings)}
    history = await _rows(db, tables.model_rating_history)
    assert second.keys() == first.keys()
    np.testing.assert_allclose([second[m] for m in first], list(first.values()), atol=1e-3)
    assert len(history) == 2 * len(first)
    assert len({r["computed_at"] for r in history}) == 2


async def test_votes_of_disabled_models_still_count(db: AsyncEngine) -> None:
    models = await _arena(db, 4, 1_000, seed=73)
    async with db.begin() as conn:
        await conn.execute(
            update(tables.models).where(tables.models.c.id == models[0]).values(status="archived")
        )

    await RatingWorker(db, SETTINGS).run_pass()

    assert {r["model_id"] for r in await _rows(db, tables.model_ratings)} == set(models)


async def test_a_pass_skips_while_another_process_holds_the_lock(db: AsyncEngine) -> None:
    await _arena(db, 3, 300, seed=74)
    async with db.connect() as holder:
        await holder.execute(select(func.pg_advisory_lock(RATING_LOCK_KEY)))

        report = await RatingWorker(db, SETTINGS).run_pass()

        await holder.execute(select(func.pg_advisory_unlock(RATING_LOCK_KEY)))
    assert report.status == "skipped"
    assert await _rows(db, tables.model_ratings) == []


async def test_a_waiting_pass_runs_once_the_lock_is_released(db: AsyncEngine) -> None:
    await _arena(db, 3, 300, seed=75)
    waiting = RatingWorker(db, SETTINGS, WorkerOptions(lock_wait_s=10))
    async with db.connect() as holder:
        await holder.execute(select(func.pg_advisory_lock(RATING_LOCK_KEY)))
        task = asyncio.create_task(waiting.run_pass())
        await asyncio.sleep(0.5)
        assert not task.done()

        await holder.execute(select(func.pg_advisory_unlock(RATING_LOCK_KEY)))
        report = await task

    assert report.status == "rated"


@contextlib.asynccontextmanager
async def _migrating(db: AsyncEngine) -> AsyncIterator[None]:
    """A migration in progress, as far as the schema's lock says: held exclusively until exit."""
    async with db.connect() as migration:
        await migration.execute(select(func.pg_advisory_lock(SCHEMA_LOCK_KEY)))
        await migration.commit()
        yield
        await migration.execute(select(func.pg_advisory_unlock(SCHEMA_LOCK_KEY)))
        await migration.commit()


async def _waiting_for_the_schema(db: AsyncEngine) -> bool:
    """Whether some session waits for a shared hold of the schema's lock (within 10 s)."""
    waiting = text(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = :key "
        "AND mode = 'ShareLock' AND NOT granted"
    )
    async with db.connect() as conn:
        for _ in range(200):
            if (await conn.execute(waiting, {"key": SCHEMA_LOCK_KEY})).scalar_one():
                return True
            await conn.rollback()
            await asyncio.sleep(0.05)
    return False


async def test_a_pass_waits_for_a_migration_in_progress(db: AsyncEngine) -> None:
    """A rating service started beside a replica that is still migrating reads nothing until
    the migration ends: its snapshot's table locks against the migration's DDL would deadlock,
    and PostgreSQL would kill one of them."""
    await _arena(db, 3, 300, seed=78)
    async with _migrating(db):
        task = asyncio.create_task(RatingWorker(db, SETTINGS).run_pass())
        is_waiting = await _waiting_for_the_schema(db)
        rated_meanwhile = await _rows(db, tables.model_ratings)
    report = await task

    assert is_waiting and not rated_meanwhile
    assert report.status == "rated"


async def test_the_loops_look_for_new_votes_waits_for_a_migration_in_progress(
    db: AsyncEngine,
) -> None:
    """The loop's fingerprint reads two tables in one statement, once a second: it waits too."""
    await _arena(db, 3, 30, seed=79)
    async with db.connect() as loop:
        async with _migrating(db):
            task = asyncio.create_task(read_fingerprint(loop))
            is_waiting = await _waiting_for_the_schema(db)
        newest, counted = await task

    assert is_waiting
    assert newest is not None and counted == 2 * 30  # each vote counts for both its models


async def test_two_concurrent_processes_never_double_write(db: AsyncEngine) -> None:
    models = await _arena(db, 6, 3_000, seed=76)

    reports = await asyncio.gather(
        RatingWorker(db, SETTINGS).run_pass(), RatingWorker(db, SETTINGS).run_pass()
    )

    history = await _rows(db, tables.model_rating_history)
    assert len(history) == len(models) * sum(r.status == "rated" for r in reports)
    assert {r.status for r in reports} <= {"rated", "skipped"}
    assert len({(r["model_id"], r["computed_at"]) for r in history}) == len(history)


async def test_refits_alternate_full_and_incremental_and_the_full_one_measures_drift(
    db: AsyncEngine,
) -> None:
    await _arena(db, 8, 4_000, seed=77)
    worker = RatingWorker(db, SETTINGS)

    reports = [await worker.run_pass() for _ in range(3)]

    assert [r.mode for r in reports] == [RefitMode.FULL, RefitMode.INCREMENTAL, RefitMode.FULL]
    assert reports[0].drift_se is None and reports[1].drift_se is None
    assert reports[2].drift_se is not None and reports[2].drift_se < 0.01


async def test_the_screen_keeps_bots_from_moving_the_ratings(db: AsyncEngine) -> None:
    rng = np.random.default_rng(78)
    truth = centred_strengths(rng, 8)
    log = simulate_sessions(rng, truth, honest=800, always_left=8, stuffers=8, clickers=25)
    async with db.begin() as conn:
        models = await insert_models(conn, 8)
        await insert_votes(conn, models, rows_from_log(log))
    bots = {s for s, kind in log.kind_of_session().items() if kind != HONEST}
    honest_fit = fit_rao_kupper(log.counts(drop_sessions=bots), l2_penalty=SETTINGS.rating_ridge)
    reference = 1000 + SCALE * honest_fit.strengths[0]

    async def target(anomaly_filter: bool) -> tuple[float, int]:
        options = WorkerOptions(anomaly_filter=anomaly_filter)
        report = await RatingWorker(db, SETTINGS, options).run_pass()
        rows = {r["model_id"]: r["rating"] for r in await _rows(db, tables.model_ratings)}
        return rows[models[0]], report.sessions_excluded

    rating_off, excluded_off = await target(False)
    rating_on, excluded_on = await target(True)

    assert excluded_off == 0 and excluded_on >= 0.95 * len(bots)
    assert abs(rating_off - reference) > 30
    assert abs(rating_on - reference) < 0.2 * abs(rating_off - reference)


async def test_the_style_pass_writes_style_ratings_and_the_five_coefficients(
    db: AsyncEngine,
) -> None:
    rng = np.random.default_rng(79)
    sim = simulate(rng, centred_strengths(rng, 6), 6_000, style=PLANTED_STYLE)
    async with db.begin() as conn:
        models = await insert_models(conn, 6)
        await insert_votes(conn, models, rows_from_simulation(sim, sim.vote_labels(rng)))

    report = await RatingWorker(db, SETTINGS, WorkerOptions(style=True)).run_pass()

    styled = await _rows(db, tables.model_style_ratings)
    coefficients = {
        r["feature"]: r["coefficient"] for r in await _rows(db, tables.style_control_coefficients)
    }
    assert {r["model_id"] for r in styled} == set(models)
    assert set(coefficients) == set(STYLE_FEATURES)
    planted = dict(zip(STYLE_FEATURES, planted_standardised(sim, PLANTED_STYLE), strict=True))
    assert report.style is not None
    for name, value in planted.items():
        assert abs(coefficients[name] - value) <= 3 * report.style.coefficient_stderr[name]


async def test_the_loop_retries_an_unreachable_database_with_back_off(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine = create_rating_engine("postgresql://nobody@127.0.0.1:1/arena")
    worker = RatingWorker(engine, RatingSettings(refit_interval_s=1), initial_backoff_s=0.05)
    stop = asyncio.Event()
    caplog.set_level(logging.ERROR, logger="arena_rating")

    async def stop_later() -> None:
        await asyncio.sleep(0.6)
        stop.set()

    await asyncio.gather(worker.run_loop(stop), stop_later())
    await engine.dispose()

    waits = [
        r.getMessage().rsplit("retrying in ", 1)[1]
        for r in caplog.records
        if "retrying" in r.getMessage()
    ]
    assert waits[:4] == ["0.05 s", "0.1 s", "0.2 s", "0.4 s"]
    assert all("unreachable" in r.getMessage() for r in caplog.records)


async def test_an_unmigrated_database_is_reported_as_missing_its_schema(
    fresh_database: Callable[[], str],
) -> None:
    engine = create_rating_engine(fresh_database())

    with pytest.raises(SchemaMissing):
        await RatingWorker(engine, SETTINGS).run_pass()

    await engine.dispose()


async def test_rated_games_exclude_skips(db: AsyncEngine) -> None:
    await _arena(db, 3, 500, seed=80)
    async with db.begin() as conn:
        await conn.execute(
            text(
                "UPDATE preferences SET vote = 'skip', winner_model_id = NULL WHERE random() < 0.2"
            )
        )
        # Votes are never updated in place by the arena, so the summaries the rating pass reads
        # are kept on insert and delete only; a hand-made update is recounted, as after
        # `arena db rebuild`.
        await conn.execute(text("SELECT arena_rebuild_vote_stats()"))
        skips = (
            await conn.execute(text("SELECT count(*) FROM preferences WHERE vote = 'skip'"))
        ).scalar_one()

    report = await RatingWorker(db, SETTINGS).run_pass()

    games = sum(r["games"] for r in await _rows(db, tables.model_ratings))
    assert report.skips == skips
    assert games == 2 * (500 - skips)


async def _until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "the condition never held"
        await asyncio.sleep(0.05)


async def test_the_loop_refits_soon_after_new_votes_and_never_while_idle(db: AsyncEngine) -> None:
    models = await _arena(db, 4, 300, seed=21)
    worker = RatingWorker(db, RatingSettings(min_interval_s=0.2))
    stop = asyncio.Event()
    loop = asyncio.create_task(worker.run_loop(stop))
    try:
        await _until(lambda: worker.refits == 1)
        await asyncio.sleep(1.0)  # five looks at an unchanged arena
        idle_refits = worker.refits

        rng = np.random.default_rng(22)
        sim = simulate(rng, centred_strengths(rng, 4), 40)
        async with db.begin() as conn:
            await insert_votes(conn, models, rows_from_simulation(sim, sim.vote_labels(rng)))
        await _until(lambda: worker.refits == 2, timeout_s=5.0)
        games = {r["model_id"]: r["games"] for r in await _rows(db, tables.model_ratings)}
        history = await _rows(db, tables.model_rating_history)
    finally:
        stop.set()
        await loop

    assert idle_refits == 1
    assert sum(games.values()) // 2 >= 300  # the second refit saw the new votes too
    # The quick refit added no history point: those come with the periodic refit (300 s).
    assert len(history) == 4


async def test_a_signed_in_person_who_spreads_bot_votes_over_short_sessions_is_screened(
    db: AsyncEngine,
) -> None:
    """Thirty sessions of three 'A is better' votes each: no session is big enough to flag,
    but the person behind all of them is, and every one of their sessions is left out."""
    rng = np.random.default_rng(81)
    truth = centred_strengths(rng, 6)
    log = simulate_sessions(rng, truth, honest=300, always_left=0, stuffers=0, clickers=0)
    n = 90
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    spread = constant_rows(
        a.tolist(),
        b.tolist(),
        ["left"] * n,
        [f"spread-{i // 3}" for i in range(n)],
        [float(100_000 + 40 * i) for i in range(n)],
    )
    async with db.begin() as conn:
        models = await insert_models(conn, 6)
        await insert_votes(conn, models, rows_from_log(log))
        await insert_votes(conn, models, spread)
        person = uuid.uuid4()
        await conn.execute(
            text("INSERT INTO users (id, issuer, subject) VALUES (:id, 'https://id', 'spread')"),
            {"id": person},
        )
        await conn.execute(
            text("UPDATE preferences SET user_id = :id WHERE anonymous_session_id LIKE 'spread-%'"),
            {"id": person},
        )

    alone = await RatingWorker(db, SETTINGS).run_pass()

    assert alone.sessions_excluded == 30  # all of the person's sessions, and no honest one
