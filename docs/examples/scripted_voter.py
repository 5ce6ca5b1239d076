"""Play rounds against an arena with a scripted voter, then print the leaderboard.

    pip install ./clients/python
    make run                                       # in another terminal
    python docs/examples/scripted_voter.py --rounds 50 --url http://localhost:3001

The voter reads both answers as they stream and prefers the one with the richer vocabulary
(more distinct words; as rich as each other: both good), the way an eval pipeline with a rule
of its own would. Each round is its own
conversation with a session of its own, as 50 people would play them. The board it prints is
the arena's: wins and losses at once, the Bradley-Terry ratings once the rating process has
refitted (within ``RATING_MIN_INTERVAL_S``, 10 s by default; this script waits for it).
"""

from __future__ import annotations

import argparse
import sys
import time

from arena_client import Arena, ArenaError, Retry, Token

TOPICS = [
    "JSON Web Tokens",
    "the CAP theorem",
    "B-trees",
    "garbage collection",
    "TCP slow start",
    "Bloom filters",
    "consistent hashing",
    "vector clocks",
    "the Raft protocol",
    "TLS 1.3",
    "memoisation",
    "tail calls",
    "copy-on-write",
    "the borrow checker",
    "SIMD",
    "branch prediction",
    "CRDTs",
    "backpressure",
    "idempotency keys",
    "rate limiting",
    "OAuth PKCE",
    "database indexes",
    "MVCC",
    "write-ahead logs",
    "event sourcing",
]
ASKS = ["Explain {} to a new engineer.", "What problem does {} solve, in one paragraph?"]


def prompts(count: int) -> list[str]:
    every = [ask.format(topic) for ask in ASKS for topic in TOPICS]
    return [every[i % len(every)] for i in range(count)]


def choose(left: str, right: str) -> str:
    """The scripted voter: the answer with more distinct words wins."""
    a, b = len(set(left.lower().split())), len(set(right.lower().split()))
    return "both_good" if a == b else ("left" if a > b else "right")


def play(arena: Arena, rounds: int) -> None:
    for number, prompt in enumerate(prompts(rounds), start=1):
        round_ = arena.round(prompt)
        tokens = sum(isinstance(event, Token) for event in round_)  # the live stream
        try:
            round_.wait()
        except ArenaError as exc:  # a failed round (run_error): nothing to vote on
            print(f"{number:3d}  {exc}")
            continue
        outcome = choose(round_.left, round_.right)
        reveal = round_.vote(outcome)
        a, b = reveal.models.a.display_name, reveal.models.b.display_name
        print(f"{number:3d}  {tokens:4d} tokens  {outcome:9s}  A={a}  B={b}")


def board(arena: Arena, votes: int, wait: float) -> None:
    deadline = time.monotonic() + wait
    view = arena.leaderboard()
    # The ratings come from the rating process a few seconds after the votes.
    while any(e.total_votes and e.rating is None for e in view.models) and (
        time.monotonic() < deadline
    ):
        time.sleep(1)
        view = arena.leaderboard()
    print(f"\nLeaderboard (people's votes; {votes} played here)")
    print(f"{'#':>3}  {'model':24s} {'rating':>8} {'95% CI':>17} {'W-L-T':>10} {'win %':>6}")
    for entry in view.models:
        ci = entry.confidence_interval
        rating = f"{entry.rating:8.1f}" if entry.rating is not None else "       -"
        interval = f"{ci.lower:7.1f} - {ci.upper:7.1f}" if ci else " " * 17
        record = f"{entry.wins}-{entry.losses}-{entry.ties}"
        rank = entry.rank if entry.rank is not None else "-"
        print(
            f"{rank!s:>3}  {entry.display_name:24s} {rating} {interval} {record:>10} "
            f"{entry.win_rate * 100:6.1f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://localhost:3001")
    parser.add_argument("--token", default=None, help="an API token, if the arena needs one")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--wait", type=float, default=60, help="seconds to wait for ratings")
    args = parser.parse_args()
    # Retry: a rate-limited arena is waited out, as its Retry-After says.
    with Arena(args.url, args.token, retry=Retry()) as arena:
        health = arena.health()
        print(f"Arena {health.version} at {args.url}: {health.status}")
        play(arena, args.rounds)
        board(arena, args.rounds, args.wait)
    return 0


if __name__ == "__main__":
    sys.exit(main())
