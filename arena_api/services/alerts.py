"""Alerts to the operator's webhook (``ARENA_ALERT_WEBHOOK_URL``): a model paused or resumed, the
rating process failing, the database lost or back.

Whoever reports sits on a path that must not wait: the circuit breaker beside every round, the
database probe behind ``/health``, the thread that supervises the rating process. So a report
never blocks and never raises. It decides in memory whether it is news, and puts at most one
``Alert`` on a bounded queue; one background task (``Alerts.running``) drains that queue through
the ``AlertSender`` port (``arena_api.webhook``'s HTTP adapter). The rules:

* **Changes of state only.** Every subject starts healthy (a model playing, the database
  reachable, the rating process working); a report is sent when it changes that subject's state
  and never twice for the same state, so a database probed every few seconds while it is down
  sends one alert, and one more when it is back.
* **A rate limit over all subjects:** at most ``per_minute`` alerts are queued in any minute; a
  storm (every model of a provider that went down) is cut there. What is cut, or what a full
  queue cannot take, is logged and dropped.
* **Retries:** a failed delivery is retried after ``backoff_s``, then twice that, and so on,
  ``attempts`` times in all; then it is logged and dropped.

Every alert is logged too, sent or not, so the log tells the same story with no webhook set.
Reports are made on the event loop's thread; a plain thread hands them over with
``arena_api.webhook.AlertsThread``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol, TypedDict

from arena_api.core.breaker import BreakerChange
from arena_api.core.clock import SYSTEM_CLOCK, Clock

__all__ = [
    "RATING_FAILURES_TO_ALERT",
    "Alert",
    "AlertPayload",
    "AlertSender",
    "Alerts",
    "Severity",
]

_log = logging.getLogger(__name__)

Severity = Literal["critical", "warning", "info"]
Detail = str | int | float

#: The rating process is reported from its second failure in a row: one crash is restarted
#: quietly, two mean it will not get better by itself.
RATING_FAILURES_TO_ALERT = 2
PER_MINUTE = 10
QUEUE_SIZE = 100
SEND_ATTEMPTS = 4
FIRST_BACKOFF_S = 1.0
#: How long closing waits for queued alerts to go out (a "database back" at shutdown, say).
FLUSH_S = 2.0
_WINDOW_S = 60.0
_HEALTHY = "healthy"
_LOG_LEVELS = {"critical": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO}


class AlertPayload(TypedDict):
    """The JSON body POSTed: ``text`` for Slack-compatible receivers, the rest for machines."""

    text: str
    event: str
    severity: Severity
    subject: str
    at: str
    details: dict[str, Detail]


@dataclass(frozen=True)
class Alert:
    """One change of state worth telling the operator about."""

    event: str
    severity: Severity
    subject: str
    text: str
    at: datetime
    details: Mapping[str, Detail] = field(default_factory=dict)

    def payload(self) -> AlertPayload:
        return AlertPayload(
            text=f"[arena {self.severity}] {self.text}",
            event=self.event,
            severity=self.severity,
            subject=self.subject,
            at=self.at.isoformat(),
            details=dict(self.details),
        )


class AlertSender(Protocol):
    """Delivers one alert (``arena_api.webhook.WebhookSender``)."""

    async def send(self, alert: Alert) -> None:
        """Deliver ``alert``; raise on any failure, which is then retried."""
        ...


class Alerts:
    """The alerts of one process; with no sender (no webhook set) they are only logged.

    Args:
        sender: where alerts go; ``None`` keeps them in the log.
        clock: the rate limit's and the alerts' time.
        per_minute: how many alerts may be queued in any 60 seconds.
        queue_size: how many may wait for delivery.
        attempts: deliveries tried per alert before it is dropped.
        backoff_s: the wait before the first retry; it doubles with each one.
    """

    def __init__(
        self,
        sender: AlertSender | None = None,
        *,
        clock: Clock = SYSTEM_CLOCK,
        per_minute: int = PER_MINUTE,
        queue_size: int = QUEUE_SIZE,
        attempts: int = SEND_ATTEMPTS,
        backoff_s: float = FIRST_BACKOFF_S,
    ) -> None:
        self._sender = sender
        self._clock = clock
        self._per_minute = per_minute
        self._attempts = attempts
        self._backoff_s = backoff_s
        self._queue: asyncio.Queue[Alert] = asyncio.Queue(queue_size)
        self._states: dict[tuple[str, str], str] = {}
        self._queued_at: deque[float] = deque()

    @property
    def enabled(self) -> bool:
        """Whether alerts leave the process (a webhook is set)."""
        return self._sender is not None

    # -- what is reported --------------------------------------------------------------------

    def model_paused(self, model: str, failures: int, window: int, cooldown_s: float) -> None:
        """The circuit breaker took ``model`` out of matchmaking after ``failures`` of its last
        ``window`` answers failed; it is tried again after ``cooldown_s``."""
        self._change(
            ("model", model),
            "paused",
            event="model_paused",
            severity="warning",
            text=(
                f'Model "{model}" paused: {failures} of its last {window} answers failed; '
                f"one round tries it again in {cooldown_s:g} s."
            ),
            details={"failures": failures, "window": window, "cooldown_s": cooldown_s},
        )

    def breaker_changed(self, change: BreakerChange) -> None:
        """The circuit breaker paused or resumed a model (one of its listeners)."""
        name = change.model.display_name
        if change.state == "paused":
            self.model_paused(name, change.failures, change.window, change.cooldown_s)
        else:
            self.model_resumed(name)

    def model_resumed(self, model: str) -> None:
        """``model`` answered again and is back in matchmaking."""
        self._change(
            ("model", model),
            _HEALTHY,
            event="model_resumed",
            severity="info",
            text=f'Model "{model}" resumed: it answered again.',
        )

    def rating_failing(self, consecutive: int, error: str) -> None:
        """The rating process failed ``consecutive`` times in a row (alerted from the second)."""
        if consecutive < RATING_FAILURES_TO_ALERT:
            return
        self._change(
            ("rating", "rating process"),
            "failing",
            event="rating_failing",
            severity="critical",
            text=(
                f"The rating process failed {consecutive} times in a row ({error}); the "
                "leaderboard is not refitted until it runs again."
            ),
            details={"consecutive": consecutive, "error": error},
        )

    def rating_recovered(self) -> None:
        """The rating process has been running healthily again."""
        self._change(
            ("rating", "rating process"),
            _HEALTHY,
            event="rating_recovered",
            severity="info",
            text="The rating process is running again.",
        )

    def database_unavailable(self, reason: str) -> None:
        """The database cannot be reached: rounds and votes answer 503 until it is back."""
        self._change(
            ("database", "database"),
            "unavailable",
            event="database_unavailable",
            severity="critical",
            text=f"The database cannot be reached ({reason}); rounds and votes answer 503.",
            details={"reason": reason},
        )

    def database_back(self) -> None:
        """The database answers again."""
        self._change(
            ("database", "database"),
            _HEALTHY,
            event="database_back",
            severity="info",
            text="The database answers again.",
        )

    # -- the queue and its one consumer --------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self, flush_s: float = FLUSH_S) -> AsyncIterator[Alerts]:
        """Deliver the queued alerts from a background task while the block runs; on the way
        out, wait up to ``flush_s`` for what is queued, then stop."""
        if self._sender is None:
            yield self
            return
        task = asyncio.create_task(self._drain(self._sender), name="alerts")
        try:
            yield self
        finally:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._queue.join(), flush_s)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def _change(
        self,
        key: tuple[str, str],
        state: str,
        *,
        event: str,
        severity: Severity,
        text: str,
        details: Mapping[str, Detail] | None = None,
    ) -> None:
        if self._states.get(key, _HEALTHY) == state:
            return
        self._states[key] = state
        alert = Alert(event, severity, key[1], text, self._clock.now(), dict(details or {}))
        _log.log(_LOG_LEVELS[severity], "alert %s: %s", event, text)
        if self._sender is not None:
            self._enqueue(alert)

    def _enqueue(self, alert: Alert) -> None:
        now = self._clock.monotonic()
        while self._queued_at and now - self._queued_at[0] >= _WINDOW_S:
            self._queued_at.popleft()
        if len(self._queued_at) >= self._per_minute:
            _log.warning("alert %s not sent: over %d a minute", alert.event, self._per_minute)
            return
        try:
            self._queue.put_nowait(alert)
        except asyncio.QueueFull:
            _log.warning(
                "alert %s not sent: %d are waiting already", alert.event, self._queue.qsize()
            )
            return
        self._queued_at.append(now)

    async def _drain(self, sender: AlertSender) -> None:
        while True:
            alert = await self._queue.get()
            try:
                await self._deliver(sender, alert)
            finally:
                self._queue.task_done()

    async def _deliver(self, sender: AlertSender, alert: Alert) -> None:
        delay = self._backoff_s
        for attempt in range(1, self._attempts + 1):
            try:
                await sender.send(alert)
                return
            except Exception as exc:  # whatever the receiver or the network did: retry
                if attempt == self._attempts:
                    _log.error("alert %s dropped after %d attempts: %s", alert.event, attempt, exc)
                    return
                _log.warning(
                    "alert %s not delivered (%s); retrying in %g s", alert.event, exc, delay
                )
            await asyncio.sleep(delay)
            delay *= 2
