"""The judge against people, end to end: people vote on rounds, ``arena judge backfill`` (the real
command, against a fake OpenAI judge told its verdicts) asks the judge about them without
touching a vote, and ``GET /api/arena/analytics/judge-agreement`` reports the matrix, the
agreement, Cohen's κ with its interval and Kendall's τ computed here by hand."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.cost import estimate_prompt_tokens, price
from arena_api.core.judging import DEFAULT_PROMPT, judge_messages
from arena_api.core.models import Prices
from arena_api.roster import load_roster
from arena_rating import RatingSettings, RatingWorker
from arena_rating.worker import WorkerOptions
from tests.fakes._recording import Recorder
from tests.fakes.openai_server import JUDGE_AS_TOLD, JUDGE_OUTPUT_TOKENS, create_app
from tests.integration.arena_harness import SECRET, Arena, serve_arena
from tests.support import ROOT, ServerThread, free_port

#: Alpha answers "Hello from the fake."; Beta answers in Markdown, so the judge can tell them
#: apart whatever order it reads them in.
CONTESTANTS = (("Alpha", "alpha--ok"), ("Beta", "beta--markdown"))
PRICES = Prices(input_per_mtok=Decimal("2.5"), output_per_mtok=Decimal(10))
Z = 1.959963984540054
VOTE_OF = {"A": "left", "B": "right", "tie": "both_good", "both_bad": "both_bad"}

# The planned rounds: (person's label, judge's label, about code?). Rows people, columns judge:
#
#              judge A   B   tie  both_bad   people
#   people A        3    1    .     .         4
#          B        1    3    .     1         5
#          tie      .    .    1     .         1
#          both_bad .    .    1     1         2
#   judge           4    4    2     2        12
#
# A person who picks a slot always picks Beta there (the round is played again until Beta sits
# in that slot), so people's board puts Beta first. Five rounds are about code.
PLAN = (
    *[("A", "A", True)] * 2,
    ("A", "A", False),
    ("A", "B", False),
    ("B", "A", True),
    ("B", "B", True),
    *[("B", "B", False)] * 2,
    ("B", "both_bad", False),
    ("tie", "tie", True),
    ("both_bad", "tie", False),
    ("both_bad", "both_bad", False),
)
MATRIX = [[3, 1, 0, 0], [1, 3, 0, 1], [0, 0, 1, 0], [0, 0, 1, 1]]
CODING_MATRIX = [[2, 0, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]


def _hand_kappa() -> tuple[float, float]:
    """κ and its standard error for ``MATRIX``, by hand (Fleiss, Cohen and Everitt 1969).

    n = 12; rows p_i. = (4, 5, 1, 2)/12, columns p_.j = (4, 4, 2, 2)/12.
    po = 8/12 = 2/3; pe = (16 + 20 + 2 + 4)/144 = 7/24; κ = (2/3 - 7/24)/(17/24) = 9/17.
    1 - κ = 8/17. A = Σ p_ii [1 - (p_i. + p_.i)(1 - κ)]²
      = 3/12 (1 - 2/3 · 8/17)² + 3/12 (1 - 3/4 · 8/17)² + 1/12 (1 - 1/4 · 8/17)²
        + 1/12 (1 - 1/3 · 8/17)² = 2704/7803.
    B = (1 - κ)² Σ_{i≠j} p_ij (p_.i + p_j.)²
      = (64/289) [1/12 (4/12 + 5/12)² + 1/12 (4/12 + 4/12)² + 1/12 (4/12 + 2/12)²
                  + 1/12 (2/12 + 1/12)²] = 190/7803.
    C = (κ - pe (1 - κ))² = (9/17 - 7/24 · 8/17)² = 400/2601.
    SE = √(A + B - C) / ((1 - pe) √n) = √(1694/7803) / (17/24 · √12).
    """
    a = Fraction(3, 12) * Fraction(35, 51) ** 2 + Fraction(3, 12) * Fraction(11, 17) ** 2
    a += Fraction(1, 12) * Fraction(15, 17) ** 2 + Fraction(1, 12) * Fraction(43, 51) ** 2
    b = (
        Fraction(64, 289)
        * Fraction(1, 12)
        * (
            Fraction(9, 12) ** 2
            + Fraction(8, 12) ** 2
            + Fraction(6, 12) ** 2
            + Fraction(3, 12) ** 2
        )
    )
    c = Fraction(400, 2601)
    assert (a, b) == (Fraction(2704, 7803), Fraction(190, 7803))
    return 9 / 17, math.sqrt(a + b - c) / (17 / 24 * math.sqrt(12))


@contextlib.contextmanager
def _vendor() -> Iterator[str]:
    with ServerThread(create_app(Recorder()), free_port()) as vendor:
        yield vendor.url


@contextlib.asynccontextmanager
async def _arena(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Arena, dict[str, str]]]:
    """The arena with its judge, and the environment the ``arena`` command runs in beside it."""
    roster_file = tmp_path / "models.yaml"
    roster_file.write_text(
        "\n".join(
            [
                "models:",
                *(
                    f"  - {{display_name: {name}, provider: openai, provider_model_id: {pmid}}}"
                    for name, pmid in CONTESTANTS
                ),
                "judge:",
                "  display_name: Fake Judge",
                "  provider: openai",
                f"  provider_model_id: judge--{JUDGE_AS_TOLD}",
                "  price: {input: 2.5, output: 10}",
            ]
        )
        + "\n"
    )
    with _vendor() as vendor_url:
        env = {
            "ARENA_MODELS_FILE": str(roster_file),
            "OPENAI_BASE_URL": f"{vendor_url}/v1",
            "OPENAI_API_KEY": "sk-test",
            "ARENA_MOCK_PROVIDER": "0",
        }
        async with serve_arena(
            db, database_url, tmp_path, roster=load_roster(roster_file), **env
        ) as arena:
            yield (
                arena,
                {
                    **env,
                    "DATABASE_URL": database_url,
                    "MATCHUP_TOKEN_SECRET": SECRET,
                    "ARENA_DATA_DIR": str(tmp_path / "cli"),
                },
            )


async def _backfill(env: dict[str, str], *args: str, answer: str = "") -> Any:
    """``arena judge backfill ARGS`` in a child process, ``answer`` on its standard input."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "MATCHUP_"))}
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "arena_api", "judge", "backfill", *args],
        cwd=ROOT,
        env={**clean, **env},
        input=answer,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def _round(arena: Arena, prompt: str) -> tuple[dict[str, Any], str]:
    """A round on ``prompt``: its start event, and the slot Beta sits in."""
    response, frames = await arena.chat(prompt=prompt)
    assert response.status_code == 200 and frames[-1][0] == "matchup_done"
    started = frames[0][1]
    slot_a = await arena.scalar(
        "SELECT s.display_name FROM matchups m JOIN models s ON s.id = m.slot_a_model_id "
        "WHERE m.id = :m",
        m=started["matchupId"],
    )
    return started, "A" if slot_a == "Beta" else "B"


async def _play(arena: Arena) -> dict[str, tuple[str, str, bool]]:
    """The planned rounds, voted, in order; matchup id -> its plan."""
    planned = {}
    for number, (person, judge, coding) in enumerate(PLAN):
        topic = "Write a Python function that sorts a list" if coding else "Describe a sunset"
        # A person who picks a slot picks Beta's: the judge agrees by picking Beta's answer.
        told = judge if judge in ("tie", "both_bad") else "markdown" if judge == person else "plain"
        while True:
            started, beta = await _round(arena, f"{topic}, number {number} [judge: {told}]")
            if person not in ("A", "B") or beta == person:
                break
            # Beta sits in the other slot: left unvoted, a round the backfill never asks about.
        assert (await arena.vote(started, VOTE_OF[person])).status_code == 200
        planned[started["matchupId"]] = (person, judge, coding)
    return planned


async def _insert(engine: AsyncEngine, sql: str, **params: Any) -> None:
    async with engine.begin() as conn:
        await conn.execute(text(sql), params)


async def test_the_backfill_judges_voted_rounds_and_the_agreement_is_computed_by_hand(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path) as (arena, env):
        planned = await _play(arena)
        # A person's skip while the judge read (its verdict stored beside the vote): counted
        # apart, never in the matrix.
        skipped, _ = await _round(arena, "Describe the sea [judge: tie]")
        assert (await arena.vote(skipped, "skip")).status_code == 200
        await _insert(
            arena.engine,
            "INSERT INTO judge_verdicts (id, matchup_id, source, judge_name, judge_provider, "
            "judge_model_id, outcome, vote, swapped) VALUES (gen_random_uuid(), :m, 'request', "
            "'Fake Judge', 'openai', :j, 'tie', 'both_good', false)",
            m=skipped["matchupId"],
            j=f"judge--{JUDGE_AS_TOLD}",
        )
        # The judge's own board: it votes for Alpha twice.
        for number in range(2):
            started, _ = await _round(arena, f"Name a colour, number {number} [judge: plain]")
            asked = await arena.client.post(
                f"/api/arena/matchups/{started['matchupId']}/judge",
                json={"matchupToken": started["matchupToken"]},
            )
            assert asked.status_code == 200 and asked.json()["accepted"] is True
        await RatingWorker(db, RatingSettings(), WorkerOptions(anomaly_filter=False)).run_pass()
        votes_before = await arena.rows(
            "SELECT matchup_id, vote, method, winner_model_id FROM preferences ORDER BY 1"
        )
        coding = [m for m, (_, _, about_code) in planned.items() if about_code]
        texts = {
            r.matchup_id: (r.prompt, r.a, r.b)
            for r in await arena.rows(
                "SELECT m.id::text AS matchup_id, m.prompt, a.content AS a, b.content AS b "
                "FROM matchups m JOIN responses a ON a.matchup_id = m.id AND a.slot = 'A' "
                "JOIN responses b ON b.matchup_id = m.id AND b.slot = 'B'"
            )
        }

        declined = await _backfill(env, "--limit", "3", "--category", "coding", answer="n\n")
        after_declining = await arena.scalar(
            "SELECT count(*) FROM judge_verdicts WHERE source = 'backfill'"
        )
        first = await _backfill(env, "--limit", "100", "--category", "coding", "--yes")
        coding_judged = await arena.rows(
            "SELECT matchup_id::text AS m, outcome, recorded FROM judge_verdicts "
            "WHERE source = 'backfill'"
        )
        rest = await _backfill(env, "--limit", "100", "--yes")
        again = await _backfill(env, "--limit", "100", "--yes")
        judged = await arena.rows(
            "SELECT matchup_id::text AS m, outcome, recorded, vote FROM judge_verdicts "
            "WHERE source = 'backfill'"
        )
        votes_after = await arena.rows(
            "SELECT matchup_id, vote, method, winner_model_id FROM preferences ORDER BY 1"
        )
        # A round judged again: an older verdict that disagrees and a newer unreadable one
        # change nothing (the latest readable verdict counts).
        some = next(iter(planned))
        await _insert(
            arena.engine,
            "INSERT INTO judge_verdicts (id, matchup_id, source, judge_name, judge_provider, "
            "judge_model_id, outcome, vote, swapped, created_at) VALUES "
            "(gen_random_uuid(), :m, 'request', 'Fake Judge', 'openai', 'x', 'both_bad', "
            "'both_bad', false, now() - interval '1 hour'), "
            "(gen_random_uuid(), :m, 'request', 'Fake Judge', 'openai', 'x', 'unparseable', "
            "NULL, false, now() + interval '1 minute')",
            m=some,
        )
        everything = (await arena.client.get("/api/arena/analytics/judge-agreement")).json()
        coding_only = (
            await arena.client.get("/api/arena/analytics/judge-agreement?category=coding")
        ).json()

    # Declining the estimate asks nothing; the estimate is the stored text as the judge reads
    # it, and the answer tokens this judge wrote per reading before (its two verdicts above).
    assert declined.returncode == 0, declined.stderr
    assert "Fake Judge will read 3 rounds in coding" in declined.stdout
    assert "nothing asked" in declined.stdout and after_declining == 0
    newest = coding[-3:]  # the rounds were played in the plan's order
    input_tokens = sum(
        estimate_prompt_tokens(judge_messages(DEFAULT_PROMPT, "", *texts[m])) for m in newest
    )
    output_tokens = 3 * JUDGE_OUTPUT_TOKENS
    assert f"about {input_tokens:,} input tokens" in declined.stdout
    assert f"about {output_tokens:,} output tokens ({JUDGE_OUTPUT_TOKENS} per reading" in (
        declined.stdout
    )
    assert f"estimated cost: ${price(input_tokens, output_tokens, PRICES):.4f}" in declined.stdout

    # The coding slice first, then the rest; a third run finds nothing left.
    assert first.returncode == 0, first.stderr
    assert {r.m for r in coding_judged} == set(coding) and len(coding_judged) == 5
    assert rest.returncode == 0 and "judged 7 rounds" in rest.stdout
    assert "judge vs people: 12 rounds, agreement 67%, Cohen's kappa 0.53" in rest.stdout
    assert again.returncode == 0 and "no round with a person's vote is waiting" in again.stdout
    # Every verdict is the planned one, stored beside the person's vote and never as one.
    assert {r.m: r.outcome for r in judged} == {m: plan[1] for m, plan in planned.items()}
    assert not any(r.recorded for r in judged)
    assert votes_after == votes_before

    kappa, std_error = _hand_kappa()
    assert everything["n"] == 12 and everything["skips"] == 1
    assert everything["judges"] == ["Fake Judge"]
    assert everything["labels"] == ["A", "B", "tie", "both_bad"]
    assert everything["matrix"] == MATRIX
    assert everything["agreement"] == pytest.approx(8 / 12)
    assert everything["kappa"] == pytest.approx(kappa)
    assert everything["kappaStdError"] == pytest.approx(std_error)
    assert everything["kappaInterval"] == pytest.approx(
        {"lower": kappa - Z * std_error, "upper": kappa + Z * std_error}
    )
    assert everything["confidenceLevel"] == 0.95
    # People's board: Beta above Alpha; the judge's: Alpha above Beta.
    assert everything["tau"] == -1.0 and everything["tauModels"] == 2

    # Coding: n = 5, po = 4/5, rows (2, 2, 1, 0)/5, columns (3, 1, 1, 0)/5, pe = 9/25,
    # κ = (4/5 - 9/25)/(16/25) = 11/16; A + B - C = 607/1280 + 9/1280 - 529/1600 = 241/1600;
    # SE = √(241/1600)/(16/25 · √5); the interval's top is clipped to 1.
    coding_error = math.sqrt(241 / 1600) / (16 / 25 * math.sqrt(5))
    assert coding_only["category"] == "coding" and coding_only["n"] == 5
    assert coding_only["matrix"] == CODING_MATRIX and coding_only["skips"] == 0
    assert coding_only["agreement"] == pytest.approx(4 / 5)
    assert coding_only["kappa"] == pytest.approx(11 / 16)
    assert coding_only["kappaStdError"] == pytest.approx(coding_error)
    assert coding_only["kappaInterval"] == pytest.approx(
        {"lower": 11 / 16 - Z * coding_error, "upper": 1.0}
    )
    assert coding_only["tau"] is None and coding_only["tauModels"] == 0


async def test_with_no_round_judged_the_agreement_is_empty(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _arena(db, database_url, tmp_path) as (arena, env):
        started, _ = await _round(arena, "Describe a sunset [judge: tie]")
        assert (await arena.vote(started, "left")).status_code == 200
        read = (await arena.client.get("/api/arena/analytics/judge-agreement")).json()
        skipped = await _backfill(env, "--limit", "5", "--category", "math", "--yes")

    assert read["n"] == 0 and read["matrix"] == [[0] * 4] * 4
    assert read["agreement"] is None and read["kappa"] is None
    assert read["kappaInterval"] is None and read["tau"] is None
    assert skipped.returncode == 0
    assert "no round in math with a person's vote is waiting" in skipped.stdout


@pytest.mark.parametrize(
    ("query", "details"),
    [
        pytest.param(
            "category=cooking",
            {"category": [re.compile(r"must be one of coding, .*language:<code>")]},
            id="unknown-category",
        ),
        pytest.param(
            "category=language:",
            {"category": [re.compile(r"must be one of")]},
            id="language-without-code",
        ),
    ],
)
async def test_a_bad_cut_of_the_agreement_is_refused_with_its_code(
    db: AsyncEngine, database_url: str, tmp_path: Path, query: str, details: Any
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        answer = await arena.client.get(f"/api/arena/analytics/judge-agreement?{query}")

    body = answer.json()
    assert answer.status_code == 400 and body["code"] == "invalid_request"
    assert set(body["details"]) == set(details)
    assert all(
        pattern.search(message)
        for name, patterns in details.items()
        for pattern, message in zip(patterns, body["details"][name], strict=True)
    )
