"""Open vote data: one row per vote, JSON Lines over HTTP for token holders, and JSON Lines or
Parquet from the command line; sessions anonymised, text only when asked for and then scrubbed
unless asked for as written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.export import EXPORT_COLUMNS, TEXT_COLUMNS
from tests.integration.arena_harness import serve_arena
from tests.support import run_cli

TOKEN = "export-token-0123456789abcdef"


def _export(tmp_path: Path, database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    data = str(tmp_path / "data")
    env = {"DATABASE_URL": database_url, "ARENA_ALLOW_DEV_SECRET": "1", "ARENA_DATA_DIR": data}
    return run_cli(("export", *args), env)  # type: ignore[no-any-return]


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

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return _export(tmp_path, database_url, *args)

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


# One of each kind, as a voter might paste them.
PRIVATE = (
    "I'm ana.silva@example.com, call +44 20 7946 0958. The box at 203.0.113.9 fails with "
    "card 4111 1111 1111 1111 and key sk-proj-4fQ9xT2mLr8ZkWb1Yc7Vn3JhGd6Ps0Ae5RuX. Why?"
)
SCRUBBED = (
    "I'm [EMAIL], call [PHONE]. The box at [IP] fails with card [CARD] and key [SECRET]. Why?"
)
HARMLESS = "Is version 1.2.3.4 from 2024-01-15 newer than commit 9fceb02?"


async def test_exported_text_is_scrubbed_unless_asked_for_as_written(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    headers = {"authorization": f"Bearer {TOKEN}"}
    async with serve_arena(db, database_url, tmp_path, ARENA_API_TOKENS=TOKEN) as arena:
        for prompt, vote in ((PRIVATE, "left"), (HARMLESS, "right")):
            answer = await arena.client.post(
                "/api/arena/chat", json={"prompt": prompt, "sessionId": "me"}, headers=headers
            )
            started = json.loads(answer.text.split("data: ", 1)[1].split("\n", 1)[0])
            voted = await arena.client.post(
                "/api/arena/vote",
                json={
                    "matchupId": started["matchupId"],
                    "matchupToken": started["matchupToken"],
                    "vote": vote,
                },
                headers=headers,
            )
            assert voted.status_code == 200, voted.text
        # Answers that repeat an address, as models do: four of them, one in each slot.
        async with db.begin() as conn:
            await conn.execute(
                text("UPDATE responses SET content = content || ' Write to help@example.org.'")
            )
        scrubbed = await arena.client.get("/api/arena/export?includeText=true", headers=headers)
        raw = await arena.client.get(
            "/api/arena/export?includeText=true&scrub=false", headers=headers
        )
        bad = await arena.client.get("/api/arena/export?scrub=maybe", headers=headers)

    def export(*args: str) -> subprocess.CompletedProcess[str]:
        return _export(tmp_path, database_url, *args)

    jsonl = export("--include-text", "-o", str(tmp_path / "s.jsonl"))
    parquet = export("--include-text", "--format", "parquet", "-o", str(tmp_path / "s.parquet"))
    as_written = export("--include-text", "--no-scrub", "-o", str(tmp_path / "r.jsonl"))
    no_text = export("-o", str(tmp_path / "n.jsonl"))

    summary = "arena: scrubbed: 5 emails, 1 phone number, 1 IP address, 1 card number, 1 secret"
    assert jsonl.returncode == 0 and summary in jsonl.stdout, jsonl.stdout + jsonl.stderr
    rows = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert [r["prompt"] for r in rows] == [SCRUBBED, HARMLESS]
    assert all(r["answer_a"].endswith(" Write to [EMAIL].") for r in rows)
    assert all(r["answer_b"].endswith(" Write to [EMAIL].") for r in rows)
    assert "example.org" not in (tmp_path / "s.jsonl").read_text()
    assert parquet.returncode == 0 and summary in parquet.stdout, parquet.stderr
    table = pq.read_table(tmp_path / "s.parquet")
    assert table.column("prompt").to_pylist() == [SCRUBBED, HARMLESS]
    assert as_written.returncode == 0 and "--no-scrub" in as_written.stdout
    assert "arena: scrubbed" not in as_written.stdout
    raw_rows = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [r["prompt"] for r in raw_rows] == [PRIVATE, HARMLESS]
    assert raw_rows[0]["answer_a"].endswith(" Write to help@example.org.")
    assert no_text.returncode == 0 and "arena: scrubbed" not in no_text.stdout + no_text.stderr

    over_http = [json.loads(line) for line in scrubbed.text.splitlines()]
    assert [r["prompt"] for r in over_http] == [SCRUBBED, HARMLESS]
    assert over_http[0]["answer_a"].endswith(" Write to [EMAIL].")
    assert [json.loads(line)["prompt"] for line in raw.text.splitlines()] == [PRIVATE, HARMLESS]
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_request"
