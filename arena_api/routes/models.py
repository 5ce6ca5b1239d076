"""Model discovery in OpenAI's shape: ``GET /models``, ``/v1/models`` and one model by id.

An OpenAI client's first call is the model list (Open WebUI uses it as the connection check), so
both paths are served: a deployment's base URL may or may not end in ``/v1``. What is listed is
the chat front's choice (``ARENA_OPENAI_MODELS``): the blind arena models, the named roster, or
both. ``name`` is not in OpenAI's schema, but Open WebUI shows it above each answer.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.routes._request import services_of
from arena_api.services import ModelCard, OpenAiChatService

__all__ = ["routes"]


def _model_object(card: ModelCard, created: int) -> dict[str, object]:
    """OpenAI's model object; ``created`` is the server's boot time (the roster has none)."""
    body: dict[str, object] = {
        "id": card.id,
        "object": "model",
        "created": created,
        "owned_by": card.owned_by,
        "name": card.name,
    }
    if card.description:
        body["description"] = card.description
    return body


def _chat(request: Request) -> OpenAiChatService:
    return services_of(request).chat


async def model_list(request: Request) -> JSONResponse:
    created = int(services_of(request).started_at)
    data = [_model_object(card, created) for card in await _chat(request).models()]
    return JSONResponse({"object": "list", "data": data})


async def model(request: Request) -> JSONResponse:
    """One listed model (``client.models.retrieve``); JSON 404 otherwise."""
    card = await _chat(request).model(request.path_params["model_id"])
    return JSONResponse(_model_object(card, int(services_of(request).started_at)))


routes: list[BaseRoute] = [
    Route("/models", model_list, methods=["GET"], name="models"),
    Route("/v1/models", model_list, methods=["GET"], name="v1_models"),
    Route("/models/{model_id}", model, methods=["GET"], name="model"),
    Route("/v1/models/{model_id}", model, methods=["GET"], name="v1_model"),
]
