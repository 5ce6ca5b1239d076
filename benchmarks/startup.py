"""Start-up time: from `arena serve` to a healthy /health, against Reflex's own prod start.

Scenarios (each a fresh process on a free port, embedded PostgreSQL under a temporary data dir):

* ``cold data dir, UI built``   first start on a machine: initdb, migrations, seed; UI fresh
* ``warm data dir, UI built``   the usual restart
* ``warm data dir, UI stale``   a restart after a UI change: the frontend is rebuilt first

Baseline, measured in the same run: ``reflex run --env prod`` on the same app (what Reflex does
on every start: compile and build the frontend, then serve), until it answers ``/ping``.

Usage: python benchmarks/startup.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.db.engine import embedded_postgres  # noqa: E402
from arena_app.build import ensure_frontend, reflex_env  # noqa: E402
from tests.support import free_port  # noqa: E402

STAMP = ROOT / ".web" / "arena-build.digest"


def _env(**extra: str) -> dict[str, str]:
    return {
        **reflex_env(),
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_RATING_WORKER": "off",
        **extra,
    }


def _time_until(command: list[str], env: dict[str, str], url: str) -> float:
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{command} exited with {process.returncode}")
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    return time.monotonic() - started
            except httpx.HTTPError:
                pass
            if time.monotonic() - started > 600:
                raise RuntimeError(f"{command} never answered {url}")
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _arena(data_dir: Path) -> float:
    port = free_port()
    env = _env(ARENA_DATA_DIR=str(data_dir), PORT=str(port), DATABASE_URL="")
    command = [sys.executable, "-m", "arena_api", "serve"]
    return _time_until(command, env, f"http://127.0.0.1:{port}/health")


def _reflex_prod(database_url: str) -> float:
    port = free_port()
    env = _env(DATABASE_URL=database_url)
    command = [sys.executable, "-m", "reflex", "run", "--env", "prod", "--backend-port", str(port)]
    return _time_until(command, env, f"http://127.0.0.1:{port}/ping")


def _measure(name: str, repeat: int, run: Callable[[], float]) -> float:
    samples = [run() for _ in range(repeat)]
    median = statistics.median(samples)
    print(f"  {name:<28} median {median:6.2f} s   runs: {', '.join(f'{s:.2f}' for s in samples)}")
    return median


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ensure_frontend()
    print(f"start-up to a healthy endpoint ({args.repeat} runs each, 2-core machine)")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)

        def cold() -> float:
            data = base / f"cold-{time.monotonic_ns()}"
            try:
                return _arena(data)
            finally:
                shutil.rmtree(data, ignore_errors=True)

        warm_dir = base / "warm"
        _arena(warm_dir)  # initialise it once

        def stale() -> float:
            STAMP.unlink(missing_ok=True)
            return _arena(warm_dir)

        results = {
            "cold data dir, UI built": _measure("cold data dir, UI built", args.repeat, cold),
            "warm data dir, UI built": _measure(
                "warm data dir, UI built", args.repeat, lambda: _arena(warm_dir)
            ),
            "warm data dir, UI stale": _measure("warm data dir, UI stale", args.repeat, stale),
        }
        with embedded_postgres(base / "baseline") as pg:
            baseline = _measure(
                "baseline: reflex run --env prod", args.repeat, lambda: _reflex_prod(pg.url)
            )
        ensure_frontend()  # leave a fresh build behind (the baseline rebuilt without a stamp)
    print("ratios against the baseline (lower is faster):")
    for name, seconds in results.items():
        print(f"  {name:<28} {seconds / baseline:5.2f}x")


if __name__ == "__main__":
    main()
