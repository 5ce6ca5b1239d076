"""How fast ``arena export`` writes a million votes, and in how much memory.

Seeds a throwaway embedded PostgreSQL with ``arena db seed-demo``'s generator, classifies its
prompts, then exports every vote the way ``arena export`` does (``VoteExport.write``): JSON
Lines, JSON Lines with the prompts and answers (scrubbed, as ``--include-text`` does, and as
written), and Parquet. Beside each, the same rows read through the same server-side cursor and
thrown away (the database's and the driver's floor), measured in the same run: the ratio is
what serialising, scrubbing and writing add. Memory is the peak resident size of this process
over each export, minus its size before: bounded by one batch, not by the number of votes.

Target: 1,000,000 votes in < 60 s.

Usage: python benchmarks/export.py [--votes 1000000] [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import threading
import time
from pathlib import Path

import asyncpg
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.core.scrub import Scrubber  # noqa: E402
from arena_api.db.categories import backfill_categories  # noqa: E402
from arena_api.db.demo import DemoOptions, seed_demo  # noqa: E402
from arena_api.db.engine import create_engine, embedded_postgres  # noqa: E402
from arena_api.db.export import PostgresVoteRows, stream_votes  # noqa: E402
from arena_api.db.migrations import upgrade  # noqa: E402
from arena_api.db.repository import create_pool, seed_roster  # noqa: E402
from arena_api.language import detect_language  # noqa: E402
from arena_api.roster import load_roster  # noqa: E402
from arena_api.services.export import VoteExport  # noqa: E402

TARGET_S = 60.0


class _PeakRss:
    """This process's own peak resident size (not its children: the embedded database)."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            self.peak = max(self.peak, me.memory_info().rss)
            self._stop.wait(0.05)

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


SALT = b"benchmark-salt-0123456789"


async def _prepare(url: str, votes: int) -> None:
    engine = create_engine(url)
    try:
        await upgrade(engine)
        await seed_roster(engine, load_roster(ROOT / "models.yaml"))
    finally:
        await engine.dispose()
    dsn = "postgresql://" + url.partition("://")[2]
    result = await seed_demo(dsn, DemoOptions(votes=votes, models=8, days=30, force=True))
    pool = await create_pool(url, max_size=2)
    try:
        started = time.perf_counter()
        classified = await backfill_categories(pool, detect_language, batch=20_000)
        print(
            f"seeded {result.votes:,} votes in {result.seconds:.1f} s; classified "
            f"{classified:,} prompts in {time.perf_counter() - started:.1f} s"
        )
        async with pool.acquire() as conn:
            await conn.execute("VACUUM ANALYZE")
    finally:
        await pool.close()


async def _floor(pool: asyncpg.Pool, include_text: bool) -> int:
    read = 0
    async for rows in stream_votes(
        pool, since=None, until=None, include_text=include_text, salt=SALT
    ):
        read += len(rows)
    return read


async def _run(url: str, folder: Path) -> bool:
    pool = await create_pool(url, max_size=2)
    export = VoteExport(PostgresVoteRows(pool, SALT))
    ok = True
    try:
        print(
            f"  {'export':<28}{'votes':>11}{'seconds':>9}{'floor s':>9}{'ratio':>7}"
            f"{'MiB':>7}{'file MiB':>10}"
        )
        for name, include_text, scrub, parquet in (
            ("JSON Lines", False, False, False),
            ("JSON Lines with text", True, True, False),
            ("  as written (--no-scrub)", True, False, False),
            ("Parquet", False, False, True),
        ):
            scrubber = Scrubber() if scrub else None
            started = time.perf_counter()
            await _floor(pool, include_text)
            floor = time.perf_counter() - started
            path = folder / ("votes.parquet" if parquet else "votes.jsonl")
            before = psutil.Process().memory_info().rss
            with _PeakRss() as memory:
                started = time.perf_counter()
                written = await export.write(
                    path,
                    since=None,
                    until=None,
                    include_text=include_text,
                    scrubber=scrubber,
                    parquet=parquet,
                )
                seconds = time.perf_counter() - started
            grew = max(0, memory.peak - before) / 2**20
            size = path.stat().st_size / 2**20
            met = seconds < TARGET_S
            ok &= met
            print(
                f"  {name:<28}{written:>11,}{seconds:>9.1f}{floor:>9.1f}{seconds / floor:>7.2f}"
                f"{grew:>7.0f}{size:>10.0f}  {'ok' if met else 'OVER'} (< {TARGET_S:.0f} s)"
            )
    finally:
        await pool.close()
    return ok


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--votes", type=int, default=1_000_000)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.database_url:
            url = args.database_url
            asyncio.run(_prepare(url, args.votes))
            ok = asyncio.run(_run(url, folder))
        else:
            with embedded_postgres(folder / "pg") as pg:
                asyncio.run(_prepare(pg.url, args.votes))
                ok = asyncio.run(_run(pg.url, folder))
    print("all targets met" if ok else "a target was missed")


if __name__ == "__main__":
    main()
