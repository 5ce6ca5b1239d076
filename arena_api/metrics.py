"""Prometheus metrics of one server process (``GET /metrics``; ``ARENA_METRICS_TOKEN`` guards it).

Every metric lives in the process's own ``CollectorRegistry`` (not the library's global one),
created with the services, so several apps in one process (the tests) never collide. Counters
only grow over the process's lifetime. Models are labelled by display name: ``/metrics`` is an
operator's endpoint, never a voter's. One granian worker serves the arena; several would need
``prometheus_client``'s multiprocess mode.
"""

from __future__ import annotations

from datetime import UTC, datetime

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from arena_api.core.arena import STOPPED
from arena_api.core.breaker import BreakerChange
from arena_api.core.events import SlotResult
from arena_api.core.ports import RatingPassRecord

__all__ = ["CONTENT_TYPE_LATEST", "ArenaMetrics", "error_kind"]

_LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300)


def error_kind(error: str | None) -> str | None:
    """A slot error's kind: ``stopped``, ``timeout`` or ``provider``; None when it succeeded."""
    if error is None:
        return None
    if error == STOPPED:
        return "stopped"
    return "timeout" if "timed out" in error else "provider"


class ArenaMetrics:
    """The server's metrics; also the arena's ``RoundObserver``."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "arena_http_requests",
            "HTTP requests by route and status.",
            ["route", "status"],
            registry=r,
        )
        self.rounds = Counter(
            "arena_rounds",
            "Rounds started by mode, plan and protocol.",
            ["mode", "plan", "protocol"],
            registry=r,
        )
        self.votes = Counter(
            "arena_votes",
            "Votes recorded by outcome, method (human or judge) and source (core.votes).",
            ["outcome", "method", "source"],
            registry=r,
        )
        self.slot_errors = Counter(
            "arena_slot_errors",
            "Answers that ended in an error, by provider, model and kind (against "
            "arena_answer_duration_seconds_count{model}: a model's error rate).",
            ["provider", "model", "kind"],
            registry=r,
        )
        self.ttft = Histogram(
            "arena_time_to_first_token_seconds",
            "Time to an answer's first token, per model.",
            ["model"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.duration = Histogram(
            "arena_answer_duration_seconds",
            "Time an answer streamed, per model.",
            ["model"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.tokens = Counter(
            "arena_output_tokens",
            "Output tokens per model (provider-reported or estimated).",
            ["model"],
            registry=r,
        )
        self.input_tokens = Counter(
            "arena_input_tokens",
            "Input (prompt) tokens per model (provider-reported or estimated).",
            ["model"],
            registry=r,
        )
        self.cost = Counter(
            "arena_cost_usd",
            "What answers cost in US dollars, per model (models with prices only).",
            ["model"],
            registry=r,
        )
        self.joins = Counter(
            "arena_slot_joins", "Slot-join attempts by how they ended.", ["outcome"], registry=r
        )
        self.control = Counter(
            "arena_control_actions",
            "Control-plane actions by kind and whether accepted.",
            ["action", "accepted"],
            registry=r,
        )
        self.rate_limited = Counter(
            "arena_rate_limited",
            "Requests refused by ARENA_RATE_LIMIT, by route group.",
            ["group"],
            registry=r,
        )

        self.database_up = Gauge(
            "arena_database_up",
            "1 if the database answered when /metrics was read, 0 if it could not be reached.",
            registry=r,
        )
        self.model_paused = Gauge(
            "arena_model_paused",
            "1 while the circuit breaker keeps the model out of matchmaking after repeated "
            "failures, 0 once it answers again.",
            ["model"],
            registry=r,
        )
        self.rating_seconds = Gauge(
            "arena_rating_pass_seconds",
            "How long the rating process's latest pass took.",
            registry=r,
        )
        self.rating_fit_age = Gauge(
            "arena_rating_last_fit_age_seconds",
            "Seconds since the latest fit was written.",
            registry=r,
        )
        self.rating_votes_excluded = Gauge(
            "arena_rating_votes_excluded",
            "Votes the anomaly screen left out of the latest pass.",
            registry=r,
        )
        self.rating_sessions_excluded = Gauge(
            "arena_rating_sessions_excluded",
            "Sessions the anomaly screen flagged in the latest pass.",
            registry=r,
        )
        self.rating_votes_filtered = Gauge(
            "arena_rating_votes_filtered",
            "Votes the filters before the fit left out of the latest pass, by reason.",
            ["reason"],
            registry=r,
        )

    def render(
        self, rating: RatingPassRecord | None = None, *, database_up: bool | None = None
    ) -> bytes:
        """The exposition; ``rating``: the rating process's latest pass (read from the database
        at scrape time, since that process is not this one); ``database_up``: whether the
        database answered just now (``None``: not checked)."""
        unknown = float("nan")  # no pass yet: not a number, never a misleading 0
        self.database_up.set(unknown if database_up is None else float(database_up))
        self.rating_seconds.set(rating.seconds if rating else unknown)
        self.rating_votes_excluded.set(rating.votes_excluded if rating else unknown)
        self.rating_sessions_excluded.set(rating.sessions_excluded if rating else unknown)
        for reason, filtered in (
            ("identity_leak", rating.votes_identity_leaks if rating else unknown),
            ("duplicate_prompt", rating.votes_duplicates if rating else unknown),
        ):
            self.rating_votes_filtered.labels(reason).set(filtered)
        fit = rating.last_fit_at if rating else None
        age = (datetime.now(UTC) - fit).total_seconds() if fit else unknown
        self.rating_fit_age.set(max(0.0, age) if fit else unknown)
        return generate_latest(self.registry)

    # -- RoundObserver ---------------------------------------------------------------------------

    def breaker_changed(self, change: BreakerChange) -> None:
        """A model paused or resumed by the circuit breaker (one of its listeners)."""
        self.model_paused.labels(change.model.display_name).set(change.state == "paused")

    def round_started(self, mode: str, plan: str, protocol: str) -> None:
        self.rounds.labels(mode, plan, protocol).inc()

    def slot_finished(self, provider: str, model: str, result: SlotResult) -> None:
        kind = error_kind(result.error)
        if kind is not None:
            self.slot_errors.labels(provider, model, kind).inc()
        if result.ttft_ms is not None:
            self.ttft.labels(model).observe(result.ttft_ms / 1000)
        self.duration.labels(model).observe(result.stream_duration_ms / 1000)
        self.tokens.labels(model).inc(result.output_token_count)
        self.input_tokens.labels(model).inc(result.input_token_count)
        if result.cost_usd is not None:
            self.cost.labels(model).inc(float(result.cost_usd))

    def vote_recorded(self, outcome: str, method: str, source: str) -> None:
        self.votes.labels(outcome, method, source).inc()

    def join_ended(self, outcome: str) -> None:
        self.joins.labels(outcome).inc()

    def control_action(self, action: str, accepted: bool) -> None:
        self.control.labels(action, "true" if accepted else "false").inc()
