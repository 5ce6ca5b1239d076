"""``POST /api/arena/matchups/{matchup_id}/judge``: ask the roster's judge model to vote.

The body is ``{"matchupToken": "..."}``, the token a vote carries. The answer is the judge's
verdict (its reasoning, readings and cost) and, when it became the matchup's vote, the reveal.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.core.requests import JudgeRequest, parse_command
from arena_api.routes._request import read_json, services_of, uuid_param
from arena_api.services.judge import JudgeService

__all__ = ["routes"]


def _judge(request: Request) -> JudgeService:
    return services_of(request).judge


async def ask_judge(request: Request) -> JSONResponse:
    matchup_id = uuid_param(request, "matchup_id")
    command = parse_command(JudgeRequest, await read_json(request))
    verdict = await _judge(request).ask(matchup_id, command.matchup_token)
    return JSONResponse(verdict.wire())


routes: list[BaseRoute] = [
    Route("/api/arena/matchups/{matchup_id}/judge", ask_judge, methods=["POST"], name="ask_judge"),
]
