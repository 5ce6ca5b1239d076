"""The reasons people gave with their votes, counted per winning model.

Unlike the other insights reads this one reads ``preferences`` itself, but only the votes that
carry a reason: ``preferences_reasons_idx`` (migration 0019) is a partial index over exactly
those rows, holding what the count needs (method, winner, reasons, matchup), so its cost grows
with the votes that say why, never with the others. One pass groups them by winner and by the
set of reasons ticked; the few hundred groups that come back (models times combinations of a
dozen reasons at most) are spread over single reasons here. The wins each model's counts are
read against come from the trigger-kept ``pair_outcome_stats`` (``category_pair_stats`` for a
slice), as the other reads take them.

Measured on 1,000,000 demo votes, 220,562 of them with reasons: every prompt 115 ms (226 ms
without the index, which matters more the fewer votes say why). A slice of prompts must look up
each vote's round for its categories and language, which no index of ``preferences`` holds:
0.5 to 0.8 s. Should slices be read often at that scale, a trigger-kept summary per slice, like
``category_pair_stats``, is the next step.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection

from arena_api.core.reasons import VoteReasons
from arena_api.core.views import ModelReasons, ReasonChoice, ReasonCountsView

__all__ = ["ReasonTally", "read_reason_tally", "reason_counts_view"]

# The partial index's predicate (its braces doubled for the format below), so the planner
# can use it.
_GIVEN = "p.reasons <> '{{}}'::text[] AND p.method = ANY(CAST(:methods AS text[]))"
_IN_SLICE = """
   AND EXISTS (SELECT 1 FROM matchups m
                WHERE m.id = p.matchup_id
                  AND CAST(:category AS text) = ANY(arena_prompt_slices(m.categories, m.language)))
"""
_GROUPS = f"""
SELECT p.winner_model_id AS model_id, p.reasons, count(*) AS votes
  FROM preferences p
 WHERE {_GIVEN}{{slice}}
 GROUP BY 1, 2
"""
# Each model's decisive wins in the cut, and its name, for every model that won a vote.
_WINS = """
SELECT w.model_id, m.display_name, sum(w.wins)::bigint AS wins
  FROM (SELECT slot_a_model_id AS model_id, left_wins AS wins
          FROM {outcomes} o WHERE method = ANY(CAST(:methods AS text[]))
        UNION ALL
        SELECT slot_b_model_id, right_wins
          FROM {outcomes} o WHERE method = ANY(CAST(:methods AS text[]))) w
  JOIN models m ON m.id = w.model_id
 GROUP BY 1, 2
"""
_STATEMENTS: dict[bool, tuple[TextClause, TextClause]] = {
    False: (text(_GROUPS.format(slice="")), text(_WINS.format(outcomes="pair_outcome_stats"))),
    True: (
        text(_GROUPS.format(slice=_IN_SLICE)),
        text(
            _WINS.format(outcomes="(SELECT * FROM category_pair_stats WHERE category = :category)")
        ),
    ),
}


@dataclass
class ReasonTally:
    """What ``read_reason_tally`` counted, before it is shaped into a view.

    Attributes:
        per_model: winner id -> reason -> decisive votes it won that carried the reason.
        explained: winner id -> decisive votes it won that carried any reason.
        undecided: reason -> votes with no winner (a tie, both bad, a skip) that carried it.
        votes: every vote in the cut that carried a reason.
        wins: model id -> decisive votes it won in the cut (with a reason or not).
        names: model id -> display name.
    """

    per_model: dict[uuid.UUID, Counter[str]] = field(default_factory=dict)
    explained: Counter[uuid.UUID] = field(default_factory=Counter)
    undecided: Counter[str] = field(default_factory=Counter)
    votes: int = 0
    wins: dict[uuid.UUID, int] = field(default_factory=dict)
    names: dict[uuid.UUID, str] = field(default_factory=dict)


async def read_reason_tally(
    conn: AsyncConnection, methods: list[str], category: str | None
) -> ReasonTally:
    """Count the reasons of the votes cast by ``methods`` (in one slice of prompts, or all)."""
    groups, wins = _STATEMENTS[category is not None]
    params = {"methods": methods, "category": category}
    tally = ReasonTally()
    for row in (await conn.execute(groups, params)).all():
        tally.votes += row.votes
        if row.model_id is None:
            tally.undecided.update(dict.fromkeys(row.reasons, row.votes))
            continue
        tally.explained[row.model_id] += row.votes
        counts = tally.per_model.setdefault(row.model_id, Counter())
        counts.update(dict.fromkeys(row.reasons, row.votes))
    for row in (await conn.execute(wins, params)).all():
        tally.wins[row.model_id] = row.wins
        tally.names[row.model_id] = row.display_name
    return tally


def reason_counts_view(tally: ReasonTally, offered: Sequence[str]) -> ReasonCountsView:
    """``tally`` as the API shows it: the ``offered`` reasons first, in their order, then any
    stored reason no longer offered; the models by their explained wins, most first."""
    stored = set(tally.undecided).union(*tally.per_model.values())
    reasons = [*offered, *sorted(stored - set(offered))]
    models = [
        ModelReasons(
            id=str(model_id),
            display_name=tally.names.get(model_id, str(model_id)),
            wins=tally.wins.get(model_id, explained),
            explained_wins=explained,
            counts={
                r: tally.per_model[model_id][r] for r in reasons if tally.per_model[model_id][r]
            },
        )
        for model_id, explained in tally.explained.items()
    ]
    models.sort(key=lambda m: (-m.explained_wins, m.display_name, m.id))
    return ReasonCountsView(
        reasons=[ReasonChoice(id=r, label=VoteReasons.label(r)) for r in reasons],
        votes=tally.votes,
        models=models,
        undecided={r: tally.undecided[r] for r in reasons if tally.undecided[r]},
    )
