"""Route constants and URL builders of the UI."""

from __future__ import annotations

ARENA = "/"
INSIGHTS = "/insights"
INSIGHT_TABS: tuple[tuple[str, str], ...] = (
    ("rankings", "Rankings"),
    ("head-to-head", "Head-to-head"),
    ("style", "Style & bias"),
    ("activity", "Activity"),
)
SHARED_MATCHUP = "/m/[matchup_id]"
SUITES = "/suites"
ADMIN = "/admin"
REVIEW = "/review"


def insights_tab(tab: str) -> str:
    return f"{INSIGHTS}/{tab}"


def shared_matchup(matchup_id: str) -> str:
    return f"/m/{matchup_id}"
