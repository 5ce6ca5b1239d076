"""Everything the rating process reads, each as one SQL statement that returns arrays.

The process reads only the request-path tables (``preferences``, ``matchups``, ``responses``)
and never pulls raw vote rows into Python for the default pass:

``read_session_stats``
    One ``GROUP BY anonymous_session_id`` over ``preferences`` with a window for the gaps between
    a session's votes: the inputs of the anomaly screen.
``read_vote_filters``
    The filters before the fit: the votes on rounds whose answers named themselves (through a
    partial index over those few answers) and the votes of over-asked prompts beyond the cap
    (one ``GROUP BY prompt_key``, then a seeded ranking within the heavy prompts only).
``read_pair_counts``
    One ``GROUP BY (LEAST(a, b), GREATEST(a, b))`` over ``preferences ⋈ matchups`` to canonical
    ``(model_lo, model_hi, wins_lo, wins_hi, ties)`` rows. Skips, the votes of excluded
    sessions and the filtered votes are left out inside the aggregate, so the same statement
    also reports how many votes the screen dropped. O(votes) rows become O(model pairs).
``read_unfiltered_pair_counts``
    The default population with the filtered votes added back, read by their ids.
``read_slice_pair_counts``
    The same per slice of prompts (category or language): the slice summary the triggers keep,
    less what the left-out votes (named rounds, screened sessions, filtered) count.
``read_style_votes``
    The style pass's raw rows (``preferences ⋈ matchups ⋈ responses``), returned as one row of
    packed binary columns, with votes whose slot failed or whose metrics are missing excluded
    and counted (never zero-filled).

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
from types import SimpleNamespace
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
    extract,
    func,
    literal,
    or_,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import UUID as PG_UUID
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import FromClause, Select
from sqlalchemy.sql.elements import ColumnElement

from arena_api.core.boards import DEFAULT_BOARD, Board
from arena_api.core.populations import HUMAN, JUDGE
from arena_api.core.sides import (
    SKIP,
    SLOT_PICKED,
    TIE_VOTES,
    VOTES,
    Side,
    side_winning_vote,
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
    "begin_snapshot",
    "read_pair_counts",
    "read_session_stats",
    "read_slice_pair_counts",
    "read_style_votes",
    "read_unfiltered_pair_counts",
    "read_vote_filters",
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
# fewer than :floor votes.
_DUPLICATES = text(
    f"""
WITH votes AS (
  SELECT p.id, m.prompt_key
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   WHERE p.vote <> '{SKIP}' AND p.method = '{HUMAN}' AND m.prompt_key IS NOT NULL
), cap AS (
  SELECT greatest(ceil(CAST(:share AS float8) * count(*)), :floor)::bigint AS n FROM votes
), heavy AS (
  SELECT v.prompt_key FROM votes v GROUP BY 1 HAVING count(*) > (SELECT n FROM cap)
), ranked AS (
  SELECT v.id, v.prompt_key,
         row_number() OVER (PARTITION BY v.prompt_key ORDER BY md5(:seed || v.id::text)) AS k
    FROM votes v JOIN heavy h ON h.prompt_key = v.prompt_key
)
SELECT (SELECT n FROM cap) AS cap, r.id, r.prompt_key
  FROM (SELECT 1) AS one LEFT JOIN ranked r ON r.k > (SELECT n FROM cap)
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
    found = (
        await conn.execute(
            _DUPLICATES,
            {"share": duplicate_share, "floor": duplicate_floor, "seed": DUPLICATE_SEED},
        )
    ).all()
    duplicates = {r.id: r.prompt_key for r in found if r.id is not None and r.id not in leaks}
    return VoteFilters(identity=leaks, duplicates=duplicates, cap=int(found[0].cap))


async def read_session_stats(conn: AsyncConnection, *, min_gap_s: float) -> SessionStats:
    """Per-session vote counts, decisive slot choices and inter-vote gaps.

    Votes without a session id are not sessions and are left out.
    """
    session = preferences.c.anonymous_session_id
    # Ordering by the id's hash first lets the one big sort compare integers and fall back to
    # the text only on a hash collision; grouping by the same pair reuses that order.
    bucket = func.hashtext(session)
    previous = func.lag(preferences.c.created_at).over(
        partition_by=(bucket, session), order_by=preferences.c.created_at
    )
    votes = (
        select(
            bucket.label("bucket"),
            session.label("session_id"),
            preferences.c.vote,
            extract("epoch", preferences.c.created_at - previous).label("gap"),
        )
        .where(session.is_not(None), preferences.c.method == HUMAN)
        .subquery("votes")
    )
    gap = votes.c.gap
    query = select(
        votes.c.session_id,
        func.count().label("votes"),
        *(func.count().filter(votes.c.vote == vote).label(vote) for vote in SLOT_PICKED),
        func.count(gap).label("gaps"),
        func.count().filter(gap < min_gap_s).label("fast_gaps"),
        func.percentile_cont(0.5).within_group(gap).label("median_gap"),
    ).group_by(votes.c.bucket, votes.c.session_id)
    rows = (await conn.execute(query)).all()
    return SessionStats(
        session_ids=tuple(str(r.session_id) for r in rows),
        votes=np.array([r.votes for r in rows], dtype=np.int64),
        left=np.array([r.left for r in rows], dtype=np.int64),
        right=np.array([r.right for r in rows], dtype=np.int64),
        gaps=np.array([r.gaps for r in rows], dtype=np.int64),
        fast_gaps=np.array([r.fast_gaps for r in rows], dtype=np.int64),
        median_gap_s=np.array(
            [np.nan if r.median_gap is None else float(r.median_gap) for r in rows],
            dtype=np.float64,
        ),
    )


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


def _wins(
    side: Side, vote: ColumnElement[str], a_is_lo: ColumnElement[bool]
) -> ColumnElement[bool]:
    """Whether ``vote`` makes the pair's ``side`` the winner (``arena_api.core.sides``)."""
    return or_(
        and_(vote == side_winning_vote(side, a_is_lo=True), a_is_lo),
        and_(vote == side_winning_vote(side, a_is_lo=False), ~a_is_lo),
    )


async def named_votes_exist(conn: AsyncConnection) -> bool:
    """Whether any named side-by-side round exists (a look at a partial index, not a scan)."""
    query = select(exists().where(matchups.c.mode == "named"))
    return bool((await conn.execute(query)).scalar_one())


async def judge_votes_exist(conn: AsyncConnection) -> bool:
    """Whether a judge model has voted (a look at a partial index, not a scan)."""
    query = select(exists().where(preferences.c.method == JUDGE))
    return bool((await conn.execute(query)).scalar_one())


def _pair_counts_query(
    board: Board,
    excluded_sessions: Sequence[str],
    filtered: Sequence[uuid.UUID],
    *,
    only: Sequence[uuid.UUID] | None = None,
) -> Select[Any]:
    """One ``GROUP BY`` to canonical pair counts of ``board``'s votes; with ``only``, of those
    votes alone (read by their ids, never by a pass over every vote).

    Raises
    ------
    ValueError
        ``board`` is cut to a slice of prompts (``read_slice_pair_counts`` reads those).
    """
    if board.category is not None:
        raise ValueError("a slice's board is read by read_slice_pair_counts")
    a, b = matchups.c.slot_a_model_id, matchups.c.slot_b_model_id
    vote = preferences.c.vote
    voted: FromClause = preferences
    if only is not None:
        ids = (
            func.unnest(bindparam("only", list(only), type_=ARRAY(PG_UUID)))
            .table_valued("id")
            .render_derived(name="only_votes")
        )
        voted = ids.join(preferences, preferences.c.id == ids.c.id)
    joined = voted.join(matchups, matchups.c.id == preferences.c.matchup_id)
    kept = _kept(excluded_sessions)
    passed = _unfiltered(filtered if board.filters else ())
    counted = and_(kept, passed)
    a_is_lo = a < b
    lo_wins, hi_wins = _wins("lo", vote, a_is_lo), _wins("hi", vote, a_is_lo)
    query = (
        select(
            func.least(a, b).label("lo"),
            func.greatest(a, b).label("hi"),
            func.count().filter(and_(counted, lo_wins)).label("wins_lo"),
            func.count().filter(and_(counted, hi_wins)).label("wins_hi"),
            func.count().filter(and_(counted, vote.in_(TIE_VOTES))).label("ties"),
            func.count().filter(vote != SKIP).label("compared"),
            func.count().filter(and_(vote != SKIP, ~kept)).label("excluded"),
            func.count().filter(_unknown_vote()).label("unknown"),
            func.count().filter(vote == SKIP).label("skips"),
            func.count().label("votes"),
        )
        .select_from(joined)
        .where(preferences.c.method.in_(list(board.methods)))
        .group_by(func.least(a, b), func.greatest(a, b))
    )
    if not board.named:
        query = query.where(matchups.c.mode != "named")
    return query


async def read_pair_counts(
    conn: AsyncConnection,
    board: Board = DEFAULT_BOARD,
    *,
    excluded_sessions: Sequence[str] = (),
    filtered: Sequence[uuid.UUID] = (),
) -> AggregatedVotes:
    """Aggregate every vote of ``board`` (people's blind votes by default; the named rounds'
    votes too on a ``named`` board; the judge's or everyone's by its population) into
    canonical pair counts with one ``GROUP BY``, leaving out the votes of
    ``excluded_sessions`` and, unless the board is unfiltered, the ``filtered`` ones.

    Raises
    ------
    RatingInputError
        A vote holds a label outside ``VOTES``.
    ValueError
        ``board`` is cut to a slice of prompts.
    """
    query = _pair_counts_query(board, excluded_sessions, filtered)
    return _aggregated((await conn.execute(query)).all())


async def read_unfiltered_pair_counts(
    conn: AsyncConnection,
    aggregated: AggregatedVotes,
    *,
    excluded_sessions: Sequence[str] = (),
    filtered: Sequence[uuid.UUID] = (),
) -> AggregatedVotes:
    """People's blind votes with the ``filtered`` ones kept: ``aggregated`` (the default
    population, which left them out) plus what those votes alone count, read by their ids
    rather than with another pass over every vote. The screened sessions stay out."""
    query = _pair_counts_query(DEFAULT_BOARD, excluded_sessions, (), only=filtered)
    counts = aggregated.counts
    index = {model_id: i for i, model_id in enumerate(aggregated.model_ids)}
    position = {(int(i), int(j)): k for k, (i, j) in enumerate(counts.pairs)}
    wins_first, wins_second, ties = (
        counts.wins_first.copy(),
        counts.wins_second.copy(),
        counts.ties.copy(),
    )
    for row in (await conn.execute(query)).all():
        # Every filtered vote was compared, so its pair is one of the default population's.
        k = position[(index[row.lo], index[row.hi])]
        wins_first[k] += row.wins_lo
        wins_second[k] += row.wins_hi
        ties[k] += row.ties
    return dataclasses.replace(
        aggregated,
        counts=PairCounts(counts.n_models, counts.pairs, wins_first, wins_second, ties),
    )


# People's votes per slice and canonical pair, from the slice summary the triggers keep.
_SLICE_COUNTERS = text(
    f"""
SELECT category AS slice, LEAST(slot_a_model_id, slot_b_model_id) AS lo,
       GREATEST(slot_a_model_id, slot_b_model_id) AS hi,
       sum({sql_side_counter("lo")}) AS wins_lo,
       sum({sql_side_counter("hi")}) AS wins_hi,
       sum(both_good + both_bad) AS ties, sum(skips) AS skips
  FROM category_pair_stats
 WHERE method = '{HUMAN}'
 GROUP BY 1, 2, 3
"""
)
_SIDES = {"vote": "p.vote", "slot_a": "m.slot_a_model_id", "slot_b": "m.slot_b_model_id"}
# The same for the votes a pass leaves out of people's blind boards: the named rounds', the
# screened sessions', the filtered ones. Each is found by its own narrow read (a partial index,
# one scan of the votes without a join, the ids themselves), never by a join of every vote.
_SLICE_LEFT_OUT = text(
    f"""
WITH left_out AS (
  SELECT p.id FROM matchups m JOIN preferences p ON p.matchup_id = m.id WHERE m.mode = 'named'
  UNION
  SELECT id FROM preferences
   WHERE anonymous_session_id IN (SELECT unnest(CAST(:sessions AS text[])))
  UNION
  SELECT unnest(CAST(:filtered AS uuid[]))
)
SELECT s.slice, LEAST(m.slot_a_model_id, m.slot_b_model_id) AS lo,
       GREATEST(m.slot_a_model_id, m.slot_b_model_id) AS hi,
       count(*) FILTER (WHERE {sql_side_wins("lo", **_SIDES)}) AS wins_lo,
       count(*) FILTER (WHERE {sql_side_wins("hi", **_SIDES)}) AS wins_hi,
       count(*) FILTER (WHERE p.vote IN ({sql_labels(TIE_VOTES)})) AS ties,
       count(*) FILTER (WHERE p.vote = '{SKIP}') AS skips
  FROM left_out o
  JOIN preferences p ON p.id = o.id
  JOIN matchups m ON m.id = p.matchup_id
 CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS s (slice)
 WHERE p.method = '{HUMAN}'
 GROUP BY 1, 2, 3
"""
)


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

    Read from the slice summary the triggers keep (``category_pair_stats``) less what the left
    out votes count: the cost grows with pairs, slices and left-out votes, not with the votes.
    A slice's models are those with a kept comparison in it.
    """
    totals: dict[tuple[str, uuid.UUID, uuid.UUID], list[int]] = {}
    for row in (await conn.execute(_SLICE_COUNTERS)).all():
        totals[(row.slice, row.lo, row.hi)] = [row.wins_lo, row.wins_hi, row.ties, row.skips]
    params = {"sessions": list(excluded_sessions), "filtered": list(filtered)}
    for row in (await conn.execute(_SLICE_LEFT_OUT, params)).all():
        kept = totals[(row.slice, row.lo, row.hi)]
        for k, value in enumerate((row.wins_lo, row.wins_hi, row.ties, row.skips)):
            kept[k] -= value
    groups: dict[str, list[SimpleNamespace]] = {}
    for (name, lo, hi), (wins_lo, wins_hi, ties, skips) in totals.items():
        compared = wins_lo + wins_hi + ties
        if compared > 0:
            groups.setdefault(name, []).append(
                SimpleNamespace(
                    lo=lo,
                    hi=hi,
                    wins_lo=wins_lo,
                    wins_hi=wins_hi,
                    ties=ties,
                    compared=compared,
                    excluded=0,
                    unknown=0,
                    skips=skips,
                    votes=compared + skips,
                )
            )
    boards = {name: _aggregated(rows) for name, rows in sorted(groups.items())}
    return {
        name: votes for name, votes in boards.items() if votes.decisive + votes.ties >= min_votes
    }


def _aggregated(rows: Sequence[Any]) -> AggregatedVotes:
    """Canonical pair rows (``lo``, ``hi``, counts) as the fit's input.

    Raises
    ------
    RatingInputError
        A row counts votes with a label outside ``VOTES``.
    """
    unknown = sum(r.unknown for r in rows)
    if unknown:
        raise RatingInputError(f"{unknown} votes hold a label outside {VOTES}")
    compared = [r for r in rows if r.compared > 0]
    model_ids = tuple(sorted({r.lo for r in compared} | {r.hi for r in compared}))
    index = {model_id: i for i, model_id in enumerate(model_ids)}
    compared.sort(key=lambda r: (index[r.lo], index[r.hi]))
    pairs = np.array([(index[r.lo], index[r.hi]) for r in compared], dtype=np.intp).reshape(-1, 2)
    counts = PairCounts(
        len(model_ids),
        pairs,
        np.array([r.wins_lo for r in compared], dtype=np.float64),
        np.array([r.wins_hi for r in compared], dtype=np.float64),
        np.array([r.ties for r in compared], dtype=np.float64),
    )
    return AggregatedVotes(
        model_ids=model_ids,
        counts=counts,
        votes=sum(r.votes for r in rows),
        skips=sum(r.skips for r in rows),
        excluded=sum(r.excluded for r in rows),
    )


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
