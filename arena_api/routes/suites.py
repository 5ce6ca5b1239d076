"""``/api/suites``: eval suites and their runs.

``GET /api/suites`` lists the loaded suites (and the files that did not load);
``POST /api/suites/{name}/run`` starts a run and answers 202 with its id at once;
``GET /api/suites/runs`` lists recent runs (``?suite=``); ``GET /api/suites/runs/{run_id}`` is a
run's progress, tally, cost and per-prompt results; ``POST /api/suites/runs/{run_id}/resume``
walks an interrupted run on; ``GET /api/suites/runs/{a}/diff/{b}`` compares two runs.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.routes._request import services_of, uuid_param
from arena_api.services.suites import SuiteService

__all__ = ["routes"]


def _suites(request: Request) -> SuiteService:
    return services_of(request).suites


async def list_suites(request: Request) -> JSONResponse:
    return JSONResponse(_suites(request).available().wire())


async def start_run(request: Request) -> JSONResponse:
    run = await _suites(request).start(request.path_params["name"])
    return JSONResponse(run.wire(), status_code=202)


async def list_runs(request: Request) -> JSONResponse:
    suite = request.query_params.get("suite") or None
    return JSONResponse((await _suites(request).recent(suite)).wire())


async def get_run(request: Request) -> JSONResponse:
    run = await _suites(request).get(uuid_param(request, "run_id"))
    return JSONResponse(run.wire())


async def resume_run(request: Request) -> JSONResponse:
    run = await _suites(request).resume(uuid_param(request, "run_id"))
    return JSONResponse(run.wire(), status_code=202)


async def diff_runs(request: Request) -> JSONResponse:
    diff = await _suites(request).diff(uuid_param(request, "a"), uuid_param(request, "b"))
    return JSONResponse(diff.wire())


routes: list[BaseRoute] = [
    Route("/api/suites", list_suites, methods=["GET"], name="list_suites"),
    Route("/api/suites/runs", list_runs, methods=["GET"], name="list_suite_runs"),
    Route("/api/suites/runs/{run_id}", get_run, methods=["GET"], name="get_suite_run"),
    Route(
        "/api/suites/runs/{run_id}/resume", resume_run, methods=["POST"], name="resume_suite_run"
    ),
    Route("/api/suites/runs/{a}/diff/{b}", diff_runs, methods=["GET"], name="diff_suite_runs"),
    Route("/api/suites/{name}/run", start_run, methods=["POST"], name="start_suite_run"),
]
