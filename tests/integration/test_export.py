"""Open vote data: one row per vote, JSON Lines over HTTP for token holders, and JSON Lines or
Parquet from the command line; sessions anonymised, text only when asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.export import EXPORT_COLUMNS, TEXT_COLUMNS
from tests.integration.arena_harness import serve_arena
from tests.support import ROOT

TOKEN = "export-token-0123456789abcdef"


async def test_token_holders_export_every_vote_as_json_lines(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    headers = {"authorization": f"Bearer {TOKEN}"}
    async with serve_arena(db, database_url, tmp_path, ARENA_API_TOKENS=TOKEN) as arena:
        for vote in ("left", "right", "both_good"):
            answer = await arena.client.post(
                "/api/arena/chat", json={"prompt": f"Q {vote}", "sessionId": "me"}, headers=headers
            )
            started = json.loads(answer.text.split("data: ", 1)[1].split("\n", 1)[0])
            await arena.client.post(
                "/api/arena/vote",
                json={
                    "matchupId": started["matchupId"],
                    "matchupToken": started["matchupToken"],
                    "vote": vote,
                },
                headers=headers,
            )
        plain = await arena.client.get("/api/arena/export", headers=headers)
        text = await arena.client.get("/api/arena/export?includeText=true", headers=headers)
        future = await arena.client.get(
            "/api/arena/export?since=2999-01-01T00:00:00Z", headers=headers
        )
        anonymous = await arena.client.get("/api/arena/export")

    rows = [json.loads(line) for line in plain.text.splitlines()]
    assert plain.status_code == 200 and plain.headers["content-type"] == "application/x-ndjson"
    assert [r["outcome"] for r in rows] == ["left", "right", "both_good"]
    assert [r["winner_slot"] for r in rows] == ["A", "B", None]
    assert list(rows[0]) == list(EXPORT_COLUMNS)
    assert {r["method"] for r in rows} == {"human"} and rows[0]["mode"] == "blind"
    assert len({r["session"] for r in rows}) == 1 and rows[0]["session"] != "me"
    assert rows[0]["model_a"].startswith("Mock ") and rows[0]["a_output_tokens"] > 0
    assert "prompt" not in rows[0]
    with_text = [json.loads(line) for line in text.text.splitlines()]
    assert [r["prompt"] for r in with_text] == ["Q left", "Q right", "Q both_good"]
    assert with_text[0]["answer_a"] and with_text[0]["answer_b"]
    assert future.status_code == 200 and future.text == ""
    assert anonymous.status_code == 401


async def test_without_api_tokens_nobody_exports_over_http(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        answer = await arena.client.get("/api/arena/export")

    assert answer.status_code == 403 and answer.json()["code"] == "api_token_required"


async def test_the_command_line_writes_json_lines_and_parquet(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        for n in range(4):
            response, frames = await arena.chat(prompt=f"question {n}")
            await arena.vote(frames[0][1], "left" if n % 2 else "right")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "MATCHUP_"))},
        "DATABASE_URL": database_url,
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_DATA_DIR": str(tmp_path / "data"),
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "arena_api", "export", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    jsonl = run("-o", str(tmp_path / "v.jsonl"))
    parquet = run("--format", "parquet", "--include-text", "-o", str(tmp_path / "v.parquet"))
    bad = run("--since", "yesterday")

    assert jsonl.returncode == 0 and "4 votes written" in jsonl.stdout, jsonl.stderr
    lines = (tmp_path / "v.jsonl").read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[0])["outcome"] == "right"
    assert parquet.returncode == 0, parquet.stderr
    table = pq.read_table(tmp_path / "v.parquet")
    assert table.num_rows == 4
    assert table.column_names == [*EXPORT_COLUMNS, *TEXT_COLUMNS]
    assert table.column("prompt").to_pylist() == [f"question {n}" for n in range(4)]
    assert bad.returncode != 0 and "--since must be an ISO 8601" in bad.stderr
