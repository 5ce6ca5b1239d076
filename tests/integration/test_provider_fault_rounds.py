"""Every fault a model endpoint can have, played through real rounds of a real server.

One server, whose roster puts a faulty model of each fault on each vendor's fake (OpenAI's
chat-completions SSE, Gemini's SSE, Ollama's NDJSON; a refused connection through an
OpenAI-compatible endpoint on a port where nothing listens) beside a healthy model. Every round
(a named round: the faulty model answers in slot A, the healthy one in slot B) runs at once; then
each is checked: slot A ends in a ``slot_error`` with the fault's stable code, slot B streams to
its end, the round registry is empty and the fake saw its streams closed. Retries before the
first token are checked on the same run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.slot_errors import SLOT_ERROR_MESSAGES
from arena_api.db.tables import metadata
from arena_api.roster import Roster, RosterModel
from tests.fakes import gemini_server, ollama_server, openai_server
from tests.fakes._recording import Recorder
from tests.integration.arena_harness import serve_arena
from tests.support import ServerThread, free_port

SLOT_TIMEOUT_S = 2.0
HEALTHY = "healthy--ok"
HEALTHY_TEXT = "Hello from the fake."
VENDORS = ("openai", "google", "ollama")
RELEASE_WAIT_S = 5.0


@dataclass(frozen=True)
class Fault:
    """What a fault must end in: its code, the text shown before it, whether it was retried."""

    code: str
    shown: str = ""
    is_retried: bool = False
    #: The product, not the fake, ends the stream: the fake must see its client hang up.
    is_hung_up_on: bool = False


FAULTS = {
    "rate-limited": Fault("provider_rate_limited", is_retried=True),
    "rate-limited-retry-after": Fault("provider_rate_limited", is_retried=True),
    "server-error": Fault("provider_unavailable", is_retried=True),
    "bad-gateway": Fault("provider_unavailable", is_retried=True),
    "unavailable": Fault("provider_unavailable", is_retried=True),
    "no-such-model": Fault("provider_rejected"),
    "reset": Fault("provider_reset", is_retried=True),
    "reset-after-token": Fault("provider_reset", shown="Hello"),
    "disconnect": Fault("provider_reset", shown="Hello from"),
    "malformed": Fault("provider_bad_response"),
    "garbage": Fault("provider_bad_response", shown="Hello"),
    "truncated": Fault("provider_bad_response", shown="Hello from"),
    "html": Fault("provider_bad_response"),
    "error-line": Fault("provider_error", shown="Hello"),
    "silent": Fault("provider_timeout", is_hung_up_on=True),
    "stall": Fault("provider_timeout", shown="Hello", is_hung_up_on=True),
    "drip": Fault("provider_timeout", shown="Hello", is_hung_up_on=True),
    "oversized": Fault("provider_too_large", shown="Hello", is_hung_up_on=True),
}
GEMINI_ONLY = {"blocked": Fault("provider_refused")}
RECOVERING = ("unavailable-twice", "reset-twice", "rate-limited-retry-after-once")
REFUSED = "refused--ok"

Frames = list[tuple[str, dict[str, Any]]]


@dataclass
class Round:
    status: int
    frames: Frames
    seconds: float

    def of(self, kind: str, slot: str | None = None) -> list[dict[str, Any]]:
        return [d for n, d in self.frames if n == kind and slot in (None, d.get("slot"))]

    def text(self, slot: str) -> str:
        return "".join(d["token"] for d in self.of("token", slot))


@dataclass
class Run:
    rounds: dict[str, Round]  # by the faulty model's provider model id
    recorders: dict[str, Recorder]
    running_rounds: int
    open_tasks: int
    metrics: str
    stored: dict[str, tuple[str, str | None, int | None]]  # pmid -> (content, error, ttft_ms)


def _pmid(vendor: str, behaviour: str) -> str:
    return f"{vendor}-faulty--{behaviour}"


def _cases() -> Iterator[tuple[str, str]]:
    for vendor in VENDORS:
        for behaviour in FAULTS:
            yield vendor, behaviour
    for behaviour in GEMINI_ONLY:
        yield "google", behaviour


def _roster() -> Roster:
    entries = [("Healthy", "openai", HEALTHY), ("Refused", "vllm", REFUSED)]
    for vendor, behaviour in _cases():
        entries.append((f"{vendor} {behaviour}", vendor, _pmid(vendor, behaviour)))
    for vendor in VENDORS:
        for behaviour in RECOVERING:
            entries.append((f"{vendor} {behaviour}", vendor, _pmid(vendor, behaviour)))
    return Roster(
        models=tuple(
            RosterModel(display_name=name, provider=provider, provider_model_id=pmid)  # type: ignore[arg-type]
            for name, provider, pmid in entries
        )
    )


async def _until(condition: Callable[[], bool], timeout_s: float = RELEASE_WAIT_S) -> None:
    """Wait until ``condition`` holds (polled; the caller asserts on it after)."""
    deadline = time.monotonic() + timeout_s
    while not condition() and time.monotonic() < deadline:  # noqa: ASYNC110 (no event to await)
        await asyncio.sleep(0.05)


@pytest.fixture(scope="module")
def fakes() -> Iterator[dict[str, tuple[str, Recorder]]]:
    """The three fake vendors: key -> (url, recorder)."""
    apps = {"openai": openai_server, "google": gemini_server, "ollama": ollama_server}
    recorders = {key: Recorder() for key in apps}
    servers = {
        key: ServerThread(m.create_app(recorders[key]), free_port()) for key, m in apps.items()
    }
    for server in servers.values():
        server.__enter__()
    try:
        yield {key: (servers[key].url, recorders[key]) for key in apps}
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)


@pytest.fixture(scope="module")
async def run(
    engine: AsyncEngine,
    database_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    fakes: dict[str, tuple[str, Recorder]],
) -> AsyncIterator[Run]:
    """Every faulty model's round, all at once, and what was left behind."""
    async with engine.begin() as conn:
        tables = ", ".join(table.name for table in metadata.sorted_tables)
        await conn.execute(text(f"TRUNCATE {tables} CASCADE"))
    env = {
        "OPENAI_BASE_URL": f"{fakes['openai'][0]}/v1",
        "OPENAI_API_KEY": "sk-test",
        "GOOGLE_BASE_URL": fakes["google"][0],
        "GOOGLE_API_KEY": "test-key",
        "OLLAMA_BASE_URL": fakes["ollama"][0],
        "VLLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",  # nothing listens there
        "ARENA_SLOT_TIMEOUT_S": str(SLOT_TIMEOUT_S),
        "ARENA_PROVIDER_RETRIES": "2",
        "ARENA_MOCK_PROVIDER": "0",
    }
    tmp_path = tmp_path_factory.mktemp("fault-rounds")
    async with serve_arena(engine, database_url, tmp_path, roster=_roster(), **env) as arena:
        ids = {
            pmid: model_id
            for model_id, pmid in await arena.rows("SELECT id::text, provider_model_id FROM models")
        }

        async def play(pmid: str) -> Round:
            started = time.monotonic()
            response, frames = await arena.chat(
                prompt="Explain JWTs", mode="named", models=[ids[pmid], ids[HEALTHY]]
            )
            return Round(response.status_code, frames, time.monotonic() - started)

        faulty = [pmid for pmid in ids if pmid != HEALTHY]
        played = await asyncio.wait_for(asyncio.gather(*(play(p) for p in faulty)), timeout=30)
        service = arena.service
        await _until(lambda: service.running_rounds == 0)
        await _until(lambda: all(r.open_streams == 0 for _, r in fakes.values()))
        rows = await arena.rows(
            "SELECT m.provider_model_id, r.content, r.error, r.ttft_ms FROM responses r "
            "JOIN models m ON m.id = r.model_id"
        )
        yield Run(
            rounds=dict(zip(faulty, played, strict=True)),
            recorders={key: recorder for key, (_, recorder) in fakes.items()},
            running_rounds=service.running_rounds,
            open_tasks=len(service._tasks),
            metrics=(await arena.client.get("/metrics")).text,
            stored={r[0]: (r[1], r[2], r[3]) for r in rows},
        )


def _check_round(run: Run, pmid: str, fault: Fault) -> None:
    played = run.rounds[pmid]
    errors = played.of("slot_error")

    assert played.status == 200 and played.frames[-1][0] == "matchup_done"
    assert [(e["slot"], e["code"]) for e in errors] == [("A", fault.code)]
    assert fault.code in SLOT_ERROR_MESSAGES
    assert "faulty" not in errors[0]["message"] and pmid not in errors[0]["message"]
    assert sorted(d["slot"] for d in played.of("slot_done")) == ["A", "B"]
    assert played.text("A") == fault.shown
    assert played.text("B") == HEALTHY_TEXT  # the other slot streamed on to its end


@pytest.mark.parametrize(
    ("vendor", "behaviour"), [pytest.param(v, b, id=f"{v}-{b}") for v, b in _cases()]
)
def test_a_fault_ends_its_slot_with_its_code_while_the_other_slot_finishes(
    run: Run, vendor: str, behaviour: str
) -> None:
    pmid = _pmid(vendor, behaviour)
    fault = {**FAULTS, **GEMINI_ONLY}[behaviour]

    _check_round(run, pmid, fault)

    recorder = run.recorders[vendor]
    assert run.stored[pmid][1] is not None and run.stored[HEALTHY][1] is None
    assert recorder.open_by_model.get(pmid, 0) == 0
    if fault.is_hung_up_on:
        assert pmid in recorder.disconnected_models
    requests = recorder.requests_for(pmid)
    assert requests >= 2 if fault.is_retried else requests == 1


def test_a_refused_connection_ends_its_slot_as_unreachable_after_its_retries(run: Run) -> None:
    _check_round(run, REFUSED, Fault("provider_unreachable"))

    # Two jittered waits (at least 0.25 s and 0.5 s) came before the error.
    assert run.rounds[REFUSED].seconds >= 0.75


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("behaviour", ["silent", "stall", "drip"])
def test_a_stall_and_a_drip_end_by_the_slot_timeout(run: Run, vendor: str, behaviour: str) -> None:
    """Ended by the slot timeout, not by the fake (whose next token was 4 s or 30 s away)."""
    pmid = _pmid(vendor, behaviour)

    _, error, _ = run.stored[pmid]

    assert error == f"no output for {SLOT_TIMEOUT_S:g} s; the slot timed out"
    assert run.rounds[pmid].seconds >= SLOT_TIMEOUT_S


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("behaviour", ["unavailable-twice", "reset-twice"])
def test_two_failures_before_the_first_token_are_retried_and_the_slot_streams_normally(
    run: Run, vendor: str, behaviour: str
) -> None:
    pmid = _pmid(vendor, behaviour)
    played = run.rounds[pmid]

    assert played.of("slot_error") == []
    assert played.text("A") == HEALTHY_TEXT and played.text("B") == HEALTHY_TEXT
    assert run.recorders[vendor].requests_for(pmid) == 3


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_retry_after_of_one_second_is_waited_before_the_answer(run: Run, vendor: str) -> None:
    pmid = _pmid(vendor, "rate-limited-retry-after-once")

    _, error, ttft_ms = run.stored[pmid]

    assert error is None and run.rounds[pmid].text("A") == HEALTHY_TEXT
    assert run.recorders[vendor].requests_for(pmid) == 2
    assert ttft_ms is not None and ttft_ms >= 1000


def test_nothing_is_left_running_after_the_rounds(run: Run) -> None:
    assert run.running_rounds == 0 and run.open_tasks == 0
    assert all(recorder.open_streams == 0 for recorder in run.recorders.values())
    timeouts = sum(
        sample.value
        for family in text_string_to_metric_families(run.metrics)
        for sample in family.samples
        if sample.name == "arena_slot_errors_total"
        and sample.labels.get("provider") == "openai"
        and sample.labels.get("kind") == "timeout"
    )
    assert timeouts == 3.0  # silent, stall, drip
