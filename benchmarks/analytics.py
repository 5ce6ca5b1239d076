"""Latency of the leaderboard and analytics endpoints on a million demo votes.

Seeds a throwaway embedded PostgreSQL with ``arena db seed-demo``'s generator (timed), adds rating
rows as the rating process would write them (ratings, style ratings and coefficients for every
enabled model, and a rating history of one refit every ``--refit-minutes`` over the demo's days),
brings the database to a steady state (VACUUM ANALYZE, CHECKPOINT), serves the real API under
granian (one worker) and calls each endpoint over keep-alive HTTP. Prints p50 and p95 per endpoint
beside the cost of a trivial ``SELECT 1`` round trip and of ``GET /health``, measured in the same
run.

Targets: p95 <= 250 ms for every endpoint, <= 100 ms for the leaderboard; the same for the
reads cut to one slice of prompts (``?category=``).

Usage: python benchmarks/analytics.py [--votes 1000000] [--models 12] [--days 30] [--calls 50]
       [--refit-minutes 60] [--database-url URL --reuse]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.db.analytics import PostgresAnalytics  # noqa: E402
from arena_api.db.demo import DemoOptions, seed_demo  # noqa: E402
from arena_api.db.engine import create_engine, embedded_postgres  # noqa: E402
from arena_api.db.migrations import upgrade  # noqa: E402
from arena_api.db.repository import seed_roster  # noqa: E402
from arena_api.roster import load_roster  # noqa: E402
from arena_app.state.insights import HISTORY_POINTS  # noqa: E402
from benchmarks.arena_stream import SECRET, served  # noqa: E402

LEADERBOARD_TARGET_MS = 100.0
ENDPOINT_TARGET_MS = 250.0

# Rating rows as the rating process writes them, from the vote counters (not a fit: the
# benchmark measures reads). History: $1 refits, $2 minutes apart, up to now.
_RATINGS = """
WITH rated AS (
  SELECT m.id,
         1000 + 400 * (coalesce(s.wins, 0) + 0.5 * coalesce(s.ties, 0) + 1)
              / (coalesce(s.wins + s.losses + s.ties, 0) + 2) - 200 AS rating,
         coalesce(s.wins + s.losses + s.ties, 0) AS games
    FROM models m LEFT JOIN model_vote_stats s ON s.model_id = m.id
   WHERE m.enabled
)
INSERT INTO model_ratings (model_id, rating, rating_stderr, ci_lower, ci_upper, component_id,
                           games, computed_at)
SELECT id, rating, 3.0, rating - 5.88, rating + 5.88, 0, games, now() FROM rated
"""
_STYLE_RATINGS = """
INSERT INTO model_style_ratings (model_id, style_controlled_rating, style_controlled_stderr,
                                 style_ci_lower, style_ci_upper, component_id, games, computed_at)
SELECT model_id, 1000 + 0.8 * (rating - 1000), 3.5, 1000 + 0.8 * (rating - 1000) - 6.9,
       1000 + 0.8 * (rating - 1000) + 6.9, 0, games, now()
  FROM model_ratings
"""
_COEFFICIENTS = """
INSERT INTO style_control_coefficients (feature, coefficient, computed_at)
VALUES ('position', 0.059, now()), ('verbosity', 0.616, now()), ('formatting', 0.138, now()),
       ('latency_ttft', -0.083, now()), ('latency_duration', -0.275, now())
"""
_HISTORY = """
INSERT INTO model_rating_history (model_id, rating, rating_stderr, ci_lower, ci_upper,
                                  component_id, games, computed_at)
SELECT r.model_id, r.rating + 20 * sin(h / 24.0), 3.0, r.rating + 20 * sin(h / 24.0) - 5.88,
       r.rating + 20 * sin(h / 24.0) + 5.88, 0, (r.games * h / $1)::int,
       date_trunc('minute', now()) - make_interval(mins => ($1 - h) * $2)
  FROM model_ratings r CROSS JOIN generate_series(1, $1) AS h
"""


async def prepare(url: str, args: argparse.Namespace) -> float:
    """Migrate, seed roster and demo history, write rating rows; the seeder's seconds."""
    engine = create_engine(url)
    try:
        await upgrade(engine)
        await seed_roster(engine, load_roster(ROOT / "models.yaml"))
    finally:
        await engine.dispose()
    dsn = "postgresql://" + url.partition("://")[2]
    options = DemoOptions(votes=args.votes, models=args.models, days=args.days, force=True)
    result = await seed_demo(dsn, options)
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            for table in ("model_rating_history", "model_style_ratings", "model_ratings"):
                await conn.execute(f"DELETE FROM {table}")
            await conn.execute("DELETE FROM style_control_coefficients")
            await conn.execute(_RATINGS)
            await conn.execute(_STYLE_RATINGS)
            await conn.execute(_COEFFICIENTS)
            refits = args.days * 24 * 60 // args.refit_minutes
            await conn.execute(_HISTORY, refits, args.refit_minutes)
            points = await conn.fetchval("SELECT count(*) FROM model_rating_history")
        # The steady state of a database that grew to this size over time.
        await conn.execute("VACUUM ANALYZE")
        await conn.execute("CHECKPOINT")
    finally:
        await conn.close()
    print(
        f"seeded {result.votes:,} votes on {result.matchups:,} matchups "
        f"({len(result.models)} models, {args.days} days) in {result.seconds:.1f} s; "
        f"rating history: {points:,} points (a refit every {args.refit_minutes} min)"
    )
    return result.seconds


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (position - low) * (ordered[high] - ordered[low])


async def _timed(call: Callable[[], Awaitable[object]], calls: int) -> list[float]:
    for _ in range(3):  # warm up: connections, prepared statements, caches
        await call()
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        await call()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def measure(url: str, dsn: str, calls: int) -> list[tuple[str, list[float], float | None]]:
    since = (datetime.now(UTC) - timedelta(days=7)).isoformat().replace("+00:00", "Z")
    paths = [
        ("GET /api/arena/leaderboard", "/api/arena/leaderboard", LEADERBOARD_TARGET_MS),
        ("GET …/analytics/summary", "/api/arena/analytics/summary", ENDPOINT_TARGET_MS),
        ("GET …/analytics/head-to-head", "/api/arena/analytics/head-to-head", ENDPOINT_TARGET_MS),
        ("GET …/analytics/model-metrics", "/api/arena/analytics/model-metrics", ENDPOINT_TARGET_MS),
        ("GET …/activity?bucket=day", "/api/arena/analytics/activity?bucket=day", 250.0),
        ("GET …/activity?bucket=hour", "/api/arena/analytics/activity?bucket=hour", 250.0),
        (
            "GET …/activity?bucket=hour&since=-7d",
            f"/api/arena/analytics/activity?bucket=hour&since={since}",
            ENDPOINT_TARGET_MS,
        ),
        ("GET …/analytics/style-control", "/api/arena/analytics/style-control", 250.0),
        ("GET …/analytics/rating-history", "/api/arena/analytics/rating-history", 250.0),
        (
            "GET …/rating-history?since=-7d",
            f"/api/arena/analytics/rating-history?since={since}",
            ENDPOINT_TARGET_MS,
        ),
        # Cut to one slice of prompts: coding (a few % of the demo's rounds) and English (most).
        ("GET /api/arena/analytics/categories", "/api/arena/analytics/categories", 250.0),
        (
            "GET /api/arena/leaderboard?category=coding",
            "/api/arena/leaderboard?category=coding",
            LEADERBOARD_TARGET_MS,
        ),
        (
            "GET …/summary?category=language:en",
            "/api/arena/analytics/summary?category=language:en",
            ENDPOINT_TARGET_MS,
        ),
        (
            "GET …/head-to-head?category=coding",
            "/api/arena/analytics/head-to-head?category=coding",
            ENDPOINT_TARGET_MS,
        ),
        (
            "GET …/model-metrics?category=language:en",
            "/api/arena/analytics/model-metrics?category=language:en",
            ENDPOINT_TARGET_MS,
        ),
        (
            "GET …/activity?bucket=hour&category=language:en",
            "/api/arena/analytics/activity?bucket=hour&category=language:en",
            ENDPOINT_TARGET_MS,
        ),
        (
            "GET …/cost?category=language:en",
            "/api/arena/analytics/cost?category=language:en",
            ENDPOINT_TARGET_MS,
        ),
    ]
    results: list[tuple[str, list[float], float | None]] = []
    conn = await asyncpg.connect(dsn)
    try:
        results.append(
            (
                "SELECT 1 (asyncpg, baseline)",
                await _timed(lambda: conn.fetchval("SELECT 1"), calls),
                None,
            )
        )
    finally:
        await conn.close()
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:

        def getter(path: str) -> Callable[[], Awaitable[object]]:
            async def get() -> object:
                response = await client.get(path)
                if response.status_code != 200:
                    raise RuntimeError(f"{path}: {response.status_code} {response.text[:200]}")
                return response.content

            return get

        results.append(
            ("GET /health (HTTP + migration check)", await _timed(getter("/health"), calls), None)
        )
        for label, path, target in paths:
            results.append((label, await _timed(getter(path), calls), target))
    # What the Activity tab reads in-process: the history thinned to its chart's 200 refits.
    engine = create_engine("postgresql+asyncpg://" + dsn.partition("://")[2])
    try:
        analytics = PostgresAnalytics(engine)
        thinned = await _timed(lambda: analytics.rating_history(None, HISTORY_POINTS), calls)
        results.append(("rating history, 200 refits (Activity tab)", thinned, ENDPOINT_TARGET_MS))
    finally:
        await engine.dispose()
    return results


def report(results: list[tuple[str, list[float], float | None]], calls: int) -> bool:
    base = statistics.median(results[0][1])
    print(f"\n{calls} sequential calls per row, keep-alive HTTP to one granian worker")
    print(f"{'':40s} {'p50 ms':>8s} {'p95 ms':>8s} {'p50/SELECT 1':>13s} {'target p95':>11s}")
    passed = True
    for label, samples, target in results:
        p50, p95 = _percentile(samples, 0.5), _percentile(samples, 0.95)
        verdict = ""
        if target is not None:
            ok = p95 <= target
            passed &= ok
            verdict = f"<= {target:.0f} {'ok' if ok else 'MISSED'}"
        print(f"{label:40s} {p50:8.2f} {p95:8.2f} {p50 / base:12.1f}x {verdict:>11s}")
    return passed


@contextlib.contextmanager
def _database(args: argparse.Namespace) -> Iterator[tuple[str, Path]]:
    if args.database_url:
        with tempfile.TemporaryDirectory() as tmp:
            yield args.database_url, Path(tmp)
        return
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres(Path(tmp)) as pg:
        yield pg.url, Path(tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--votes", type=int, default=1_000_000)
    parser.add_argument("--models", type=int, default=12)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--refit-minutes", type=int, default=60)
    parser.add_argument("--database-url", help="use this database instead of a throwaway one")
    parser.add_argument("--reuse", action="store_true", help="do not seed; measure what is there")
    args = parser.parse_args()
    with _database(args) as (url, tmp):
        if not args.reuse:
            asyncio.run(prepare(url, args))
        env = {
            "DATABASE_URL": url,
            "MATCHUP_TOKEN_SECRET": SECRET,
            "ARENA_MOCK_PROVIDER": "1",
            "ARENA_DATA_DIR": str(tmp / "data"),
            "LOG_LEVEL": "warning",
        }
        with served("arena_app", env) as api:
            dsn = "postgresql://" + url.partition("://")[2]
            results = asyncio.run(measure(api, dsn, args.calls))
    passed = report(results, args.calls)
    print("\nall targets met" if passed else "\nSOME TARGETS MISSED")


if __name__ == "__main__":
    main()
