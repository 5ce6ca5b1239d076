"""UI latency: from a token leaving the model to it being in the arena page, against raw SSE.

A fake OpenAI-compatible model (in this process) streams two answers at 100 tokens/s each, in
paragraphs of 30 tokens as answers come; every token is a stamp of the wall-clock millisecond it
was emitted (counted from the benchmark's start, so that it is about as long as a real token).
The real product (`arena serve`, built UI, embedded PostgreSQL) relays them. In Debian's
chromium:

* UI     a MutationObserver on the two answer panes notes when each stamp appears in the DOM;
* raw    a plain ``fetch`` reader on ``POST /api/arena/chat`` (native SSE) in the same page notes
         when each stamp arrives;
* floor  the same reader appending each token to a plain ``div``, noted by the same observer:
         what showing tokens costs a page that does nothing else, in the arena page and in a
         blank one (an empty document on the server's origin, given by the browser's request
         interception: the server's own non-UI documents forbid scripts). No UI can beat the
         blank page's figure: it pays only the browser's frames, which the raw reader never
         waits for.

Both latencies are ``now - stamp`` on the same machine clock, to 0.1 ms (a whole millisecond
would be a third of the raw figure). Also the arena page's first load, cold (new browser
context) with the built frontend.

Usage: python benchmarks/ui_latency.py [--tokens 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from playwright.async_api import Page, async_playwright
from playwright.async_api import Route as Interception
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_app.build import ensure_frontend, reflex_env  # noqa: E402
from tests.support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    ProductProcess,
    ServerThread,
    free_port,
)

# Stamps count milliseconds from here, so that a token is about as long as a real one.
EPOCH_MS = int(time.time() * 1000)
PARAGRAPH_TOKENS = 30


def stamping_model(tokens: int, rate: float) -> Starlette:
    """OpenAI chat-completions SSE whose every token is ``⟦seq:ms⟧`` (ms since ``EPOCH_MS``, to
    0.1 ms), in paragraphs of ``PARAGRAPH_TOKENS`` tokens, as answers come."""

    async def completions(request: Request) -> StreamingResponse:
        body = await request.json()

        async def stream() -> AsyncIterator[bytes]:
            started = time.monotonic()
            for seq in range(tokens):
                await asyncio.sleep(max(0.0, started + seq / rate - time.monotonic()))
                gap = "\n\n" if seq % PARAGRAPH_TOKENS == PARAGRAPH_TOKENS - 1 else " "
                text = f"⟦{seq}:{time.time() * 1000 - EPOCH_MS:.1f}⟧{gap}"
                chunk = {
                    "id": "chatcmpl-bench",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": body["model"],
                    "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
                }
                yield f"data: {json.dumps(chunk)}\n\n".encode()
            done = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            yield f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode()

        return StreamingResponse(stream(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


@contextlib.contextmanager
def product(model_url: str, data_dir: Path) -> Iterator[str]:
    roster = data_dir / "models.yaml"
    roster.write_text(
        "models:\n"
        "  - {display_name: Left, provider: openai, provider_model_id: left}\n"
        "  - {display_name: Right, provider: openai, provider_model_id: right}\n"
    )
    env = {
        "ARENA_DATA_DIR": str(data_dir),
        "ARENA_MODELS_FILE": str(roster),
        "OPENAI_BASE_URL": f"{model_url}/v1",
        "OPENAI_API_KEY": "sk-bench",
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_RATING_WORKER": "off",
        "DATABASE_URL": "",
    }
    server = ProductProcess(reflex_env({**os.environ, **env}), free_port(), data_dir / "serve.log")
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


OBSERVE = """() => {
  window.__latencies = [];
  // The page says when it has seen enough stamps (no poller runs beside the stream).
  let wanted = Infinity;
  let reached = () => {};
  window.__reach = (count) => new Promise((resolve) => { wanted = count; reached = resolve; });
  const seen = new Set();
  const stamp = /⟦(\\d+):([\\d.]+)⟧/g;
  // What the observer does per word is kept small and alike for every page it watches: a
  // growing text node is read from where it was last read (less a stamp's length), and each
  // node's pane is looked up once.
  const panes = new WeakMap();  // node -> the testid of its pane, or ''
  const read = new WeakMap();  // text node -> how much of its text was read
  const note = (node, now) => {
    let pane = panes.get(node);
    if (pane === undefined) {
      const element = node.nodeType === 1 ? node : node.parentElement;
      pane = element?.closest('[data-testid^=pane-]')?.dataset.testid || '';
      panes.set(node, pane);
    }
    if (!pane) return;
    const text = node.textContent || '';
    let from = 0;
    if (node.nodeType === 3) {
      const before = read.get(node) || 0;
      if (text.length >= before) from = Math.max(0, before - 24);
      read.set(node, text.length);
    }
    for (const m of text.slice(from).matchAll(stamp)) {
      const key = pane + m[1];
      if (!seen.has(key)) { seen.add(key); window.__latencies.push(now - EPOCH_MS - Number(m[2])); }
    }
    if (window.__latencies.length >= wanted) reached();
  };
  // Only what changed is read (never layout), so the observer adds little to the page's work.
  new MutationObserver((records) => {
    const now = NOW;
    for (const r of records) {
      if (r.type === 'characterData') note(r.target, now);
      else for (const n of r.addedNodes) note(n, now);
    }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


RAW_SSE = """async () => {
  const latencies = [];
  const response = await fetch('/api/arena/chat', {
    method: 'POST', headers: {'content-type': 'application/json'},
    body: JSON.stringify({prompt: 'raw ' + Math.random()}),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    const now = NOW;
    buffer += decoder.decode(value, {stream: true});
    const frames = buffer.split('\\n\\n');
    buffer = frames.pop();
    for (const frame of frames) {
      const data = frame.split('\\n').find((line) => line.startsWith('data: '));
      if (!frame.startsWith('event: token') || !data) continue;
      const token = JSON.parse(data.slice(6)).token;
      for (const m of token.matchAll(/⟦(\\d+):([\\d.]+)⟧/g)) {
        latencies.push(now - EPOCH_MS - Number(m[2]));
      }
    }
  }
  return latencies;
}"""


# The raw reader, appending each token as text to a div per slot (observed like the panes).
RAW_INTO_DOM = RAW_SSE.replace(
    "const latencies = [];",
    """const latencies = [];
  const divs = {};
  for (const slot of ['A', 'B']) {
    divs[slot] = document.createElement('div');
    divs[slot].dataset.testid = 'pane-floor-' + slot;
    document.body.prepend(divs[slot]);
  }""",
).replace(
    "const token = JSON.parse(data.slice(6)).token;",
    "const event = JSON.parse(data.slice(6)); const token = event.token; "
    "divs[event.slot].append(token);",
)


def _js(script: str) -> str:
    """The script with the stamps' epoch and a clock as fine as the browser gives (0.1 ms)."""
    return script.replace("EPOCH_MS", str(EPOCH_MS)).replace(
        "NOW", "(performance.timeOrigin + performance.now())"
    )


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _blank(route: Interception) -> None:
    await route.fulfill(content_type="text/html", body="<!doctype html><title>blank</title>")


async def _into_div(page: Page) -> list[float]:
    """The latencies of the raw reader appending each token to a plain div in ``page``."""
    await page.evaluate("window.__latencies = []")
    await page.evaluate(_js(RAW_INTO_DOM))
    latencies: list[float] = await page.evaluate("window.__latencies")
    return latencies


async def measure(
    url: str, rounds: int, tokens: int
) -> tuple[list[float], list[float], list[float], list[float], list[float], list[float]]:
    ui: list[float] = []
    late: list[float] = []  # the last tenth of each round: does the page fall behind?
    raw: list[float] = []
    floor: list[float] = []
    blank: list[float] = []
    loads: list[float] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(rounds):
            context = await browser.new_context()  # cold: no cache, no storage
            page = await context.new_page()
            started = time.perf_counter()
            await page.goto(url + "/")
            await page.locator("[data-testid=leaderboard] tbody tr").first.wait_for()
            loads.append(time.perf_counter() - started)
            await page.evaluate(_js(OBSERVE))
            await page.get_by_test_id("prompt").fill(f"ui {time.time()}")
            # Asked before the round starts, so that nothing of Playwright's (an injected script
            # to compile, a poller) runs in the page while it streams: the raw readers have none.
            reached = asyncio.ensure_future(page.evaluate(f"window.__reach({2 * tokens})"))
            await page.get_by_test_id("send").click()
            await asyncio.wait_for(reached, 120)
            latencies = await page.evaluate("window.__latencies")
            ui += latencies
            late += latencies[-len(latencies) // 10 :]
            raw += await page.evaluate(_js(RAW_SSE))
            floor += await _into_div(page)
            # A blank page on the same origin: no React, no styles, no Content-Security-Policy.
            await page.route(url + "/blank", _blank)
            await page.goto(url + "/blank")
            await page.evaluate(_js(OBSERVE))
            blank += await _into_div(page)
            await context.close()
        await browser.close()
    return ui, late, raw, floor, blank, loads


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rate", type=float, default=100)
    args = parser.parse_args()
    ensure_frontend()
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerThread(stamping_model(args.tokens, args.rate), free_port()) as model,
        product(model.url, Path(tmp)) as url,
    ):
        ui, late, raw, floor, blank, loads = asyncio.run(measure(url, args.rounds, args.tokens))
    print(
        f"token to page, two models at {args.rate:g} tokens/s, {args.tokens} tokens each, "
        f"{args.rounds} rounds ({len(ui)} UI and {len(raw)} raw samples)"
    )
    print(f"  {'':<30}{'p50':>8}{'p95':>8}{'p99':>8}  (ms)")
    for name, values in (
        ("arena UI (Reflex, DOM)", ui),
        ("  its last tenth of tokens", late),
        ("raw SSE (browser fetch)", raw),
        ("raw SSE into a plain div", floor),
        ("  the same in a blank page", blank),
    ):
        p50, p95, p99 = (_pct(values, q) for q in (0.5, 0.95, 0.99))
        print(f"  {name:<30}{p50:>8.1f}{p95:>8.1f}{p99:>8.1f}")
    for name, values, why in (
        ("UI", ui, "targets: <= 2x, UI p95 <= 150 ms"),
        ("floor", floor, "a plain div in the arena page"),
        ("blank", blank, "a plain div in a blank page: what any page that shows them pays"),
    ):
        p50, p95 = (_pct(values, q) / max(_pct(raw, q), 0.001) for q in (0.5, 0.95))
        print(f"  ratio {name}/raw: p50 {p50:.2f}x, p95 {p95:.2f}x  ({why})")
    print(
        f"first load of the arena page (cold context, until the leaderboard shows): "
        f"median {statistics.median(loads) * 1000:.0f} ms, max {max(loads) * 1000:.0f} ms "
        "(target < 1500 ms)"
    )


if __name__ == "__main__":
    main()
