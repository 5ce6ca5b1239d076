"""Expert review queues over HTTP (``/api/review/*``: reviewers and admins, the edge checks;
making a queue and reading its agreement are an admin's).

* ``POST /api/review/queues``: make a queue (admins); 201 with its id.
* ``GET /api/review/queues``: every queue (admins) or the ones you review, with progress.
* ``GET /api/review/queues/{id}``: a queue with each reviewer's progress (admins).
* ``GET /api/review/queues/{id}/agreement``: Fleiss' κ with its interval, each reviewer's
  agreement with the others, the judge and the people, the items split most (admins).
* ``GET /api/review/queues/{id}/next``: your next item, blind (``item: null`` when none is
  left for you), and your progress.
* ``POST /api/review/items/{id}/verdict``: ``{vote, reasons?, comment?}``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import ArenaError
from arena_api.core.review import Share
from arena_api.core.users import Grant
from arena_api.routes._access import grant_of
from arena_api.routes._request import read_object, services_of
from arena_api.services.review import ReviewService

__all__ = ["routes"]

_NO_STORE = {"cache-control": "no-store"}


def _review(request: Request) -> ReviewService:
    review = services_of(request).review
    if review is None:  # pragma: no cover - bootstrap always builds it
        raise ArenaError("Review queues are not available", status=503, code="starting")
    return review


def _admin(request: Request) -> Grant:
    grant = grant_of(request)
    if grant.role != "admin":
        raise ArenaError(
            "Only an admin may make queues and read their agreement",
            status=403,
            code="forbidden_role",
        )
    return grant


def _queue(row: Any) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "k": row["k"],
        "items": row["items"],
        "complete": row["complete"],
        "pending": row["pending"],
        "yours": row["mine"],
        "createdAt": row["created_at"].isoformat(),
    }


def _share(share: Share) -> dict[str, Any]:
    return {"agreed": share.agreed, "of": share.of, "rate": share.rate}


async def create_queue(request: Request) -> JSONResponse:
    grant = _admin(request)
    actor, _ = await services_of(request).users.actor(grant)  # type: ignore[union-attr]
    queue_id = await _review(request).create(await read_object(request), actor)
    return JSONResponse({"id": str(queue_id)}, status_code=201, headers=_NO_STORE)


async def list_queues(request: Request) -> JSONResponse:
    queues = await _review(request).queues(grant_of(request))
    return JSONResponse({"queues": [_queue(q) for q in queues]}, headers=_NO_STORE)


async def get_queue(request: Request) -> JSONResponse:
    _admin(request)
    queue, progress = await _review(request).queue(request.path_params["queue_id"])
    return JSONResponse(
        {
            "queue": _queue(queue),
            "reviewers": [
                {
                    "userId": str(p["user_id"]),
                    "reviewer": p["label"],
                    "verdicts": p["verdicts"],
                    "skips": p["skips"],
                }
                for p in progress
            ],
        },
        headers=_NO_STORE,
    )


async def get_agreement(request: Request) -> JSONResponse:
    _admin(request)
    result = await _review(request).agreement(request.path_params["queue_id"])
    a = result.agreement
    return JSONResponse(
        {
            "queue": _queue(result.queue),
            "items": a.items,
            "kappa": a.kappa,
            "kappaInterval": None if a.kappa_low is None else [a.kappa_low, a.kappa_high],
            "observedAgreement": a.observed,
            "reviewers": [
                {
                    "userId": r.reviewer_id,
                    "reviewer": result.labels.get(r.reviewer_id, r.reviewer_id),
                    "verdicts": r.verdicts,
                    "withMajority": _share(r.with_majority),
                    "withJudge": _share(r.with_judge),
                    "withPeople": _share(r.with_people),
                }
                for r in a.reviewers
            ],
            "splits": [
                {
                    "itemId": s.item_id,
                    "position": s.position,
                    "agreement": s.agreement,
                    "votes": dict(s.votes),
                }
                for s in a.splits
            ],
        },
        headers=_NO_STORE,
    )


async def next_item(request: Request) -> Response:
    item, (done, total) = await _review(request).next_item(
        request.path_params["queue_id"], grant_of(request)
    )
    progress = {"done": done, "total": total}
    if item is None:
        return JSONResponse({"item": None, "progress": progress}, headers=_NO_STORE)
    return JSONResponse(
        {
            "item": {
                "id": str(item["id"]),
                "position": item["position"],
                "history": item["history"],
                "prompt": item["prompt"],
                "answers": {"A": item["answer_a"], "B": item["answer_b"]},
            },
            "progress": progress,
        },
        headers=_NO_STORE,
    )


async def give_verdict(request: Request) -> JSONResponse:
    await _review(request).verdict(
        request.path_params["item_id"], await read_object(request), grant_of(request)
    )
    return JSONResponse({"ok": True}, status_code=201, headers=_NO_STORE)


routes: list[BaseRoute] = [
    Route("/api/review/queues", create_queue, methods=["POST"], name="review_create"),
    Route("/api/review/queues", list_queues, methods=["GET"], name="review_queues"),
    Route("/api/review/queues/{queue_id}", get_queue, methods=["GET"], name="review_queue"),
    Route(
        "/api/review/queues/{queue_id}/agreement",
        get_agreement,
        methods=["GET"],
        name="review_agreement",
    ),
    Route("/api/review/queues/{queue_id}/next", next_item, methods=["GET"], name="review_next"),
    Route(
        "/api/review/items/{item_id}/verdict",
        give_verdict,
        methods=["POST"],
        name="review_verdict",
    ),
]
