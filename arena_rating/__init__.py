r"""The arena's rating process: recorded votes in, the leaderboard's ratings out.

It runs as its own process (``python -m arena_rating``, ``arena rate``, or supervised by
``arena serve``), never on the request path; it reads only ``preferences``, ``matchups`` and
``responses`` and writes only ``model_ratings``, ``model_rating_history``,
``model_style_ratings`` and ``style_control_coefficients``.

Modules, in pass order:

==================  =====================================================================
``anomaly``         per-session tests (volume, position bias, speed) before any fit
``aggregate``       the reads: one ``GROUP BY`` to pair counts; the style pass's raw rows
``bradley_terry``   the Rao-Kupper model, its gradient and Hessian, the L-BFGS-B fit
``connectivity``    union-find components; centring within them
``confidence``      Fisher-information intervals; the multinomial bootstrap
``style``           the joint style-controlled fit
``report``          fit → centred display-scale rows (pure)
``writeback``       idempotent upserts + history in one transaction; the advisory lock
``worker``          one pass, and the loop with warm starts and periodic full refits
==================  =====================================================================

Ratings are shown as :math:`1000 + (400/\ln 10)\,r`, centred within each connected component.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING

# Every matrix here is small (hundreds of rows at most) or a matrix-vector product; OpenBLAS's
# worker threads only add contention, and on a busy machine they spin against the server for
# the same cores (a 17x slowdown of the fit was measured on two loaded cores). This has to
# happen before NumPy loads OpenBLAS, so it is done on import, and only as a default.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

if TYPE_CHECKING:
    from arena_rating._cli import EXIT_DATABASE, EXIT_FIT, EXIT_OK, EXIT_USAGE, build_parser, main
    from arena_rating._database import create_rating_engine, database_error, describe_url
    from arena_rating._errors import (
        DatabaseError,
        DatabaseUnreachable,
        RatingError,
        RatingFitError,
        RatingInputError,
        SchemaMissing,
    )
    from arena_rating._scale import BASE, INIT_RATING, SCALE, to_display, to_display_stderr, z_value
    from arena_rating._settings import RatingSettings, RatingSettingsError, load_rating_settings
    from arena_rating._supervisor import WorkerSupervisor, rating_worker_command
    from arena_rating.aggregate import (
        AggregatedVotes,
        StyleRows,
        read_pair_counts,
        read_session_stats,
        read_style_votes,
    )
    from arena_rating.anomaly import (
        AnomalyReason,
        ScreenResult,
        SessionStats,
        screen_sessions,
        session_stats,
    )
    from arena_rating.bradley_terry import (
        ETA_CEILING,
        ETA_FLOOR,
        Outcome,
        PairCounts,
        RaoKupperFit,
        fit_rao_kupper,
        pair_counts_from_votes,
    )
    from arena_rating.confidence import (
        BootstrapResult,
        fisher_standard_errors,
        multinomial_bootstrap,
        width_ratios,
    )
    from arena_rating.connectivity import centre_within_components, connected_components
    from arena_rating.report import RatingReport, RatingRows, StyleReport, rate_pairs, rate_style
    from arena_rating.style import STYLE_FEATURES, StyleFit, StyleVotes, fit_style
    from arena_rating.worker import PassReport, RatingWorker, RefitMode, WorkerOptions, refit_mode
    from arena_rating.writeback import rating_lock, write_ratings, write_style

__all__ = [
    "BASE",
    "ETA_CEILING",
    "ETA_FLOOR",
    "EXIT_DATABASE",
    "EXIT_FIT",
    "EXIT_OK",
    "EXIT_USAGE",
    "INIT_RATING",
    "SCALE",
    "STYLE_FEATURES",
    "AggregatedVotes",
    "AnomalyReason",
    "BootstrapResult",
    "DatabaseError",
    "DatabaseUnreachable",
    "Outcome",
    "PairCounts",
    "PassReport",
    "RaoKupperFit",
    "RatingError",
    "RatingFitError",
    "RatingInputError",
    "RatingReport",
    "RatingRows",
    "RatingSettings",
    "RatingSettingsError",
    "RatingWorker",
    "RefitMode",
    "SchemaMissing",
    "ScreenResult",
    "SessionStats",
    "StyleFit",
    "StyleReport",
    "StyleRows",
    "StyleVotes",
    "WorkerOptions",
    "WorkerSupervisor",
    "build_parser",
    "centre_within_components",
    "connected_components",
    "create_rating_engine",
    "database_error",
    "describe_url",
    "fisher_standard_errors",
    "fit_rao_kupper",
    "fit_style",
    "load_rating_settings",
    "main",
    "multinomial_bootstrap",
    "pair_counts_from_votes",
    "rate_pairs",
    "rate_style",
    "rating_lock",
    "rating_worker_command",
    "read_pair_counts",
    "read_session_stats",
    "read_style_votes",
    "refit_mode",
    "screen_sessions",
    "session_stats",
    "to_display",
    "to_display_stderr",
    "width_ratios",
    "write_ratings",
    "write_style",
    "z_value",
]

_EXPORTS: dict[str, str] = {
    "EXIT_DATABASE": "arena_rating._cli",
    "EXIT_FIT": "arena_rating._cli",
    "EXIT_OK": "arena_rating._cli",
    "EXIT_USAGE": "arena_rating._cli",
    "build_parser": "arena_rating._cli",
    "main": "arena_rating._cli",
    "create_rating_engine": "arena_rating._database",
    "database_error": "arena_rating._database",
    "describe_url": "arena_rating._database",
    "DatabaseError": "arena_rating._errors",
    "DatabaseUnreachable": "arena_rating._errors",
    "RatingError": "arena_rating._errors",
    "RatingFitError": "arena_rating._errors",
    "RatingInputError": "arena_rating._errors",
    "SchemaMissing": "arena_rating._errors",
    "BASE": "arena_rating._scale",
    "INIT_RATING": "arena_rating._scale",
    "SCALE": "arena_rating._scale",
    "to_display": "arena_rating._scale",
    "to_display_stderr": "arena_rating._scale",
    "z_value": "arena_rating._scale",
    "RatingSettings": "arena_rating._settings",
    "RatingSettingsError": "arena_rating._settings",
    "load_rating_settings": "arena_rating._settings",
    "WorkerSupervisor": "arena_rating._supervisor",
    "rating_worker_command": "arena_rating._supervisor",
    "AggregatedVotes": "arena_rating.aggregate",
    "StyleRows": "arena_rating.aggregate",
    "read_pair_counts": "arena_rating.aggregate",
    "read_session_stats": "arena_rating.aggregate",
    "read_style_votes": "arena_rating.aggregate",
    "AnomalyReason": "arena_rating.anomaly",
    "ScreenResult": "arena_rating.anomaly",
    "SessionStats": "arena_rating.anomaly",
    "screen_sessions": "arena_rating.anomaly",
    "session_stats": "arena_rating.anomaly",
    "ETA_CEILING": "arena_rating.bradley_terry",
    "ETA_FLOOR": "arena_rating.bradley_terry",
    "Outcome": "arena_rating.bradley_terry",
    "PairCounts": "arena_rating.bradley_terry",
    "RaoKupperFit": "arena_rating.bradley_terry",
    "fit_rao_kupper": "arena_rating.bradley_terry",
    "pair_counts_from_votes": "arena_rating.bradley_terry",
    "BootstrapResult": "arena_rating.confidence",
    "fisher_standard_errors": "arena_rating.confidence",
    "multinomial_bootstrap": "arena_rating.confidence",
    "width_ratios": "arena_rating.confidence",
    "centre_within_components": "arena_rating.connectivity",
    "connected_components": "arena_rating.connectivity",
    "RatingReport": "arena_rating.report",
    "RatingRows": "arena_rating.report",
    "StyleReport": "arena_rating.report",
    "rate_pairs": "arena_rating.report",
    "rate_style": "arena_rating.report",
    "STYLE_FEATURES": "arena_rating.style",
    "StyleFit": "arena_rating.style",
    "StyleVotes": "arena_rating.style",
    "fit_style": "arena_rating.style",
    "PassReport": "arena_rating.worker",
    "RatingWorker": "arena_rating.worker",
    "RefitMode": "arena_rating.worker",
    "WorkerOptions": "arena_rating.worker",
    "refit_mode": "arena_rating.worker",
    "rating_lock": "arena_rating.writeback",
    "write_ratings": "arena_rating.writeback",
    "write_style": "arena_rating.writeback",
}


def __getattr__(name: str) -> object:
    """Import an exported name's module on first use (PEP 562).

    ``arena serve`` imports ``WorkerSupervisor`` from here and must not pay for NumPy, SciPy and
    SQLAlchemy in a process that only watches a child; everything else loads on demand.
    """
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
