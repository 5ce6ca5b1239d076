"""How well and how fast the export's scrubber finds personal data and secrets.

Prints, per kind, the recall and precision of ``arena_api.core.scrub.find`` on the labelled
corpus the unit tests keep (``tests/unit/core/scrub_corpus.jsonl``: every span it must find,
and near-misses it must leave alone), then the time to scrub 1,000 answers of about 2 KB each
of three sorts: prose with a little personal data, code, and tables of numbers (the slow case:
every digit group is a phone candidate).

Targets: recall and precision >= 0.95 per kind; < 1 s per 1,000 answers of each sort.

Usage: python benchmarks/scrub.py [--answers 1000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.core.scrub import Scrubber  # noqa: E402
from tests.unit.core.scrub_scores import CORPUS, load_corpus, score  # noqa: E402

TARGET_RATE = 0.95
TARGET_S = 1.0
ANSWER_CHARS = 2_000

_PROSE = (
    "Sure! Here is a summary of the options we discussed. The first plan keeps the current "
    "vendor and renegotiates the contract in March; the second moves to a new provider with "
    "a three-month overlap. If you have questions, write to {email} or call {phone}. "
    "The staging server at {ip} will stay up until the move is done. "
)
_CODE = (
    "def train(model, loader, epochs=10, lr=3e-4):\n"
    "    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)\n"
    "    for epoch in range(epochs):\n"
    "        for step, (x, y) in enumerate(loader):\n"
    "            loss = F.cross_entropy(model(x), y)  # shape (32, 1000)\n"
    "            loss.backward(); opt.step(); opt.zero_grad()\n"
    "            if step % 100 == 0:\n"
    "                print(f'{epoch}:{step} loss={loss.item():.4f}')\n"
)
_NUMBERS = (
    "| 2024-01-{day:02d} | {a:,} | {b:.3f} | {c} | 1.{day}.0 | 12:{day:02d}:45 | #{order} |\n"
)


def _answers(sort: str, count: int, rng: random.Random) -> list[str]:
    answers = []
    for _ in range(count):
        parts: list[str] = []
        while sum(map(len, parts)) < ANSWER_CHARS:
            if sort == "prose":
                parts.append(
                    _PROSE.format(
                        email=f"user{rng.randrange(10**4)}@example.com",
                        phone=f"+1 415 555 {rng.randrange(100, 200):04d}",
                        ip=f"203.0.113.{rng.randrange(1, 255)}",
                    )
                )
            elif sort == "code":
                parts.append(_CODE)
            else:
                parts.append(
                    _NUMBERS.format(
                        day=rng.randrange(1, 29),
                        a=rng.randrange(10**6, 10**9),
                        b=rng.random() * 1000,
                        c=rng.randrange(10**4),
                        order=rng.randrange(10**9, 10**10),
                    )
                )
        answers.append("".join(parts)[:ANSWER_CHARS])
    return answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=1_000)
    args = parser.parse_args()

    scores = score(load_corpus())
    ok = True
    print(f"corpus {CORPUS.relative_to(ROOT)}")
    print(f"  {'kind':<8}{'spans':>7}{'found':>7}{'wrong':>7}{'recall':>9}{'precision':>11}")
    for kind, row in scores.items():
        met = row.recall >= TARGET_RATE and row.precision >= TARGET_RATE
        ok &= met
        print(
            f"  {kind:<8}{row.expected:>7}{row.true_positives:>7}{row.false_positives:>7}"
            f"{row.recall:>9.3f}{row.precision:>11.3f}  {'ok' if met else 'UNDER'}"
        )
    print(f"\n{args.answers:,} answers of {ANSWER_CHARS:,} characters")
    rng = random.Random(7)
    for sort in ("prose", "code", "numbers"):
        answers = _answers(sort, args.answers, rng)
        scrubber = Scrubber()
        started = time.perf_counter()
        for answer in answers:
            scrubber.text(answer)
        seconds = time.perf_counter() - started
        per_thousand = seconds * 1_000 / args.answers
        met = per_thousand < TARGET_S
        ok &= met
        print(
            f"  {sort:<8}{seconds:>8.2f} s  {per_thousand:>6.2f} s per 1,000  "
            f"{'ok' if met else 'OVER'}  ({scrubber.summary()})"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
