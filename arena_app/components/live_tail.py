"""The plain-text tail of a streaming answer, fed by the round's live feed
(``arena_api.services.live_feeds``); its code is ``assets/live_tail.jsx``."""

from __future__ import annotations

import reflex as rx


class LiveTail(rx.Component):
    """The words of slot ``slot`` from ``folded`` (UTF-16 code units) on, as they come through
    the live feed at the URL ``feed``; set as code while the answer is inside a code block."""

    library = "$/public/live_tail.jsx"
    tag = "LiveTail"

    feed: rx.Var[str]
    slot: rx.Var[str]
    folded: rx.Var[int]
    code: rx.Var[bool]


live_tail = LiveTail.create
