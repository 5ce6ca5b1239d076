"""The arena's own routes: vote, round and conversation reads, leaderboard, the model list.

The chat routes live in ``routes/chat.py``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import InvalidRequest
from arena_api.core.requests import VoteRequest, parse_command
from arena_api.routes._request import read_json, uuid_param
from arena_api.routes.analytics import parse_category, parse_votes
from arena_api.services import ArenaService, ReadService

__all__ = ["routes"]


def _arena(request: Request) -> ArenaService:
    return request.app.state.services.arena  # type: ignore[no-any-return]


def _reads(request: Request) -> ReadService:
    return request.app.state.services.reads  # type: ignore[no-any-return]


async def vote(request: Request) -> JSONResponse:
    command = parse_command(VoteRequest, await read_json(request))
    reveal = await _arena(request).vote(command)
    return JSONResponse(reveal.wire())


async def matchup(request: Request) -> JSONResponse:
    view = await _reads(request).matchup(uuid_param(request, "matchup_id"))
    return JSONResponse(view.wire())


async def conversation(request: Request) -> JSONResponse:
    session_id = request.query_params.get("sessionId")
    if session_id is not None and not 1 <= len(session_id) <= 200:
        raise InvalidRequest(
            "sessionId must be 1 to 200 characters", details={"sessionId": ["bad length"]}
        )
    view = await _reads(request).conversation(uuid_param(request, "conversation_id"), session_id)
    return JSONResponse(view.wire())


async def leaderboard(request: Request) -> JSONResponse:
    """``?include=named`` rates the named side-by-side rounds' votes with the blind ones;
    ``?votes=judge|all`` shows the judge model's votes' board, or the board of every vote;
    ``?category=coding`` (or ``language:de``) the board of one slice of prompts;
    ``?filters=off`` the board that keeps the votes the filters before the fit left out."""
    include = request.query_params.get("include")
    if include not in (None, "named"):
        raise InvalidRequest(
            "include must be 'named' or absent", details={"include": ["must be 'named'"]}
        )
    filters = request.query_params.get("filters", "on")
    if filters not in ("on", "off"):
        raise InvalidRequest("filters must be on or off", details={"filters": ["on or off"]})
    view = await _reads(request).leaderboard(
        include_named=include == "named",
        votes=parse_votes(request.query_params),
        category=parse_category(request.query_params),
        filters=filters == "on",
    )
    return JSONResponse(view.wire())


routes: list[BaseRoute] = [
    Route("/api/arena/vote", vote, methods=["POST"], name="vote"),
    Route("/api/arena/matchups/{matchup_id}", matchup, methods=["GET"], name="matchup"),
    Route(
        "/api/arena/conversations/{conversation_id}",
        conversation,
        methods=["GET"],
        name="conversation",
    ),
    Route("/api/arena/leaderboard", leaderboard, methods=["GET"], name="leaderboard"),
]
