"""The service's analytics reads as the UI calls them in-process, without HTTP in between."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

import pytest

from arena_api.core.errors import InvalidRequest, NotFound
from arena_api.core.views import (
    ActivityView,
    HeadToHeadView,
    ModelMetricsView,
    RatingHistoryView,
    StyleControlView,
    SummaryView,
)
from arena_api.services import ReadService


class _RecordingAnalytics:
    """An AnalyticsPort that records what it was asked for."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    async def activity(
        self,
        bucket: str,
        since: datetime | None,
        votes: str = "human",
        category: str | None = None,
    ) -> ActivityView:
        self.calls.append(("activity", (bucket, since, votes, category)))
        return ActivityView(bucket="hour", models=[], votes=[], cumulative_games=[])

    async def rating_history(
        self,
        since: datetime | None,
        points: int | None = None,
        votes: str = "human",
        category: str | None = None,
    ) -> RatingHistoryView:
        self.calls.append(("rating_history", (since, points, votes, category)))
        return RatingHistoryView(models=[], points=[])

    async def summary(self) -> SummaryView:  # pragma: no cover - not called here
        raise NotImplementedError

    async def head_to_head(self) -> HeadToHeadView:  # pragma: no cover
        raise NotImplementedError

    async def model_metrics(self) -> ModelMetricsView:  # pragma: no cover
        raise NotImplementedError

    async def style_control(self) -> StyleControlView:  # pragma: no cover
        raise NotImplementedError


def _service(analytics: object | None) -> ReadService:
    unused = cast(Any, object())  # the analytics reads touch no other port
    return ReadService(repository=unused, analytics=cast(Any, analytics))


@pytest.mark.parametrize(
    "read",
    [
        "analytics_summary",
        "categories",
        "head_to_head",
        "model_metrics",
        "activity",
        "style_control",
        "rating_history",
    ],
)
async def test_without_an_analytics_port_every_analytics_read_is_not_found(read: str) -> None:
    service = _service(None)

    with pytest.raises(NotFound):
        await getattr(service, read)()


async def test_reads_pass_validated_arguments_to_the_port() -> None:
    port = _RecordingAnalytics()
    service = _service(port)
    since = datetime.fromisoformat("2026-07-21T00:00:00+02:00")

    await service.activity("hour", since)
    await service.rating_history(since)
    await service.rating_history(points=120, votes="judge")
    await service.activity("day", None, "all", "language:de")

    assert port.calls == [
        ("activity", ("hour", since, "human", None)),
        ("rating_history", (since, None, "human", None)),
        ("rating_history", (None, 120, "judge", None)),
        ("activity", ("day", None, "all", "language:de")),
    ]


@pytest.mark.parametrize(
    ("read", "arguments", "field"),
    [
        pytest.param("activity", ("week",), "bucket", id="unknown-bucket"),
        pytest.param("activity", ("day", datetime(2026, 7, 21)), "since", id="naive-since"),
        pytest.param("rating_history", (datetime(2026, 7, 21),), "since", id="naive-history"),
        pytest.param("activity", ("day", None, "robots"), "votes", id="unknown-votes"),
        pytest.param("activity", ("day", None, "human", "cooking"), "category", id="category"),
    ],
)
async def test_bad_arguments_from_an_in_process_caller_are_refused(
    read: str, arguments: tuple[object, ...], field: str
) -> None:
    port = _RecordingAnalytics()

    with pytest.raises(InvalidRequest) as refused:
        await getattr(_service(port), read)(*arguments)

    assert refused.value.details is not None and list(refused.value.details) == [field]
    assert port.calls == []


async def test_a_history_thinned_to_no_points_is_refused() -> None:
    port = _RecordingAnalytics()

    with pytest.raises(InvalidRequest) as refused:
        await _service(port).rating_history(points=0)

    assert refused.value.details is not None and list(refused.value.details) == ["points"]
    assert port.calls == []
