"""What the per-slice summaries (migration 0014) cost the write path: full rounds with the vote.

Every round and vote also counts under each slice of its prompt (categories and language):
more rows for the triggers to update. This runs full mock rounds with the vote, 64 concurrent,
through our server (``create_api`` under granian) on one embedded PostgreSQL, with a prompt in
three slices (``coding``, ``instruction_following``, ``language:en``), alternating runs with
the slice triggers on and off (``ALTER TABLE ... DISABLE TRIGGER`` between runs, the server
stopped). Target: on / off >= 0.95.

Usage: python benchmarks/slice_summaries.py [--seconds 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

import asyncpg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.core.categories import classify  # noqa: E402
from arena_api.db.engine import embedded_postgres  # noqa: E402
from arena_api.language import detect_language  # noqa: E402
from benchmarks.relay_http import MOCK_ROSTER, arena_server, measure  # noqa: E402

PROMPT = "Write a Python function that parses a CSV file, in at most 20 lines"
TRIGGERS = (
    ("preferences", "preferences_count_category_vote"),
    ("responses", "responses_count_category_answer"),
    ("matchups", "matchups_count_category_matchup"),
)


async def _switch(url: str, on: bool) -> None:
    conn = await asyncpg.connect("postgresql://" + url.partition("://")[2])
    try:
        for table, trigger in TRIGGERS:
            verb = "ENABLE" if on else "DISABLE"
            await conn.execute(f"ALTER TABLE {table} {verb} TRIGGER {trigger}")
    finally:
        await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    slices = [*classify(PROMPT), f"language:{detect_language(PROMPT)}"]
    print(f"prompt {PROMPT!r}: slices {', '.join(slices)}")
    env = {
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_MOCK_TOKENS": "4",
        "ARENA_MOCK_TOKENS_PER_SECOND": "0",
    }
    figures: dict[str, list[float]] = {"on": [], "off": []}
    print(f"full mock rounds with the vote, 64 concurrent, {args.seconds:g} s per run")
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres(Path(tmp)) as pg:
        for _ in range(args.repeats):
            for name in figures:
                with arena_server(pg.url, MOCK_ROSTER, env) as (url, pid):
                    asyncio.run(_switch(pg.url, name == "on"))
                    level = measure(
                        f"slices {name}",
                        url,
                        "/api/arena/chat",
                        pid,
                        [64],
                        args.seconds,
                        True,
                        prompt=PROMPT,
                    )[0]
                assert level.failed == 0, f"{name}: {level.failed} rounds failed"
                figures[name].append(level.rounds_per_s)
        asyncio.run(_switch(pg.url, True))
    on, off = (statistics.median(figures[n]) for n in ("on", "off"))
    print(
        f"  median rounds/s: slices on {on:.1f}, off {off:.1f}; on / off {on / off:.3f} "
        f"(target >= 0.95)"
    )


if __name__ == "__main__":
    main()
