"""``MATCHUP_TOKEN_SECRET_FILE``: replicas that share its volume and start together all end up
with one secret."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

from arena_api.cli import _secret_from_file


def _read_secret(path: str, start: multiprocessing.synchronize.Event) -> str:
    os.environ.pop("MATCHUP_TOKEN_SECRET", None)
    os.environ["MATCHUP_TOKEN_SECRET_FILE"] = path
    start.wait()
    _secret_from_file()
    return os.environ["MATCHUP_TOKEN_SECRET"]


def test_replicas_starting_together_read_one_complete_secret(tmp_path: Path) -> None:
    path = str(tmp_path / "volume" / "matchup-token-secret")
    context = multiprocessing.get_context("fork")
    with context.Manager() as manager:
        start = manager.Event()
        with context.Pool(8) as pool:
            pending = [pool.apply_async(_read_secret, (path, start)) for _ in range(8)]
            start.set()
            secrets = {result.get(timeout=30) for result in pending}

    assert len(secrets) == 1 and len(secrets.pop()) == 64
    assert [p.name for p in (tmp_path / "volume").iterdir()] == ["matchup-token-secret"]
    assert os.stat(path).st_mode & 0o777 == 0o600
