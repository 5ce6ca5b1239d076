"""The compact leaderboard beside the arena."""

from __future__ import annotations

import reflex as rx

from arena_api.core.boards import Board
from arena_api.core.lifecycle import ACTIVE, STATUS_NOTES
from arena_app.backend import services

#: How often an open page asks for the standings (the rating process refits within
#: ``RATING_MIN_INTERVAL_S`` of a vote; a page shows it at most this much later).
REFRESH_MS = 3000
#: The score of a model no vote has decided yet: a win rate of 0 % would read as lost games.
NO_GAMES = "no games yet"


class LeaderboardState(rx.State):
    rows: list[dict[str, str]] = []
    rated: bool = False
    loaded: bool = False
    #: Rate the named side-by-side rounds' votes too (the blind rating leaves them out).
    include_named: bool = False

    @rx.event
    async def load(self) -> None:
        await self._load()

    @rx.event
    async def refresh(self, _now: str = "") -> None:
        """The page's timer: read the standings again, and send the page only what changed."""
        await self._load()

    @rx.event
    async def set_include_named(self, include: bool) -> None:
        self.include_named = include
        await self._load()

    async def _load(self) -> None:
        reads = services().reads
        view = await reads.leaderboard(Board(named=self.include_named))
        rows = []
        for index, model in enumerate(view.models, start=1):
            if model.rating is not None and model.confidence_interval is not None:
                half = (model.confidence_interval.upper - model.confidence_interval.lower) / 2
                score = f"{model.rating:.0f} ± {half:.0f}"
            elif model.decided == 0:
                score = NO_GAMES
            else:
                score = f"{model.win_rate * 100:.1f}%"
            style = (
                f"{model.style_controlled_rating:.0f}"
                if model.style_controlled_rating is not None
                else "—"
            )
            rows.append(
                {
                    # Once rated, every rank the interval allows ("1–3"), else the position;
                    # a model with no game has no place yet.
                    "rank": "—"
                    if score == NO_GAMES
                    else model.rank_range.label
                    if model.rank_range is not None
                    else str(index),
                    "name": model.display_name,
                    # The breaker paused it: rounds do not draw it until it is tried again.
                    "paused": "paused" if model.paused else "",
                    # Paused or archived in the roster: on the board for its history, never
                    # matched ("" when active); the mark's tooltip says which.
                    "status": "" if model.status == ACTIVE else model.status,
                    "status_note": STATUS_NOTES.get(model.status, ""),
                    # Why its rating cannot be read as settled yet ("" once it is).
                    "provisional": reads.provisional_note(model)
                    if model.rating is not None
                    else "",
                    "score": score,
                    "style": style,
                    "games": str(
                        model.games if model.games is not None else model.total_votes - model.skips
                    ),
                }
            )
        rated = any(m.rating is not None for m in view.models)
        # Reflex sends every var that was set, changed or not: an unchanged board costs nothing.
        if rows != self.rows:
            self.rows = rows
        if rated != self.rated:
            self.rated = rated
        if not self.loaded:
            self.loaded = True
