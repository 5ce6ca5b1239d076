"""The alert webhook's HTTP adapter (``ARENA_ALERT_WEBHOOK_URL``), and alerts for a process with
no event loop of its own.

``WebhookSender`` POSTs ``Alert.payload()`` as JSON with httpx; any transport failure or an
answer other than 2xx is a ``WebhookError`` (which ``Alerts`` retries). The URL never appears in
an error or a log line (httpx's own request lines about it are filtered out): a Slack webhook's
URL is its secret. ``open_alerts`` builds the ``Alerts`` service with it (or without a sender
when no URL is set) and runs its delivery task; ``AlertsThread`` does the same on a thread of
its own, for ``arena serve``'s supervising process, where ``RatingWorkerAlerts`` reports the
rating process's failures from the supervisor's plain thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable

import httpx

from arena_api.services.alerts import Alert, Alerts

__all__ = ["AlertsThread", "RatingWorkerAlerts", "WebhookError", "WebhookSender", "open_alerts"]


#: Per attempt: a receiver that hangs costs the delivery task this long, never a caller.
TIMEOUT_S = 5.0


class WebhookError(Exception):
    """The webhook did not take an alert (its message names no URL)."""


class WebhookSender:
    """POSTs alerts to one URL through ``client``."""

    def __init__(self, client: httpx.AsyncClient, url: str) -> None:
        self._client = client
        self._url = url

    async def send(self, alert: Alert) -> None:
        """POST ``alert``'s payload.

        Raises:
            WebhookError: the receiver could not be reached or did not answer 2xx.
        """
        try:
            response = await self._client.post(self._url, json=alert.payload())
        except httpx.HTTPError as exc:
            raise WebhookError(f"the webhook could not be reached: {type(exc).__name__}") from None
        if not response.is_success:
            raise WebhookError(f"the webhook answered {response.status_code}")


@contextlib.asynccontextmanager
async def open_alerts(url: str | None, *, timeout_s: float = TIMEOUT_S) -> AsyncIterator[Alerts]:
    """The ``Alerts`` service, delivering to ``url`` while the block runs (only logged without
    one)."""
    if url is None:
        yield Alerts()
        return
    httpx_log, hidden = logging.getLogger("httpx"), _WithoutUrl(url)
    httpx_log.addFilter(hidden)
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            async with Alerts(WebhookSender(client, url)).running() as alerts:
                yield alerts
    finally:
        httpx_log.removeFilter(hidden)


class _WithoutUrl(logging.Filter):
    """Drops httpx's line about each request to the webhook: it names the URL, the secret."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self._urls = {url, str(httpx.URL(url))}  # as given, and as httpx prints it

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(url in message for url in self._urls)


Report = Callable[[Alerts], None]


class AlertsThread:
    """``open_alerts`` on a daemon thread with its own event loop, for synchronous callers.

    ``submit`` hands a report to that loop and returns at once; it never blocks and never
    raises, also before ``start`` or after ``stop``.
    """

    def __init__(self, url: str | None) -> None:
        self._url = url
        self._loop: asyncio.AbstractEventLoop | None = None
        self._alerts: Alerts | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="alerts", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(timeout=5)

    def submit(self, report: Report) -> None:
        """Run ``report(alerts)`` on the alerts' loop."""
        loop, alerts = self._loop, self._alerts
        if loop is None or alerts is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop is closing: the report is moot
            loop.call_soon_threadsafe(report, alerts)

    def stop(self) -> None:
        """Deliver what is queued (briefly), then end the thread."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if self._thread.is_alive():
            self._thread.join(timeout=TIMEOUT_S)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with open_alerts(self._url) as alerts:
                self._alerts = alerts
                self._loop = asyncio.get_running_loop()
                self._ready.set()
                await self._stop.wait()
        finally:
            self._loop = None
            self._ready.set()


class RatingWorkerAlerts:
    """The rating process's supervisor's listener (``arena_rating.WorkerListener``): its
    failures and its recovery, reported through an ``AlertsThread``."""

    def __init__(self, alerts: AlertsThread) -> None:
        self._alerts = alerts

    def worker_failed(self, consecutive: int, status: int | None) -> None:
        error = "it could not be started" if status is None else f"exit status {status}"
        self._alerts.submit(lambda alerts: alerts.rating_failing(consecutive, error))

    def worker_healthy(self) -> None:
        self._alerts.submit(lambda alerts: alerts.rating_recovered())
