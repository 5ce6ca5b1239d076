"""The public reveal page of a voted matchup (``/m/{id}``), reached from a share link."""

from __future__ import annotations

import uuid

import reflex as rx

from arena_api.core.errors import ArenaError
from arena_app.backend import services


class SharedState(rx.State):
    found: bool = False
    loaded: bool = False
    prompt: str = ""
    outcome: str = ""
    answers: list[dict[str, str]] = []

    @rx.event
    async def load(self) -> None:
        self.loaded, self.found = False, False
        raw = str(self.router.page.params.get("matchup_id", ""))
        try:
            view = await services().reads.shared_matchup(uuid.UUID(raw))
        except (ArenaError, ValueError):
            self.loaded = True
            return
        names = {"A": view.models.A.display_name, "B": view.models.B.display_name}
        self.prompt = view.prompt
        self.outcome = {
            "left": f"{names['A']} won",
            "right": f"{names['B']} won",
            "both_good": "Both were good",
            "both_bad": "Both were bad",
            "skip": "Skipped",
        }.get(view.vote, view.vote)
        self.answers = [
            {"slot": a.slot, "name": names[a.slot], "content": a.content, "error": a.error or ""}
            for a in view.answers
        ]
        self.found = self.loaded = True
