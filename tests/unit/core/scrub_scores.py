"""Recall and precision of the scrubber on its labelled corpus (the test and the benchmark).

Each line of ``scrub_corpus.jsonl`` is ``{"text", "expect", "note"?}``: ``expect`` lists every
span that must be found as ``[kind, value]`` in order of appearance (``[kind, value, n]`` skips
the first ``n`` further occurrences of ``value``, when an earlier one must not be found); a
record with an empty ``expect`` is a near-miss, and anything found in it is a false positive.
A finding counts only with its exact span and kind.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_api.core.scrub import KINDS, Kind, find

CORPUS = Path(__file__).with_name("scrub_corpus.jsonl")

Span = tuple[Kind, int, int]


@dataclass(frozen=True)
class Record:
    text: str
    expected: frozenset[Span]
    note: str | None


@dataclass(frozen=True)
class Score:
    expected: int
    true_positives: int
    false_positives: int

    @property
    def recall(self) -> float:
        return self.true_positives / self.expected if self.expected else 1.0

    @property
    def precision(self) -> float:
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else 1.0


def _spans(text: str, expect: list[list[Any]]) -> frozenset[Span]:
    spans: set[Span] = set()
    next_from: dict[str, int] = {}
    for kind, value, *skip in expect:
        start = next_from.get(value, 0)
        for _ in range(skip[0] if skip else 0):
            start = text.index(value, start) + 1
        at = text.index(value, start)  # ValueError: the record names text it does not have
        next_from[value] = at + 1
        spans.add((kind, at, at + len(value)))
    return frozenset(spans)


def load_corpus(path: Path = CORPUS) -> list[Record]:
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        records.append(Record(raw["text"], _spans(raw["text"], raw["expect"]), raw.get("note")))
    return records


def found_spans(record: Record) -> frozenset[Span]:
    return frozenset((f.kind, f.start, f.end) for f in find(record.text))


def score(records: list[Record]) -> dict[Kind, Score]:
    """Per kind, in ``KINDS`` order: spans expected, found right, found wrongly."""
    expected = dict.fromkeys(KINDS, 0)
    right = dict.fromkeys(KINDS, 0)
    wrong = dict.fromkeys(KINDS, 0)
    for record in records:
        found = found_spans(record)
        for kind, _, _ in record.expected:
            expected[kind] += 1
        for kind, _, _ in found & record.expected:
            right[kind] += 1
        for kind, _, _ in found - record.expected:
            wrong[kind] += 1
    return {kind: Score(expected[kind], right[kind], wrong[kind]) for kind in KINDS}
