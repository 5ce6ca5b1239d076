"""Snapshots of every summary table in the manifest, for comparing triggers with a recount."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pytest

from arena_api.db.read_model import SUMMARIES

__all__ = ["KEYS", "Snapshot", "snapshot", "assert_same"]

#: The columns that key a summary row (the rest are its counters and sums).
KEYS = frozenset(
    {
        "category",
        "model_id",
        "slot_a_model_id",
        "slot_b_model_id",
        "model_lo",
        "model_hi",
        "method",
        "metric",
        "value_ms",
        "bucket",
        "bucket_start",
        "day",
    }
)

#: table -> row key -> the row's counters (column -> value)
Snapshot = dict[str, dict[tuple[tuple[str, Any], ...], dict[str, Any]]]


class _Fetcher(Protocol):
    async def fetch(self, query: str, /) -> list[Mapping[str, Any]]: ...


async def snapshot(conn: _Fetcher) -> Snapshot:
    """Every summary's rows by key. A trigger leaves a row at zero where a recount writes none,
    so rows whose integer counters are all zero are left out."""
    result: Snapshot = {}
    for summary in SUMMARIES:
        rows: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
        for row in await conn.fetch(f"SELECT * FROM {summary.table}"):
            counters = {k: v for k, v in row.items() if k not in KEYS}
            if not any(v for v in counters.values() if type(v) is int):
                continue
            rows[tuple(sorted((k, v) for k, v in row.items() if k in KEYS))] = counters
        result[summary.table] = rows
    return result


def assert_same(maintained: Snapshot, recounted: Snapshot) -> None:
    """The two snapshots hold the same rows, floats equal up to rounding."""
    for table, rows in recounted.items():
        assert maintained[table].keys() == rows.keys(), table
        for key, counters in rows.items():
            expected = {
                k: pytest.approx(v, rel=1e-9, abs=1e-6) if isinstance(v, float) else v
                for k, v in counters.items()
            }
            assert maintained[table][key] == expected, (table, key)
