"""Expert review queues on a real server: an admin makes one from a suite run, two reviewers
work through it blind, the agreement comes out; and everyone else is kept out."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.users import User
from arena_rating import RatingSettings, RatingWorker
from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.test_admin_access import SSO, STATIC, Person, UserMaker, _bearer, _code
from tests.integration.test_admin_access import user as user  # noqa: F401 - the fixture

SUITE = """
name: review-smoke
prompts:
  - prompt: What is 12 times 12?
  - prompt: Name a prime number above 100.
  - prompt: Say hello in French.
  - prompt: What colour is the sky on a clear day?
"""


@pytest.fixture
async def arena(db: AsyncEngine, database_url: str, tmp_path: Path) -> AsyncIterator[Arena]:
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "review-smoke.yaml").write_text(SUITE)
    async with serve_arena(
        db,
        database_url,
        tmp_path,
        ARENA_API_TOKENS=STATIC,
        ARENA_SUITES_DIR=str(folder),
        ARENA_VOTE_REASONS="accuracy,style",
        **SSO,
    ) as arena:
        arena.client.headers.update(_bearer(STATIC))
        yield arena


async def _suite_run(arena: Arena) -> str:
    run_id = str((await arena.client.post("/api/suites/review-smoke/run")).json()["runId"])
    for _ in range(400):
        body: dict[str, Any] = (await arena.client.get(f"/api/suites/runs/{run_id}")).json()
        if body["status"] == "done":
            return run_id
        await asyncio.sleep(0.05)
    raise AssertionError(f"the suite run never finished: {body}")


async def _work(person: Person, queue_id: str, votes: list[str]) -> list[dict[str, Any]]:
    """Give ``votes`` to the next items in turn; returns the items seen."""
    seen = []
    for vote in votes:
        nxt = (await person.client.get(f"/api/review/queues/{queue_id}/next")).json()
        assert nxt["item"] is not None, nxt
        seen.append(nxt)
        given = await person.client.post(
            f"/api/review/items/{nxt['item']['id']}/verdict",
            json={"vote": vote, "reasons": ["accuracy"], "comment": "looked closely"},
        )
        assert given.status_code == 201, given.text
    return seen


async def test_two_reviewers_finish_a_queue_from_a_suite_run_and_their_agreement_is_read(
    arena: Arena, user: UserMaker
) -> None:
    ada: User = await user("ada", "admin")
    rex, rae = await user("rex", "reviewer"), await user("rae", "reviewer")
    vic = await user("vic", "voter")
    run_id = await _suite_run(arena)

    async with (
        Person(arena, ada) as a,
        Person(arena, rex) as x,
        Person(arena, rae) as e,
        Person(arena, vic) as v,
    ):
        body = {
            "name": "Week 49 check",
            "k": 2,
            "reviewers": [rex.id, rae.id],
            "source": {"suiteRun": run_id},
        }
        by_reviewer = await x.client.post("/api/review/queues", json=body)
        created = await a.client.post("/api/review/queues", json=body)
        queue_id = created.json()["id"]
        by_voter = await v.client.get("/api/review/queues")
        first = await _work(x, queue_id, ["left", "right", "both_good", "skip"])
        rex_done = (await x.client.get(f"/api/review/queues/{queue_id}/next")).json()
        again = await x.client.post(
            f"/api/review/items/{first[0]['item']['id']}/verdict", json={"vote": "right"}
        )
        await _work(e, queue_id, ["left", "left", "both_good", "both_bad"])
        rae_done = (await e.client.get(f"/api/review/queues/{queue_id}/next")).json()
        reviewer_reads = await x.client.get(f"/api/review/queues/{queue_id}/agreement")
        listed = (await x.client.get("/api/review/queues")).json()["queues"]
        detail = (await a.client.get(f"/api/review/queues/{queue_id}")).json()
        agreement = (await a.client.get(f"/api/review/queues/{queue_id}/agreement")).json()
        audit = (await a.client.get("/api/admin/audit")).json()["entries"]

    assert by_reviewer.status_code == 403 and _code(by_reviewer) == "forbidden_role"
    assert created.status_code == 201
    assert by_voter.status_code == 403 and _code(by_voter) == "forbidden_role"
    item = first[0]["item"]
    assert item["prompt"] == "What is 12 times 12?" and item["answers"]["A"]
    assert "Mock" not in str(first)  # blind: no model names anywhere in what a reviewer sees
    assert [f["progress"] for f in first] == [{"done": n, "total": 4} for n in range(4)]
    assert rex_done == {"item": None, "progress": {"done": 4, "total": 4}}
    assert again.status_code == 409 and _code(again) == "already_reviewed"
    assert rae_done["item"] is None
    assert reviewer_reads.status_code == 403  # only admins read the others' verdicts
    assert [(q["name"], q["items"], q["complete"], q["yours"]) for q in listed] == [
        ("Week 49 check", 4, 3, 4)  # the skipped item still wants a second review
    ]
    assert sorted((r["reviewer"], r["verdicts"], r["skips"]) for r in detail["reviewers"]) == [
        ("rae@example.com", 4, 0),
        ("rex@example.com", 3, 1),
    ]
    # Items with both reviews: (left, left), (right, left), (both_good, both_good).
    assert agreement["items"] == 3
    assert agreement["observedAgreement"] == pytest.approx(2 / 3)
    # p = (3/6 left, 1/6 right, 2/6 both good): chance 7/18, so kappa = (2/3 - 7/18) / (11/18)
    assert agreement["kappa"] == pytest.approx(5 / 11)
    low, high = agreement["kappaInterval"]
    assert low <= agreement["kappa"] <= high
    rex_row = next(r for r in agreement["reviewers"] if r["reviewer"] == "rex@example.com")
    assert rex_row["withMajority"] == {"agreed": 2, "of": 3, "rate": pytest.approx(2 / 3)}
    assert rex_row["withJudge"]["of"] >= 1  # the suite's judge read every round
    assert [s["position"] for s in agreement["splits"]] == [2]
    assert agreement["splits"][0]["votes"] == {"left": 1, "right": 1, "both_good": 0, "both_bad": 0}
    made = next(e for e in audit if e["action"] == "review_queue_create")
    assert made["targetLabel"] == "Week 49 check" and made["after"]["items"] == 4

    # The reviewers' verdicts are a board of their own once the rating process has run.
    await RatingWorker(arena.engine, RatingSettings(category_min_votes=0)).run_pass()
    board = (await arena.client.get("/api/arena/leaderboard", params={"votes": "reviewer"})).json()
    sliced = await arena.client.get(
        "/api/arena/leaderboard", params={"votes": "reviewer", "category": "coding"}
    )
    rows = [r for r in board["models"] if r["wins"] + r["losses"] + r["ties"] + r["skips"]]
    verdicts = 7  # both reviewers' verdicts but rex's skip
    assert sum(r["wins"] for r in rows) == sum(r["losses"] for r in rows)
    assert sum(r["wins"] + r["losses"] + r["ties"] for r in rows) == 2 * verdicts
    assert sum(r["skips"] for r in rows) == 2  # the skip, on both of its round's models
    assert all(r["rating"] is not None for r in rows)
    assert sliced.status_code == 400

    # ... and rows of their own in the export: method reviewer, the reviewer as a hashed user.
    export = await arena.client.get("/api/arena/export")
    exported = [json.loads(line) for line in export.text.splitlines()]
    reviewed = [r for r in exported if r["method"] == "reviewer"]
    assert len(reviewed) == 8  # every verdict, the skip too, as a skip vote is exported
    assert {r["outcome"] for r in reviewed} == {"left", "right", "both_good", "both_bad", "skip"}
    assert len({r["user"] for r in reviewed}) == 2 and None not in {r["user"] for r in reviewed}
    assert all(r["session"] is None and r["reasons"] == ["accuracy"] for r in reviewed)


async def test_a_queue_refuses_what_it_cannot_be_and_outsiders(
    arena: Arena, user: UserMaker
) -> None:
    ada = await user("ada", "admin")
    rex, vic = await user("rex", "reviewer"), await user("vic", "voter")
    rae = await user("rae", "reviewer")
    response, _ = await arena.chat()
    assert response.status_code == 200

    async with Person(arena, ada) as a, Person(arena, rae) as e:
        rounds = {"rounds": {"limit": 5}}
        bad: list[httpx.Response] = [
            await a.client.post(
                "/api/review/queues",
                json={"name": "x", "k": 3, "reviewers": [rex.id, rae.id], "source": rounds},
            ),
            await a.client.post(
                "/api/review/queues",
                json={"name": "x", "k": 1, "reviewers": [vic.id], "source": rounds},
            ),
            await a.client.post(
                "/api/review/queues",
                json={"name": "", "k": 1, "reviewers": [rex.id], "source": rounds},
            ),
            await a.client.post(
                "/api/review/queues",
                json={"name": "x", "k": 1, "reviewers": [rex.id], "source": {"nope": 1}},
            ),
            await a.client.post(
                "/api/review/queues",
                json={
                    "name": "x",
                    "k": 1,
                    "reviewers": [rex.id],
                    "source": {"rounds": {"category": "no-such-slice"}},
                },
            ),
        ]
        made = await a.client.post(
            "/api/review/queues",
            json={"name": "Latest", "k": 1, "reviewers": [rex.id], "source": rounds},
        )
        queue_id = made.json()["id"]
        outsider = await e.client.get(f"/api/review/queues/{queue_id}/next")
        unknown = await e.client.get("/api/review/queues/00000000-0000-4000-8000-000000000000/next")
        async with Person(arena, rex) as x:
            item = (await x.client.get(f"/api/review/queues/{queue_id}/next")).json()["item"]
            odd = [
                await x.client.post(f"/api/review/items/{item['id']}/verdict", json=body)
                for body in (
                    {"vote": "maybe"},
                    {"vote": "left", "reasons": ["vibes"]},
                    {"vote": "left", "comment": "x" * 2001},
                )
            ]
            ok = await x.client.post(
                f"/api/review/items/{item['id']}/verdict", json={"vote": "left"}
            )
        stranger = await e.client.post(
            f"/api/review/items/{item['id']}/verdict", json={"vote": "left"}
        )

    assert [r.status_code for r in bad] == [400] * 5
    assert _code(bad[-1]) == "no_rounds"
    assert made.status_code == 201
    assert outsider.status_code == 403 and _code(outsider) == "not_a_reviewer_of_this_queue"
    assert unknown.status_code == 404
    assert [r.status_code for r in odd] == [400, 400, 400]
    assert ok.status_code == 201
    assert stranger.status_code == 403


async def test_a_queue_made_of_prompts_plays_its_rounds_then_is_reviewed(
    arena: Arena, user: UserMaker
) -> None:
    ada, rex = await user("ada", "admin"), await user("rex", "reviewer")
    async with Person(arena, ada) as a, Person(arena, rex) as x:
        models = (await a.client.get("/api/admin/models")).json()["models"]
        pair = [models[0]["id"], models[1]["id"]]
        made = await a.client.post(
            "/api/review/queues",
            json={
                "name": "Fresh prompts",
                "k": 1,
                "reviewers": [rex.id],
                "source": {"prompts": ["First question?", "Second question?"], "models": pair},
            },
        )
        queue_id = made.json()["id"]
        for _ in range(200):
            queue = (await a.client.get(f"/api/review/queues/{queue_id}")).json()["queue"]
            if queue["pending"] == 0:
                break
            await asyncio.sleep(0.05)
        seen = await _work(x, queue_id, ["left", "right"])
        bad = [
            await a.client.post(
                "/api/review/queues",
                json={"name": "x", "k": 1, "reviewers": [rex.id], "source": source},
            )
            for source in (
                {"prompts": []},
                {"prompts": ["   "]},
                {"prompts": ["ok"], "models": [pair[0], pair[0]]},
                {"prompts": ["ok"], "extra": 1},
            )
        ]
        models_used = await arena.scalar(
            "SELECT count(DISTINCT mo) FROM review_items i JOIN matchups m ON m.id = i.matchup_id"
            ", LATERAL (VALUES (m.slot_a_model_id), (m.slot_b_model_id)) AS s(mo)"
        )

    assert made.status_code == 201
    assert (queue["items"], queue["pending"]) == (2, 0)
    assert [s["item"]["prompt"] for s in seen] == ["First question?", "Second question?"]
    assert models_used == 2  # the pair asked for, and no other model
    assert [r.status_code for r in bad] == [400] * 4


async def test_a_follow_up_round_shows_the_conversation_before_it(
    arena: Arena, user: UserMaker
) -> None:
    ada, rex = await user("ada", "admin"), await user("rex", "reviewer")
    _, frames = await arena.chat(prompt="Name a colour.")
    first = next(d for e, d in frames if e == "matchup_started")
    assert (await arena.vote(first, "left")).status_code == 200
    winner = await arena.scalar(
        "SELECT content FROM responses WHERE matchup_id = :m AND slot = 'A'",
        m=first["matchupId"],
    )
    _, frames = await arena.chat(prompt="And another?", conversationId=first["conversationId"])
    second = next(d for e, d in frames if e == "matchup_started")

    async with Person(arena, ada) as a, Person(arena, rex) as x:
        made = await a.client.post(
            "/api/review/queues",
            json={"name": "Turns", "k": 1, "reviewers": [rex.id], "source": {"rounds": {}}},
        )
        queue_id = made.json()["id"]
        # Stored rounds come newest first: the follow-up is the first item.
        latest = (await x.client.get(f"/api/review/queues/{queue_id}/next")).json()["item"]

    assert second["matchupId"] and latest["prompt"] == "And another?"
    assert latest["history"] == [{"prompt": "Name a colour.", "answer": winner}]
