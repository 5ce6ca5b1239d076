"""The demo-data seeder: a consistent, reproducible history, and what it may replace."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.demo import (
    DEMO_HARNESS,
    HISTORY_REFITS,
    DemoError,
    DemoOptions,
    persona_for,
    seed_demo,
)
from arena_api.db.repository import seed_roster
from arena_api.roster import load_roster
from arena_rating import RatingSettings, RatingWorker
from tests.integration import rows
from tests.support import ROOT

SMALL = DemoOptions(votes=3000, models=5, days=3, seed=7)


def _dsn(database_url: str) -> str:
    return "postgresql://" + database_url.partition("://")[2]


async def _scalar(db: AsyncEngine, sql: str) -> object:
    async with db.connect() as conn:
        return (await conn.execute(text(sql))).scalar()


async def _roster(db: AsyncEngine) -> None:
    await seed_roster(db, load_roster(ROOT / "models.yaml"))  # four mock models


_FOREIGN_KEYS = (
    "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = ANY("
    "ARRAY['conversations', 'matchups', 'responses', 'turns', 'preferences']::regclass[])"
)
# Every follow-up turn's parent is the winning answer of the previous turn, after a decisive vote.
_BROKEN_PARENTS = """
SELECT count(*) FROM turns t
  JOIN turns prev ON prev.conversation_id = t.conversation_id
                 AND prev.turn_index = t.turn_index - 1
  JOIN preferences p ON p.matchup_id = prev.matchup_id
  JOIN responses r ON r.id = t.parent_response_id
 WHERE t.turn_index > 0
   AND NOT (r.matchup_id = prev.matchup_id
            AND r.slot = CASE p.vote WHEN 'left' THEN 'A' WHEN 'right' THEN 'B' END)
"""


async def test_seeding_writes_the_requested_votes_as_a_consistent_demo_history(
    db: AsyncEngine, database_url: str
) -> None:
    await _roster(db)
    keys_before = await _scalar(db, _FOREIGN_KEYS)

    result = await seed_demo(_dsn(database_url), SMALL)

    assert result.votes == 3000 == await _scalar(db, "SELECT count(*) FROM preferences")
    assert result.matchups == 3090 == await _scalar(db, "SELECT count(*) FROM matchups")
    assert result.models_added == ("Demo Atlas 3 Pro",)
    assert await _scalar(db, "SELECT count(*) FROM models WHERE enabled") == 5
    assert await _scalar(db, "SELECT count(*) FROM responses") == 2 * 3090
    assert await _scalar(db, "SELECT count(*) FROM turns") == 3090
    assert await _scalar(db, "SELECT count(DISTINCT harness_version) FROM matchups") == 1
    assert await _scalar(db, "SELECT min(harness_version) FROM matchups") == DEMO_HARNESS
    labels = await _scalar(db, "SELECT array_agg(DISTINCT vote ORDER BY vote) FROM preferences")
    assert labels == ["both_bad", "both_good", "left", "right", "skip"]
    assert (
        await _scalar(
            db, "SELECT count(*) FROM preferences WHERE anonymous_session_id NOT LIKE 'demo-%'"
        )
        == 0
    )
    assert await _scalar(
        db,
        "SELECT bool_and(created_at <= now() AND created_at > now() - interval '3 days 1 hour') "
        "FROM preferences",
    )
    assert await _scalar(db, "SELECT count(*) FROM turns WHERE turn_index > 0") > 100
    assert await _scalar(db, _BROKEN_PARENTS) == 0
    assert await _scalar(db, _FOREIGN_KEYS) == keys_before
    assert (
        await _scalar(
            db, "SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgenabled <> 'O'"
        )
        == 0
    )
    # The counters were recounted: decisive votes are wins, ties counted for both models.
    assert await _scalar(db, "SELECT sum(wins) FROM model_vote_stats") == await _scalar(
        db, "SELECT count(*) FROM preferences WHERE vote IN ('left', 'right')"
    )
    assert await _scalar(db, "SELECT sum(matchups) FROM pair_outcome_stats") == 3090


_HISTORY = """
SELECT h.computed_at, m.display_name, h.rating, h.ci_lower, h.ci_upper, h.games
  FROM model_rating_history h JOIN models m ON m.id = h.model_id
 WHERE h.population = 'human' ORDER BY h.computed_at, m.display_name
"""


async def test_the_seeded_rating_history_is_the_rating_processs_fit_at_each_refit(
    db: AsyncEngine, database_url: str
) -> None:
    """Refits spread over the days, every model's games growing to its kept votes, and the last
    refit what the rating process fits now from the same votes (its duplicate-prompt cap off:
    with the cap on, the difference depends on which greetings the draw made, a draw that
    follows the hour of day the test runs at)."""
    await _roster(db)

    result = await seed_demo(_dsn(database_url), DemoOptions(votes=6000, models=6, days=3, seed=3))

    async with db.connect() as conn:
        history = (await conn.execute(text(_HISTORY))).all()
        # Both sides of every kept comparison: the honest sessions' non-skip votes.
        kept = (
            await conn.execute(
                text(
                    "SELECT count(*) FROM preferences WHERE vote <> 'skip' "
                    "AND anonymous_session_id <> ALL(:bots)"
                ),
                {"bots": list(result.bot_sessions)},
            )
        ).scalar_one()
    refits = sorted({r.computed_at for r in history})
    assert result.history_refits == len(refits) == 3 * 24 <= HISTORY_REFITS
    span = (refits[-1] - refits[0]).total_seconds()
    assert span == pytest.approx((3 * 24 - 1) * 3600, abs=1)  # hourly, the last one now
    assert await _scalar(
        db, "SELECT now() - max(computed_at) < interval '1 minute' FROM model_rating_history"
    )
    games: dict[str, list[int]] = {}
    for row in history:
        games.setdefault(row.display_name, []).append(row.games)
    assert sorted(games) == sorted(result.models)
    assert all(g == sorted(g) and g[-1] > 0 for g in games.values())
    assert sum(g[-1] for g in games.values()) == 2 * kept
    # The history keeps the greetings' votes beyond the duplicate-prompt cap; with the cap off the
    # rating process fits exactly the votes of the last refit.
    settings = RatingSettings(category_min_votes=0, duplicate_cap=0)
    rating = await RatingWorker(db, settings).run_pass()
    assert rating.sessions_excluded == len(result.bot_sessions)
    async with db.connect() as conn:
        fitted = {
            r.display_name: r
            for r in await conn.execute(
                text(
                    "SELECT m.display_name, r.rating, r.ci_upper - r.ci_lower AS width "
                    "FROM model_ratings r JOIN models m ON m.id = r.model_id"
                )
            )
        }
    last = {r.display_name: r for r in history if r.computed_at == refits[-1]}
    for name, row in fitted.items():
        assert last[name].rating == pytest.approx(row.rating, abs=1e-3), name
    first = {r.display_name: r for r in history if r.computed_at == refits[0]}
    assert all(
        first[n].ci_upper - first[n].ci_lower > last[n].ci_upper - last[n].ci_lower for n in first
    )  # the intervals narrow as the votes come in


async def test_beside_other_votes_no_rating_history_is_written(
    db: AsyncEngine, database_url: str
) -> None:
    await _roster(db)
    async with db.begin() as conn:
        a, b = await rows.model(conn, "real-a"), await rows.model(conn, "real-b")
        await rows.preference(conn, await rows.matchup(conn, a, b), "left", winner_model_id=a)

    result = await seed_demo(
        _dsn(database_url), DemoOptions(votes=300, models=3, days=2, seed=2, force=True)
    )

    assert result.history_refits == 0
    assert await _scalar(db, "SELECT count(*) FROM model_rating_history") == 0


async def test_bot_like_sessions_behave_as_the_anomaly_screen_expects(
    db: AsyncEngine, database_url: str
) -> None:
    await _roster(db)

    result = await seed_demo(_dsn(database_url), SMALL)

    kinds = sorted(result.bot_sessions.values())
    assert kinds == ["always-left"] * 2 + ["sub-second"] * 2 + ["vote-stuffing"] * 2
    async with db.connect() as conn:
        for session, kind in result.bot_sessions.items():
            stats = (
                await conn.execute(
                    text(
                        "SELECT count(*) AS votes, count(*) FILTER (WHERE vote = 'left') AS left,"
                        " count(DISTINCT winner_model_id) AS winners, percentile_cont(0.5) "
                        "WITHIN GROUP (ORDER BY gap) AS median_gap FROM (SELECT vote, "
                        "winner_model_id, extract(epoch FROM created_at - lag(created_at) OVER "
                        "(ORDER BY created_at)) AS gap FROM preferences "
                        "WHERE anonymous_session_id = :s) v"
                    ),
                    {"s": session},
                )
            ).one()
            assert stats.votes >= 20, session
            if kind == "always-left":
                assert stats.left == stats.votes
            if kind == "vote-stuffing":
                assert stats.winners == 1  # always the same model
            if kind == "sub-second":
                assert stats.median_gap < 1.0
        honest_max = (
            await conn.execute(
                text(
                    "SELECT max(n) FROM (SELECT count(*) AS n FROM preferences "
                    "WHERE anonymous_session_id <> ALL(:bots) GROUP BY anonymous_session_id) s"
                ),
                {"bots": list(result.bot_sessions)},
            )
        ).scalar()
    assert honest_max <= 15  # no honest session is long enough for the volume test


async def _votes_in_order(db: AsyncEngine) -> list[tuple[str, str, str]]:
    async with db.connect() as conn:
        return [
            tuple(r)
            for r in await conn.execute(
                text(
                    "SELECT p.vote, a.display_name, b.display_name FROM preferences p "
                    "JOIN matchups m ON m.id = p.matchup_id "
                    "JOIN models a ON a.id = m.slot_a_model_id "
                    "JOIN models b ON b.id = m.slot_b_model_id ORDER BY m.created_at, m.id"
                )
            )
        ]


async def test_the_same_seed_reproduces_the_same_arena_and_a_rerun_replaces_it(
    db: AsyncEngine, database_url: str
) -> None:
    await _roster(db)
    options = DemoOptions(votes=400, models=3, days=2, seed=5)
    first = await seed_demo(_dsn(database_url), options)
    votes = await _votes_in_order(db)

    again = await seed_demo(_dsn(database_url), options)

    assert await _votes_in_order(db) == votes
    assert again.replaced_matchups == first.matchups
    assert await _scalar(db, "SELECT count(*) FROM preferences") == 400
    await seed_demo(_dsn(database_url), DemoOptions(votes=400, models=3, days=2, seed=6))
    assert await _votes_in_order(db) != votes


async def test_a_database_with_other_votes_is_refused_unless_forced(
    db: AsyncEngine, database_url: str
) -> None:
    await _roster(db)
    async with db.begin() as conn:
        a, b = await rows.model(conn, "real-a"), await rows.model(conn, "real-b")
        real = await rows.matchup(conn, a, b)
        await rows.preference(conn, real, "left", winner_model_id=a)

    with pytest.raises(DemoError, match="--force"):
        await seed_demo(_dsn(database_url), SMALL)
    assert await _scalar(db, "SELECT count(*) FROM matchups") == 1

    forced = DemoOptions(votes=300, models=3, days=2, seed=1, force=True)
    await seed_demo(_dsn(database_url), forced)
    await seed_demo(_dsn(database_url), forced)  # replaces its own rows, keeps the real one

    assert await _scalar(db, "SELECT count(*) FROM preferences") == 301
    assert await _scalar(db, "SELECT count(*) FROM matchups WHERE harness_version = 'v1'") == 1
    assert await _scalar(db, "SELECT count(*) FROM conversations") == await _scalar(
        db, "SELECT count(*) FROM turns WHERE turn_index = 0"
    )


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"votes": 0}, id="no-votes"),
        pytest.param({"models": 1}, id="one-model"),
        pytest.param({"days": 0}, id="no-days"),
    ],
)
def test_impossible_options_are_refused(options: dict[str, int]) -> None:
    with pytest.raises(DemoError):
        DemoOptions(**options)


def test_personas_read_tier_and_recency_from_whole_name_segments() -> None:
    """'gemini' ends in 'mini' but is not the mini marker; newer versions are stronger and older
    ones in the same class pad their answers."""
    newest, older, lite, flagship = persona_for(
        [
            "Gemini 3.5 Flash gemini-3.5-flash",
            "Gemini 3 Flash gemini-3-flash",
            "Gemini 3.1 Flash-Lite gemini-3.1-flash-lite",
            "Gemini 3.5 Pro gemini-3.5-pro",
        ]
    )

    assert flagship.strength > newest.strength > older.strength > lite.strength
    assert older.output_tokens > newest.output_tokens > lite.output_tokens
    assert lite.ttft_ms < newest.ttft_ms < flagship.ttft_ms


def test_the_command_seeds_a_fresh_database_with_a_progress_bar(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "MATCHUP_"))}
    env.update(DATABASE_URL=fresh_database(), ARENA_DATA_DIR=str(tmp_path))

    result = subprocess.run(
        [sys.executable, "-m", "arena_api", "db", "seed-demo", "--votes", "500", "--days", "2"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    assert "arena: 500 demo votes on 515 matchups" in result.stdout
    assert "writing demo rounds" in result.stdout + result.stderr
