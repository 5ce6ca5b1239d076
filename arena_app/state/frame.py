"""What the frame of every page shows besides navigation: the demo banner (``ARENA_DEMO``)."""

from __future__ import annotations

import reflex as rx

from arena_app.backend import services


class FrameState(rx.State):
    #: The arena runs on the mock models for a try-out: every page says so.
    demo: bool = False

    @rx.event
    def check(self) -> None:
        demo = services().settings.demo
        if demo != self.demo:
            self.demo = demo
