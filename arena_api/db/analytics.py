"""``AnalyticsPort`` on PostgreSQL: the insights dashboard's aggregates, computed by the database.

Nothing here scans ``preferences`` or ``responses``. Each read comes from the summary tables
that the triggers of migration 0003 keep current (see ``arena_api.db.tables``), so its cost
grows with models, model pairs and hours of history, never with the number of votes; two
exceptions: the reasons read takes only the votes that carry a reason, through an index of them
alone, and the judge-agreement read only the judge's verdicts, each with its round's vote:

=================  ================================================================================
read               from
=================  ================================================================================
categories         ``category_pair_stats`` (the slices with votes), ``model_population_ratings``
summary            ``pair_outcome_stats``, ``pair_vote_stats``, ``models``, ``model_ratings``
head-to-head       ``pair_outcome_stats``
model metrics      ``model_response_stats``, ``response_latency_buckets`` /
                   ``response_latency_values`` (exact percentiles), ``pair_outcome_stats``
activity           ``vote_activity`` (hourly per model), bucketed with ``date_trunc(..., 'UTC')``
cost               ``model_cost_daily`` (per UTC day and model, kept by migration 0007's trigger)
style control      ``style_control_coefficients``, ``model_ratings``, ``model_style_ratings``
rating history     ``model_rating_history`` (its ``computed_at`` index)
reasons            the votes that carry a reason, through the index of them alone
                   (``arena_api.db.reasons``); the wins from ``pair_outcome_stats``
judge agreement    the judge's readable verdicts, each with its round's vote
                   (``arena_api.db.agreement``); ``model_ratings``, ``model_population_ratings``
=================  ================================================================================

Every read but style control can be cut to one slice of prompts (``category``: a category, or
``language:<code>``): it then reads the same statement over that slice's summaries
(``category_pair_stats``, ``category_vote_activity``, ``category_response_stats``,
``category_latency_*``, ``category_cost_daily``; migration 0014), at the same cost.

Percentiles are those of ``percentile_cont`` (linear interpolation between the order statistics
at ``q * (n - 1)``), computed from the exact distribution of each model's TTFT and stream duration
instead of sorting every answer: the 100 ms bucket holding each needed order statistic is found
from the bucket counts, and the value read from at most 100 exact-value rows inside it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from arena_api.core.agreement import AgreementCounts
from arena_api.core.boards import Board
from arena_api.core.populations import CATEGORY_BOARD, HUMAN, VOTE_METHODS, rated_population
from arena_api.core.sides import sql_side_counter
from arena_api.core.views import (
    ActivityBucket,
    ActivityView,
    ActivityVotes,
    CategoriesView,
    CategoryCount,
    CostBucket,
    CostPoint,
    CostTotals,
    CostView,
    CumulativeGames,
    HeadToHeadPair,
    HeadToHeadView,
    ModelCost,
    ModelIdentity,
    ModelMetrics,
    ModelMetricsView,
    RatingHistoryPoint,
    RatingHistoryView,
    ReasonCountsView,
    StyleCoefficientView,
    StyleControlView,
    StyleRatedModel,
    SummaryView,
    Votes,
)
from arena_api.db.agreement import read_agreement
from arena_api.db.outages import raises_unavailable
from arena_api.db.reasons import read_reason_tally, reason_counts_view

__all__ = ["LATENCY_BUCKET_MS", "PERCENTILES", "PostgresAnalytics"]

#: Width of ``response_latency_buckets`` (``value_ms / 100`` in migration 0003).
LATENCY_BUCKET_MS = 100
PERCENTILES = (0.5, 0.9)

# The enabled roster and every other model a read's rows mention (paused, archived, or known
# only from imported votes), so that a chart names each by its display name, never by its id.
_NAMED_MODELS = text(
    "SELECT id, display_name FROM models WHERE enabled OR id = ANY(CAST(:mentioned AS uuid[])) "
    "ORDER BY display_name, id"
)

_SUMMARY = """
WITH sampled AS (
  SELECT LEAST(slot_a_model_id, slot_b_model_id) AS model_lo,
         GREATEST(slot_a_model_id, slot_b_model_id) AS model_hi
    FROM {outcomes} o
   WHERE method = ANY(CAST(:methods AS text[]))
   GROUP BY 1, 2
  HAVING sum(left_wins + right_wins + both_good + both_bad) > 0
)
SELECT (SELECT coalesce(sum(matchups), 0) FROM {outcomes} o) AS total_matchups,
       coalesce(sum(o.left_wins + o.right_wins + o.both_good + o.both_bad + o.skips), 0)
         AS total_votes,
       coalesce(sum(o.left_wins + o.right_wins), 0) AS decisive_votes,
       coalesce(sum(o.both_good + o.both_bad), 0) AS tie_votes,
       coalesce(sum(o.skips), 0) AS skip_votes,
       coalesce(sum(o.left_wins), 0) AS slot_a_wins,
       coalesce(sum(o.right_wins), 0) AS slot_b_wins,
       (SELECT count(*) FROM models WHERE enabled) AS enabled_models,
       (SELECT count(*) FROM sampled) AS pairs_sampled,
       (SELECT count(*) FROM sampled p
          JOIN models lo ON lo.id = p.model_lo AND lo.enabled
          JOIN models hi ON hi.id = p.model_hi AND hi.enabled) AS enabled_pairs_sampled,
       (SELECT count(DISTINCT component_id) FROM model_ratings WHERE :board = '{human}')
         + (SELECT count(DISTINCT component_id) FROM model_population_ratings
             WHERE population = :board) AS rating_components
  FROM {outcomes} o
 WHERE o.method = ANY(CAST(:methods AS text[]))
"""

_CATEGORIES = text(
    f"""
SELECT c.category, sum(c.left_wins + c.right_wins + c.both_good + c.both_bad + c.skips) AS votes,
       EXISTS (SELECT 1 FROM model_population_ratings r
                WHERE r.population = '{CATEGORY_BOARD}' || c.category) AS rated
  FROM category_pair_stats c
 WHERE c.method = ANY(CAST(:methods AS text[]))
 GROUP BY c.category
HAVING sum(c.left_wins + c.right_wins + c.both_good + c.both_bad + c.skips) > 0
 ORDER BY 2 DESC, 1
"""
)

_HEAD_TO_HEAD = """
SELECT LEAST(slot_a_model_id, slot_b_model_id) AS model_a_id,
       GREATEST(slot_a_model_id, slot_b_model_id) AS model_b_id,
       sum({lo_wins}) AS a_wins,
       sum({hi_wins}) AS b_wins,
       sum(both_good + both_bad) AS ties
  FROM {outcomes} o
 WHERE method = ANY(CAST(:methods AS text[]))
 GROUP BY 1, 2
HAVING sum(left_wins + right_wins + both_good + both_bad) > 0
 ORDER BY 1, 2
"""

_RESPONSE_STATS = """
SELECT m.id, m.display_name,
       coalesce(s.responses, 0) AS responses,
       s.output_tokens::float8 / NULLIF(s.responses, 0) AS mean_output_tokens,
       s.markdown_density / NULLIF(s.responses, 0) AS mean_markdown_density,
       coalesce(sum(o.left_wins) FILTER (WHERE o.slot_a_model_id = m.id), 0) AS slot_a_wins,
       coalesce(sum(o.left_wins + o.right_wins) FILTER (WHERE o.slot_a_model_id = m.id), 0)
         AS slot_a_games,
       coalesce(sum(o.right_wins) FILTER (WHERE o.slot_b_model_id = m.id), 0) AS slot_b_wins,
       coalesce(sum(o.left_wins + o.right_wins) FILTER (WHERE o.slot_b_model_id = m.id), 0)
         AS slot_b_games
  FROM models m
  LEFT JOIN {answers} s ON s.model_id = m.id
  LEFT JOIN {outcomes} o ON m.id IN (o.slot_a_model_id, o.slot_b_model_id)
        AND o.method = ANY(CAST(:methods AS text[]))
 GROUP BY m.id, m.display_name, s.responses, s.output_tokens, s.markdown_density
-- the board's models: every active one, and a paused or archived one with votes here
HAVING m.enabled
    OR coalesce(sum(o.left_wins + o.right_wins + o.both_good + o.both_bad + o.skips), 0) > 0
 ORDER BY m.display_name, m.id
"""

# percentile_cont(q) over n values is v[floor(p)] + (p - floor(p)) * (v[ceil(p)] - v[floor(p)])
# with p = q * (n - 1) and v the sorted values, 0-based. `ranks` lists the two order statistics
# of each percentile, `located` finds the bucket holding each and its offset there, `valued`
# reads it from the exact-value rows of that bucket alone.
_PERCENTILES = f"""
WITH totals AS (
  SELECT b.model_id, b.metric, sum(b.responses) AS n
    FROM {{buckets}} b
   WHERE b.model_id = ANY(CAST(:models AS uuid[]))
   GROUP BY 1, 2
  HAVING sum(b.responses) > 0
), ranks AS (
  SELECT t.model_id, t.metric, q.q, (t.n - 1) * q.q AS position, r.rank
    FROM totals t
   CROSS JOIN unnest(CAST(:quantiles AS float8[])) AS q (q)
   CROSS JOIN LATERAL (VALUES (floor((t.n - 1) * q.q)::bigint),
                              (ceil((t.n - 1) * q.q)::bigint)) AS r (rank)
), buckets AS (
  SELECT b.model_id, b.metric, b.bucket, b.responses,
         sum(b.responses) OVER (PARTITION BY b.model_id, b.metric ORDER BY b.bucket)
           - b.responses AS before
    FROM {{buckets}} b
    JOIN totals t ON t.model_id = b.model_id AND t.metric = b.metric
   WHERE b.responses > 0
), located AS (
  SELECT DISTINCT r.model_id, r.metric, r.rank, b.bucket, r.rank - b.before AS within
    FROM ranks r
    JOIN buckets b ON b.model_id = r.model_id AND b.metric = r.metric
     AND r.rank >= b.before AND r.rank < b.before + b.responses
), valued AS (
  SELECT l.model_id, l.metric, l.rank, v.value_ms
    FROM located l
   CROSS JOIN LATERAL (
     SELECT c.value_ms FROM (
       SELECT x.value_ms, sum(x.responses) OVER (ORDER BY x.value_ms) AS upto
         FROM {{values}} x
        WHERE x.model_id = l.model_id AND x.metric = l.metric
          AND x.value_ms >= l.bucket * {LATENCY_BUCKET_MS}
          AND x.value_ms < (l.bucket + 1) * {LATENCY_BUCKET_MS}
     ) c
      WHERE c.upto > l.within
      ORDER BY c.value_ms
      LIMIT 1) v
)
SELECT r.model_id, r.metric, r.q,
       min(v.value_ms) + (r.position - floor(r.position)) * (max(v.value_ms) - min(v.value_ms))
         AS value
  FROM ranks r
  JOIN valued v ON v.model_id = r.model_id AND v.metric = r.metric AND v.rank = r.rank
 GROUP BY r.model_id, r.metric, r.q, r.position
"""

# One row per bucket that holds a vote, at or after :since. Each vote is in both of its models'
# rows, so a bucket's votes are half their sum. The running games per model are summed over a
# dense (bucket x model) grid, so that a total carries through buckets in which the model did not
# play and counts the games before :since.
_ACTIVITY = """
WITH per_model AS (
  SELECT date_trunc(:bucket, bucket_start, 'UTC') AS bucket_start, model_id,
         sum(left_wins) AS left_wins, sum(right_wins) AS right_wins,
         sum(both_good) AS both_good, sum(both_bad) AS both_bad, sum(skips) AS skips,
         sum(left_wins + right_wins + both_good + both_bad) AS games
    FROM {activity} a
   WHERE method = ANY(CAST(:methods AS text[]))
   GROUP BY 1, 2
), votes AS (
  SELECT bucket_start, (sum(left_wins) / 2)::bigint AS left_wins,
         (sum(right_wins) / 2)::bigint AS right_wins, (sum(both_good) / 2)::bigint AS both_good,
         (sum(both_bad) / 2)::bigint AS both_bad, (sum(skips) / 2)::bigint AS skips
    FROM per_model
   GROUP BY 1
  HAVING sum(left_wins + right_wins + both_good + both_bad + skips) > 0
), grid AS (
  SELECT v.bucket_start, p.model_id, coalesce(g.games, 0) AS games
    FROM votes v
   CROSS JOIN (SELECT model_id FROM per_model GROUP BY 1 HAVING sum(games) > 0) p
    LEFT JOIN per_model g ON g.bucket_start = v.bucket_start AND g.model_id = p.model_id
), running AS (
  SELECT bucket_start, model_id,
         (sum(games) OVER (PARTITION BY model_id ORDER BY bucket_start))::bigint AS games
    FROM grid
), cumulative AS (
  SELECT bucket_start,
         jsonb_object_agg(model_id::text, games) FILTER (WHERE games > 0) AS games
    FROM running
   GROUP BY 1
)
SELECT v.bucket_start, v.left_wins, v.right_wins, v.both_good, v.both_bad, v.skips,
       coalesce(c.games, '{{}}'::jsonb) AS games
  FROM votes v
  LEFT JOIN cumulative c ON c.bucket_start = v.bucket_start
 WHERE CAST(:since AS timestamptz) IS NULL OR v.bucket_start >= :since
 ORDER BY v.bucket_start
"""

_COEFFICIENTS = text(
    "SELECT feature, coefficient, computed_at FROM style_control_coefficients ORDER BY feature"
)

_STYLE_RATED = text(
    """
SELECT m.id, m.display_name, r.rating, s.style_controlled_rating
  FROM models m
  JOIN model_ratings r ON r.model_id = m.id
  JOIN model_style_ratings s ON s.model_id = m.id
 ORDER BY r.rating DESC, m.display_name, m.id
"""
)

# The points as one JSON array: a history holds a point per model per refit (thousands), and
# validating one JSON document costs a fraction of building as many row objects.
_HISTORY = """
SELECT coalesce(json_agg(json_build_object(
         'model_id', model_id, 'rating', rating, 'ci_lower', ci_lower, 'ci_upper', ci_upper,
         'games', games, 'computed_at', computed_at) ORDER BY computed_at, model_id), '[]')::text
  FROM model_rating_history
 {where}
"""
# A refit stamps all its rows with one ``computed_at``. To thin a long history, the range of
# refits is cut into :points equal spans and each span keeps its last refit.
_THINNED_HISTORY_WHERE = """
 WHERE population = :board AND computed_at IN (
   WITH refits AS (SELECT DISTINCT computed_at FROM model_rating_history {where}),
        span AS (SELECT min(computed_at) AS lo, max(computed_at) AS hi FROM refits)
   SELECT max(r.computed_at)
     FROM refits r CROSS JOIN span s
    GROUP BY CASE WHEN s.hi = s.lo THEN 0 ELSE least(
      floor(extract(epoch FROM r.computed_at - s.lo) / extract(epoch FROM s.hi - s.lo)
            * :points),
      :points - 1) END)
"""
_POINTS = TypeAdapter(list[RatingHistoryPoint])


def _identities(rows: Sequence[Any]) -> list[ModelIdentity]:
    return [ModelIdentity(id=str(r.id), display_name=r.display_name) for r in rows]


_COST_SUMS = (
    "responses",
    "priced_responses",
    "estimated_responses",
    "input_tokens",
    "output_tokens",
    "cost_usd",
)

# Per bucket and model, from the days on or after :since's UTC day. ``date_trunc`` of a plain
# timestamp (the day at midnight) then read as UTC: weeks start on Monday, as ISO 8601 has it.
_COST = f"""
SELECT date_trunc(:bucket, c.day::timestamp) AT TIME ZONE 'UTC' AS bucket_start,
       c.model_id, m.display_name, {", ".join(f"sum(c.{n}) AS {n}" for n in _COST_SUMS)}
  FROM {{cost}} c JOIN models m ON m.id = c.model_id
 WHERE CAST(:since AS timestamptz) IS NULL
    OR c.day >= (CAST(:since AS timestamptz) AT TIME ZONE 'UTC')::date
 GROUP BY 1, 2, 3
HAVING sum(c.responses) > 0
 ORDER BY 1, 3
"""


def _cost_totals(rows: Sequence[Any]) -> dict[str, Any]:
    sums = {n: sum(getattr(r, n) for r in rows) for n in _COST_SUMS}
    sums["cost_usd"] = float(sums["cost_usd"])
    return sums


# A read cut to one slice of prompts reads the slice summaries (migration 0014) in place of the
# summaries of all votes; each statement is written once, for both.
_SUMMARIES = {
    "outcomes": ("pair_outcome_stats", "category_pair_stats"),
    "activity": ("vote_activity", "category_vote_activity"),
    "answers": ("model_response_stats", "category_response_stats"),
    "buckets": ("response_latency_buckets", "category_latency_buckets"),
    "values": ("response_latency_values", "category_latency_values"),
    "cost": ("model_cost_daily", "category_cost_daily"),
}
_ALL_VOTES = {name: every for name, (every, _) in _SUMMARIES.items()}
_ONE_SLICE = {
    name: f"(SELECT * FROM {sliced} WHERE category = :category)"
    for name, (_, sliced) in _SUMMARIES.items()
}


# The kernel's rules the statements render: each side's wins in ordered counters, the name of
# people's population.
_RULES = {"lo_wins": sql_side_counter("lo"), "hi_wins": sql_side_counter("hi"), "human": HUMAN}


def _cut(statement: str) -> dict[bool, TextClause]:
    """``statement`` over all votes (``False``) and over one slice (``True``)."""
    return {
        False: text(statement.format(**_ALL_VOTES, **_RULES)),
        True: text(statement.format(**_ONE_SLICE, **_RULES)),
    }


_SUMMARY_CUT = _cut(_SUMMARY)
_HEAD_TO_HEAD_CUT = _cut(_HEAD_TO_HEAD)
_RESPONSE_STATS_CUT = _cut(_RESPONSE_STATS)
_ACTIVITY_CUT = _cut(_ACTIVITY)
_PERCENTILES_CUT = _cut(_PERCENTILES)
_COST_CUT = _cut(_COST)


def _population(votes: Votes, category: str | None = None) -> dict[str, Any]:
    """The parameters that pick a population's rows: its methods, its slice, and its board
    (the rating population: ``category:<slice>`` boards are fitted to people's votes only)."""
    return {
        "methods": list(VOTE_METHODS[votes]),
        "votes": votes,
        "category": category,
        "board": rated_population(votes, category) or "none",
    }


async def _named(conn: AsyncConnection, mentioned: Iterable[object]) -> list[ModelIdentity]:
    """The enabled models and the ``mentioned`` ones, by name."""
    ids = sorted({str(i) for i in mentioned})
    return _identities((await conn.execute(_NAMED_MODELS, {"mentioned": ids})).all())


@raises_unavailable
class PostgresAnalytics:
    """The dashboard's aggregates over one async engine; read-only."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def summary(self, votes: Votes = "human", category: str | None = None) -> SummaryView:
        cut = _SUMMARY_CUT[category is not None]
        async with self._engine.connect() as conn:
            row = (await conn.execute(cut, _population(votes, category))).one()
        enabled = int(row.enabled_models)
        return SummaryView(
            total_matchups=row.total_matchups,
            total_votes=row.total_votes,
            decisive_votes=row.decisive_votes,
            tie_votes=row.tie_votes,
            skip_votes=row.skip_votes,
            slot_a_wins=row.slot_a_wins,
            slot_b_wins=row.slot_b_wins,
            enabled_models=enabled,
            pairs_sampled=row.pairs_sampled,
            pairs_possible=enabled * (enabled - 1) // 2,
            rating_components=row.rating_components or None,
            enabled_pairs_sampled=row.enabled_pairs_sampled,
        )

    async def categories(self, votes: Votes = "human") -> CategoriesView:
        async with self._engine.connect() as conn:
            rows = (await conn.execute(_CATEGORIES, _population(votes))).all()
        return CategoriesView(
            categories=[
                CategoryCount(category=r.category, votes=r.votes, rated=r.rated) for r in rows
            ]
        )

    async def head_to_head(
        self, votes: Votes = "human", category: str | None = None
    ) -> HeadToHeadView:
        cut = _HEAD_TO_HEAD_CUT[category is not None]
        async with self._engine.connect() as conn:
            rows = (await conn.execute(cut, _population(votes, category))).all()
            models = await _named(conn, (i for r in rows for i in (r.model_a_id, r.model_b_id)))
        return HeadToHeadView(
            models=models,
            pairs=[
                HeadToHeadPair(
                    model_a_id=str(r.model_a_id),
                    model_b_id=str(r.model_b_id),
                    a_wins=r.a_wins,
                    b_wins=r.b_wins,
                    ties=r.ties,
                    games=r.a_wins + r.b_wins + r.ties,
                )
                for r in rows
            ],
        )

    async def model_metrics(
        self, votes: Votes = "human", category: str | None = None
    ) -> ModelMetricsView:
        cut = _RESPONSE_STATS_CUT[category is not None]
        async with self._engine.connect() as conn:
            rows = (await conn.execute(cut, _population(votes, category))).all()
            found = (
                await conn.execute(
                    _PERCENTILES_CUT[category is not None],
                    {
                        "quantiles": list(PERCENTILES),
                        "category": category,
                        "models": [str(r.id) for r in rows],
                    },
                )
            ).all()
        pace: dict[tuple[uuid.UUID, str, float], float] = {
            (r.model_id, r.metric, r.q): float(r.value) for r in found
        }

        def percentile(model_id: uuid.UUID, metric: str, q: float) -> float | None:
            return pace.get((model_id, metric, q))

        return ModelMetricsView(
            models=[
                ModelMetrics(
                    id=str(r.id),
                    display_name=r.display_name,
                    responses=r.responses,
                    ttft_ms_p50=percentile(r.id, "ttft", 0.5),
                    ttft_ms_p90=percentile(r.id, "ttft", 0.9),
                    duration_ms_p50=percentile(r.id, "duration", 0.5),
                    duration_ms_p90=percentile(r.id, "duration", 0.9),
                    mean_output_tokens=r.mean_output_tokens,
                    mean_markdown_density=r.mean_markdown_density,
                    slot_a_wins=r.slot_a_wins,
                    slot_a_games=r.slot_a_games,
                    slot_b_wins=r.slot_b_wins,
                    slot_b_games=r.slot_b_games,
                )
                for r in rows
            ]
        )

    async def activity(
        self,
        bucket: ActivityBucket,
        since: datetime | None,
        votes: Votes = "human",
        category: str | None = None,
    ) -> ActivityView:
        if bucket not in ("day", "hour"):  # the statement takes the unit as data; never trust it
            raise ValueError(f"unknown bucket {bucket!r}")
        params = {"bucket": bucket, "since": since, **_population(votes, category)}
        async with self._engine.connect() as conn:
            rows = (await conn.execute(_ACTIVITY_CUT[category is not None], params)).all()
            models = await _named(conn, (i for r in rows for i in r.games))
        return ActivityView(
            bucket=bucket,
            models=models,
            votes=[
                ActivityVotes(
                    bucket_start=r.bucket_start,
                    left=r.left_wins,
                    right=r.right_wins,
                    both_good=r.both_good,
                    both_bad=r.both_bad,
                    skip=r.skips,
                    total=r.left_wins + r.right_wins + r.both_good + r.both_bad + r.skips,
                )
                for r in rows
            ],
            cumulative_games=[
                CumulativeGames(bucket_start=r.bucket_start, games=r.games) for r in rows
            ],
        )

    async def cost(
        self, bucket: CostBucket, since: datetime | None, category: str | None = None
    ) -> CostView:
        if bucket not in ("day", "week", "month"):  # the unit is data to the statement
            raise ValueError(f"unknown bucket {bucket!r}")
        params = {"bucket": bucket, "since": since, "category": category}
        async with self._engine.connect() as conn:
            rows = (await conn.execute(_COST_CUT[category is not None], params)).all()
        per_model: dict[uuid.UUID, list[Any]] = {}
        for r in rows:
            per_model.setdefault(r.model_id, []).append(r)
        models = [
            ModelCost(id=str(model_id), display_name=group[0].display_name, **_cost_totals(group))
            for model_id, group in per_model.items()
        ]
        models.sort(key=lambda m: (-m.cost_usd, m.display_name))
        return CostView(
            bucket=bucket,
            since=since,
            total=CostTotals(**_cost_totals(rows)),
            models=models,
            series=[
                CostPoint(
                    bucket_start=r.bucket_start,
                    model_id=str(r.model_id),
                    **{n: getattr(r, n) for n in _COST_SUMS if n != "cost_usd"},
                    cost_usd=float(r.cost_usd),
                )
                for r in rows
            ],
        )

    async def style_control(
        self, votes: Votes = "human", category: str | None = None
    ) -> StyleControlView:
        if not Board(population=votes, category=category).has_style:
            return StyleControlView(coefficients=[], models=[])
        async with self._engine.connect() as conn:
            coefficients = (await conn.execute(_COEFFICIENTS)).all()
            rated = (await conn.execute(_STYLE_RATED)).all()
        return StyleControlView(
            coefficients=[
                StyleCoefficientView(
                    feature=c.feature, coefficient=c.coefficient, computed_at=c.computed_at
                )
                for c in coefficients
            ],
            models=[
                StyleRatedModel(
                    id=str(m.id),
                    display_name=m.display_name,
                    rating=m.rating,
                    style_controlled_rating=m.style_controlled_rating,
                )
                for m in rated
            ],
        )

    async def rating_history(
        self,
        since: datetime | None,
        points: int | None = None,
        votes: Votes = "human",
        category: str | None = None,
    ) -> RatingHistoryView:
        where = "WHERE population = :board"
        if since is not None:
            where += " AND computed_at >= :since"
        if points is not None:
            where = _THINNED_HISTORY_WHERE.format(where=where)
        params = {"since": since, "points": points, "board": rated_population(votes, category)}
        async with self._engine.connect() as conn:
            rows = await conn.execute(text(_HISTORY.format(where=where)), params)
            found = _POINTS.validate_json(rows.scalar_one())
            models = await _named(conn, (p.model_id for p in found))
        return RatingHistoryView(models=models, points=found)

    async def reason_counts(
        self, offered: Sequence[str], votes: Votes = "human", category: str | None = None
    ) -> ReasonCountsView:
        async with self._engine.connect() as conn:
            tally = await read_reason_tally(conn, list(VOTE_METHODS[votes]), category)
        return reason_counts_view(tally, offered)

    async def judge_agreement(self, category: str | None = None) -> AgreementCounts:
        async with self._engine.connect() as conn:
            return await read_agreement(conn, category)
