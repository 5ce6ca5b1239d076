"""The arena's own routes: vote (and its reasons), round and conversation reads, leaderboard, the
model list.

The chat routes live in ``routes/chat.py``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.core.boards import parse_board
from arena_api.core.errors import InvalidRequest
from arena_api.core.populations import HUMAN
from arena_api.core.requests import VoteRequest, parse_command
from arena_api.core.users import Grant
from arena_api.routes._access import GRANT_KEY
from arena_api.routes._request import read_json, services_of, uuid_param
from arena_api.services import ArenaService, ReadService

__all__ = ["routes"]


def _arena(request: Request) -> ArenaService:
    return services_of(request).arena


def _reads(request: Request) -> ReadService:
    return services_of(request).reads


async def vote(request: Request) -> JSONResponse:
    command = parse_command(VoteRequest, await read_json(request))
    grant = request.scope.get(GRANT_KEY)  # none for an anonymous voter: not grant_of's 401
    user_id = grant.user_id if isinstance(grant, Grant) else None
    reveal = await _arena(request).vote(command, user_id=user_id)
    return JSONResponse(reveal.wire())


async def vote_reasons(request: Request) -> JSONResponse:
    return JSONResponse(_arena(request).reason_choices().wire())


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
    params = request.query_params
    board = parse_board(
        include=params.get("include"),
        votes=params.get("votes", HUMAN),
        category=params.get("category"),
        filters=params.get("filters", "on"),
    )
    view = await _reads(request).leaderboard(board)
    return JSONResponse(view.wire())


routes: list[BaseRoute] = [
    Route("/api/arena/vote", vote, methods=["POST"], name="vote"),
    Route("/api/arena/vote-reasons", vote_reasons, methods=["GET"], name="vote_reasons"),
    Route("/api/arena/matchups/{matchup_id}", matchup, methods=["GET"], name="matchup"),
    Route(
        "/api/arena/conversations/{conversation_id}",
        conversation,
        methods=["GET"],
        name="conversation",
    ),
    Route("/api/arena/leaderboard", leaderboard, methods=["GET"], name="leaderboard"),
]
