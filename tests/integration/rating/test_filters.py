"""The filters before the fit (identity leaks, the duplicate-prompt cap) and the boards per slice
of prompts, on a real PostgreSQL with the real worker."""

from __future__ import annotations

import uuid

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_rating import RatingSettings, RatingWorker, WorkerOptions
from arena_rating.aggregate import read_session_stats, read_slice_pair_counts
from arena_rating.anomaly import screen_sessions
from tests.integration.rating.votes import (
    insert_models,
    insert_votes,
    rows_from_log,
    rows_from_simulation,
)
from tests.unit.rating.synthetic import centred_strengths, simulate, simulate_sessions

# No slice boards unless a test asks; the cap as in production.
SETTINGS = RatingSettings(category_min_votes=0)


async def _arena(db: AsyncEngine, n_votes: int = 600) -> list[uuid.UUID]:
    rng = np.random.default_rng(5)
    sim = simulate(rng, centred_strengths(rng, 4), n_votes)
    async with db.begin() as conn:
        models = await insert_models(conn, 4)
        await insert_votes(conn, models, rows_from_simulation(sim, sim.vote_labels(rng)))
    return models


async def _scalar(db: AsyncEngine, sql: str) -> object:
    async with db.connect() as conn:
        return (await conn.execute(text(sql))).scalar_one()


async def _rows(db: AsyncEngine, sql: str) -> list[tuple[object, ...]]:
    async with db.connect() as conn:
        return [tuple(r) for r in (await conn.execute(text(sql))).all()]


async def _execute(db: AsyncEngine, sql: str) -> None:
    async with db.begin() as conn:
        await conn.execute(text(sql))


_DECISIVE_GAMES = "SELECT sum(games) / 2 FROM model_ratings"
_UNFILTERED_GAMES = (
    "SELECT coalesce(sum(games) / 2, 0) FROM model_population_ratings "
    "WHERE population = 'unfiltered'"
)
_NON_SKIP = "SELECT count(*) FROM preferences WHERE vote <> 'skip'"


async def test_votes_on_rounds_whose_answers_named_themselves_are_left_out_with_their_reason(
    db: AsyncEngine,
) -> None:
    await _arena(db)
    # 30 rounds whose slot A named itself, 10 more where both slots did.
    await _execute(
        db,
        "UPDATE responses SET names_itself = true WHERE slot = 'A' AND matchup_id IN "
        "(SELECT matchup_id FROM preferences WHERE vote <> 'skip' ORDER BY id LIMIT 40)",
    )
    await _execute(
        db,
        "UPDATE responses SET names_itself = true WHERE slot = 'B' AND matchup_id IN "
        "(SELECT matchup_id FROM preferences WHERE vote <> 'skip' ORDER BY id LIMIT 10)",
    )
    await _execute(db, "UPDATE responses SET names_itself = false WHERE names_itself IS NULL")

    report = await RatingWorker(db, SETTINGS).run_pass()

    non_skip = await _scalar(db, _NON_SKIP)
    assert report.identity_leaks == 40 and report.duplicates == 0
    assert sorted(await _rows(db, "SELECT detail, count(*) FROM vote_exclusions GROUP BY 1")) == [
        ("A", 30),
        ("AB", 10),
    ]
    assert await _scalar(db, "SELECT DISTINCT reason FROM vote_exclusions") == "identity_leak"
    # The fit saw the rest; the unfiltered board saw them all.
    assert await _scalar(db, _DECISIVE_GAMES) == non_skip - 40  # type: ignore[operator]
    assert await _scalar(db, _UNFILTERED_GAMES) == non_skip
    assert await _rows(db, "SELECT votes_identity_leaks, votes_duplicates FROM rating_passes") == [
        (40, 0)
    ]

    # Off: nothing left out, no unfiltered board, and the stored exclusions are cleared.
    off = await RatingWorker(db, SETTINGS, WorkerOptions(identity_filter=False)).run_pass()
    assert off.identity_leaks == 0
    assert await _scalar(db, "SELECT count(*) FROM vote_exclusions") == 0
    assert await _scalar(db, _DECISIVE_GAMES) == non_skip
    assert await _scalar(db, _UNFILTERED_GAMES) == 0


async def test_an_over_asked_prompt_keeps_a_seeded_sample_of_its_cap(db: AsyncEngine) -> None:
    await _arena(db, n_votes=400)
    # Half the rounds ask one prompt; the rest are all different.
    await _execute(
        db,
        "UPDATE matchups m SET prompt_key = CASE WHEN o.n % 2 = 0 THEN 'hello' "
        "ELSE md5(m.id::text) END FROM (SELECT id, row_number() OVER (ORDER BY id) AS n "
        "FROM matchups) o WHERE o.id = m.id",
    )
    hello = await _scalar(
        db,
        "SELECT count(*) FROM preferences p JOIN matchups m ON m.id = p.matchup_id "
        "WHERE m.prompt_key = 'hello' AND p.vote <> 'skip'",
    )
    non_skip = await _scalar(db, _NON_SKIP)
    settings = RatingSettings(category_min_votes=0, duplicate_cap=0.1, duplicate_min_votes=5)
    cap = int(np.ceil(0.1 * non_skip))  # type: ignore[call-overload]

    first = await RatingWorker(db, settings).run_pass()
    kept_first = await _rows(db, "SELECT preference_id FROM vote_exclusions ORDER BY 1")
    second = await RatingWorker(db, settings).run_pass()
    kept_second = await _rows(db, "SELECT preference_id FROM vote_exclusions ORDER BY 1")

    assert first.duplicates == hello - cap  # type: ignore[operator]
    assert second.duplicates == first.duplicates and kept_first == kept_second  # deterministic
    assert await _rows(db, "SELECT DISTINCT reason, detail FROM vote_exclusions") == [
        ("duplicate_prompt", "hello")
    ]
    assert await _scalar(db, _DECISIVE_GAMES) == non_skip - first.duplicates  # type: ignore[operator]

    # The floor keeps a small arena's repeated prompt whole; a cap of 0 and the flag turn it off.
    floor = RatingSettings(category_min_votes=0, duplicate_cap=0.1, duplicate_min_votes=10_000)
    assert (await RatingWorker(db, floor).run_pass()).duplicates == 0
    off = RatingSettings(category_min_votes=0, duplicate_cap=0)
    assert (await RatingWorker(db, off).run_pass()).duplicates == 0
    flag = WorkerOptions(duplicate_cap=False)
    assert (await RatingWorker(db, settings, flag).run_pass()).duplicates == 0
    assert await _scalar(db, "SELECT count(*) FROM vote_exclusions") == 0


async def test_a_slice_with_enough_votes_gets_its_own_board_and_loses_it_below(
    db: AsyncEngine,
) -> None:
    await _arena(db, n_votes=600)
    # Every third round is coding (in German), every fifth math; the language board is the
    # coding one's twin.
    await _execute(
        db,
        "UPDATE matchups m SET categories = CASE WHEN o.n % 3 = 0 THEN '{coding}'::text[] "
        "WHEN o.n % 5 = 0 THEN '{math}'::text[] ELSE '{}'::text[] END, "
        "language = CASE WHEN o.n % 3 = 0 THEN 'de' ELSE 'und' END "
        "FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM matchups) o WHERE o.id = m.id",
    )
    # Left out of the slices as of the overall board: named rounds, votes whose answers named
    # themselves.
    await _execute(
        db,
        "UPDATE matchups SET mode = 'named' WHERE id IN "
        "(SELECT id FROM matchups WHERE 'coding' = ANY(categories) ORDER BY id LIMIT 7)",
    )
    await _execute(
        db,
        "UPDATE responses SET names_itself = true WHERE slot = 'B' AND matchup_id IN "
        "(SELECT id FROM matchups WHERE 'coding' = ANY(categories) ORDER BY id DESC LIMIT 5)",
    )
    coding = await _scalar(
        db,
        "SELECT count(*) FROM preferences p JOIN matchups m ON m.id = p.matchup_id "
        "WHERE 'coding' = ANY(m.categories) AND p.vote <> 'skip' AND m.mode <> 'named' "
        "AND NOT EXISTS (SELECT 1 FROM responses r WHERE r.matchup_id = m.id AND r.names_itself)",
    )
    settings = RatingSettings(category_min_votes=100)

    report = await RatingWorker(db, settings).run_pass()

    boards = await _rows(
        db,
        "SELECT population, sum(games) / 2 FROM model_population_ratings "
        "WHERE population LIKE 'category:%' GROUP BY 1 ORDER BY 1",
    )
    assert report.slices == {"coding": coding, "language:de": coding}
    assert boards == [("category:coding", coding), ("category:language:de", coding)]
    history = await _scalar(
        db,
        "SELECT count(DISTINCT population) FROM model_rating_history "
        "WHERE population LIKE 'category:%'",
    )
    assert history == 2

    # Raised above every slice, the boards go (their history stays).
    await RatingWorker(db, RatingSettings(category_min_votes=10_000)).run_pass()
    assert (
        await _rows(db, "SELECT * FROM model_population_ratings WHERE population LIKE 'category:%'")
        == []
    )
    assert (
        await _scalar(
            db,
            "SELECT count(DISTINCT population) FROM model_rating_history "
            "WHERE population LIKE 'category:%'",
        )
        == 2
    )


async def test_slice_boards_from_the_summaries_equal_a_count_of_the_kept_votes(
    db: AsyncEngine,
) -> None:
    """The slices are read from the summary less the left-out votes (screened sessions, named
    rounds, filtered ones): exactly what counting the kept votes of each slice gives."""
    rng = np.random.default_rng(78)
    log = simulate_sessions(
        rng, centred_strengths(rng, 6), honest=500, always_left=6, stuffers=4, clickers=12
    )
    async with db.begin() as conn:
        models = await insert_models(conn, 6)
        await insert_votes(conn, models, rows_from_log(log))
    await _execute(
        db,
        "UPDATE matchups m SET categories = (ARRAY['{coding}', '{math,coding}', '{}'])"
        "[1 + o.n % 3]::text[], language = (ARRAY['en', 'de'])[1 + o.n % 2], "
        "mode = CASE WHEN o.n % 17 = 0 THEN 'named' ELSE 'blind' END, "
        "prompt_key = CASE WHEN o.n % 4 = 0 THEN 'hello' ELSE md5(m.id::text) END "
        "FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM matchups) o WHERE o.id = m.id",
    )
    await _execute(
        db,
        "UPDATE responses SET names_itself = true WHERE slot = 'A' AND matchup_id IN "
        "(SELECT id FROM matchups ORDER BY md5(id::text) LIMIT 40)",
    )
    settings = RatingSettings(category_min_votes=1, duplicate_cap=0.05, duplicate_min_votes=5)

    report = await RatingWorker(db, settings).run_pass()

    assert report.sessions_excluded > 0 and report.identity_leaks > 0 and report.duplicates > 0
    async with db.connect() as conn:
        stats = await read_session_stats(conn, min_gap_s=settings.anomaly_min_gap_s)
        flagged = list(
            screen_sessions(stats, significance_level=settings.anomaly_alpha).flagged_ids
        )
        filtered = [r[0] for r in (await conn.execute(text(_EXCLUDED))).all()]
        slices = await read_slice_pair_counts(
            conn, excluded_sessions=flagged, filtered=filtered, min_votes=1
        )
        reference = (await conn.execute(text(_KEPT_PER_SLICE), {"flagged": flagged})).all()
    expected: dict[str, dict[tuple[uuid.UUID, uuid.UUID], tuple[int, int, int]]] = {}
    for row in reference:
        expected.setdefault(row.slice, {})[(row.lo, row.hi)] = (row.w_lo, row.w_hi, row.ties)
    found = {
        name: {
            (votes.model_ids[i], votes.model_ids[j]): (int(w1), int(w2), int(t))
            for (i, j), w1, w2, t in zip(
                votes.counts.pairs,
                votes.counts.wins_first,
                votes.counts.wins_second,
                votes.counts.ties,
                strict=True,
            )
        }
        for name, votes in slices.items()
    }
    assert found == expected
    assert report.slices == {
        n: sum(sum(c) for c in pairs.values()) for n, pairs in expected.items()
    }


_EXCLUDED = "SELECT preference_id FROM vote_exclusions"
_KEPT_PER_SLICE = """
SELECT s.slice, LEAST(m.slot_a_model_id, m.slot_b_model_id) AS lo,
       GREATEST(m.slot_a_model_id, m.slot_b_model_id) AS hi,
       count(*) FILTER (WHERE p.winner_model_id = LEAST(m.slot_a_model_id, m.slot_b_model_id))
         AS w_lo,
       count(*) FILTER (WHERE p.winner_model_id = GREATEST(m.slot_a_model_id, m.slot_b_model_id))
         AS w_hi,
       count(*) FILTER (WHERE p.vote IN ('both_good', 'both_bad')) AS ties
  FROM preferences p JOIN matchups m ON m.id = p.matchup_id
 CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS s (slice)
 WHERE p.vote <> 'skip' AND m.mode <> 'named'
   AND p.id NOT IN (SELECT preference_id FROM vote_exclusions)
   AND (p.anonymous_session_id IS NULL
        OR NOT p.anonymous_session_id = ANY(CAST(:flagged AS text[])))
 GROUP BY 1, 2, 3
"""
