"""Framing cost per token event of every wire protocol, against native SSE in the same run.

Each adapter frames the same scripted round (``matchup_started``, N token events alternating
slots A/B with realistic 1-8 character tokens, ``slot_done`` x2, ``matchup_done``, the
trailer); the figure is the time of the whole round divided by N, in microseconds per token
event, the best of ``--repeat`` runs (the least disturbed). A2UI v0.9 re-sends the answer so far
on every token (A2UI replaces a value, it cannot append), so its cost grows with the answer.

Usage: python benchmarks/protocol_framing.py [--tokens N] [--repeat R] [--protocol NAME ...]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from arena_api.core.events import MatchupDone, MatchupStarted, PublicEvent, SlotDone, Token
from arena_api.core.models import Slot
from arena_api.protocols import PROTOCOLS, Protocol, get_protocol

BASELINE = "sse"


def scripted_round(tokens: int, rng: random.Random) -> list[PublicEvent]:
    """A two-slot round with ``tokens`` token events."""
    words = ["the", " arena", " streams", " tokens", ",", " fast", ".", " Models", " answer"]
    events: list[PublicEvent] = [
        MatchupStarted(
            matchup_id="0b7d2f44-7a1e-4f44-9d3c-6f7a5d1e2c3b",
            matchup_token="x" * 180,
            conversation_id="5d9f0e1a-2b3c-4d5e-8f9a-0b1c2d3e4f5a",
            turn_index=0,
            slots=("A", "B"),
            mode="matchup",
            votable=True,
        )
    ]
    slots: tuple[Slot, Slot] = ("A", "B")
    events += [Token(slot=slots[i % 2], token=rng.choice(words)) for i in range(tokens)]
    events += [SlotDone(slot="A"), SlotDone(slot="B"), MatchupDone()]
    return events


def frame_round(protocol: Protocol, events: Sequence[PublicEvent]) -> int:
    """Frame ``events`` with a fresh adapter; the byte count (so nothing is optimised away)."""
    adapter = protocol.new_adapter()
    size = 0
    for event in events:
        size += len(adapter.serialize(event))
    return size + len(adapter.finalize())


def measure(protocol: Protocol, events: Sequence[PublicEvent], tokens: int, repeat: int) -> float:
    """Best-of-``repeat`` microseconds per token event."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        frame_round(protocol, events)
        best = min(best, time.perf_counter() - start)
    return best / tokens * 1e6


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=2000, help="token events per round")
    parser.add_argument("--repeat", type=int, default=30, help="rounds per protocol (best kept)")
    parser.add_argument(
        "--protocol", action="append", help="protocol name or alias (default: all registered)"
    )
    args = parser.parse_args(argv)
    chosen = [get_protocol(name) for name in args.protocol] if args.protocol else list(PROTOCOLS)
    if all(p.name != BASELINE for p in chosen):
        chosen.insert(0, get_protocol(BASELINE))
    events = scripted_round(args.tokens, random.Random(7))

    results = {p.name: measure(p, events, args.tokens, args.repeat) for p in chosen}
    sizes = {p.name: frame_round(p, events) for p in chosen}
    baseline = results[BASELINE]
    print(f"{args.tokens} token events per round, best of {args.repeat} rounds")
    print(f"{'protocol':<12} {'us/token':>9} {'x native':>9} {'bytes/token':>12}")
    for name, micros in results.items():
        print(
            f"{name:<12} {micros:>9.2f} {micros / baseline:>9.2f} "
            f"{sizes[name] / args.tokens:>12.1f}"
        )


if __name__ == "__main__":
    main()
