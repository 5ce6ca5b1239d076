"""Whether the arena is private (``ARENA_PASSPHRASE``): the frame then offers to sign out."""

from __future__ import annotations

import reflex as rx

from arena_app.backend import services


class AccessState(rx.State):
    private: bool = False

    @rx.event
    def check(self) -> None:
        self.private = services().access.enabled
