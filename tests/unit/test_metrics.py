"""The metrics the alert rules read (deploy/prometheus/alerts.yml): answers' errors per model,
and whether the database answered at the scrape."""

from __future__ import annotations

import math

from prometheus_client.parser import text_string_to_metric_families

from arena_api.core.events import SlotResult
from arena_api.metrics import ArenaMetrics


def _answer(error: str | None = None) -> SlotResult:
    return SlotResult(
        content="",
        latency_ms=10,
        stream_duration_ms=10,
        output_token_count=0,
        token_count_source="estimated",
        markdown_density=0,
        error=error,
    )


def _samples(exposition: bytes) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(exposition.decode())
        for sample in family.samples
    }


def test_an_answer_that_failed_is_counted_for_its_model_beside_every_answer() -> None:
    metrics = ArenaMetrics()
    metrics.slot_finished("openai", "Model A", _answer("the provider answered 500"))
    metrics.slot_finished("openai", "Model B", _answer())

    samples = _samples(metrics.render())

    errors = frozenset({("provider", "openai"), ("model", "Model A"), ("kind", "provider")})
    assert samples[("arena_slot_errors_total", errors)] == 1
    for model in ("Model A", "Model B"):
        answers = frozenset({("model", model)})
        assert samples[("arena_answer_duration_seconds_count", answers)] == 1


def test_the_database_is_up_or_down_as_checked_at_the_scrape_and_unknown_unchecked() -> None:
    metrics = ArenaMetrics()

    down = _samples(metrics.render(database_up=False))
    up = _samples(metrics.render(database_up=True))
    unchecked = _samples(metrics.render())

    key: tuple[str, frozenset[tuple[str, str]]] = ("arena_database_up", frozenset())
    assert (down[key], up[key]) == (0, 1)
    assert math.isnan(unchecked[key])
