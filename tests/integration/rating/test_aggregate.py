"""The SQL reads return exactly what the array twins compute from the same votes."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.boards import DEFAULT_BOARD, Board
from arena_api.core.populations import ALL, JUDGE
from arena_rating import (
    pair_counts_from_votes,
    read_pair_counts,
    read_session_stats,
    read_style_votes,
    session_stats,
)
from arena_rating.aggregate import read_vote_tallies
from tests.integration.rating.votes import (
    VoteRows,
    insert_models,
    insert_votes,
    rows_from_log,
    rows_from_simulation,
)
from tests.unit.rating.synthetic import centred_strengths, simulate, simulate_sessions

MIN_GAP_S = 1.5


async def test_the_group_by_equals_the_array_aggregation_of_the_same_votes(
    db: AsyncEngine,
) -> None:
    rng = np.random.default_rng(61)
    sim = simulate(rng, centred_strengths(rng, 6), 3_000)
    labels = sim.vote_labels(rng)
    labels[:100] = "skip"
    async with db.begin() as conn:
        models = await insert_models(conn, 6)
        await insert_votes(conn, models, rows_from_simulation(sim, labels))

    async with db.connect() as conn:
        aggregated = await read_pair_counts(conn)

    kept = labels != "skip"
    expected = pair_counts_from_votes(6, sim.slot_a[kept], sim.slot_b[kept], sim.outcomes[kept])
    assert aggregated.model_ids == tuple(models)
    assert (aggregated.votes, aggregated.skips, aggregated.excluded) == (3_000, 100, 0)
    for name in ("pairs", "wins_first", "wins_second", "ties"):
        np.testing.assert_array_equal(getattr(aggregated.counts, name), getattr(expected, name))


async def test_excluded_sessions_are_filtered_inside_the_aggregate(db: AsyncEngine) -> None:
    rng = np.random.default_rng(62)
    log = simulate_sessions(rng, centred_strengths(rng, 5), honest=40, stuffers=2)
    async with db.begin() as conn:
        models = await insert_models(conn, 5)
        await insert_votes(conn, models, rows_from_log(log))
    drop = {"stuffer-0", "stuffer-1"}

    async with db.connect() as conn:
        aggregated = await read_pair_counts(conn, excluded_sessions=sorted(drop))

    expected = log.counts(drop_sessions=drop)
    dropped = np.isin(log.session_ids, list(drop)) & (log.votes != "skip")
    assert aggregated.excluded == int(dropped.sum())
    np.testing.assert_array_equal(aggregated.counts.wins_first, expected.wins_first)
    np.testing.assert_array_equal(aggregated.counts.ties, expected.ties)


async def test_session_statistics_in_sql_equal_the_array_twin(db: AsyncEngine) -> None:
    rng = np.random.default_rng(63)
    log = simulate_sessions(
        rng, centred_strengths(rng, 5), honest=60, always_left=3, stuffers=2, clickers=3
    )
    async with db.begin() as conn:
        models = await insert_models(conn, 5)
        await insert_votes(conn, models, rows_from_log(log))

    async with db.connect() as conn:
        stats = await read_session_stats(conn, min_gap_s=MIN_GAP_S)

    expected = session_stats(log.session_ids, log.timestamps_s, log.votes, min_gap_s=MIN_GAP_S)
    order = np.argsort(stats.session_ids)
    assert tuple(np.array(stats.session_ids)[order]) == expected.session_ids
    for name in ("votes", "left", "right", "gaps", "fast_gaps"):
        np.testing.assert_array_equal(getattr(stats, name)[order], getattr(expected, name))
    # timestamptz keeps microseconds
    np.testing.assert_allclose(stats.median_gap_s[order], expected.median_gap_s, atol=2e-6)


async def test_style_rows_exclude_and_count_failed_slots_and_missing_metrics(
    db: AsyncEngine,
) -> None:
    rows = VoteRows(
        slot_a=[0, 1, 0, 1, 0, 1],
        slot_b=[1, 0, 1, 0, 1, 0],
        votes=["left", "right", "both_good", "left", "skip", "right"],
        sessions=[None] * 6,
        seconds=[0, 1, 2, 3, 4, 5],
        tokens_a=[100, 200, 300, 400, 500, 600],
        tokens_b=[50, 50, 50, 50, 50, 50],
        markdown_a=[0.5, 0.2, 0.1, 0.1, 0.1, 0.1],
        markdown_b=[0.25, 0.1, 0.1, 0.1, 0.1, 0.1],
        ttft_a=[300, 100, None, 100, 100, 100],
        ttft_b=[100, 100, 100, 100, 100, 100],
        duration_a=[2000, 1000, 1000, 1000, 1000, 1000],
        duration_b=[1500, 1000, 1000, 1000, 1000, 1000],
        error_a=[None, None, None, "timeout", None, None],
        has_b=[True, True, True, True, True, False],
    )
    async with db.begin() as conn:
        models = await insert_models(conn, 2)
        await insert_votes(conn, models, rows)

    async with db.connect() as conn:
        style = await read_style_votes(conn, model_ids=models)

    assert style.read == 5
    assert (style.missing_ttft, style.failed_slot, style.missing_response) == (1, 1, 1)
    votes = style.votes
    order = np.argsort(votes.features[:, 1])
    np.testing.assert_array_equal(votes.slot_a[order], [0, 1])
    np.testing.assert_array_equal(votes.outcomes[order], [0, 1])
    np.testing.assert_allclose(
        votes.features[order], [[1, 50, 0.25, 200, 500], [1, 150, 0.1, 0, 0]]
    )


async def test_the_loader_keeps_the_vote_counters_consistent(db: AsyncEngine) -> None:
    rng = np.random.default_rng(64)
    sim = simulate(rng, centred_strengths(rng, 3), 200)
    async with db.begin() as conn:
        models = await insert_models(conn, 3)
        await insert_votes(conn, models, rows_from_simulation(sim, sim.vote_labels(rng)))

    async with db.connect() as conn:
        games = (await conn.execute(text("SELECT sum(games) FROM pair_vote_stats"))).scalar_one()

    assert games == 200


# The boards' counts as the rating pass read them before issue #39: one GROUP BY over every vote.
_RAW_BOARD = """
SELECT LEAST(m.slot_a_model_id, m.slot_b_model_id) AS lo,
       GREATEST(m.slot_a_model_id, m.slot_b_model_id) AS hi,
       count(*) FILTER (WHERE kept AND (p.vote = 'left') = a_lo
                        AND p.vote IN ('left', 'right')) AS wins_lo,
       count(*) FILTER (WHERE kept AND (p.vote = 'right') = a_lo
                        AND p.vote IN ('left', 'right')) AS wins_hi,
       count(*) FILTER (WHERE kept AND p.vote IN ('both_good', 'both_bad')) AS ties,
       count(*) FILTER (WHERE p.vote <> 'skip') AS compared,
       count(*) FILTER (WHERE p.vote <> 'skip' AND screened) AS excluded,
       count(*) FILTER (WHERE p.vote = 'skip') AS skips, count(*) AS votes
  FROM preferences p JOIN matchups m ON m.id = p.matchup_id
 CROSS JOIN LATERAL (SELECT coalesce(p.anonymous_session_id = ANY(:sessions), false)
                            AS screened) AS s
 CROSS JOIN LATERAL (SELECT NOT (s.screened OR p.id = ANY(:filtered)) AS kept) AS k
 CROSS JOIN LATERAL (SELECT m.slot_a_model_id < m.slot_b_model_id AS a_lo) AS o
 WHERE p.method = ANY(:methods) AND (m.mode <> 'named' OR :named)
 GROUP BY 1, 2
"""


@pytest.mark.parametrize(
    ("board", "screened"),
    [
        pytest.param(DEFAULT_BOARD, True, id="default"),
        pytest.param(Board(filters=False), True, id="unfiltered"),
        pytest.param(Board(named=True), True, id="with-named"),
        pytest.param(Board(population=JUDGE), False, id="judge"),
        pytest.param(Board(population=ALL), True, id="all"),
    ],
)
async def test_every_board_from_the_summaries_equals_a_group_by_of_its_votes(
    db: AsyncEngine, board: Board, screened: bool
) -> None:
    """The vote summaries less the left-out votes give each board the counts, votes, skips and
    excluded votes a GROUP BY over every one of its votes gives."""
    rng = np.random.default_rng(64)
    log = simulate_sessions(rng, centred_strengths(rng, 6), honest=50, stuffers=2, clickers=2)
    async with db.begin() as conn:
        models = await insert_models(conn, 6)
        await insert_votes(conn, models, rows_from_log(log))
        await conn.execute(
            text("UPDATE matchups SET mode = 'named' WHERE abs(hashtext(id::text)) % 9 = 0")
        )
        await conn.execute(
            text("UPDATE preferences SET method = 'judge' WHERE abs(hashtext(id::text)) % 7 = 0")
        )
        await conn.execute(text("SELECT arena_rebuild_vote_stats()"))
        ids = (await conn.execute(text("SELECT id FROM preferences ORDER BY id"))).scalars().all()
    filtered = list(ids[::11])
    sessions = ["stuffer-0", "clicker-1"]

    async with db.connect() as conn:
        tallies = await read_vote_tallies(
            conn, excluded_sessions=sessions, filtered=filtered, slices=False
        )
        raw = (
            await conn.execute(
                text(_RAW_BOARD),
                {
                    "sessions": sessions if screened else [],
                    "filtered": filtered if board.filters else [],
                    "methods": list(board.methods),
                    "named": board.named,
                },
            )
        ).all()
    aggregated = tallies.board(board, screened=screened)

    compared = sorted((r for r in raw if r.compared > 0), key=lambda r: (r.lo, r.hi))
    assert aggregated.model_ids == tuple(
        sorted({r.lo for r in compared} | {r.hi for r in compared})
    )
    index = {m: i for i, m in enumerate(aggregated.model_ids)}
    np.testing.assert_array_equal(
        aggregated.counts.pairs, [(index[r.lo], index[r.hi]) for r in compared]
    )
    np.testing.assert_array_equal(aggregated.counts.wins_first, [r.wins_lo for r in compared])
    np.testing.assert_array_equal(aggregated.counts.wins_second, [r.wins_hi for r in compared])
    np.testing.assert_array_equal(aggregated.counts.ties, [r.ties for r in compared])
    assert (aggregated.votes, aggregated.skips, aggregated.excluded) == (
        sum(r.votes for r in raw),
        sum(r.skips for r in raw),
        sum(r.excluded for r in raw),
    )
