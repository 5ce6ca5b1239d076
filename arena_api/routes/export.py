"""``GET /api/arena/export``: the vote data as JSON Lines, for API token holders.

``?since=&until=`` (ISO 8601 instants with a timezone) bound the votes; ``includeText=true``
adds the prompts and answers, scrubbed as ``arena export --include-text`` scrubs them (e-mail
addresses, phone numbers, IP addresses, card numbers and secrets become ``[EMAIL]``, ``[PHONE]``,
``[IP]``, ``[CARD]``, ``[SECRET]``) unless ``scrub=false`` asks for them as written. Only a
request that carried a valid ``ARENA_API_TOKENS`` token may export (403 ``api_token_required``
otherwise, also when no token is configured; the access middleware decides): sessions are
anonymised, but the text people typed is theirs. Each row carries its round's ``image_count``;
the images themselves only go out through ``arena export --include-images``.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import InvalidRequest
from arena_api.routes._request import services_of
from arena_api.routes.analytics import parse_since

__all__ = ["routes"]


def _flag(request: Request, name: str, default: str) -> bool:
    value = request.query_params.get(name, default)
    if value not in ("true", "false"):
        raise InvalidRequest(f"{name} must be true or false", details={name: ["true or false"]})
    return value == "true"


async def export_votes(request: Request) -> Response:
    since = parse_since(request.query_params)
    until = parse_since(request.query_params, "until")
    include_text = _flag(request, "includeText", "false")
    from arena_api.core.scrub import Scrubber  # libphonenumber's rules: only when exporting

    scrubber = Scrubber() if _flag(request, "scrub", "true") else None
    export = services_of(request).export
    return StreamingResponse(
        export.jsonl(since, until, include_text=include_text, scrubber=scrubber),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": 'attachment; filename="votes.jsonl"'},
    )


routes: list[BaseRoute] = [
    Route("/api/arena/export", export_votes, methods=["GET"], name="export_votes"),
]
