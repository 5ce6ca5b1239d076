"""The roster shown on the start page: public model names, loaded through ArenaService."""

from __future__ import annotations

import reflex as rx

from arena_app.backend import services


class RosterState(rx.State):
    model_names: list[str] = []
    loaded: bool = False

    @rx.event
    async def load(self) -> None:
        entries = await services().arena.roster()
        self.model_names = [entry.display_name for entry in entries]
        self.loaded = True
