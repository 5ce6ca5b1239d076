"""The Open WebUI front against the arena's own route, on one server in one run.

What an Open WebUI user waits for, each beside the same work done through the native route:

* a duel (``arena-duel`` on ``/v1/chat/completions``) against a native round
  (``POST /api/arena/chat``): time to the first answer token, and rounds/s at 16 concurrent;
* the compare view (``arena-a`` then ``arena-b`` 20 ms later, paired by the chat id) against a
  native joined pair (``joinKey``) sent with the same gap: each column's time to its first
  answer token, from its own request;
* a vote typed as ``!a`` against ``POST /api/arena/vote``.

Served by granian (one worker) over the embedded PostgreSQL, mock models at 50 tokens/s.

Usage: python benchmarks/openwebui_front.py [--rounds 60] [--seconds 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.db.engine import embedded_postgres  # noqa: E402
from benchmarks.arena_stream import _arena_env, _pct, prepare_database, served  # noqa: E402

_HEADING = "### Answer A\n\n"


async def _native(client: httpx.AsyncClient, body: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Time to the first token event, and ``matchup_started``."""
    t0 = time.perf_counter()
    first, started = float("nan"), {}
    async with client.stream("POST", "/api/arena/chat", json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: ") and '"type":"matchup_started"' in line:
                started = json.loads(line[6:])
            elif first != first and line.startswith("data: ") and '"type":"token"' in line:
                first = time.perf_counter() - t0
    return first, started


async def _front(client: httpx.AsyncClient, model: str, chat: str, prompt: str) -> float:
    """Time to the first piece of answer text on ``choices[0]`` (the duel's heading excluded)."""
    t0 = time.perf_counter()
    first = float("nan")
    body = {"model": model, "stream": True, "messages": [{"role": "user", "content": prompt}]}
    headers = {"x-openwebui-chat-id": chat, "x-openwebui-user-id": "bench"}
    async with client.stream("POST", "/v1/chat/completions", json=body, headers=headers) as reply:
        async for line in reply.aiter_lines():
            if first == first or not line.startswith("data: {"):
                continue
            chunk = json.loads(line[6:])
            content = chunk["choices"][0]["delta"].get("content") if chunk["choices"] else None
            if content and content != _HEADING:
                first = time.perf_counter() - t0
    return first


async def _gap(first: Awaitable[Any], second: Callable[[], Awaitable[Any]]) -> list[Any]:
    async def late() -> Any:
        await asyncio.sleep(0.02)
        return await second()

    return list(await asyncio.gather(first, late()))


async def latencies(url: str, rounds: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {k: [] for k in ("native", "duel", "pair", "compare")}
    votes: dict[str, list[float]] = {"vote api": [], "!a": []}
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for index in range(rounds):
            prompt = f"question {index}"
            ttft, started = await _native(client, {"prompt": prompt, "sessionId": "bench"})
            out["native"].append(ttft)
            t0 = time.perf_counter()
            await client.post(
                "/api/arena/vote",
                json={
                    "matchupId": started["matchupId"],
                    "matchupToken": started["matchupToken"],
                    "vote": "left",
                },
            )
            votes["vote api"].append(time.perf_counter() - t0)

            chat = str(uuid.uuid4())
            out["duel"].append(await _front(client, "arena-duel", chat, prompt))
            t0 = time.perf_counter()
            await _front(client, "arena-duel", chat, "!a")
            votes["!a"].append(time.perf_counter() - t0)

            body = {"prompt": prompt, "sessionId": "bench", "joinKey": str(uuid.uuid4())}
            pair = await _gap(_native(client, body), lambda b=body: _native(client, b))
            out["pair"] += [ttft for ttft, _ in pair]
            chat = str(uuid.uuid4())
            columns = await _gap(
                _front(client, "arena-a", chat, prompt),
                lambda c=chat, p=prompt: _front(client, "arena-b", c, p),
            )
            out["compare"] += columns
    return {**out, **votes}


async def throughput(url: str, seconds: float, concurrency: int, duel: bool) -> float:
    done = 0
    deadline = time.perf_counter() + seconds
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:

        async def worker(n: int) -> None:
            nonlocal done
            while time.perf_counter() < deadline:
                if duel:
                    await _front(client, "arena-duel", str(uuid.uuid4()), f"q{n}")
                else:
                    await _native(client, {"prompt": f"q{n}", "sessionId": "bench"})
                done += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker(n) for n in range(concurrency)))
        return done / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=8.0)
    args = parser.parse_args()
    mock = {"ARENA_MOCK_TOKENS_PER_SECOND": "50", "ARENA_MOCK_TOKENS": "10"}
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres(Path(tmp)) as pg:
        asyncio.run(prepare_database(pg.url))
        with served("arena_app", _arena_env(pg.url, Path(tmp), **mock)) as url:
            asyncio.run(latencies(url, 5))  # warm up
            measured = asyncio.run(latencies(url, args.rounds))
            rates = {
                name: asyncio.run(throughput(url, args.seconds, 16, duel))
                for name, duel in (("native", False), ("duel", True), ("native again", False))
            }
    print(f"Open WebUI front vs the native route, {args.rounds} rounds each (ms)")
    print(f"  {'':<40}{'p50':>8}{'p90':>8}{'p99':>8}")
    rows = (
        ("first token, native round", "native"),
        ("first answer token, duel", "duel"),
        ("first token, native joined pair", "pair"),
        ("first answer token, compare column", "compare"),
        ("vote, POST /api/arena/vote", "vote api"),
        ("vote, !a typed in the chat", "!a"),
    )
    for label, key in rows:
        values = measured[key]
        print(
            f"  {label:<40}{_pct(values, 0.5) * 1000:>8.2f}{_pct(values, 0.9) * 1000:>8.2f}"
            f"{_pct(values, 0.99) * 1000:>8.2f}"
        )
    for label, key, base in (
        ("duel / native round", "duel", "native"),
        ("compare column / native joined pair", "compare", "pair"),
        ("!a / vote API", "!a", "vote api"),
    ):
        ratio = _pct(measured[key], 0.5) / _pct(measured[base], 0.5)
        print(f"  ratio at p50, {label}: {ratio:.2f}x")
    print("rounds/s at 16 concurrent")
    for name, rate in rates.items():
        print(f"  {name:<14}{rate:>8.1f}")
    baseline = (rates["native"] + rates["native again"]) / 2
    print(f"  ratio duel / native: {rates['duel'] / baseline:.2f}x")


if __name__ == "__main__":
    main()
