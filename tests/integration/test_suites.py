"""Eval suites: files loaded (a broken one reported with its file and line), runs of headless
rounds judged by the (mock) judge, a restart in the middle, resume, and the diff of two runs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.suites import load_suites
from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.test_metrics import votes_counted

SUITE = """name: smoke
description: Four quick prompts.
prompts:
  - prompt: What is a JWT?
    category: explanation
  - prompt: Write a haiku about rain.
    category: creative
  - prompt: What is 12 times 12?
    reference: "144"
  - prompt: Name a prime number above 100.
"""


def _suites(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "suites"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("name: x\nprompts: [", "broken.yaml:2: not valid YAML", id="not-yaml"),
        pytest.param("name: x\n", "broken.yaml:1: prompts: Field required", id="no-prompts"),
        pytest.param(
            "name: x\nprompts:\n  - prompt: fine\n  - prompt: '   '\n",
            "broken.yaml:4: prompts.1.prompt: Value error, must not be blank",
            id="blank-prompt",
        ),
        pytest.param(
            'name: x\nprompts:\n  - prompt: fine\n  - prompt: "a\\0b"\n',
            "broken.yaml:4: prompts.1.prompt: Value error, must not contain NUL characters",
            id="nul-in-prompt",
        ),
        pytest.param(
            "name: x\nprompts:\n  - prompt: fine\n    colour: red\n",
            "broken.yaml:4: prompts.0.colour: Extra inputs are not permitted",
            id="unknown-field",
        ),
        pytest.param(
            "name: Not A Slug\nprompts:\n  - prompt: fine\n",
            "broken.yaml:1: name: String should match pattern",
            id="bad-name",
        ),
        pytest.param(
            "name: x\nmodels: [only-one]\nprompts:\n  - prompt: fine\n",
            "broken.yaml:2: models",
            id="pair-of-one",
        ),
        pytest.param(SUITE, "another suite is already named 'smoke'", id="duplicate-name"),
    ],
)
def test_a_broken_suite_file_is_reported_with_its_line_and_the_others_load(
    tmp_path: Path, text: str, expected: str
) -> None:
    folder = _suites(tmp_path, **{"a-good.yaml": SUITE, "broken.yaml": text})

    loaded = load_suites(folder)

    assert list(loaded.suites) == ["smoke"]
    assert len(loaded.errors) == 1 and expected in loaded.errors[0], loaded.errors


def test_the_shipped_example_suite_loads() -> None:
    loaded = load_suites(Path(__file__).resolve().parents[2] / "suites")

    assert loaded.errors == () and "example" in loaded.suites


async def _wait(arena: Arena, run_id: str, status: str = "done") -> dict[str, Any]:
    for _ in range(400):
        body: dict[str, Any] = (await arena.client.get(f"/api/suites/runs/{run_id}")).json()
        if body["status"] == status:
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"run {run_id} never became {status}: {body}")


async def test_a_suite_run_judges_every_prompt_and_two_runs_diff(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    folder = _suites(tmp_path, **{"smoke.yaml": SUITE})
    async with serve_arena(db, database_url, tmp_path, ARENA_SUITES_DIR=str(folder)) as arena:
        listed = (await arena.client.get("/api/suites")).json()
        started = await arena.client.post("/api/suites/smoke/run")
        first = await _wait(arena, started.json()["runId"])
        second = await _wait(
            arena, (await arena.client.post("/api/suites/smoke/run")).json()["runId"]
        )
        diff = (
            await arena.client.get(f"/api/suites/runs/{first['runId']}/diff/{second['runId']}")
        ).json()
        runs = (await arena.client.get("/api/suites/runs?suite=smoke")).json()
        judged = await arena.rows(
            "SELECT p.method, m.mode FROM suite_results r JOIN preferences p "
            "ON p.matchup_id = r.matchup_id JOIN matchups m ON m.id = r.matchup_id"
        )
        again = await arena.client.post(f"/api/suites/runs/{first['runId']}/resume")
        on_metrics = await votes_counted(arena.client)

    assert listed["suites"] == [
        {"name": "smoke", "description": "Four quick prompts.", "prompts": 4, "models": None}
    ]
    assert started.status_code == 202 and started.json()["status"] == "running"
    assert first["completed"] == first["total"] == 4 and first["progress"] == 1.0
    assert [r["index"] for r in first["results"]] == [0, 1, 2, 3]
    assert first["results"][2]["reference"] == "144"
    assert all(
        r["outcome"] in ("A", "B", "tie") and len(r["models"]) == 2 for r in first["results"]
    )
    decided = sum(t["wins"] for t in first["tally"])
    ties = sum(r["outcome"] == "tie" for r in first["results"])
    assert decided + ties == 4
    assert first["costUsd"] is not None and first["costUsd"] > 0
    assert {(j.method, j.mode) for j in judged} == {("judge", "blind")} and len(judged) == 8
    assert on_metrics == {("judge", "suite"): 8}
    assert diff["changed"] + diff["unchanged"] == 4 and len(diff["prompts"]) == 4
    assert [r["runId"] for r in runs["runs"]] == [second["runId"], first["runId"]]
    assert runs["runs"][1] == first  # the list shows each run as it is, tally and results
    assert again.status_code == 409 and again.json()["code"] == "suite_run_not_resumable"


def _slow_smoke(tmp_path: Path) -> dict[str, str]:
    """The smoke suite at about half a second a round: time to stop a run in its middle."""
    folder = _suites(tmp_path, **{"smoke.yaml": SUITE})
    return {
        "ARENA_SUITES_DIR": str(folder),
        "ARENA_MOCK_TOKENS_PER_SECOND": "20",
        "ARENA_MOCK_TOKENS": "10",
    }


async def _start_and_wait_for_a_result(arena: Arena) -> tuple[str, dict[str, Any]]:
    """Start the smoke suite; its id and its progress once its first prompt has a result."""
    run_id = (await arena.client.post("/api/suites/smoke/run")).json()["runId"]
    for _ in range(200):
        progress = (await arena.client.get(f"/api/suites/runs/{run_id}")).json()
        if progress["completed"] >= 1:
            break
        await asyncio.sleep(0.05)
    return run_id, progress


async def test_a_run_cut_short_by_a_restart_is_interrupted_and_resumes_where_it_stopped(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = _slow_smoke(tmp_path)
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        run_id, progress = await _start_and_wait_for_a_result(arena)
    assert 1 <= progress["completed"] < 4

    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        interrupted = (await arena.client.get(f"/api/suites/runs/{run_id}")).json()
        resumed = await arena.client.post(f"/api/suites/runs/{run_id}/resume")
        done = await _wait(arena, run_id)

    assert interrupted["status"] == "interrupted"
    assert resumed.status_code == 202
    assert done["completed"] == 4 and [r["index"] for r in done["results"]] == [0, 1, 2, 3]


async def test_a_drain_interrupts_a_run_and_fails_none_of_its_prompts(
    db: AsyncEngine, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``arena serve`` drains before it stops: the run is left resumable, not failed."""
    monkeypatch.setenv("ARENA_INTERNAL_TOKEN", "drain-token-0123456789")
    env = _slow_smoke(tmp_path)
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        run_id, progress = await _start_and_wait_for_a_result(arena)
        drained = await arena.client.post(
            "/_arena/drain", headers={"x-arena-internal": "drain-token-0123456789"}
        )
        run = (await arena.client.get(f"/api/suites/runs/{run_id}")).json()

    assert drained.status_code == 200
    assert run["status"] == "interrupted" and 1 <= run["completed"] < 4
    assert all(r["outcome"] != "failed" for r in run["results"])


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        pytest.param("post", "/api/suites/nope/run", 404, "suite_not_found", id="unknown-suite"),
        pytest.param("get", "/api/suites/runs/not-a-uuid", 400, "invalid_request", id="bad-id"),
        pytest.param(
            "get",
            "/api/suites/runs/00000000-0000-0000-0000-000000000000",
            404,
            "suite_run_not_found",
            id="unknown-run",
        ),
    ],
)
async def test_a_bad_suite_request_says_why(
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    method: str,
    path: str,
    status: int,
    code: str,
) -> None:
    folder = _suites(tmp_path, **{"smoke.yaml": SUITE})
    async with serve_arena(db, database_url, tmp_path, ARENA_SUITES_DIR=str(folder)) as arena:
        answer = await getattr(arena.client, method)(path)

    assert answer.status_code == status and answer.json()["code"] == code
