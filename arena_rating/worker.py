"""The rating process: one pass, and the loop that repeats it.

A pass, on one connection holding the rating advisory lock:

1. **read** (one read-only snapshot): per-session statistics, the anomaly screen, the filters
   before the fit (identity leaks, the duplicate-prompt cap), then every board's pair counts at
   once (the vote summaries less the excluded sessions', filtered and named votes:
   ``read_vote_tallies``): the default population's, the other populations' and the slices',
   and with ``--style`` the raw style rows;
2. **fit** the default Rao-Kupper model (warm-started from the previous refit unless this refit
   is a full one), with components, Fisher intervals and, with ``--validate``, a multinomial
   bootstrap whose agreement is logged;
3. **write** ``model_ratings`` + ``model_rating_history`` in one transaction, the other
   populations' and the slices' boards (``model_population_ratings``; a board whose counts
   are those of its last fit in this process is written again, not refitted) and the filtered
   votes with their reasons (``vote_exclusions``; only what changed);
4. with ``--style``, fit and write the style-controlled ratings and coefficients.

Refit cadence: refit 1 is always full (there is no warm state); afterwards every
``FULL_REFIT_EVERY``-th refit (1, 13, 25, ... at the default 12; 0 never) discards the warm state
and fits from scratch, and also re-runs the warm path on the same aggregates to measure how far
it drifted, in standard errors; more than half a standard error is logged as a warning.

The loop refits soon after new votes arrive, at most every ``RATING_MIN_INTERVAL_S``, and not
at all while nothing changed; the style pass rides along at most every
``RATING_REFIT_INTERVAL_S`` (``arena_rating.trigger``). A database failure is logged on one line
and retried with exponential back-off (1 s doubling, capped at the style interval and at 60 s);
a fit that fails to converge is logged and tried again when the votes change. Nothing is written
by a pass that fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from arena_api.core.boards import Board
from arena_api.core.populations import (
    ALL,
    JUDGE,
    OTHER_POPULATIONS,
    REVIEWER,
    UNFILTERED,
    WITH_NAMED,
    category_board,
)
from arena_api.core.style_features import ABSOLUTE_STYLE_FEATURES, STYLE_FEATURES, STYLE_UNITS
from arena_rating._database import database_error
from arena_rating._errors import DatabaseError, RatingFitError, SchemaMissing
from arena_rating._logging import LOGGER_NAME
from arena_rating._scale import DEFAULT_CONFIDENCE_LEVEL, SCALE
from arena_rating._settings import RatingSettings
from arena_rating.aggregate import (
    AggregatedVotes,
    StyleRows,
    VoteFilters,
    begin_snapshot,
    judge_votes_exist,
    named_votes_exist,
    read_reviewer_votes,
    read_session_stats,
    read_style_votes,
    read_user_stats,
    read_vote_filters,
    read_vote_tallies,
)
from arena_rating.anomaly import ScreenResult, screen_sessions
from arena_rating.bradley_terry import RaoKupperFit, fit_rao_kupper
from arena_rating.confidence import multinomial_bootstrap, width_ratios
from arena_rating.connectivity import centre_within_components, component_sizes
from arena_rating.report import (
    RatingReport,
    RatingRows,
    StyleReport,
    align_warm_start,
    drift_in_standard_errors,
    rate_pairs,
    summarise_pairs,
    summarise_style,
)
from arena_rating.style import StyleVotes, fit_style
from arena_rating.trigger import Fingerprint, RefitTrigger, read_fingerprint
from arena_rating.writeback import (
    clear_category_boards,
    rating_lock,
    record_pass,
    write_exclusions,
    write_population,
    write_ratings,
    write_style,
)

__all__ = [
    "DRIFT_WARNING_SE",
    "describe_database_error",
    "PassReport",
    "RatingWorker",
    "RefitMode",
    "StyleSummary",
    "WorkerOptions",
    "refit_mode",
]

_log = logging.getLogger(f"{LOGGER_NAME}.worker")

#: Warm and cold fits of the same aggregates should agree; beyond this many standard errors on
#: any model the warm path is reported as drifting.
DRIFT_WARNING_SE = 0.5
INITIAL_BACKOFF_S = 1.0
MAX_BACKOFF_S = 60.0
#: How often the loop asks whether votes changed (or the minimum interval, if shorter).
POLL_S = 1.0
#: Excluded sessions named one by one in the log; the rest are counted.
LOGGED_SESSIONS = 20


class RefitMode(StrEnum):
    """``full``: from scratch; ``incremental``: warm-started from the previous refit."""

    FULL = "full"
    INCREMENTAL = "incremental"


def refit_mode(refit: int, full_refit_every: int, *, has_warm_state: bool) -> RefitMode:
    """Mode of the ``refit``-th refit (1-based): full without warm state, and on refits
    ``1, 1 + k, 1 + 2k, ...`` for ``k = full_refit_every > 0``."""
    if not has_warm_state:
        return RefitMode.FULL
    if full_refit_every > 0 and (refit - 1) % full_refit_every == 0:
        return RefitMode.FULL
    return RefitMode.INCREMENTAL


@dataclass(frozen=True)
class WorkerOptions:
    """What a pass does besides the default fit.

    Attributes
    ----------
    style : bool
        Also run the style-controlled pass.
    anomaly_filter : bool
        Screen sessions and exclude the flagged ones (``--no-anomaly-filter`` turns it off).
    identity_filter : bool
        Leave out the votes on rounds whose answers named themselves
        (``--no-identity-filter`` turns it off).
    duplicate_cap : bool
        Cap the votes of over-asked prompts at ``RATING_DUPLICATE_CAP``
        (``--no-duplicate-cap`` turns it off, as does a cap of 0).
    validate : bool
        Run the multinomial bootstrap and log its agreement with the Fisher intervals.
    n_resamples : int
        Bootstrap resamples for ``validate``.
    lock_wait_s : float
        How long a pass waits for another rating process to finish (0: skip at once).
    confidence_level : float
        Level of the stored intervals.
    """

    style: bool = False
    anomaly_filter: bool = True
    identity_filter: bool = True
    duplicate_cap: bool = True
    validate: bool = False
    n_resamples: int = 200
    lock_wait_s: float = 0.0
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL


@dataclass(frozen=True)
class StyleSummary:
    """What the style pass did."""

    votes: int
    excluded: dict[str, int]
    models: int
    iterations: int
    coefficients: dict[str, float]
    coefficient_stderr: dict[str, float]
    seconds: float
    timings: dict[str, float]


@dataclass(frozen=True)
class PassReport:
    """What one pass did; ``status`` is ``rated``, ``empty`` (no comparisons) or ``skipped``
    (another process held the lock)."""

    status: str
    refit: int = 0
    mode: RefitMode | None = None
    votes: int = 0
    skips: int = 0
    sessions_screened: int = 0
    sessions_excluded: int = 0
    votes_excluded: int = 0
    #: Votes the filters before the fit left out: identity leaks, votes over the duplicate cap.
    identity_leaks: int = 0
    duplicates: int = 0
    #: The slices of prompts that got a board of their own, with their comparisons.
    slices: dict[str, int] = field(default_factory=dict)
    models: int = 0
    components: int = 0
    iterations: int = 0
    drift_se: float | None = None
    bootstrap_width_ratio: tuple[float, float, float] | None = None
    computed_at: datetime | None = None
    style: StyleSummary | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return sum(self.timings.values())


@dataclass
class _WarmState:
    model_ids: tuple[uuid.UUID, ...]
    theta: NDArray[np.float64]


@dataclass
class _Snapshot:
    screen: ScreenResult | None
    aggregated: AggregatedVotes
    style: StyleRows | None
    #: The other populations' votes, by name (None: the population has no votes yet):
    #: people's blind votes with the named rounds', the judge model's, everyone's, unfiltered.
    populations: dict[str, AggregatedVotes | None] = dataclasses.field(default_factory=dict)
    filters: VoteFilters = dataclasses.field(default_factory=VoteFilters)
    #: The slices of prompts with enough votes for a board, by name.
    slices: dict[str, AggregatedVotes] = dataclasses.field(default_factory=dict)
    #: Every session left out: the screen's, and those of the signed-in people it flagged.
    excluded: tuple[str, ...] = ()


class _Stopwatch:
    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + now - self._last
        self._last = now


class RatingWorker:
    """Runs rating passes against one engine and keeps the warm state between them.

    Parameters
    ----------
    engine : AsyncEngine
        The database (``arena_rating._database.create_rating_engine``).
    settings : RatingSettings
        Ridges, anomaly level, cadence.
    options : WorkerOptions
        Style pass, screen, validation, lock waiting.
    rng : numpy.random.Generator, optional
        Randomness of the bootstrap (a fresh unseeded generator by default).
    initial_backoff_s : float
        First wait after a database failure in the loop; it doubles up to the cap.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        settings: RatingSettings,
        options: WorkerOptions | None = None,
        *,
        rng: np.random.Generator | None = None,
        initial_backoff_s: float = INITIAL_BACKOFF_S,
    ) -> None:
        self.engine = engine
        self.settings = settings
        self.options = options if options is not None else WorkerOptions()
        self.refits = 0
        self.initial_backoff_s = initial_backoff_s
        self._rng = rng if rng is not None else np.random.default_rng()
        self._warm: _WarmState | None = None
        self._style_warm: _WarmState | None = None
        self._excluded_before: set[str] = set()
        #: Each other board's last fit, by population, with the counts it was fitted to.
        self._boards: dict[str, tuple[_BoardKey, RatingRows]] = {}

    # -- one pass ------------------------------------------------------------------------------

    async def run_pass(self, *, periodic: bool = True) -> PassReport:
        """Read, screen, fit and write once. A pass that is not ``periodic`` (the loop's quick
        refits between periodic ones) runs no style pass and appends no history point.

        Raises
        ------
        DatabaseError
            The database is unreachable or has no arena schema (``DatabaseUnreachable``,
            ``SchemaMissing``).
        RatingFitError
            A fit did not converge; nothing of that fit was written (a failing style pass
            follows a written default one, and says so).
        """
        with _database_errors():
            return await self._run_pass(periodic=periodic)

    async def _run_pass(self, *, periodic: bool) -> PassReport:
        clock = _Stopwatch()
        async with self.engine.connect() as conn:
            async with rating_lock(conn, wait_s=self.options.lock_wait_s) as acquired:
                clock.lap("lock")
                if not acquired:
                    _log.info("another rating process holds the lock; pass skipped")
                    return PassReport(status="skipped", timings=clock.laps)
                snapshot = await self._read(conn, clock, with_style=periodic and self.options.style)
                report = await self._rate(conn, snapshot, clock, history=periodic)
                await record_pass(
                    conn,
                    status=report.status,
                    seconds=report.seconds,
                    votes=report.votes,
                    votes_excluded=report.votes_excluded,
                    sessions_excluded=report.sessions_excluded,
                    votes_identity_leaks=report.identity_leaks,
                    votes_duplicates=report.duplicates,
                    models=report.models,
                    periodic=periodic,
                )
                return report

    async def _read(
        self, conn: AsyncConnection, clock: _Stopwatch, *, with_style: bool
    ) -> _Snapshot:
        screen = None
        excluded: tuple[str, ...] = ()
        async with conn.begin():
            await begin_snapshot(conn)
            if self.options.anomaly_filter:
                stats = await read_session_stats(conn, min_gap_s=self.settings.anomaly_min_gap_s)
                screen = screen_sessions(stats, significance_level=self.settings.anomaly_alpha)
                excluded = screen.flagged_ids
                # Signed-in people are screened once more as people, across their sessions:
                # a flagged person's sessions are all left out.
                people, sessions_of = await read_user_stats(
                    conn, min_gap_s=self.settings.anomaly_min_gap_s
                )
                if people.session_ids:
                    flagged = screen_sessions(
                        people, significance_level=self.settings.anomaly_alpha
                    ).flagged_ids
                    if flagged:
                        _log.warning("anomaly screen: %d signed-in people flagged", len(flagged))
                    extra = {s for person in flagged for s in sessions_of[person]}
                    excluded = tuple(dict.fromkeys((*excluded, *sorted(extra))))
                clock.lap("screen")
            filters = await self._filters(conn)
            filtered = filters.excluded
            clock.lap("filters")
            # Every board below is the vote summaries less the votes it leaves out, counted once
            # (``read_vote_tallies``), so no read here grows with the number of votes.
            # The populations of ``model_population_ratings`` (``arena_api.core.populations``):
            # people's blind votes with the named rounds', the judge model's votes, everyone's,
            # and people's blind votes without the filters before the fit (the anomaly screen
            # still applies). Each slice's board is ``category:<slice>`` besides.
            with_slices = self.settings.category_min_votes > 0
            tallies = await read_vote_tallies(
                conn,
                excluded_sessions=excluded,
                filtered=filtered,
                slices=with_slices,
            )
            aggregated = tallies.board()
            clock.lap("aggregate")
            populations: dict[str, AggregatedVotes | None] = dict.fromkeys(OTHER_POPULATIONS)
            if filtered:
                populations[UNFILTERED] = tallies.board(Board(filters=False))
            if await named_votes_exist(conn):
                populations[WITH_NAMED] = tallies.board(Board(named=True))
            if await judge_votes_exist(conn):
                # A judge has no session to screen; everyone's votes drop the screened people.
                populations[JUDGE] = tallies.board(Board(population=JUDGE), screened=False)
                populations[ALL] = tallies.board(Board(population=ALL))
            # The expert reviewers' verdicts (review queues): a population of their own.
            populations[REVIEWER] = await read_reviewer_votes(conn)
            clock.lap("aggregate_populations")
            slices: dict[str, AggregatedVotes] = {}
            if with_slices:
                slices = tallies.slices(self.settings.category_min_votes)
                clock.lap("aggregate_slices")
            style = None
            if with_style and aggregated.model_ids:
                style = await read_style_votes(
                    conn,
                    model_ids=aggregated.model_ids,
                    excluded_sessions=excluded,
                    filtered=filtered,
                )
                clock.lap("style_read")
        if screen is not None:
            _log_screen(screen, already=self._excluded_before)
            self._excluded_before = set(screen.flagged_ids)
        _log_filters(filters)
        return _Snapshot(screen, aggregated, style, populations, filters, slices, excluded)

    async def _filters(self, conn: AsyncConnection) -> VoteFilters:
        share = self.settings.duplicate_cap
        return await read_vote_filters(
            conn,
            identity=self.options.identity_filter,
            duplicate_share=share if self.options.duplicate_cap and share > 0 else None,
            duplicate_floor=self.settings.duplicate_min_votes,
        )

    async def _rate(
        self, conn: AsyncConnection, snapshot: _Snapshot, clock: _Stopwatch, *, history: bool
    ) -> PassReport:
        aggregated = snapshot.aggregated
        screen = snapshot.screen
        sessions = (
            (screen.stats.n_sessions, len(snapshot.excluded)) if screen is not None else (0, 0)
        )
        for population, votes in snapshot.populations.items():
            await self._population_pass(conn, population, votes, clock, history=history)
        for name, votes in snapshot.slices.items():
            await self._population_pass(
                conn, category_board(name), votes, clock, history=history, lap="slices"
            )
        await clear_category_boards(conn, keep=[category_board(n) for n in snapshot.slices])
        await write_exclusions(conn, snapshot.filters)
        clock.lap("exclusions")
        filtered = _FilterCounts(
            identity_leaks=len(snapshot.filters.identity),
            duplicates=len(snapshot.filters.duplicates),
            slices={n: v.decisive + v.ties for n, v in snapshot.slices.items()},
        )
        if not aggregated.model_ids:
            _log.info(
                "no comparisons to rate yet (%s votes read, %s skips); nothing written",
                f"{aggregated.votes:,}",
                f"{aggregated.skips:,}",
            )
            return PassReport(
                status="empty",
                votes=aggregated.votes,
                skips=aggregated.skips,
                sessions_screened=sessions[0],
                sessions_excluded=sessions[1],
                timings=clock.laps,
                **dataclasses.asdict(filtered),
            )
        self.refits += 1
        mode = refit_mode(
            self.refits, self.settings.full_refit_every, has_warm_state=self._warm is not None
        )
        report, drift = self._fit_default(aggregated, mode, clock)
        ratio = self._validate(aggregated, report) if self.options.validate else None
        if ratio is not None:
            clock.lap("bootstrap")
        computed_at = await write_ratings(conn, report.rows, history=history)
        clock.lap("write")
        self._warm = _WarmState(aggregated.model_ids, report.fit.theta)
        result = PassReport(
            status="rated",
            refit=self.refits,
            mode=mode,
            votes=aggregated.votes,
            skips=aggregated.skips,
            sessions_screened=sessions[0],
            sessions_excluded=sessions[1],
            votes_excluded=aggregated.excluded,
            models=len(aggregated.model_ids),
            **dataclasses.asdict(filtered),
            components=report.n_components,
            iterations=report.fit.iterations,
            drift_se=drift,
            bootstrap_width_ratio=ratio,
            computed_at=computed_at,
            timings=dict(clock.laps),
        )
        _log_default(result, aggregated, report)
        if snapshot.style is not None:
            try:
                style = await self._style_pass(conn, snapshot.style, aggregated.model_ids, mode)
            except RatingFitError as exc:
                raise RatingFitError(
                    f"style pass: {exc} (the default ratings of this refit were written)"
                ) from exc
            clock.lap("style")
            result = dataclasses.replace(result, style=style, timings=dict(clock.laps))
        return result

    async def _population_pass(
        self,
        conn: AsyncConnection,
        population: str,
        votes: AggregatedVotes | None,
        clock: _Stopwatch,
        *,
        history: bool,
        lap: str | None = None,
    ) -> None:
        """Fit another population's votes (cold: it has no warm state of its own), for the
        leaderboard that asks for it, unless its counts are those of its last fit; without
        votes its rows are cleared."""
        rows = None
        if votes is not None and votes.model_ids:
            # A board whose counts did not change since the last pass has the same (unique)
            # optimum and intervals: its rows are reused, not refitted.
            key = _board_key(votes, self.settings.rating_ridge, self.options.confidence_level)
            cached = self._boards.get(population)
            if cached is not None and cached[0] == key:
                rows = cached[1]
            else:
                rows = rate_pairs(
                    votes.model_ids,
                    votes.counts,
                    l2_penalty=self.settings.rating_ridge,
                    confidence_level=self.options.confidence_level,
                ).rows
                self._boards[population] = (key, rows)
            _log.info(
                "population %s: %s votes, %d models",
                population,
                f"{votes.votes:,}",
                len(rows.model_ids),
            )
        await write_population(conn, population, rows, history=history)
        clock.lap(lap or population)

    def _summarise(self, aggregated: AggregatedVotes, fit: RaoKupperFit) -> RatingReport:
        """Intervals, components and the display scale of ``fit``, at the pass's settings."""
        return summarise_pairs(
            aggregated.model_ids,
            aggregated.counts,
            fit,
            l2_penalty=self.settings.rating_ridge,
            confidence_level=self.options.confidence_level,
        )

    def _fit_default(
        self, aggregated: AggregatedVotes, mode: RefitMode, clock: _Stopwatch
    ) -> tuple[RatingReport, float | None]:
        ridge = self.settings.rating_ridge
        warm = (
            align_warm_start(self._warm.model_ids, self._warm.theta, aggregated.model_ids)
            if self._warm is not None
            else None
        )
        fit = fit_rao_kupper(
            aggregated.counts, l2_penalty=ridge, initial=None if mode is RefitMode.FULL else warm
        )
        clock.lap("fit")
        report = self._summarise(aggregated, fit)
        clock.lap("intervals")
        drift = None
        if mode is RefitMode.FULL and warm is not None:
            # The ground-truth pass: the warm path on the same aggregates must land on the same
            # (unique) optimum; how far it does not is the drift an incremental chain carries.
            warm_fit = fit_rao_kupper(aggregated.counts, l2_penalty=ridge, initial=warm)
            drift = drift_in_standard_errors(
                warm_fit.strengths, report.fit.strengths, report.labels, report.stderr
            )
            points = float(
                np.max(
                    np.abs(
                        centre_within_components(warm_fit.strengths, report.labels)
                        - report.strengths
                    )
                )
                * SCALE
            )
            level = logging.WARNING if drift > DRIFT_WARNING_SE else logging.INFO
            _log.log(
                level,
                "drift check: the warm path ends %.3g standard errors (%.3g points) from the cold "
                "fit%s",
                drift,
                points,
                f" (more than {DRIFT_WARNING_SE})" if drift > DRIFT_WARNING_SE else "",
            )
            clock.lap("drift_check")
        return report, drift

    def _validate(
        self, aggregated: AggregatedVotes, report: RatingReport
    ) -> tuple[float, float, float] | None:
        counts = aggregated.counts
        if counts.total <= 0:
            _log.info("validate: no comparisons to bootstrap")
            return None
        try:
            boot = multinomial_bootstrap(
                counts,
                l2_penalty=self.settings.rating_ridge,
                n_resamples=self.options.n_resamples,
                rng=self._rng,
                labels=report.labels,
                initial=report.fit.theta,
            )
        except RatingFitError as exc:
            _log.warning("validate: a bootstrap refit failed, no comparison made: %s", exc)
            return None
        ratios = width_ratios(boot.standard_errors, report.stderr, report.labels)
        if ratios.size == 0:
            _log.info("validate: no model shares a component; nothing to compare")
            return None
        summary = (float(np.median(ratios)), float(ratios.min()), float(ratios.max()))
        _log.info(
            "validate: multinomial bootstrap (%d resamples) / Fisher interval width: median %.3f, "
            "min %.3f, max %.3f over %d models",
            self.options.n_resamples,
            *summary,
            ratios.size,
        )
        return summary

    async def _style_pass(
        self,
        conn: AsyncConnection,
        rows: StyleRows,
        model_ids: tuple[uuid.UUID, ...],
        mode: RefitMode,
    ) -> StyleSummary:
        started = time.perf_counter()
        votes, present = _present_models(rows.votes)
        ids = tuple(model_ids[i] for i in present)
        excluded = dict(rows.excluded)
        if votes.n_votes == 0:
            _log.info(
                "style pass: no vote with complete metrics (%s); nothing written",
                _counts_text(excluded),
            )
            return StyleSummary(0, excluded, 0, 0, {}, {}, time.perf_counter() - started, {})
        warm = (
            align_warm_start(self._style_warm.model_ids, self._style_warm.theta, ids)
            if self._style_warm is not None and mode is RefitMode.INCREMENTAL
            else None
        )
        clock = _Stopwatch()
        fit = fit_style(votes, l2_penalty=self.settings.style_ridge, initial=warm)
        clock.lap("fit")
        report = summarise_style(
            ids,
            votes,
            fit,
            l2_penalty=self.settings.style_ridge,
            confidence_level=self.options.confidence_level,
        )
        clock.lap("intervals")
        await write_style(conn, report.rows, report.coefficients, features=STYLE_FEATURES)
        clock.lap("write")
        self._style_warm = _WarmState(ids, report.fit.theta)
        summary = StyleSummary(
            votes=votes.n_votes,
            excluded=excluded,
            models=len(ids),
            iterations=report.fit.iterations,
            coefficients=report.coefficients,
            coefficient_stderr={
                name: float(se)
                for name, se in zip(STYLE_FEATURES, report.coefficient_stderr, strict=True)
            },
            seconds=time.perf_counter() - started,
            timings=dict(clock.laps),
        )
        _log_style(summary, report)
        return summary

    # -- the loop ------------------------------------------------------------------------------

    async def run_loop(self, stop: asyncio.Event) -> None:
        """Refit soon after new votes arrive until ``stop`` is set (``arena_rating.trigger``).

        Database failures are retried with exponential back-off; a fit that does not converge
        is retried when the votes change. Other exceptions are bugs and propagate.
        """
        settings = self.settings
        trigger = RefitTrigger(settings.min_interval_s, settings.refit_interval_s)
        poll = min(POLL_S, settings.min_interval_s)
        cap = min(MAX_BACKOFF_S, settings.refit_interval_s)
        backoff = self.initial_backoff_s
        _log.info(
            "rating loop started: refit at most every %g s after new votes, full refit every %d "
            "refits%s%s",
            settings.min_interval_s,
            settings.full_refit_every,
            f", history{' and style pass' if self.options.style else ''} at most every "
            f"{settings.refit_interval_s:g} s",
            "" if self.options.anomaly_filter else ", anomaly screen off",
        )
        while not stop.is_set():
            delay = poll
            try:
                fingerprint = await self._fingerprint()
                now = time.monotonic()
                refit = trigger.due(fingerprint, now)
                if refit is not None:
                    try:
                        await self.run_pass(periodic=refit.periodic)
                    except RatingFitError as exc:
                        _log.error("refit failed: %s; next attempt after new votes", exc)
                    trigger.ran(refit, fingerprint, now)
            except DatabaseError as exc:
                delay = min(backoff, cap)
                _log.error("%s; retrying in %g s", describe_database_error(exc), delay)
                backoff = min(backoff * 2, cap)
            else:
                backoff = self.initial_backoff_s
            await _sleep_unless_stopped(stop, delay)
        _log.info("rating loop stopped")

    async def _fingerprint(self) -> Fingerprint:
        with _database_errors():
            async with self.engine.connect() as conn:
                return await read_fingerprint(conn)


@contextlib.contextmanager
def _database_errors() -> Iterator[None]:
    """Raise a driver's or SQLAlchemy's failure as the ``DatabaseError`` it means."""
    try:
        yield
    except (OSError, SQLAlchemyError) as exc:
        error = database_error(exc)
        if error is None:
            raise
        raise error from exc


def describe_database_error(error: DatabaseError) -> str:
    """The one line that says what is wrong with the database."""
    if isinstance(error, SchemaMissing):
        return f"the database has no arena schema (run `arena db upgrade`): {error}"
    return f"the database is unreachable: {error}"


async def _sleep_unless_stopped(stop: asyncio.Event, seconds: float) -> None:
    try:
        await asyncio.wait_for(stop.wait(), timeout=seconds)
    except TimeoutError:
        pass


def _present_models(votes: StyleVotes) -> tuple[StyleVotes, NDArray[np.intp]]:
    """The votes re-indexed onto the models that appear in them, and those models' old indices."""
    present = np.flatnonzero(votes.games_per_model() > 0)
    new_index = np.full(votes.n_models, -1, dtype=np.intp)
    new_index[present] = np.arange(present.size)
    compact = StyleVotes(
        n_models=int(present.size),
        slot_a=new_index[votes.slot_a],
        slot_b=new_index[votes.slot_b],
        outcomes=votes.outcomes,
        features=votes.features,
    )
    return compact, present


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {value:,}" for name, value in counts.items())


#: What a board's fit depends on: its models, pairs and counts, the ridge and the level.
_BoardKey = tuple[tuple[uuid.UUID, ...], bytes, bytes, float, float]


def _board_key(votes: AggregatedVotes, ridge: float, confidence_level: float) -> _BoardKey:
    counts = votes.counts
    table = np.stack([counts.wins_first, counts.wins_second, counts.ties])
    return (
        votes.model_ids,
        np.ascontiguousarray(counts.pairs, dtype=np.int64).tobytes(),
        np.ascontiguousarray(table, dtype=np.float64).tobytes(),
        ridge,
        confidence_level,
    )


@dataclass(frozen=True)
class _FilterCounts:
    identity_leaks: int
    duplicates: int
    slices: dict[str, int]


def _log_filters(filters: VoteFilters) -> None:
    if filters.identity:
        _log.info(
            "identity filter: %s votes left out (an answer named its own model or vendor)",
            f"{len(filters.identity):,}",
        )
    if filters.duplicates:
        prompts = len(set(filters.duplicates.values()))
        _log.info(
            "duplicate cap: %s votes of %d over-asked prompts left out (at most %s votes each)",
            f"{len(filters.duplicates):,}",
            prompts,
            f"{filters.cap:,}",
        )


def _log_screen(screen: ScreenResult, *, already: set[str]) -> None:
    """One summary line, then one line per session excluded for the first time by this worker
    (at most ``LOGGED_SESSIONS``), so a loop does not repeat the same sessions every refit."""
    flagged = np.flatnonzero(screen.flagged)
    by_reason = {reason.value: n for reason, n in screen.count_by_reason().items()}
    _log.info(
        "anomaly screen: %s sessions, %d excluded (%s), %s of their votes dropped",
        f"{screen.stats.n_sessions:,}",
        flagged.size,
        _counts_text(by_reason),
        f"{screen.excluded_votes:,}",
    )
    p_values = {"volume": screen.p_volume, "position": screen.p_position, "speed": screen.p_speed}
    stats = screen.stats
    new = [int(i) for i in flagged if stats.session_ids[i] not in already]
    for i in new[:LOGGED_SESSIONS]:
        reasons = ", ".join(f"{r.value} p={p_values[r.value][i]:.2g}" for r in screen.reasons(i))
        _log.info(
            "excluded session %s: %s (%d votes, %d left / %d right, median gap %.3g s)",
            stats.session_ids[i],
            reasons,
            stats.votes[i],
            stats.left[i],
            stats.right[i],
            stats.median_gap_s[i],
        )
    if len(new) > LOGGED_SESSIONS:
        _log.info("... and %d more newly excluded sessions", len(new) - LOGGED_SESSIONS)


def _log_default(result: PassReport, aggregated: AggregatedVotes, report: RatingReport) -> None:
    timings = ", ".join(f"{name} {seconds:.3f}" for name, seconds in result.timings.items())
    _log.info(
        "refit %d mode=%s: %s votes read (%s skips, %s excluded), %s decisive + %s ties; "
        "%d models, %d component%s, %d iterations, tie threshold %.3f; %.2f s (%s)",
        result.refit,
        result.mode,
        f"{aggregated.votes:,}",
        f"{aggregated.skips:,}",
        f"{aggregated.excluded:,}",
        f"{aggregated.decisive:,}",
        f"{aggregated.ties:,}",
        result.models,
        result.components,
        "" if result.components == 1 else "s",
        result.iterations,
        report.fit.tie_threshold,
        result.seconds,
        timings,
    )
    if result.components > 1:
        sizes = component_sizes(report.labels)
        _log.warning(
            "the comparison graph is disconnected: %d components of %s models; ratings are "
            "comparable only within a component",
            sizes.size,
            ", ".join(str(s) for s in sizes),
        )


def _log_style(summary: StyleSummary, report: StyleReport) -> None:
    _log.info(
        "style pass: %s votes (excluded: %s), %d models, %d iterations, %.2f s",
        f"{summary.votes:,}",
        _counts_text(summary.excluded),
        summary.models,
        summary.iterations,
        summary.seconds,
    )
    per_unit = report.fit.coefficients_per_unit
    parts = []
    for name in STYLE_FEATURES:
        beta = summary.coefficients[name]
        se = summary.coefficient_stderr[name]
        basis = "" if name in ABSOLUTE_STYLE_FEATURES else " per SD"
        text = f"{name} {beta:+.3f} ± {se:.3f} log-odds{basis} ({beta * SCALE:+.1f} points)"
        if name in per_unit:
            value, unit = per_unit[name]
            text += f", {value * SCALE:+.2f} points per {unit}"
        elif name in STYLE_UNITS:
            text += ", no spread"
        parts.append(text)
    _log.info("style coefficients: %s", "; ".join(parts))
