"""The Python client's cost: a played round (stream read, vote) through ``arena_client``
against the same round read by hand with bare httpx, the baseline, in the same run.

One ``arena serve`` (embedded PostgreSQL, rating process off, the mock models streaming as fast
as they can, ``--tokens`` tokens a slot). Each way plays the same number of rounds, one at a
time and then ``--concurrency`` at once (asyncio): the bare way splits the SSE lines and
``json.loads`` each event's data, then votes with the header's token; the client validates
every event into its pydantic model, gathers both answers and votes through ``Round.vote``.
The figures are rounds a second and the client process's CPU per round (user + system), so the
ratio says what typing the stream costs on the caller's side.

Usage: python benchmarks/python_client.py [--rounds 200] [--tokens 120] [--concurrency 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.roster import load_roster  # noqa: E402
from arena_client import Arena, AsyncArena  # noqa: E402
from benchmarks.relay_http import arena_server  # noqa: E402

PROMPT = "Explain consistent hashing to a new engineer."


def bare_round(client: httpx.Client) -> None:
    with client.stream("POST", "/api/arena/chat", json={"prompt": PROMPT}) as answer:
        answer.raise_for_status()
        started = json.loads(answer.headers["x-arena-matchup"])
        text: dict[str, str] = {"A": "", "B": ""}
        for line in answer.iter_lines():
            if line.startswith("data:"):
                event = json.loads(line[5:])
                if event["type"] == "token":
                    text[event["slot"]] += event["token"]
    vote = {"matchupId": started["matchupId"], "matchupToken": started["matchupToken"]}
    client.post("/api/arena/vote", json={**vote, "vote": "left"}).raise_for_status()


async def bare_round_async(client: httpx.AsyncClient) -> None:
    async with client.stream("POST", "/api/arena/chat", json={"prompt": PROMPT}) as answer:
        answer.raise_for_status()
        started = json.loads(answer.headers["x-arena-matchup"])
        text: dict[str, str] = {"A": "", "B": ""}
        async for line in answer.aiter_lines():
            if line.startswith("data:"):
                event = json.loads(line[5:])
                if event["type"] == "token":
                    text[event["slot"]] += event["token"]
    vote = {"matchupId": started["matchupId"], "matchupToken": started["matchupToken"]}
    (await client.post("/api/arena/vote", json={**vote, "vote": "left"})).raise_for_status()


def client_round(arena: Arena) -> None:
    arena.round(PROMPT).wait().vote("left")


async def client_round_async(arena: AsyncArena) -> None:
    await (await (await arena.round(PROMPT)).wait()).vote("left")


def timed(play: Callable[[], None], rounds: int) -> tuple[float, float]:
    """(rounds a second, client CPU ms per round) of ``rounds`` plays one at a time."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(rounds):
        play()
    return rounds / (time.perf_counter() - wall), (time.process_time() - cpu) * 1000 / rounds


async def timed_async(
    play: Callable[[], Awaitable[None]], rounds: int, concurrency: int
) -> tuple[float, float]:
    gate = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with gate:
            await play()

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one() for _ in range(rounds)))
    return rounds / (time.perf_counter() - wall), (time.process_time() - cpu) * 1000 / rounds


def measure(url: str, rounds: int, concurrency: int) -> dict[str, tuple[float, float]]:
    figures: dict[str, tuple[float, float]] = {}
    with httpx.Client(base_url=url, timeout=60) as bare, Arena(url) as arena:
        for _ in range(5):  # warm up both
            bare_round(bare)
            client_round(arena)
        figures["one at a time, bare httpx"] = timed(lambda: bare_round(bare), rounds)
        figures["one at a time, arena_client"] = timed(lambda: client_round(arena), rounds)

    async def concurrent() -> None:
        limits = httpx.Limits(max_connections=concurrency * 2)
        async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as bare:
            figures[f"{concurrency} at once, bare httpx"] = await timed_async(
                lambda: bare_round_async(bare), rounds, concurrency
            )
        async with AsyncArena(
            url, client=httpx.AsyncClient(base_url=url, timeout=60, limits=limits)
        ) as arena:
            figures[f"{concurrency} at once, AsyncArena"] = await timed_async(
                lambda: client_round_async(arena), rounds, concurrency
            )

    asyncio.run(concurrent())
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--tokens", type=int, default=120)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args()
    env = {
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_MOCK_TOKENS": str(args.tokens),
        "ARENA_MOCK_TOKENS_PER_SECOND": "0",
    }
    with arena_server(None, load_roster(ROOT / "models.yaml"), env) as (url, _):
        figures = measure(url, args.rounds, args.concurrency)

    print(
        f"a played round (stream of {args.tokens} tokens a slot, then the vote), "
        f"{args.rounds} rounds each way; client process {os.getpid()}"
    )
    print(f"  {'':<34}{'rounds/s':>10}{'client CPU/round':>18}")
    for name, (rate, cpu) in figures.items():
        print(f"  {name:<34}{rate:>10.1f}{cpu:>15.2f} ms")
    names = list(figures)
    for bare, typed in ((names[0], names[1]), (names[2], names[3])):
        rate = figures[typed][0] / figures[bare][0]
        cpu = figures[typed][1] / figures[bare][1]
        print(f"  {typed}: {rate:.2f}x the bare rounds/s, {cpu:.2f}x its CPU per round")


if __name__ == "__main__":
    main()
