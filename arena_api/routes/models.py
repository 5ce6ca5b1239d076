"""Roster discovery in OpenAI's shape: ``GET /models``, ``/v1/models`` and one model by id.

An OpenAI client's first call is the model list (Open WebUI uses it as the connection check), so
both paths are served: a deployment's base URL may or may not end in ``/v1``. The roster is not
secret; what stays blind is which two models a matchup drew.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import NotFound
from arena_api.core.models import ModelEntry

__all__ = ["routes"]


def _model_object(entry: ModelEntry, created: int) -> dict[str, object]:
    """OpenAI's model object; ``created`` is the server's boot time (the roster has none)."""
    return {
        "id": str(entry.id),
        "object": "model",
        "created": created,
        "owned_by": entry.provider,
        "name": entry.display_name,
    }


async def model_list(request: Request) -> JSONResponse:
    services = request.app.state.services
    created = int(services.started_at)
    data = [_model_object(m, created) for m in await services.arena.roster()]
    return JSONResponse({"object": "list", "data": data})


async def model(request: Request) -> JSONResponse:
    """One enabled model (``client.models.retrieve``); JSON 404 otherwise."""
    services = request.app.state.services
    model_id = request.path_params["model_id"]
    for entry in await services.arena.roster():
        if str(entry.id) == model_id:
            return JSONResponse(_model_object(entry, int(services.started_at)))
    raise NotFound(f"The model '{model_id}' does not exist", code="model_not_found")


routes: list[BaseRoute] = [
    Route("/models", model_list, methods=["GET"], name="models"),
    Route("/v1/models", model_list, methods=["GET"], name="v1_models"),
    Route("/models/{model_id}", model, methods=["GET"], name="model"),
    Route("/v1/models/{model_id}", model, methods=["GET"], name="v1_model"),
]
