"""Everything the rating process reads, each as one SQL statement that returns arrays.

The process reads the request-path tables (``preferences``, ``matchups``, ``responses``) and
the summaries their triggers keep, and never pulls raw vote rows into Python for the default
pass. Only two reads still visit every vote (the anomaly screen's, and the style pass's), and
neither joins or hashes them all:

``read_session_stats``
    One walk down ``preferences_session_idx`` (people's votes with a session, in session and
    time order) with a window for the gaps between a session's votes: the inputs of the anomaly
    screen. The gaps need each vote's time, which no per-session counter can keep exactly (the
    speed floor is a setting, and the median is reported), so this read grows with the votes.
``read_vote_filters``
    The filters before the fit: the votes on rounds whose answers named themselves (through a
    partial index over those few answers) and the votes of over-asked prompts beyond the cap
    (the rounds per prompt counted down ``matchups_prompt_key_idx``, the total from the vote
    summary, then the votes of the prompts asked more than the cap read and ranked).
``read_vote_tallies``
    Every board's pair counts without a join of every vote: the vote summary
    (``pair_outcome_stats``) per method and canonical pair, and the slice summary
    (``category_pair_stats``), less what the left-out votes count (named rounds, screened
    sessions, filtered votes; each found by an index or by id). O(pairs + left-out votes).
``read_pair_counts``, ``read_slice_pair_counts``
    One board from the tallies: canonical ``(model_lo, model_hi, wins_lo, wins_hi, ties)``
    counts of a population, and of each slice of prompts (category or language).
``read_style_votes``
    The style pass's raw rows (``preferences ⋈ matchups ⋈ responses``), returned as one row of
    packed binary columns, with votes whose slot failed or whose metrics are missing excluded
    and counted (never zero-filled). The style model's likelihood is a sum over votes whose
    covariates differ vote by vote, so no pair summary can stand in for them.

The model set of a pass is every model that took part in at least one non-skip vote, whether or
not that vote survived the anomaly screen, and disabled models included: their votes inform the
strengths of the models they met, and the leaderboard hides them (it reads enabled models
only). A model whose every vote was excluded is rated alone: component of its own, rating 1000,
the ridge prior's interval and ``games = 0``. ``begin_snapshot`` makes the reads of one pass see
one consistent snapshot.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import (
    Integer,
    LargeBinary,
    Text,
    and_,
    bindparam,
    case,
    cast,
    exists,
    func,
    literal,
    or_,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import UUID as PG_UUID
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from arena_api.core.boards import DEFAULT_BOARD, Board
from arena_api.core.populations import HUMAN, JUDGE
from arena_api.core.sides import (
    SKIP,
    SLOT_PICKED,
    TIE_VOTES,
    VOTES,
    sql_labels,
    sql_side_counter,
    sql_side_wins,
)
from arena_api.core.style_features import POSITION, STYLE_FEATURES
from arena_api.db.tables import matchups, preferences, responses
from arena_rating._errors import RatingInputError
from arena_rating.anomaly import SessionStats
from arena_rating.bradley_terry import Outcome, PairCounts
from arena_rating.style import StyleVotes

__all__ = [
    "AggregatedVotes",
    "StyleRows",
    "VoteFilters",
    "VoteTallies",
    "begin_snapshot",
    "read_pair_counts",
    "read_session_stats",
    "read_slice_pair_counts",
    "read_style_votes",
    "read_vote_filters",
    "read_vote_tallies",
]

# The votes the ratings are fitted to are people's (``HUMAN``) unless a board says otherwise;
# every label ``preferences.vote`` may hold is one of the kernel's ``VOTES``, anything else is
# rejected, never guessed.
#: Memory PostgreSQL may use per sort or hash in the pass's reads: enough to keep a million-vote
#: join and aggregate off disk. ``SET LOCAL`` confines it to the pass's transaction.
WORK_MEM = "256MB"


async def begin_snapshot(conn: AsyncConnection) -> None:
    """Make the current transaction a read-only snapshot shared by every read of the pass.

    Must be the first statement of the transaction.
    """
    await conn.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"))
    await conn.execute(text(f"SET LOCAL work_mem = '{WORK_MEM}'"))


def _kept(excluded: Sequence[str]) -> ColumnElement[bool]:
    """Whether a vote survives the screen: no session, or a session not in ``excluded``.

    ``NOT IN (SELECT unnest(...))`` becomes a hashed subplan probed once per vote, which keeps
    the join of a million votes parallel; an outer join against the excluded ids makes the
    planner rebuild a million-row hash in every worker.
    """
    if not excluded:
        return literal(True)
    session = preferences.c.anonymous_session_id
    ids = select(func.unnest(bindparam("excluded", list(excluded), type_=ARRAY(Text))))
    return or_(session.is_(None), session.not_in(ids.scalar_subquery()))


def _unfiltered(filtered: Sequence[uuid.UUID]) -> ColumnElement[bool]:
    """Whether a vote passed the filters before the fit (not one of the ``filtered`` ids);
    a hashed subplan, as in ``_kept``."""
    if not filtered:
        return literal(True)
    ids = select(func.unnest(bindparam("filtered", list(filtered), type_=ARRAY(PG_UUID))))
    return preferences.c.id.not_in(ids.scalar_subquery())


@dataclass(frozen=True)
class VoteFilters:
    """The votes the filters before the fit leave out, by preference id.

    Attributes
    ----------
    identity : dict
        Non-skip votes on a round where an answer named its own model, family or vendor, with
        the slots that did (``A``, ``B`` or ``AB``).
    duplicates : dict
        People's non-skip votes beyond the cap of an over-asked prompt, with its prompt key
        (none that ``identity`` already holds).
    cap : int or None
        The most votes one prompt kept (``None``: the duplicate cap was off).
    """

    identity: dict[uuid.UUID, str] = field(default_factory=dict)
    duplicates: dict[uuid.UUID, str] = field(default_factory=dict)
    cap: int | None = None

    @property
    def excluded(self) -> tuple[uuid.UUID, ...]:
        return (*self.identity, *self.duplicates)


_IDENTITY_LEAKS = text(
    f"""
SELECT p.id, string_agg(r.slot, '' ORDER BY r.slot) AS slots
  FROM responses r JOIN preferences p ON p.matchup_id = r.matchup_id
 WHERE r.names_itself AND p.vote <> '{SKIP}'
 GROUP BY p.id
"""
)

# People's non-skip votes per prompt key; a prompt with more than the cap keeps the cap's worth,
# chosen by a seeded hash of the vote's id (the same votes pass after pass, new ones join by
# the same order), and the rest are returned. The cap is a share of all those votes, never
# fewer than :floor votes. No statement joins every vote: the total is the vote summary's less
# the votes on unclassified rounds (``matchups_prompt_key_idx`` holds their NULL keys), and
# only the prompts asked more often than the cap (rounds counted down the same index, an upper
# bound of their votes) have their votes read, counted and ranked.
_DUPLICATE_CAP = text(
    f"""
WITH cap AS (
  SELECT greatest(ceil(CAST(:share AS float8) * (
           (SELECT coalesce(sum(left_wins + right_wins + both_good + both_bad), 0)
              FROM pair_outcome_stats WHERE method = '{HUMAN}')
         - (SELECT count(*) FROM matchups m JOIN preferences p ON p.matchup_id = m.id
             WHERE m.prompt_key IS NULL AND p.vote <> '{SKIP}' AND p.method = '{HUMAN}')
         )), :floor)::bigint AS n
)
SELECT (SELECT n FROM cap) AS cap,
       ARRAY(SELECT prompt_key FROM matchups WHERE prompt_key IS NOT NULL
              GROUP BY 1 HAVING count(*) > (SELECT n FROM cap)) AS asked
"""
)
# The asked prompts' keys come as a (short) array, so that their votes are read down the
# prompt-key index and never by a hash join of every round.
_DUPLICATES = text(
    f"""
WITH votes AS (
  SELECT p.id, m.prompt_key
    FROM matchups m JOIN preferences p ON p.matchup_id = m.id
   WHERE m.prompt_key = ANY(CAST(:asked AS text[]))
     AND p.vote <> '{SKIP}' AND p.method = '{HUMAN}'
), heavy AS (
  SELECT v.prompt_key FROM votes v GROUP BY 1 HAVING count(*) > :cap
), ranked AS (
  SELECT v.id, v.prompt_key,
         row_number() OVER (PARTITION BY v.prompt_key ORDER BY md5(:seed || v.id::text)) AS k
    FROM votes v JOIN heavy h ON h.prompt_key = v.prompt_key
)
SELECT r.id, r.prompt_key FROM ranked r WHERE r.k > :cap
"""
)
#: Seeds the choice of the votes an over-asked prompt keeps (stable from pass to pass).
DUPLICATE_SEED = "arena:duplicate-prompts:1"


async def read_vote_filters(
    conn: AsyncConnection,
    *,
    identity: bool,
    duplicate_share: float | None,
    duplicate_floor: int,
) -> VoteFilters:
    """The votes the identity-leak filter and the duplicate-prompt cap leave out.

    Parameters
    ----------
    identity : bool
        Leave out the votes on rounds whose answers named themselves.
    duplicate_share : float or None
        The share of people's votes one prompt may take (``None``: no cap).
    duplicate_floor : int
        A prompt is never capped below this many votes.
    """
    leaks: dict[uuid.UUID, str] = {}
    if identity:
        leaks = {r.id: r.slots for r in (await conn.execute(_IDENTITY_LEAKS)).all()}
    if duplicate_share is None:
        return VoteFilters(identity=leaks)
    cap, asked = (
        await conn.execute(_DUPLICATE_CAP, {"share": duplicate_share, "floor": duplicate_floor})
    ).one()
    found: Sequence[Any] = ()
    if asked:
        found = (
            await conn.execute(
                _DUPLICATES, {"asked": list(asked), "cap": int(cap), "seed": DUPLICATE_SEED}
            )
        ).all()
    duplicates = {r.id: r.prompt_key for r in found if r.id not in leaks}
    return VoteFilters(identity=leaks, duplicates=duplicates, cap=int(cap))


_PICKS_A, _PICKS_B = (next(v for v, s in SLOT_PICKED.items() if s == slot) for slot in "AB")
# One pass down ``preferences_session_idx`` (session, time, vote of people's votes with a
# session): the votes come in session and time order, so the window and the grouping need no
# sort. The per-session rows come back as one row of arrays.
_SESSION_STATS = text(
    f"""
WITH votes AS (
  SELECT anonymous_session_id AS session_id, vote,
         extract(epoch FROM created_at - lag(created_at) OVER (
           PARTITION BY anonymous_session_id ORDER BY created_at)) AS gap
    FROM preferences
   WHERE anonymous_session_id IS NOT NULL AND method = '{HUMAN}'
), sessions AS (
  SELECT session_id, count(*) AS votes,
         count(*) FILTER (WHERE vote = '{_PICKS_A}') AS left_votes,
         count(*) FILTER (WHERE vote = '{_PICKS_B}') AS right_votes,
         count(gap) AS gaps, count(*) FILTER (WHERE gap < :min_gap) AS fast_gaps,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY gap) AS median_gap
    FROM votes GROUP BY session_id
)
SELECT array_agg(session_id) AS ids, array_agg(votes) AS votes, array_agg(left_votes) AS lefts,
       array_agg(right_votes) AS rights, array_agg(gaps) AS gaps,
       array_agg(fast_gaps) AS fast_gaps, array_agg(median_gap) AS medians
  FROM sessions
"""
)


# The same counts per signed-in person (their votes across every session), with the sessions
# their votes came from.
_USER_STATS = text(
    f"""
WITH votes AS (
  SELECT user_id, anonymous_session_id AS session_id, vote,
         extract(epoch FROM created_at - lag(created_at) OVER (
           PARTITION BY user_id ORDER BY created_at)) AS gap
    FROM preferences
   WHERE user_id IS NOT NULL AND method = '{HUMAN}'
), users AS (
  SELECT user_id, count(*) AS votes,
         count(*) FILTER (WHERE vote = '{_PICKS_A}') AS left_votes,
         count(*) FILTER (WHERE vote = '{_PICKS_B}') AS right_votes,
         count(gap) AS gaps, count(*) FILTER (WHERE gap < :min_gap) AS fast_gaps,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY gap) AS median_gap,
         array_remove(array_agg(DISTINCT session_id), NULL) AS sessions
    FROM votes GROUP BY user_id
)
SELECT array_agg('user:' || user_id) AS ids, array_agg(votes) AS votes,
       array_agg(left_votes) AS lefts, array_agg(right_votes) AS rights,
       array_agg(gaps) AS gaps, array_agg(fast_gaps) AS fast_gaps,
       array_agg(median_gap) AS medians,
       array_agg(array_to_string(sessions, chr(31))) AS sessions
  FROM users
"""
)


def _stats(row: Any) -> SessionStats:
    def counts(values: Sequence[int] | None) -> NDArray[np.int64]:
        return np.array(values or [], dtype=np.int64)

    return SessionStats(
        session_ids=tuple(str(s) for s in row.ids or ()),
        votes=counts(row.votes),
        left=counts(row.lefts),
        right=counts(row.rights),
        gaps=counts(row.gaps),
        fast_gaps=counts(row.fast_gaps),
        median_gap_s=np.array(
            [np.nan if v is None else float(v) for v in row.medians or ()], dtype=np.float64
        ),
    )


async def read_user_stats(
    conn: AsyncConnection, *, min_gap_s: float
) -> tuple[SessionStats, dict[str, tuple[str, ...]]]:
    """The anomaly screen's counts per signed-in person (``user:<id>``) over all their
    sessions, and the sessions each person's votes came from: someone who spreads bot-like
    voting over many short sessions, each too small to flag, is screened as one voter."""
    row = (await conn.execute(_USER_STATS, {"min_gap": float(min_gap_s)})).one()
    sessions = {
        str(user): tuple(s for s in (joined or "").split(chr(31)) if s)
        for user, joined in zip(row.ids or (), row.sessions or (), strict=True)
    }
    return _stats(row), sessions


async def read_session_stats(conn: AsyncConnection, *, min_gap_s: float) -> SessionStats:
    """Per-session vote counts, decisive slot choices and inter-vote gaps of people's votes.

    Votes without a session id are not sessions and are left out.
    """
    row = (await conn.execute(_SESSION_STATS, {"min_gap": float(min_gap_s)})).one()
    return _stats(row)


@dataclass(frozen=True)
class AggregatedVotes:
    """The default pass's input.

    Attributes
    ----------
    model_ids : tuple of uuid.UUID
        Model of each index, ascending.
    counts : PairCounts
        Kept comparisons per canonical pair (indices into ``model_ids``).
    votes : int
        Every vote read, skips and excluded sessions included.
    skips : int
        ``skip`` votes (never a comparison).
    excluded : int
        Non-skip votes of excluded sessions.
    """

    model_ids: tuple[uuid.UUID, ...]
    counts: PairCounts
    votes: int
    skips: int
    excluded: int

    @property
    def ties(self) -> int:
        return int(self.counts.ties.sum())

    @property
    def decisive(self) -> int:
        return int((self.counts.wins_first + self.counts.wins_second).sum())


def _unknown_vote() -> ColumnElement[bool]:
    return preferences.c.vote.not_in(VOTES)


async def named_votes_exist(conn: AsyncConnection) -> bool:
    """Whether any named side-by-side round exists (a look at a partial index, not a scan)."""
    query = select(exists().where(matchups.c.mode == "named"))
    return bool((await conn.execute(query)).scalar_one())


async def judge_votes_exist(conn: AsyncConnection) -> bool:
    """Whether a judge model has voted (a look at a partial index, not a scan)."""
    query = select(exists().where(preferences.c.method == JUDGE))
    return bool((await conn.execute(query)).scalar_one())


# The reviewers' verdicts per canonical pair (lower model id first): wins of each side, ties.
_REVIEWER_PAIRS = """
SELECT least(m.slot_a_model_id, m.slot_b_model_id) AS lo,
       greatest(m.slot_a_model_id, m.slot_b_model_id) AS hi,
       count(*) FILTER (WHERE (v.vote = 'left') = (m.slot_a_model_id < m.slot_b_model_id)
                          AND v.vote IN ('left', 'right')) AS lo_wins,
       count(*) FILTER (WHERE (v.vote = 'right') = (m.slot_a_model_id < m.slot_b_model_id)
                          AND v.vote IN ('left', 'right')) AS hi_wins,
       count(*) FILTER (WHERE v.vote IN ('both_good', 'both_bad')) AS ties
  FROM review_verdicts v
  JOIN review_items i ON i.id = v.item_id
  JOIN matchups m ON m.id = i.matchup_id
 WHERE v.vote <> 'skip' AND m.slot_a_model_id <> m.slot_b_model_id
 GROUP BY 1, 2
"""


async def read_reviewer_votes(conn: AsyncConnection) -> AggregatedVotes | None:
    """The expert reviewers' verdicts in review queues as one board's pair counts (skips
    apart; every reviewer's verdict counts, as each is a person's judgement); ``None`` when
    there are none. Review queues are small (a queue holds at most a thousand items)."""
    rows = (await conn.execute(text(_REVIEWER_PAIRS))).all()
    if not rows:
        return None
    model_ids = tuple(sorted({r.lo for r in rows} | {r.hi for r in rows}))
    index = {m: i for i, m in enumerate(model_ids)}
    counts = PairCounts(
        len(model_ids),
        np.array([(index[r.lo], index[r.hi]) for r in rows], dtype=np.intp).reshape(-1, 2),
        np.array([r.lo_wins for r in rows], dtype=np.float64),
        np.array([r.hi_wins for r in rows], dtype=np.float64),
        np.array([r.ties for r in rows], dtype=np.float64),
    )
    total = int(sum(r.lo_wins + r.hi_wins + r.ties for r in rows))
    return AggregatedVotes(model_ids=model_ids, counts=counts, votes=total, skips=0, excluded=0)


async def read_pair_counts(
    conn: AsyncConnection,
    board: Board = DEFAULT_BOARD,
    *,
    excluded_sessions: Sequence[str] = (),
    filtered: Sequence[uuid.UUID] = (),
) -> AggregatedVotes:
    """Canonical pair counts of every vote of ``board`` (people's blind votes by default; the
    named rounds' votes too on a ``named`` board; the judge's or everyone's by its population),
    leaving out the votes of ``excluded_sessions`` and, unless the board is unfiltered, the
    ``filtered`` ones (``read_vote_tallies``: the summary less the left-out votes).

    Raises
    ------
    ValueError
        ``board`` is cut to a slice of prompts.
    """
    if board.category is not None:
        raise ValueError("a slice's board is read by read_slice_pair_counts")
    tallies = await read_vote_tallies(
        conn, excluded_sessions=excluded_sessions, filtered=filtered, slices=False
    )
    return tallies.board(board)


async def read_slice_pair_counts(
    conn: AsyncConnection,
    *,
    excluded_sessions: Sequence[str] = (),
    filtered: Sequence[uuid.UUID] = (),
    min_votes: int = 1,
) -> dict[str, AggregatedVotes]:
    """People's blind votes per slice of prompts (each category of a round, and its language
    as ``language:<code>``) without the screened sessions' and the ``filtered`` votes, as
    canonical pair counts; only the slices with at least ``min_votes`` such comparisons.
    A slice's models are those with a kept comparison in it."""
    tallies = await read_vote_tallies(
        conn, excluded_sessions=excluded_sessions, filtered=filtered, slices=True
    )
    return tallies.slices(min_votes)


#: Why a vote is left out of a board, as bits (``_LEFT_OUT`` ORs them per vote).
_NAMED, _SCREENED, _FILTERED = 1, 2, 4

_LEFT_OUT_COUNTS = f"""
       count(*) FILTER (WHERE {sql_side_wins("lo")}) AS wins_lo,
       count(*) FILTER (WHERE {sql_side_wins("hi")}) AS wins_hi,
       count(*) FILTER (WHERE vote IN ({sql_labels(TIE_VOTES)})) AS ties,
       count(*) FILTER (WHERE vote = '{SKIP}') AS skips,
       count(*) FILTER (WHERE vote NOT IN ({sql_labels(VOTES)})) AS unknown"""
_SUMMARY_COUNTS = f"""
       sum({sql_side_counter("lo")}) AS wins_lo, sum({sql_side_counter("hi")}) AS wins_hi,
       sum(both_good + both_bad) AS ties, sum(skips) AS skips, 0 AS unknown"""
_CANONICAL = """LEAST(slot_a_model_id, slot_b_model_id) AS lo,
       GREATEST(slot_a_model_id, slot_b_model_id) AS hi"""
# Everything a pass's boards are made of, in one statement of a few rows of arrays (models as
# their positions in ``models`` ordered by id):
#
# - ``total``: every vote per method and canonical pair, from the summary the vote triggers
#   keep (``pair_outcome_stats``);
# - ``left_out``: the votes some board leaves out, per method, why (``reasons``: bits of named
#   round, screened session, filtered) and pair. Each kind is found by its own narrow read: the
#   named rounds by a partial index, the screened sessions' votes by ``preferences_session_idx``
#   (the judge's by its partial index), the filtered ones by their ids; never a join of every
#   vote;
# - ``slice``: people's kept votes per slice of prompts and pair, the slice summary
#   (``category_pair_stats``) less the left-out votes on that slice.
_TALLIES = f"""
WITH ix AS (
  SELECT id, CAST(row_number() OVER (ORDER BY id) - 1 AS integer) AS k FROM models
), left_out AS (
  -- Named rounds and filtered votes by id; the screened sessions' votes straight off the
  -- session index's rows (no second look-up of each vote).
  SELECT id, bit_or(reasons) AS reasons, method, vote, matchup_id FROM (
    SELECT p.id, why.reason AS reasons, p.method, p.vote, p.matchup_id
      FROM (SELECT id, bit_or(reason) AS reason FROM (
              SELECT p.id, {_NAMED} AS reason
                FROM matchups m JOIN preferences p ON p.matchup_id = m.id
               WHERE m.mode = 'named'
              UNION ALL
              SELECT unnest(CAST(:filtered AS uuid[])), {_FILTERED}
            ) AS named_or_filtered GROUP BY id) AS why
      JOIN preferences p ON p.id = why.id
    UNION ALL
    SELECT id, {_SCREENED}, method, vote, matchup_id FROM preferences
     WHERE method = '{HUMAN}' AND anonymous_session_id IS NOT NULL
       AND anonymous_session_id IN (SELECT unnest(CAST(:sessions AS text[])))
    UNION ALL
    SELECT id, {_SCREENED}, method, vote, matchup_id FROM preferences
     WHERE method = '{JUDGE}'
       AND anonymous_session_id IN (SELECT unnest(CAST(:sessions AS text[])))
  ) AS why GROUP BY id, method, vote, matchup_id
), voted AS MATERIALIZED (
  SELECT o.reasons, o.method, o.vote, m.slot_a_model_id, m.slot_b_model_id, m.categories,
         m.language
    FROM left_out o JOIN matchups m ON m.id = o.matchup_id
), counted AS (
  SELECT 'total' AS kind, NULL AS slice, method, 0 AS reasons, {_CANONICAL},{_SUMMARY_COUNTS}
    FROM pair_outcome_stats
   GROUP BY 3, 5, 6
  UNION ALL
  SELECT 'left_out', NULL, method, reasons, {_CANONICAL},{_LEFT_OUT_COUNTS}
    FROM voted
   GROUP BY 3, 4, 5, 6
  {{slices}}
)
SELECT c.kind, c.slice, c.method, c.reasons, array_agg(lo.k) AS lo, array_agg(hi.k) AS hi,
       array_agg(c.wins_lo) AS wins_lo, array_agg(c.wins_hi) AS wins_hi,
       array_agg(c.ties) AS ties, array_agg(c.skips) AS skips, sum(c.unknown) AS unknown,
       (SELECT array_agg(id ORDER BY k) FROM ix) AS models
  FROM counted c JOIN ix lo ON lo.id = c.lo JOIN ix hi ON hi.id = c.hi
 GROUP BY 1, 2, 3, 4
"""
_TALLY_SLICES = f"""
  UNION ALL
  SELECT 'slice', t.slice, '{HUMAN}', 0, t.lo, t.hi, t.wins_lo - coalesce(l.wins_lo, 0),
         t.wins_hi - coalesce(l.wins_hi, 0), t.ties - coalesce(l.ties, 0),
         t.skips - coalesce(l.skips, 0), coalesce(l.unknown, 0)
    FROM (SELECT category AS slice, {_CANONICAL},{_SUMMARY_COUNTS}
            FROM category_pair_stats WHERE method = '{HUMAN}' GROUP BY 1, 2, 3) AS t
    LEFT JOIN (SELECT s.slice, {_CANONICAL},{_LEFT_OUT_COUNTS}
                 FROM voted
                CROSS JOIN unnest(arena_prompt_slices(categories, language)) AS s (slice)
                WHERE method = '{HUMAN}' GROUP BY 1, 2, 3) AS l
           ON l.slice = t.slice AND l.lo = t.lo AND l.hi = t.hi"""


def _pair_keys(n_models: int, row: Any) -> NDArray[np.int64]:
    """A row's pairs as ``lo * n_models + hi`` (canonical: ``lo < hi`` in model order)."""
    lo = np.asarray(row.lo, dtype=np.int64)
    return np.asarray(lo * n_models + np.asarray(row.hi, dtype=np.int64), dtype=np.int64)


@dataclass(frozen=True)
class _Counts:
    """Counters per pair of the pass (``VoteTallies.keys``): an array of shape
    ``(4, n_pairs)`` of lo's wins, hi's wins, ties and skips."""

    values: NDArray[np.int64]

    @classmethod
    def of(cls, keys: NDArray[np.int64], n_models: int, row: Any) -> _Counts:
        position = np.searchsorted(keys, _pair_keys(n_models, row))
        return cls(
            np.stack(
                [
                    np.bincount(
                        position, np.asarray(getattr(row, name), dtype=np.float64), keys.size
                    )
                    for name in ("wins_lo", "wins_hi", "ties", "skips")
                ]
            )
            .round()
            .astype(np.int64)
        )

    @property
    def compared(self) -> NDArray[np.int64]:
        return np.asarray(self.values[:3].sum(axis=0), dtype=np.int64)


@dataclass(frozen=True)
class VoteTallies:
    """Every vote of a pass counted per method and canonical pair (from the summaries the vote
    triggers keep), the votes some board leaves out counted the same way by why, and people's
    kept votes per slice of prompts.

    Any board's pair counts follow by subtraction (``board``), and each slice's (``slices``):
    the cost grows with models, pairs, slices and left-out votes, never with the votes.
    """

    model_ids: tuple[uuid.UUID, ...]
    #: Every pair any count names, as ``lo * n_models + hi``, ascending.
    keys: NDArray[np.int64]
    totals: dict[str, _Counts]
    left_out: dict[tuple[str, int], _Counts]
    kept_slices: dict[str, _Counts] = field(default_factory=dict)

    def board(self, board: Board = DEFAULT_BOARD, *, screened: bool = True) -> AggregatedVotes:
        """``board``'s pair counts: its population (methods, named rounds or not) less its
        screened sessions' votes (unless ``screened`` is false: the judge has no session to
        screen) and, on a filtered board, the filtered votes.

        Raises
        ------
        ValueError
            ``board`` is cut to a slice of prompts (``slices`` holds those).
        """
        if board.category is not None:
            raise ValueError("a slice's board is read from VoteTallies.slices")
        population = np.zeros((4, self.keys.size), dtype=np.int64)
        for voter in board.methods:
            if voter in self.totals:
                population += self.totals[voter].values
        kept = population.copy()
        excluded = 0
        for (method, reasons), counts in self.left_out.items():
            if method not in board.methods:
                continue
            if reasons & _NAMED and not board.named:
                population -= counts.values
                kept -= counts.values
                continue
            screened_out = bool(reasons & _SCREENED) and screened
            if screened_out:
                excluded += int(counts.compared.sum())
            if screened_out or (reasons & _FILTERED and board.filters):
                kept -= counts.values
        aggregated = self._aggregated(kept, population[:3].sum(axis=0) > 0)
        skips = int(population[3].sum())
        return dataclasses.replace(
            aggregated,
            votes=int(population[:3].sum()) + skips,
            skips=skips,
            excluded=excluded,
        )

    def slices(self, min_votes: int = 1) -> dict[str, AggregatedVotes]:
        """People's blind, kept votes per slice of prompts, for the slices with at least
        ``min_votes`` comparisons; a slice's models are those with a kept comparison in it."""
        boards = {}
        for name in sorted(self.kept_slices):
            values = self.kept_slices[name].values
            compared = values[:3].sum(axis=0) > 0
            if not compared.any():
                continue
            votes = self._aggregated(values, compared)
            boards[name] = dataclasses.replace(
                votes,
                votes=int(values[:, compared].sum()),
                skips=int(values[3, compared].sum()),
            )
        return {
            name: votes
            for name, votes in boards.items()
            if votes.decisive + votes.ties >= min_votes
        }

    def _aggregated(self, values: NDArray[np.int64], present: NDArray[np.bool_]) -> AggregatedVotes:
        """The pairs ``present`` of ``values`` over the models they name, in canonical order."""
        n = len(self.model_ids)
        columns = np.flatnonzero(present)
        keys = self.keys[columns]
        lo, hi = np.divmod(keys, n) if n else (keys, keys)
        models, local = np.unique(np.concatenate([lo, hi]), return_inverse=True)
        pairs = local.reshape(2, -1).T.astype(np.intp).reshape(-1, 2)
        counts = PairCounts(
            int(models.size),
            pairs,
            values[0, columns].astype(np.float64),
            values[1, columns].astype(np.float64),
            values[2, columns].astype(np.float64),
        )
        return AggregatedVotes(
            model_ids=tuple(self.model_ids[int(i)] for i in models),
            counts=counts,
            votes=0,
            skips=0,
            excluded=0,
        )


async def read_vote_tallies(
    conn: AsyncConnection,
    *,
    excluded_sessions: Sequence[str] = (),
    filtered: Sequence[uuid.UUID] = (),
    slices: bool = True,
) -> VoteTallies:
    """Read the vote summaries and count the votes the boards leave out (``VoteTallies``) in
    one statement whose cost grows with pairs, slices and left-out votes, not with the votes.

    Raises
    ------
    RatingInputError
        A vote holds a label outside ``VOTES``.
    """
    query = text(_TALLIES.replace("{slices}", _TALLY_SLICES if slices else ""))
    params = {"sessions": list(excluded_sessions), "filtered": list(filtered)}
    rows = (await conn.execute(query, params)).all()
    unknown = sum(int(r.unknown or 0) for r in rows)
    if unknown:
        raise RatingInputError(f"{unknown} votes hold a label outside {VOTES}")
    model_ids: tuple[uuid.UUID, ...] = tuple(rows[0].models or ()) if rows else ()
    n = len(model_ids)
    keys = np.unique(np.concatenate([_pair_keys(n, r) for r in rows] or [np.zeros(0, np.int64)]))
    totals: dict[str, _Counts] = {}
    left_out: dict[tuple[str, int], _Counts] = {}
    kept_slices: dict[str, _Counts] = {}
    for r in rows:
        counts = _Counts.of(keys, n, r)
        if r.kind == "total":
            totals[str(r.method)] = counts
        elif r.kind == "left_out":
            left_out[(str(r.method), int(r.reasons))] = counts
        else:
            kept_slices[str(r.slice)] = counts
    return VoteTallies(model_ids, keys, totals, left_out, kept_slices)


@dataclass(frozen=True)
class StyleRows:
    """The style pass's input.

    Attributes
    ----------
    votes : StyleVotes
        Kept votes, model indices into the ``model_ids`` the rows were read with.
    read : int
        Non-skip votes between models of the pass.
    excluded_sessions, missing_response, failed_slot, missing_ttft : int
        Votes left out, each counted under the first reason that applies in this order.
    """

    votes: StyleVotes
    read: int
    excluded_sessions: int
    missing_response: int
    failed_slot: int
    missing_ttft: int

    @property
    def excluded(self) -> dict[str, int]:
        return {
            "excluded session": self.excluded_sessions,
            "missing response": self.missing_response,
            "failed slot": self.failed_slot,
            "missing TTFT": self.missing_ttft,
        }


#: How each packed column is encoded by PostgreSQL (``*send`` is the binary wire format,
#: big-endian) and read back by NumPy.
_PACKED = {"uuid_send": np.dtype("S16"), "int4send": np.dtype(">i4"), "float8send": np.dtype(">f8")}
#: The packed column holding each style feature's delta, and its encoding.
_STYLE_DELTAS = {
    "verbosity": ("tokens", "int4send"),
    "formatting": ("markdown", "float8send"),
    "latency_ttft": ("ttft", "int4send"),
    "latency_duration": ("duration", "int4send"),
}


async def read_style_votes(
    conn: AsyncConnection,
    *,
    model_ids: Sequence[uuid.UUID],
    excluded_sessions: Sequence[str] = (),
    filtered: Sequence[uuid.UUID] = (),
) -> StyleRows:
    """Raw non-skip votes with the style deltas of their two responses, as arrays.

    The kept rows come back as one row of packed columns: each column is the concatenation of its
    values in PostgreSQL's binary format (``string_agg(int4send(x), '')`` and so on), which NumPy
    reads without a Python object per value. A million votes cost a few megabytes and a few
    ``frombuffer`` calls instead of a million rows or seven million Python numbers. Every
    aggregate of one query consumes the rows in the same order, so the columns line up.

    Parameters
    ----------
    conn : AsyncConnection
        Inside the pass's snapshot.
    model_ids : sequence of uuid.UUID
        The pass's models, ascending; slot models are mapped to their positions here.
    excluded_sessions : sequence of str
        Sessions the screen excluded.
    filtered : sequence of uuid.UUID
        Votes the filters before the fit left out (counted with the excluded sessions').

    Raises
    ------
    RatingInputError
        A vote holds a label outside ``VOTES``, or names a model missing from
        ``model_ids``.
    """
    ra, rb = responses.alias("ra"), responses.alias("rb")
    vote = preferences.c.vote
    joined = (
        preferences.join(matchups, matchups.c.id == preferences.c.matchup_id)
        .outerjoin(ra, and_(ra.c.matchup_id == matchups.c.id, ra.c.slot == "A"))
        .outerjoin(rb, and_(rb.c.matchup_id == matchups.c.id, rb.c.slot == "B"))
    )
    flagged = ~and_(_kept(excluded_sessions), _unfiltered(filtered))
    missing = or_(ra.c.id.is_(None), rb.c.id.is_(None))
    failed = or_(ra.c.error.is_not(None), rb.c.error.is_not(None))
    no_ttft = or_(ra.c.ttft_ms.is_(None), rb.c.ttft_ms.is_(None))
    kept = and_(~flagged, ~missing, ~failed, ~no_ttft)
    # The outcome from slot A's side: the slot a decisive vote picked wins, anything else ties.
    outcome = case(
        *(
            (vote == label, (Outcome.FIRST_WINS if slot == "A" else Outcome.SECOND_WINS).value)
            for label, slot in SLOT_PICKED.items()
        ),
        else_=Outcome.TIE.value,
    )
    empty = bindparam("empty", b"", type_=LargeBinary)

    def packed(send: str, expression: Any) -> Any:
        return func.string_agg(getattr(func, send)(expression), empty).filter(kept)

    query = (
        select(
            func.count().label("read"),
            func.count().filter(flagged).label("flagged"),
            func.count().filter(and_(~flagged, missing)).label("missing"),
            func.count().filter(and_(~flagged, ~missing, failed)).label("failed"),
            func.count().filter(and_(~flagged, ~missing, ~failed, no_ttft)).label("no_ttft"),
            func.count().filter(_unknown_vote()).label("unknown"),
            packed("uuid_send", matchups.c.slot_a_model_id).label("a"),
            packed("uuid_send", matchups.c.slot_b_model_id).label("b"),
            packed("int4send", cast(outcome, Integer)).label("outcome"),
            packed("int4send", ra.c.output_token_count - rb.c.output_token_count).label("tokens"),
            packed("float8send", ra.c.markdown_density - rb.c.markdown_density).label("markdown"),
            packed("int4send", ra.c.ttft_ms - rb.c.ttft_ms).label("ttft"),
            packed("int4send", ra.c.stream_duration_ms - rb.c.stream_duration_ms).label("duration"),
        )
        .select_from(joined)
        # The style pass is blind and human only.
        .where(vote != SKIP, matchups.c.mode != "named", preferences.c.method == HUMAN)
    )
    row = (await conn.execute(query)).one()
    if row.unknown:
        raise RatingInputError(f"{row.unknown} votes hold a label outside {VOTES}")

    def unpack(value: bytes | None, send: str) -> NDArray[Any]:
        return np.frombuffer(value or b"", dtype=_PACKED[send])

    roster = np.array([m.bytes for m in model_ids], dtype=_PACKED["uuid_send"])
    slot_a = _positions(roster, unpack(row.a, "uuid_send"))
    slot_b = _positions(roster, unpack(row.b, "uuid_send"))
    features = np.empty((slot_a.size, len(STYLE_FEATURES)), dtype=np.float64)
    features[:, STYLE_FEATURES.index(POSITION)] = 1.0
    for feature, (name, send) in _STYLE_DELTAS.items():
        features[:, STYLE_FEATURES.index(feature)] = unpack(getattr(row, name), send)
    votes = StyleVotes(
        n_models=len(model_ids),
        slot_a=slot_a,
        slot_b=slot_b,
        outcomes=unpack(row.outcome, "int4send").astype(np.int8),
        features=features,
    )
    return StyleRows(
        votes=votes,
        read=int(row.read),
        excluded_sessions=int(row.flagged),
        missing_response=int(row.missing),
        failed_slot=int(row.failed),
        missing_ttft=int(row.no_ttft),
    )


def _positions(roster: NDArray[Any], keys: NDArray[Any]) -> NDArray[np.intp]:
    """Index of each key in the sorted ``roster``.

    Raises
    ------
    RatingInputError
        A key is not in the roster.
    """
    if roster.size == 0:
        if keys.size:
            raise RatingInputError("votes name models outside the pass's model set")
        return np.zeros(0, dtype=np.intp)
    index = np.searchsorted(roster, keys)
    clipped = np.minimum(index, roster.size - 1)
    if not np.array_equal(roster[clipped], keys):
        raise RatingInputError("votes name models outside the pass's model set")
    return clipped.astype(np.intp)
