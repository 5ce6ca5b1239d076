"""``GET /_arena/images/{sha256}?s=&e=&sig=``: a prompt's image, as the arena page shows it.

The page's own route, like its live feeds (``/_arena/live``): reached with the page's session
where the arena is private, and never by an API token, since an ``<img>`` sends none. Its link is
signed for one arena session and expires (``arena_api.services.image_links``); every refusal is
the same JSON 404 ``image_not_found``. The bytes are served under their stored type, which the
codec sniffed and re-encoded, with ``nosniff`` and a policy that runs nothing.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena_api.core.media_links import IMAGE_LINK_PATH
from arena_api.routes._request import services_of
from arena_api.services.image_links import ImageNotFound

__all__ = ["routes"]


async def image(request: Request) -> Response:
    links = services_of(request).image_links
    if links is None:
        raise ImageNotFound()
    query = request.query_params
    ref, data, left_s = await links.open(
        request.path_params["sha256"], query.get("s", ""), query.get("e", ""), query.get("sig", "")
    )
    return Response(
        data,
        media_type=ref.media_type,
        headers={
            # The link is the session's own: no shared cache keeps it, and the browser keeps it
            # no longer than the link works.
            "Cache-Control": f"private, max-age={left_s}, immutable",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'",
            "Content-Disposition": "inline",
        },
    )


routes: list[BaseRoute] = [Route(IMAGE_LINK_PATH, image, methods=["GET"], name="image")]
