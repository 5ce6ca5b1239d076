"""``GET /_arena/live/{ticket}``: a streaming round's live feed, as the arena page reads it.

The feeds themselves (what a frame holds, resuming with ``Last-Event-ID``, the grace of an ended
feed, replicas sharing them through Redis) are the service ``arena_api.services.live_feeds``;
the page's side is ``assets/live_tail.jsx``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from arena_api.routes._request import services_of
from arena_api.routes.errors import error_response
from arena_api.services.live_feeds import FEED_PATH, LiveFeeds, resume_point

__all__ = ["feed_response", "routes"]


async def feed_response(feeds: LiveFeeds, request: Request) -> Response:
    """The feed of the request's ticket from ``feeds``, or a JSON 404 if no replica has it."""
    seen = resume_point(request.headers.get("last-event-id"))
    frames = await feeds.frames(request.path_params["ticket"], seen)
    if frames is None:
        return error_response(404, "feed_not_found", "No round is streaming under this ticket")
    return StreamingResponse(
        frames,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def follow_feed(request: Request) -> Response:
    return await feed_response(services_of(request).feeds, request)


routes: list[BaseRoute] = [Route(FEED_PATH, follow_feed, methods=["GET"], name="live_feed")]
