"""`arena db backup` and `arena db restore`: a history of 100,000 demo votes goes through a dump
into an empty database and reads back identically; a database holding data is only replaced
with --force; the embedded database takes part like any other."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from arena_api.core.boards import Board
from arena_api.db.analytics import PostgresAnalytics
from arena_api.db.demo import DemoOptions, seed_demo
from arena_api.db.engine import create_engine
from arena_api.db.repository import PostgresRepository, create_pool
from arena_api.db.tables import metadata
from arena_api.services import ReadService
from tests.fixtures import prepare_database
from tests.support import run_blocking, run_cli
from tests.unit.db.summaries import Snapshot, snapshot

VOTES = 100_000
#: Conversations and shared matchups read back one by one (the first, by id).
SAMPLED = 100


def _arena(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, {"ARENA_MOCK_PROVIDER": "1", "ARENA_ALLOW_DEV_SECRET": "1", **env})  # type: ignore[no-any-return]


def _dsn(url: str) -> str:
    return "postgresql://" + url.partition("://")[2]


def _seeded(url: str, votes: int, seed: int) -> str:
    """``url`` with a demo history of ``votes`` votes (written in this process: the command is
    what the 100,000 votes go through) and ratings."""
    run_blocking(seed_demo(_dsn(url), DemoOptions(votes=votes, models=4, seed=seed)))
    run_blocking(_rate(url))
    return url


async def _rate(url: str) -> None:
    """Ratings for every model, as a rating pass would leave them, so the boards show some."""
    conn = await asyncpg.connect(_dsn(url))
    try:
        await conn.execute(
            "INSERT INTO model_ratings (model_id, rating, rating_stderr, ci_lower, ci_upper, "
            "component_id, games) "
            "SELECT id, 1000 + 10 * row_number() OVER (ORDER BY id), 5, 990, 1030, 0, 100 "
            "FROM models WHERE enabled"
        )
    finally:
        await conn.close()


@pytest.fixture(scope="module")
def history(fresh_database: Callable[[], str]) -> str:
    """A database with 100,000 demo votes (and their rounds, answers and conversations)."""
    url = prepare_database(fresh_database())
    seeded = _arena("db", "seed-demo", "--votes", str(VOTES), "--models", "4", DATABASE_URL=url)
    assert seeded.returncode == 0, seeded.stderr
    run_blocking(_rate(url))
    return url


async def _read_everything(url: str) -> dict[str, Any]:
    """What the API and the UI read: the boards, the analytics, conversations, shared rounds."""
    engine = create_engine(url, pool_size=2)
    pool = await create_pool(url, max_size=2)
    try:
        reads = ReadService(
            repository=PostgresRepository(engine, pool), analytics=PostgresAnalytics(engine)
        )
        views: dict[str, Any] = {
            "leaderboard": await reads.leaderboard(),
            "leaderboard of everyone": await reads.leaderboard(Board(population="all")),
            "leaderboard of coding": await reads.leaderboard(Board(category="coding")),
            "summary": await reads.analytics_summary(),
            "categories": await reads.categories(),
            "head to head": await reads.head_to_head(),
            "model metrics": await reads.model_metrics(),
            "activity": await reads.activity("hour"),
            "cost": await reads.cost("week"),
            "style control": await reads.style_control(),
            "rating history": await reads.rating_history(),
        }
        async with pool.acquire() as conn:
            owners = await conn.fetch(
                "SELECT id, anonymous_session_id FROM conversations ORDER BY id LIMIT $1", SAMPLED
            )
            voted = await conn.fetch(
                "SELECT matchup_id FROM preferences ORDER BY id LIMIT $1", SAMPLED
            )
        for owner in owners:
            views[f"conversation {owner['id']}"] = await reads.conversation(
                owner["id"], owner["anonymous_session_id"]
            )
        for row in voted:
            views[f"shared {row['matchup_id']}"] = await reads.shared_matchup(row["matchup_id"])
        return {name: view.model_dump() for name, view in views.items()}
    finally:
        await pool.close()
        await engine.dispose()


async def _rows_and_summaries(url: str) -> tuple[dict[str, int], Snapshot]:
    conn = await asyncpg.connect(_dsn(url))
    try:
        counts = {
            table: await conn.fetchval(f"SELECT count(*) FROM {table}") for table in metadata.tables
        }
        return counts, await snapshot(conn)
    finally:
        await conn.close()


def test_a_restored_backup_of_100k_votes_reads_as_the_original(
    history: str, fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    dump, empty = tmp_path / "arena.dump", fresh_database()
    backed_up = _arena("db", "backup", str(dump), DATABASE_URL=history)
    assert backed_up.returncode == 0, backed_up.stderr

    restored = _arena("db", "restore", str(dump), DATABASE_URL=empty)

    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.startswith(f"arena: restored {dump} (")
    assert run_blocking(_read_everything(empty)) == run_blocking(_read_everything(history))
    assert run_blocking(_rows_and_summaries(empty)) == run_blocking(_rows_and_summaries(history))


@pytest.fixture(scope="module")
def small_dump(fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A backup of a small arena (300 votes)."""
    url = _seeded(prepare_database(fresh_database()), 300, seed=7)
    dump = tmp_path_factory.mktemp("small") / "small.dump"
    result = _arena("db", "backup", str(dump), DATABASE_URL=url)
    assert result.returncode == 0, result.stderr
    return dump


def test_restore_into_a_database_holding_votes_is_refused_and_changes_nothing(
    history: str, small_dump: Path
) -> None:
    before = run_blocking(_rows_and_summaries(history))

    result = _arena("db", "restore", str(small_dump), DATABASE_URL=history)

    assert result.returncode == 1
    message = result.stderr.strip().splitlines()[-1]
    assert message.startswith(
        "arena: the database is not empty (rows in conversations, matchups, preferences, "
        "responses and "
    )
    assert message.endswith(
        "; restore into an empty database, or pass --force to replace what it holds"
    )
    assert run_blocking(_rows_and_summaries(history)) == before


def test_restore_with_force_replaces_what_the_database_holds(
    fresh_database: Callable[[], str], small_dump: Path
) -> None:
    target = _seeded(prepare_database(fresh_database()), 250, seed=9)
    copy = fresh_database()
    assert _arena("db", "restore", str(small_dump), DATABASE_URL=copy).returncode == 0

    result = _arena("db", "restore", str(small_dump), "--force", DATABASE_URL=target)

    assert result.returncode == 0, result.stderr
    assert "replaced" in result.stdout
    assert run_blocking(_read_everything(target)) == run_blocking(_read_everything(copy))


def test_a_migrated_database_with_only_its_roster_counts_as_empty(
    fresh_database: Callable[[], str], small_dump: Path
) -> None:
    from arena_api.roster import roster_of
    from tests.support import make_settings

    url = fresh_database()
    prepare_database(url, roster_of(make_settings(url)))

    result = _arena("db", "restore", str(small_dump), DATABASE_URL=url)

    assert result.returncode == 0, result.stderr


def test_the_embedded_database_is_backed_up_and_restored(small_dump: Path, tmp_path: Path) -> None:
    """With DATABASE_URL unset, both commands start (or join) the embedded server."""
    data, again = tmp_path / "data", tmp_path / "again.dump"
    restored = _arena("db", "restore", str(small_dump), ARENA_DATA_DIR=str(data))
    assert restored.returncode == 0, restored.stderr

    backed_up = _arena("db", "backup", str(again), ARENA_DATA_DIR=str(data))

    assert backed_up.returncode == 0, backed_up.stderr
    assert again.stat().st_size > 0
    assert "arena: backed up the database to" in backed_up.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(None, "no such file", id="missing"),
        pytest.param(b"SELECT 1;\n", "is not a custom-format dump", id="plain-sql"),
        pytest.param(b"\x00" * 4096, "is not a custom-format dump", id="garbage"),
    ],
)
def test_restore_of_what_is_not_a_dump_stops_with_one_line(
    fresh_database: Callable[[], str], tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "not.dump"
    if content is not None:
        path.write_bytes(content)

    result = _arena("db", "restore", str(path), DATABASE_URL=fresh_database())

    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1
    assert len(lines) == 1 and message in lines[0], lines


def test_backup_of_an_unreachable_database_stops_with_one_line(tmp_path: Path) -> None:
    url = f"postgresql://arena:secret@127.0.0.1:1/{uuid.uuid4().hex}"

    result = _arena("db", "backup", str(tmp_path / "x.dump"), DATABASE_URL=url)

    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "arena: the database cannot be reached: [Errno 111] Connect call failed ('127.0.0.1', 1)"
    ]
    assert not list(tmp_path.iterdir())
