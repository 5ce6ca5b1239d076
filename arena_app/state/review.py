"""The review page's data: the queues a reviewer works on, and one blind item at a time.

Who is reviewing is read on the server from the event socket's own session cookie; the item
holds the prompt and answers A and B only, never the models or another reviewer's verdict.
Progress lives in the database, so closing the page and coming back resumes where it stopped.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from arena_api.core.errors import ArenaError
from arena_api.core.users import Grant
from arena_app.backend import services


class ReviewState(rx.State):
    signed_in: bool = False
    queues: list[dict[str, str]] = []
    queue_id: str = ""
    queue_name: str = ""
    item_id: str = ""
    history: list[dict[str, str]] = []
    prompt: str = ""
    answer_a: str = ""
    answer_b: str = ""
    done: int = 0
    total: int = 0
    reasons: list[dict[str, str]] = []
    picked: list[str] = []
    comment: str = ""
    notice: str = ""

    @rx.var
    def percent(self) -> int:
        return 0 if self.total == 0 else round(100 * self.done / self.total)

    async def _grant(self) -> Grant | None:
        users = services().users
        session = services().access.session_of(self.router.headers.cookie)
        return None if users is None else await users.session_grant(session)

    @rx.event
    async def load(self) -> None:
        self.notice, self.queue_id, self.item_id = "", "", ""
        grant = await self._grant()
        self.signed_in = grant is not None and grant.role in ("reviewer", "admin")
        if not self.signed_in or grant is None:
            return
        arena = services().arena
        self.reasons = [{"id": s, "label": arena.reasons.label(s)} for s in arena.reasons.slugs]
        review = services().review
        assert review is not None
        queues = await review.queues(Grant(grant.user_id, "reviewer"))  # the ones they review
        self.queues = [
            {
                "id": str(q["id"]),
                "name": q["name"],
                "progress": f"{q['mine']} of {q['items']} reviewed by you",
                "k": f"{q['k']} reviews an item",
            }
            for q in queues
        ]

    @rx.event
    async def open(self, queue_id: str) -> None:
        self.queue_id = queue_id
        self.queue_name = next((q["name"] for q in self.queues if q["id"] == queue_id), "")
        await self._next()

    @rx.event
    def back(self) -> Any:
        return ReviewState.load

    async def _next(self) -> None:
        self.picked, self.comment = [], ""
        grant = await self._grant()
        review = services().review
        if grant is None or review is None:
            self.notice = "Sign in again."
            return
        try:
            item, (self.done, self.total) = await review.next_item(self.queue_id, grant)
        except ArenaError as exc:
            self.notice = exc.message
            return
        if item is None:
            self.item_id = ""
            return
        self.item_id = str(item["id"])
        self.history = [
            {"prompt": h["prompt"], "answer": h["answer"] or ""} for h in item["history"]
        ]
        self.prompt = item["prompt"]
        self.answer_a = item["answer_a"] or ""
        self.answer_b = item["answer_b"] or ""

    @rx.event
    def toggle_reason(self, reason: str) -> None:
        self.picked = (
            [r for r in self.picked if r != reason]
            if reason in self.picked
            else [r["id"] for r in self.reasons if r["id"] in {*self.picked, reason}]
        )

    @rx.event
    def set_comment(self, value: str) -> None:
        self.comment = value

    @rx.event
    async def give(self, vote: str) -> None:
        self.notice = ""
        grant = await self._grant()
        review = services().review
        if grant is None or review is None or not self.item_id:
            return
        body: dict[str, Any] = {"vote": vote, "reasons": self.picked}
        if self.comment.strip():
            body["comment"] = self.comment
        try:
            await review.verdict(self.item_id, body, grant)
        except ArenaError as exc:
            self.notice = exc.message
            if exc.code not in ("already_reviewed", "item_complete"):
                return
        await self._next()
