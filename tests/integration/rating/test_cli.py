"""``python -m arena_rating`` as the operator runs it: exit codes and the lines it prints."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.rating.votes import insert_models, insert_votes, rows_from_simulation
from tests.support import ROOT
from tests.unit.rating.synthetic import PLANTED_STYLE, centred_strengths, simulate

UNREACHABLE = "postgresql://arena:secret@127.0.0.1:1/arena"


def _env(**extra: str) -> dict[str, str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "LOG_FORMAT", "LOG_LEVEL", "RATING_REFIT_INTERVAL_S")
    }
    return {**clean, **extra}


def _rate(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena_rating", *args],
        cwd=ROOT,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


async def test_one_pass_with_style_and_validation_logs_each_step(
    db: AsyncEngine, database_url: str
) -> None:
    rng = np.random.default_rng(81)
    sim = simulate(rng, centred_strengths(rng, 5), 3_000, style=PLANTED_STYLE)
    async with db.begin() as conn:
        models = await insert_models(conn, 5)
        await insert_votes(conn, models, rows_from_simulation(sim, sim.vote_labels(rng)))

    result = _rate(
        "--once",
        "--style",
        "--validate",
        "--resamples",
        "50",
        "--seed",
        "1",
        DATABASE_URL=database_url,
    )

    assert result.returncode == 0, result.stderr
    log = result.stderr
    assert "anomaly screen:" in log
    assert "refit 1 mode=full: 3,000 votes read" in log and "5 models, 1 component" in log
    assert "validate: multinomial bootstrap (50 resamples)" in log
    assert "style pass: 3,000 votes" in log and "style coefficients: position" in log


def test_an_unreachable_database_is_one_line_and_status_1() -> None:
    result = _rate("--once", DATABASE_URL=UNREACHABLE)

    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1
    assert len(lines) == 1
    assert "the database is unreachable" in lines[0]
    assert "secret" not in lines[0] and "arena:***@127.0.0.1:1/arena" in lines[0]


def test_a_bad_setting_is_one_line_and_status_2() -> None:
    result = _rate(DATABASE_URL=UNREACHABLE, RATING_RIDGE="-1")

    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "arena_rating: invalid setting RATING_RIDGE='-1': must be a number in (0, 100]"
    ]


def test_json_log_lines_are_json() -> None:
    result = _rate("--once", DATABASE_URL=UNREACHABLE, LOG_FORMAT="json")

    record = json.loads(result.stderr.strip())
    assert (record["level"], record["logger"]) == ("error", "arena_rating")


def test_the_loop_retries_and_stops_cleanly_on_sigterm() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "arena_rating", "--loop"],
        cwd=ROOT,
        env=_env(DATABASE_URL=UNREACHABLE, RATING_REFIT_INTERVAL_S="5"),
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if sum("retrying in" in s for s in seen) == 2:
            break

    process.send_signal(signal.SIGTERM)
    status = process.wait(timeout=20)

    assert status == 0
    assert "retrying in 1 s" in seen[-2] and "retrying in 2 s" in seen[-1]
