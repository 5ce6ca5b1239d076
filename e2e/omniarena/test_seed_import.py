"""The seed system's own database, imported: OmniArena's migrations and demo seeder (its real
TypeScript, run with its own ``tsx``) fill a PostgreSQL database, some of its rounds left without
a conversation as rounds from before its migration 002 are, and ``arena import --from
omniarena`` copies it: every model gets the wins, losses and games it has there, answers keep
their timings, a model we list keeps its row, a second import adds nothing, a dry run writes
nothing, and a database that is not the seed's is refused with a clear message.

Needs a checkout of M-Ali-ML/Omni-Arena with its npm dependencies installed, named by
``ARENA_OMNIARENA_DIR`` (``make integration-omniarena OMNIARENA_DIR=...``): the suite cannot
fetch it from the package registries, so ``make test`` skips this file.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import asyncpg
import pytest

from arena_api.roster import Roster, RosterModel
from tests.fixtures import prepare_database
from tests.support import run_cli

OMNIARENA_DIR_ENV = "ARENA_OMNIARENA_DIR"
pytestmark = pytest.mark.skipif(
    not os.environ.get(OMNIARENA_DIR_ENV), reason=f"{OMNIARENA_DIR_ENV} is not set"
)

# Each model's wins, losses and votes, counted the same way in both schemas.
_RECORD = """
SELECT m.display_name,
       count(*) FILTER (WHERE (p.vote = 'left' AND x.slot_a_model_id = m.id)
                           OR (p.vote = 'right' AND x.slot_b_model_id = m.id)) AS wins,
       count(*) FILTER (WHERE (p.vote = 'right' AND x.slot_a_model_id = m.id)
                           OR (p.vote = 'left' AND x.slot_b_model_id = m.id)) AS losses,
       count(*) AS votes
  FROM preferences p
  JOIN matchups x ON x.id = p.matchup_id
  JOIN models m ON m.id IN (x.slot_a_model_id, x.slot_b_model_id)
 GROUP BY 1 ORDER BY 1
"""


def _dsn(url: str) -> str:
    return "postgresql://" + url.partition("://")[2]


async def _fetch(url: str, query: str) -> list[tuple[object, ...]]:
    conn = await asyncpg.connect(_dsn(url))
    try:
        return [tuple(r) for r in await conn.fetch(query)]
    finally:
        await conn.close()


def _seed(url: str, *script_args: str) -> None:
    """Run one of the seed's database scripts against ``url``."""
    server = Path(os.environ[OMNIARENA_DIR_ENV]) / "server"
    subprocess.run(
        [str(server.parent / "node_modules/.bin/tsx"), *script_args],
        cwd=server,
        env={**os.environ, "DATABASE_URL": _dsn(url)},
        check=True,
        capture_output=True,
        timeout=300,
    )


def _arena(url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    data = str(tmp_path / "data")
    env = {"DATABASE_URL": url, "ARENA_ALLOW_DEV_SECRET": "1", "ARENA_DATA_DIR": data}
    return run_cli(args, env, timeout=300)  # type: ignore[no-any-return]


@pytest.fixture
def seed_url(fresh_database: Callable[[], str]) -> str:
    url = fresh_database()
    _seed(url, "src/db/migrate.ts")
    _seed(url, "src/db/seed.ts")
    _seed(url, "src/db/seed.demo.ts", "--matchups", "300", "--days", "10", "--seed", "7")
    return url


async def test_the_seed_systems_database_imports_once_with_every_model_record_kept(
    seed_url: str, fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    # Rounds from before the seed had conversations: no turn, no conversation.
    loose = await _fetch(
        seed_url,
        "WITH gone AS (DELETE FROM turns WHERE matchup_id IN"
        " (SELECT matchup_id FROM turns ORDER BY created_at LIMIT 12)"
        " RETURNING conversation_id, matchup_id),"
        " dropped AS (DELETE FROM conversations WHERE id IN (SELECT conversation_id FROM gone))"
        " SELECT matchup_id FROM gone",
    )
    seed_models = await _fetch(
        seed_url, "SELECT display_name, provider_model_id FROM models ORDER BY 1"
    )
    listed_name, listed_id = seed_models[0]
    ours = prepare_database(
        fresh_database(),
        Roster(
            models=(
                RosterModel(
                    display_name=str(listed_name),
                    provider="google",
                    provider_model_id=str(listed_id),
                ),
            )
        ),
    )
    ours_before = await _fetch(ours, "SELECT id FROM models")

    dry = _arena(ours, tmp_path, "import", "--from", "omniarena", "--dry-run", _dsn(seed_url))
    untouched = await _fetch(ours, "SELECT count(*) FROM conversations")
    first = _arena(ours, tmp_path, "import", "--from", "omniarena", _dsn(seed_url))
    again = _arena(ours, tmp_path, "import", "--from", "omniarena", _dsn(seed_url))

    assert len(loose) == 12
    conversations = (await _fetch(seed_url, "SELECT count(*) FROM conversations"))[0][0]
    total = conversations + 12
    votes = (await _fetch(seed_url, "SELECT count(*) FROM preferences"))[0][0]
    assert dry.returncode == 0, dry.stderr
    assert f"{total} omniarena conversations read: {total} would import ({votes} human)" in (
        dry.stdout
    )
    assert f"{len(seed_models) - 1} unknown models would be created archived" in dry.stdout
    assert untouched == [(0,)]
    assert first.returncode == 0, first.stderr
    assert f"{total} imported ({votes} human), 0 already imported, 0 bad" in first.stdout
    assert f"{total} omniarena conversations read: 0 imported, {total} already" in again.stdout

    assert await _fetch(ours, _RECORD) == await _fetch(seed_url, _RECORD)
    # The listed model kept its row; the others were created archived under their own ids.
    models = await _fetch(ours, "SELECT id, display_name, provider, status FROM models")
    assert {m[0] for m in models} >= {r[0] for r in ours_before}
    assert {(m[1], m[2], m[3]) for m in models} == {
        (name, "google", "active" if name == listed_name else "archived") for name, _ in seed_models
    }
    # Answers, times and sessions as the seed stored them.
    answers = (
        "SELECT r.id, r.content, r.ttft_ms, r.stream_duration_ms, r.output_token_count,"
        " r.markdown_density, r.created_at FROM responses r ORDER BY r.id"
    )
    assert await _fetch(ours, answers) == await _fetch(seed_url, answers)
    voters = "SELECT id, vote, anonymous_session_id, created_at FROM preferences ORDER BY id"
    assert await _fetch(ours, voters) == await _fetch(seed_url, voters)
    assert await _fetch(ours, "SELECT DISTINCT method FROM preferences") == [("human",)]
    # Each round without a conversation became a conversation of its own, voted by its voter.
    alone = await _fetch(
        ours,
        "SELECT t.turn_index, c.anonymous_session_id IS NOT DISTINCT FROM p.anonymous_session_id,"
        " (SELECT count(*) FROM turns u WHERE u.conversation_id = c.id)"
        " FROM turns t JOIN conversations c ON c.id = t.conversation_id"
        " LEFT JOIN preferences p ON p.matchup_id = t.matchup_id"
        f" WHERE t.matchup_id IN ({', '.join(repr(str(r[0])) for r in loose)})",
    )
    assert alone == [(0, True, 1)] * 12
    # The board is current: every model rated, with the seed's votes as its games.
    board = await _fetch(
        ours,
        "SELECT m.display_name, r.games FROM model_ratings r JOIN models m ON m.id = r.model_id",
    )
    assert {name for name, _ in board} == {name for name, _ in seed_models}


async def test_a_database_that_is_not_the_seeds_is_refused_by_name(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    ours = prepare_database(fresh_database())
    stranger = fresh_database()
    refused = _arena(ours, tmp_path, "import", "--from", "omniarena", _dsn(stranger))
    old = fresh_database()
    _seed(old, "src/db/migrate.ts")
    await _fetch(old, "ALTER TABLE matchups DROP COLUMN slot_a_provider_model_id")
    older = _arena(ours, tmp_path, "import", "--from", "omniarena", _dsn(old))
    unreachable = _arena(
        ours, tmp_path, "import", "--from", "omniarena", "postgresql://u:hunter2@127.0.0.1:9/x"
    )

    assert refused.returncode == 2 and "not an OmniArena database" in refused.stderr
    assert older.returncode == 2
    assert "lacks matchups.slot_a_provider_model_id: run its migrations" in older.stderr
    assert unreachable.returncode == 2 and "cannot read the OmniArena database" in (
        unreachable.stderr
    )
    assert "hunter2" not in unreachable.stderr and "u:***@" in unreachable.stderr
