"""The reason chips of the vote bar: what the arena offers (``ARENA_VOTE_REASONS``) and what the
person ticked for the round on screen, sent with their vote and cleared for the next round."""

from __future__ import annotations

import reflex as rx

from arena_app.backend import services


class VoteReasonsState(rx.State):
    #: The offered reasons in chip order: ``{"id": slug, "label": words}``; empty: no chips.
    choices: list[dict[str, str]] = []
    #: The ticked reasons' slugs, in the order they were ticked (the vote stores them in the
    #: offered order).
    picked: list[str] = []

    @rx.event
    def load(self) -> None:
        choices = [r.wire() for r in services().arena.reason_choices().reasons]
        if choices != self.choices:
            self.choices = [{"id": str(c["id"]), "label": str(c["label"])} for c in choices]

    @rx.event
    def toggle(self, reason: str) -> None:
        """Tick ``reason``, or untick it when it was ticked; an unknown one is ignored."""
        if reason in self.picked:
            self.picked = [r for r in self.picked if r != reason]
        elif any(c["id"] == reason for c in self.choices):
            self.picked = [*self.picked, reason]
