"""The Alerts service on a fake sender and clock: changes of state only, a rate limit over every
subject, retries, and reports that never wait."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from arena_api.services.alerts import Alert, Alerts
from tests.fakes.ports import FakeClock


@dataclass
class RecordingSender:
    """Takes every alert; the first ``failures`` attempts raise instead."""

    failures: int = 0
    attempts: int = 0
    sent: list[Alert] = field(default_factory=list)

    async def send(self, alert: Alert) -> None:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise ConnectionError("the receiver is down")
        self.sent.append(alert)

    @property
    def events(self) -> list[tuple[str, str]]:
        return [(alert.event, alert.subject) for alert in self.sent]


class StuckSender:
    """Never answers."""

    async def send(self, alert: Alert) -> None:
        await asyncio.Event().wait()


def _alerts(sender: RecordingSender, *, attempts: int = 4) -> Alerts:
    """Retries at once: the back-off's waits are not what these tests are about."""
    return Alerts(sender, clock=FakeClock(), attempts=attempts, backoff_s=0)


async def test_a_paused_model_is_alerted_once_until_it_resumes() -> None:
    sender = RecordingSender()
    alerts = _alerts(sender)

    async with alerts.running():
        alerts.model_paused("Mock Aurora", failures=5, window=10, cooldown_s=60)
        alerts.model_paused("Mock Aurora", failures=6, window=10, cooldown_s=60)
        alerts.model_resumed("Mock Aurora")
        alerts.model_resumed("Mock Aurora")
        alerts.model_paused("Mock Aurora", failures=5, window=10, cooldown_s=60)

    assert sender.events == [
        ("model_paused", "Mock Aurora"),
        ("model_resumed", "Mock Aurora"),
        ("model_paused", "Mock Aurora"),
    ]


async def test_every_subject_starts_healthy_so_a_first_all_clear_is_not_news() -> None:
    sender = RecordingSender()
    alerts = _alerts(sender)

    async with alerts.running():
        alerts.database_back()
        alerts.model_resumed("Mock Aurora")
        alerts.rating_recovered()

    assert sender.sent == []


async def test_the_database_is_alerted_once_while_it_is_down_and_once_when_back() -> None:
    sender = RecordingSender()
    alerts = _alerts(sender)

    async with alerts.running():
        for _ in range(3):
            alerts.database_unavailable("ConnectionRefusedError: [Errno 111]")
        alerts.database_back()
        alerts.database_back()

    assert sender.events == [("database_unavailable", "database"), ("database_back", "database")]
    assert sender.sent[0].severity == "critical"
    assert sender.sent[0].details == {"reason": "ConnectionRefusedError: [Errno 111]"}


async def test_the_rating_process_is_alerted_from_its_second_failure_in_a_row() -> None:
    sender = RecordingSender()
    alerts = _alerts(sender)

    async with alerts.running():
        alerts.rating_failing(1, "exit status 1")
        alerts.rating_failing(2, "exit status 1")
        alerts.rating_failing(3, "exit status 1")
        alerts.rating_recovered()

    assert sender.events == [
        ("rating_failing", "rating process"),
        ("rating_recovered", "rating process"),
    ]
    assert sender.sent[0].details == {"consecutive": 2, "error": "exit status 1"}


async def test_alerts_beyond_the_rate_limit_are_dropped_until_a_minute_has_passed() -> None:
    sender = RecordingSender()
    clock = FakeClock()
    alerts = Alerts(sender, clock=clock, per_minute=3, backoff_s=0)

    async with alerts.running():
        for n in range(5):
            alerts.model_paused(f"Model {n}", failures=5, window=10, cooldown_s=60)
        clock.advance(60)
        alerts.model_paused("Model 5", failures=5, window=10, cooldown_s=60)

    assert [subject for _, subject in sender.events] == ["Model 0", "Model 1", "Model 2", "Model 5"]


async def test_a_failed_delivery_is_retried() -> None:
    sender = RecordingSender(failures=2)
    alerts = _alerts(sender, attempts=3)

    async with alerts.running():
        alerts.database_unavailable("refused")

    assert sender.attempts == 3
    assert sender.events == [("database_unavailable", "database")]


async def test_an_alert_is_dropped_after_its_last_attempt_and_the_next_still_goes() -> None:
    sender = RecordingSender(failures=3)
    alerts = _alerts(sender, attempts=3)

    async with alerts.running():
        alerts.database_unavailable("refused")
        alerts.database_back()

    assert sender.attempts == 4
    assert sender.events == [("database_back", "database")]


async def test_reports_never_wait_for_a_stuck_receiver_nor_raise_when_the_queue_is_full(
    caplog: pytest.LogCaptureFixture,
) -> None:
    alerts = Alerts(StuckSender(), clock=FakeClock(), queue_size=2)

    async with alerts.running(flush_s=0.01):
        for n in range(10):
            alerts.model_paused(f"Model {n}", failures=5, window=10, cooldown_s=60)

    dropped = [r for r in caplog.records if "waiting already" in r.getMessage()]
    assert len(dropped) == 8


async def test_without_a_sender_alerts_are_only_logged(caplog: pytest.LogCaptureFixture) -> None:
    alerts = Alerts(clock=FakeClock())

    async with alerts.running():
        alerts.database_unavailable("refused")

    assert not alerts.enabled
    assert [r.getMessage() for r in caplog.records] == [
        "alert database_unavailable: The database cannot be reached (refused); rounds and votes "
        "answer 503."
    ]


async def test_the_payload_has_slack_text_and_the_structured_fields() -> None:
    sender = RecordingSender()
    alerts = _alerts(sender)
    async with alerts.running():
        alerts.model_paused("Mock Aurora", failures=5, window=10, cooldown_s=60)

    payload = sender.sent[0].payload()

    assert payload == {
        "text": (
            '[arena warning] Model "Mock Aurora" paused: 5 of its last 10 answers failed; one '
            "round tries it again in 60 s."
        ),
        "event": "model_paused",
        "severity": "warning",
        "subject": "Mock Aurora",
        "at": "2026-01-01T12:00:00+00:00",
        "details": {"failures": 5, "window": 10, "cooldown_s": 60},
    }
