"""The judge against people on PostgreSQL: the rounds both judged, counted per pair of labels,
and the two boards side by side.

A round counts when it is blind (a person who saw the names did not vote blind; people's board
leaves named rounds out too), a person voted on it (``preferences.method = 'human'``), and the
judge gave it a readable verdict (``judge_verdicts.outcome`` A, B, tie or both_bad; a failed or
unreadable one says nothing). A round judged more than once counts its latest readable verdict.
Such rounds come from ``arena judge backfill`` (its verdicts are never votes) or from a judge
asked about a round a person then voted on first.

The read walks the readable verdicts (each cost a judge call, so they are few beside the votes)
and finds each one's vote by the unique matchup id; the boards are people's ``model_ratings``
and the judge's row of ``model_population_ratings``. Over 1M demo votes it takes 0.3 s with 20k
verdicts and 2 s with 200k (every prompt; a slice, 0.3 and 0.9 s).
"""

from __future__ import annotations

from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncConnection

from arena_api.core.agreement import LABELS, AgreementCounts, person_label
from arena_api.core.populations import HUMAN, JUDGE
from arena_api.core.sides import sql_labels

__all__ = ["read_agreement"]

_IN_SLICE = "   AND CAST(:category AS text) = ANY(arena_prompt_slices(m.categories, m.language))"
_PAIRS = f"""
WITH latest AS (
  SELECT DISTINCT ON (v.matchup_id) v.matchup_id, v.outcome, v.judge_name
    FROM judge_verdicts v
   WHERE v.outcome IN ({sql_labels(LABELS)})
   ORDER BY v.matchup_id, v.created_at DESC, v.id DESC
)
SELECT p.vote, l.outcome, l.judge_name, count(*) AS rounds
  FROM latest l
  JOIN preferences p ON p.matchup_id = l.matchup_id AND p.method = '{HUMAN}'
  JOIN matchups m ON m.id = l.matchup_id AND m.mode = 'blind'
{{slice}}
 GROUP BY 1, 2, 3
"""
_STATEMENTS: dict[bool, TextClause] = {
    False: text(_PAIRS.format(slice="")),
    True: text(_PAIRS.format(slice=_IN_SLICE)),
}
_BOARDS = text(
    f"""
SELECT h.rating AS people, j.rating AS judge
  FROM model_ratings h
  JOIN model_population_ratings j ON j.model_id = h.model_id AND j.population = '{JUDGE}'
 ORDER BY h.model_id
"""
)


async def read_agreement(conn: AsyncConnection, category: str | None) -> AgreementCounts:
    """Count the rounds both judged (in one slice of prompts, or all) and read both boards
    (over every prompt only: the judge's board has no slices)."""
    index = {label: i for i, label in enumerate(LABELS)}
    matrix = [[0] * len(LABELS) for _ in LABELS]
    skips = 0
    judges: set[str] = set()
    params = {"category": category}
    for row in (await conn.execute(_STATEMENTS[category is not None], params)).all():
        label = person_label(row.vote)
        if label is None:
            skips += row.rounds
            continue
        matrix[index[label]][index[row.outcome]] += row.rounds
        judges.add(row.judge_name)
    boards: tuple[tuple[float, float], ...] = ()
    if category is None:  # the judge's board has no slices
        rows = (await conn.execute(_BOARDS)).all()
        boards = tuple((float(r.people), float(r.judge)) for r in rows)
    return AgreementCounts(
        matrix=tuple(tuple(row) for row in matrix),
        skips=skips,
        judges=tuple(sorted(judges)),
        boards=boards,
    )
