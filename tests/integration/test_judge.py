"""The LLM judge end to end: a fake OpenAI endpoint as the judge, its verdict recorded as the
matchup's vote (``method = 'judge'``) through the same claim a person's vote uses, and kept out
of the human summaries and the human rating."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.roster import load_roster
from arena_rating import RatingSettings, RatingWorker
from arena_rating.aggregate import read_pair_counts
from arena_rating.worker import WorkerOptions
from tests.fakes._recording import Recorder
from tests.fakes.openai_server import JUDGE_OUTPUT_TOKENS, PROMPT_TOKENS, create_app
from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.test_metrics import votes_counted
from tests.support import ServerThread, free_port

CONTESTANTS = (("Alpha", "alpha--ok"), ("Beta", "beta--ok"))


@contextlib.contextmanager
def _vendor() -> Iterator[tuple[str, Recorder]]:
    recorder = Recorder()
    with ServerThread(create_app(recorder), free_port()) as vendor:
        yield vendor.url, recorder


@contextlib.asynccontextmanager
async def _arena(
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    judge: str | None,
    *,
    swap: bool = False,
    **env: str,
) -> AsyncIterator[tuple[Arena, Recorder]]:
    """An arena of two fake OpenAI models and (unless None) a judge behaving as ``judge``."""
    lines = ["models:"] + [
        f"  - {{display_name: {name}, provider: openai, provider_model_id: {pmid}}}"
        for name, pmid in CONTESTANTS
    ]
    if judge is not None:
        lines += [
            "judge:",
            "  display_name: Fake Judge",
            "  provider: openai",
            f"  provider_model_id: judge--{judge}",
            "  price: {input: 2.5, output: 10}",
            f"  swap: {str(swap).lower()}",
        ]
    roster_file = tmp_path / "models.yaml"
    roster_file.write_text("\n".join(lines) + "\n")
    with _vendor() as (vendor_url, recorder):
        async with serve_arena(
            db,
            database_url,
            tmp_path,
            roster=load_roster(roster_file),
            ARENA_MODELS_FILE=str(roster_file),
            OPENAI_BASE_URL=f"{vendor_url}/v1",
            OPENAI_API_KEY="sk-test",
            ARENA_MOCK_PROVIDER="0",
            **env,
        ) as arena:
            yield arena, recorder


async def _round(arena: Arena) -> dict[str, Any]:
    response, frames = await arena.chat(prompt="Explain JWTs in simple terms")
    assert response.status_code == 200 and frames[-1][0] == "matchup_done"
    return frames[0][1]


async def _ask(arena: Arena, started: dict[str, Any], token: str | None = None) -> Any:
    return await arena.client.post(
        f"/api/arena/matchups/{started['matchupId']}/judge",
        json={"matchupToken": token or started["matchupToken"]},
    )


async def test_the_judges_verdict_is_the_matchups_vote_and_is_revealed_with_its_cost(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, "judge-first") as (arena, recorder):
        started = await _round(arena)
        answer = await _ask(arena, started)
        vote = await arena.rows(
            "SELECT vote, method, anonymous_session_id FROM preferences WHERE matchup_id = :m",
            m=started["matchupId"],
        )
        verdict = (
            await arena.rows(
                "SELECT outcome, vote, recorded, input_tokens, output_tokens, cost_usd, source "
                "FROM judge_verdicts WHERE matchup_id = :m",
                m=started["matchupId"],
            )
        )[0]
        counted = await arena.scalar("SELECT count(*) FROM model_vote_stats WHERE method = 'human'")
        judge_prompt = recorder.requests[-1].json["messages"]
        on_metrics = await votes_counted(arena.client)

    body = answer.json()
    shown_first = body["judge"]["readings"][0]["shownFirst"]
    # This judge always prefers the answer it read first: that slot wins.
    expected = "left" if shown_first == "A" else "right"
    assert answer.status_code == 200 and body["accepted"] is True
    assert body["vote"] == expected and body["judge"]["outcome"] == shown_first
    assert body["judge"]["name"] == "Fake Judge" and "first answer" in body["judge"]["reasoning"]
    assert {body["models"]["A"]["displayName"], body["models"]["B"]["displayName"]} == {
        "Alpha",
        "Beta",
    }
    assert [tuple(r) for r in vote] == [(expected, "judge", None)]
    assert (verdict.outcome, verdict.vote, verdict.recorded, verdict.source) == (
        shown_first,
        expected,
        True,
        "request",
    )
    assert (verdict.input_tokens, verdict.output_tokens) == (PROMPT_TOKENS, JUDGE_OUTPUT_TOKENS)
    assert float(verdict.cost_usd) == pytest.approx((11 * 2.5 + 17 * 10) / 1e6)
    assert body["judge"]["costUsd"] == pytest.approx(float(verdict.cost_usd))
    assert counted == 0  # a judge's vote is not a person's: it is counted apart
    assert on_metrics == {("judge", "request"): 1}
    # The judge saw the prompt and both answers, and no model's name.
    shown = json.dumps(judge_prompt)
    assert "Explain JWTs" in shown and shown.count("Hello from the fake.") == 2
    assert not any(name in shown for name in ("Alpha", "Beta", "alpha--", "beta--"))


async def test_swapped_readings_that_disagree_make_a_tie(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, "judge-first", swap=True) as (arena, recorder):
        started = await _round(arena)
        answer = await _ask(arena, started)
        calls = [r for r in recorder.requests if "judge--" in r.json["model"]]

    body = answer.json()
    readings = body["judge"]["readings"]
    assert len(calls) == 2 and body["judge"]["swapped"] is True
    assert {r["shownFirst"] for r in readings} == {"A", "B"}
    assert {r["outcome"] for r in readings} == {"A", "B"}  # position, not quality, decided
    assert body["judge"]["outcome"] == "tie" and body["vote"] == "both_good"
    assert body["judge"]["inputTokens"] == 2 * PROMPT_TOKENS


async def test_an_unreadable_verdict_is_recorded_as_such_and_is_never_a_vote(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, "judge-garbage") as (arena, _):
        started = await _round(arena)
        answer = await _ask(arena, started)
        votes = await arena.scalar("SELECT count(*) FROM preferences")
        outcome = await arena.scalar("SELECT outcome FROM judge_verdicts")
        human = await arena.vote(started, "right")

    body = answer.json()
    assert answer.status_code == 200 and body["accepted"] is False
    assert body["judge"]["outcome"] == "unparseable" and body["vote"] is None
    assert body["models"] is None  # still blind: nobody has voted
    assert votes == 0 and outcome == "unparseable"
    assert human.status_code == 200  # the person can still vote


async def test_a_judge_and_a_person_racing_on_one_matchup_end_with_exactly_one_vote(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, "judge-slow") as (arena, _):
        started = await _round(arena)

        async def person() -> Any:
            await asyncio.sleep(0.3)  # while the slow judge is still writing
            return await arena.vote(started, "right")

        judged, voted = await asyncio.gather(_ask(arena, started), person())
        votes = await arena.rows("SELECT vote, method FROM preferences")
        verdicts = await arena.rows("SELECT recorded FROM judge_verdicts")

    assert len(votes) == 1 and len(verdicts) == 1
    statuses = {judged.status_code, voted.status_code}
    assert statuses == {200, 409}
    winner = "judge" if judged.status_code == 200 else "human"
    assert votes[0].method == winner and verdicts[0].recorded is (winner == "judge")
    if winner == "human":
        assert judged.json()["code"] == "already_voted"


@pytest.mark.parametrize(
    ("judge", "token", "status", "code"),
    [
        pytest.param(None, None, 404, "judge_not_configured", id="no-judge"),
        pytest.param("judge-first", "not-a-token", 401, "invalid_token", id="bad-token"),
        pytest.param("server-error", None, 502, "judge_failed", id="judge-endpoint-fails"),
    ],
)
async def test_a_refused_judge_request_says_why(
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    judge: str | None,
    token: str | None,
    status: int,
    code: str,
) -> None:
    async with _arena(db, database_url, tmp_path, judge) as (arena, _):
        started = await _round(arena)
        answer = await _ask(arena, started, token)
        votes = await arena.scalar("SELECT count(*) FROM preferences")
        failed = await arena.scalar(
            "SELECT count(*) FROM judge_verdicts WHERE outcome = 'failed' AND error IS NOT NULL"
        )

    assert answer.status_code == status and answer.json()["code"] == code
    assert votes == 0
    assert failed == (1 if code == "judge_failed" else 0)


async def test_a_matchup_with_a_vote_is_not_judged_again(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, "judge-first") as (arena, recorder):
        started = await _round(arena)
        await arena.vote(started, "left")
        before = len(recorder.requests)
        answer = await _ask(arena, started)
        after = len(recorder.requests)

    assert answer.status_code == 409 and answer.json()["code"] == "already_voted"
    assert after == before  # the judge was never called: nothing spent


async def test_the_human_rating_reads_no_judge_vote(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, "judge-second") as (arena, _):
        judged = await _round(arena)
        assert (await _ask(arena, judged)).status_code == 200
        voted = await _round(arena)
        assert (await arena.vote(voted, "left")).status_code == 200
        async with db.connect() as conn:
            counts = await read_pair_counts(conn)
        stats = await arena.rows("SELECT wins, losses FROM model_vote_stats WHERE method = 'human'")

    assert counts.votes == 1  # the person's vote only
    assert sorted(tuple(r) for r in stats) == [(0, 1), (1, 0)]


async def test_every_read_counts_the_population_it_is_asked_for(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path, "judge-second") as (arena, _):
        for _ in range(2):
            assert (await _ask(arena, await _round(arena))).status_code == 200
        assert (await arena.vote(await _round(arena), "both_bad")).status_code == 200
        await RatingWorker(db, RatingSettings(), WorkerOptions(anomaly_filter=False)).run_pass()
        reads = {
            votes: {
                "board": (await arena.client.get(f"/api/arena/leaderboard?votes={votes}")).json(),
                "summary": (
                    await arena.client.get(f"/api/arena/analytics/summary?votes={votes}")
                ).json(),
                "pairs": (
                    await arena.client.get(f"/api/arena/analytics/head-to-head?votes={votes}")
                ).json(),
                "activity": (
                    await arena.client.get(f"/api/arena/analytics/activity?votes={votes}")
                ).json(),
            }
            for votes in ("human", "judge", "all")
        }
        default = (await arena.client.get("/api/arena/leaderboard")).json()
        histories = {
            votes: (
                await arena.client.get(f"/api/arena/analytics/rating-history?votes={votes}")
            ).json()["points"]
            for votes in ("human", "judge", "all")
        }
        bad = await arena.client.get("/api/arena/analytics/summary?votes=robots")
        named_judge = await arena.client.get("/api/arena/leaderboard?votes=judge&include=named")

    assert default == reads["human"]["board"]
    totals = {votes: read["summary"]["totalVotes"] for votes, read in reads.items()}
    assert totals == {"human": 1, "judge": 2, "all": 3}
    assert {v: r["summary"]["totalMatchups"] for v, r in reads.items()} == {
        "human": 3,
        "judge": 3,
        "all": 3,
    }
    assert reads["judge"]["summary"]["tieVotes"] == 0 and reads["human"]["summary"]["tieVotes"] == 1
    assert sum(p["games"] for p in reads["judge"]["pairs"]["pairs"]) == 2
    assert sum(v["total"] for v in reads["all"]["activity"]["votes"]) == 3
    assert reads["judge"]["board"]["votes"] == "judge"
    # The judge population has its own fit; the people's only vote is a tie, so no decisive
    # record there, while the judge's board records both of its decisive votes.
    judge_wins = sum(m["wins"] for m in reads["judge"]["board"]["models"])
    assert judge_wins == 2 and sum(m["wins"] for m in reads["human"]["board"]["models"]) == 0
    assert all(m["rating"] is not None for m in reads["judge"]["board"]["models"])
    assert all(m["styleControlledRating"] is None for m in reads["judge"]["board"]["models"])
    assert bad.status_code == 400 and bad.json()["details"] == {
        "votes": ["must be human, judge or all"]
    }
    assert named_judge.status_code == 400
    # Each population's board keeps its own history: two models, one refit each.
    assert {v: len(points) for v, points in histories.items()} == {"human": 2, "judge": 2, "all": 2}
    judge_ratings = {p["modelId"]: p["rating"] for p in histories["judge"]}
    board_ratings = {m["id"]: m["rating"] for m in reads["judge"]["board"]["models"]}
    assert judge_ratings == pytest.approx(board_ratings)
