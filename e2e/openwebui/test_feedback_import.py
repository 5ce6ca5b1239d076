"""Open WebUI's own feedback export, imported: a real Open WebUI 0.12.4 stores ratings made the
way its chat page makes them (a chat with a prompt and two models' answers, then a thumbs on
one answer, its siblings, reason and chat snapshot), exports them from Admin > Evaluations, and
``arena import --from openwebui`` turns them into votes that give every model the wins and
losses Open WebUI's own leaderboard counts."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from e2e.openwebui.conftest import OPENWEBUI_BIN_ENV, OpenWebUI
from tests.fixtures import prepare_database
from tests.support import run_cli

pytestmark = pytest.mark.skipif(
    not os.environ.get(OPENWEBUI_BIN_ENV), reason=f"{OPENWEBUI_BIN_ENV} is not set"
)

MODELS = ("gpt-4o", "claude-3-5-sonnet", "llama3:8b")


def _chat(prompt: str, answers: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """A chat as Open WebUI's page saves it: one user message and one answer per model."""
    user = str(uuid.uuid4())
    ids = {model: str(uuid.uuid4()) for model in answers}
    messages: dict[str, Any] = {
        user: {
            "id": user,
            "parentId": None,
            "childrenIds": list(ids.values()),
            "role": "user",
            "content": prompt,
            "models": list(answers),
            "timestamp": 1_760_000_000,
        }
    }
    for model, text in answers.items():
        messages[ids[model]] = {
            "id": ids[model],
            "parentId": user,
            "childrenIds": [],
            "role": "assistant",
            "content": text,
            "model": "arena-model",
            "selectedModelId": model,
            "arena": True,
            "done": True,
            "timestamp": 1_760_000_001,
        }
    chat = {
        "title": prompt[:30],
        "models": ["arena-model"],
        "history": {"messages": messages, "currentId": ids[next(iter(answers))]},
        "messages": list(messages.values()),
    }
    return chat, ids


def _feedback(
    chat: dict[str, Any], chat_id: str, ids: dict[str, str], model: str, rating: int, **data: Any
) -> dict[str, Any]:
    """The feedback body Open WebUI's ResponseMessage sends for a thumbs on ``model``'s answer."""
    message = ids[model]
    siblings = [m for m in ids if m != model]
    return {
        "type": "rating",
        "data": {
            "rating": rating,
            "model_id": model,
            **({"sibling_model_ids": siblings} if siblings else {}),
            **data,
        },
        "meta": {
            "arena": True,
            "model_id": "arena-model",
            "message_id": message,
            "message_index": 2,
            "chat_id": chat_id,
        },
        "snapshot": {"chat": chat},
    }


def _arena(url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    data = str(tmp_path / "data")
    env = {"DATABASE_URL": url, "ARENA_ALLOW_DEV_SECRET": "1", "ARENA_DATA_DIR": data}
    return run_cli(args, env, timeout=300)  # type: ignore[no-any-return]


async def test_open_webui_feedback_imports_with_its_own_leaderboard_counts(
    openwebui: OpenWebUI, fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    async with httpx.AsyncClient(base_url=openwebui.url, timeout=30) as client:
        signin = await client.post(
            "/api/v1/auths/signin", json={"email": "admin@localhost", "password": "admin"}
        )
        client.headers["authorization"] = f"Bearer {signin.json()['token']}"
        ratings = [
            # (prompt, answers of the models in the chat, the rated model, thumbs, reason)
            ("What is 2+2?", MODELS[:2], MODELS[0], 1, "accurate_information"),
            ("Write a haiku", MODELS[1:], MODELS[2], -1, "too_verbose"),
            ("Name a prime", MODELS, MODELS[1], 1, "other"),
            ("Hello there", MODELS[:1], MODELS[0], 1, None),  # one answer: compares nothing
        ]
        for n, (prompt, models, rated, thumbs, reason) in enumerate(ratings):
            chat, ids = _chat(prompt, {m: f"{m} answers #{n}" for m in models})
            created = await client.post("/api/v1/chats/new", json={"chat": chat})
            chat_id = created.json()["id"]
            snapshot = (await client.get(f"/api/v1/chats/{chat_id}")).json()
            extra = {"reason": reason, "comment": "seen"} if reason else {}
            stored = await client.post(
                "/api/v1/evaluations/feedback",
                json=_feedback(snapshot, chat_id, ids, rated, thumbs, **extra),
            )
            assert stored.status_code == 200, stored.text
        export = await client.get("/api/v1/evaluations/feedbacks/all/export")
        leaderboard = await client.get("/api/v1/evaluations/leaderboard")
    path = tmp_path / "feedback-export.json"
    path.write_text(export.text)
    theirs = {e["model_id"]: (e["won"], e["lost"]) for e in leaderboard.json()["entries"]}
    url = prepare_database(fresh_database())

    first = _arena(url, tmp_path, "import", "--from", "openwebui", str(path))
    again = _arena(url, tmp_path, "import", "--from", "openwebui", str(path))

    assert first.returncode == 0, first.stderr
    assert "4 imported" in first.stdout and "1 ratings skipped" in first.stdout, first.stdout
    assert "0 imported, 4 already imported" in again.stdout, again.stdout
    conn = await asyncpg.connect("postgresql://" + url.partition("://")[2])
    try:
        rows = await conn.fetch(
            "SELECT a.display_name AS a, b.display_name AS b, p.vote, p.reasons, m.prompt,"
            " ra.content AS answer_a, rb.content AS answer_b, m.mode"
            " FROM preferences p JOIN matchups m ON m.id = p.matchup_id"
            " JOIN models a ON a.id = m.slot_a_model_id JOIN models b ON b.id = m.slot_b_model_id"
            " LEFT JOIN responses ra ON ra.matchup_id = m.id AND ra.slot = 'A'"
            " LEFT JOIN responses rb ON rb.matchup_id = m.id AND rb.slot = 'B'"
        )
    finally:
        await conn.close()
    ours: dict[str, list[int]] = {}
    for row in rows:
        winner, loser = (row["a"], row["b"]) if row["vote"] == "left" else (row["b"], row["a"])
        ours.setdefault(winner, [0, 0])[0] += 1
        ours.setdefault(loser, [0, 0])[1] += 1
    assert {m: tuple(c) for m, c in ours.items()} == theirs
    by_prompt = {(r["prompt"], r["b"]): r for r in rows}
    haiku = by_prompt[("Write a haiku", MODELS[1])]
    assert (haiku["a"], haiku["vote"], list(haiku["reasons"])) == (MODELS[2], "right", ["style"])
    assert haiku["answer_a"] == f"{MODELS[2]} answers #1"
    assert haiku["answer_b"] == f"{MODELS[1]} answers #1" and haiku["mode"] == "blind"
    sum_ = by_prompt[("What is 2+2?", MODELS[1])]
    assert list(sum_["reasons"]) == ["accuracy"]
    assert all(list(r["reasons"]) == [] for r in rows if r["prompt"] == "Name a prime")
    assert json.loads(export.text)[0]["snapshot"]["chat"]["chat"]["history"]["messages"]
