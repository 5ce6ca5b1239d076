"""``python -m arena_rating``: one pass (``--once``, the default) or a loop (``--loop``).

Exit status: 0 done (also when there was nothing to rate, or another rating process held the
lock); 1 the database is unreachable or not migrated, said in one line; 2 a bad option or
setting; 3 a fit did not converge. In ``--loop`` database failures are retried with back-off and
the process only ends on SIGTERM or SIGINT (status 0).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Mapping, Sequence

import numpy as np

from arena_rating._database import create_rating_engine, describe_url
from arena_rating._errors import DatabaseError, RatingFitError
from arena_rating._logging import LOGGER_NAME, configure_logging
from arena_rating._settings import RatingSettings, RatingSettingsError, load_rating_settings
from arena_rating.worker import RatingWorker, WorkerOptions, describe_database_error

__all__ = [
    "EXIT_DATABASE",
    "EXIT_FIT",
    "EXIT_OK",
    "EXIT_USAGE",
    "ONCE_LOCK_WAIT_S",
    "build_parser",
    "main",
]

EXIT_OK = 0
EXIT_DATABASE = 1
EXIT_USAGE = 2
EXIT_FIT = 3
#: A one-off pass waits this long for a running pass of another process before giving up.
ONCE_LOCK_WAIT_S = 300.0
DEFAULT_RESAMPLES = 200

_log = logging.getLogger(LOGGER_NAME)


def build_parser(prog: str = "python -m arena_rating") -> argparse.ArgumentParser:
    """The command line of the rating process (``arena rate`` takes the same options)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Fit the arena's Bradley-Terry ratings from recorded votes and store them.",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--once", action="store_true", help="Run one pass and exit (default).")
    mode.add_argument(
        "--loop", action="store_true", help="Refit every RATING_REFIT_INTERVAL_S until stopped."
    )
    parser.add_argument("--style", action="store_true", help="Also run the style-controlled pass.")
    parser.add_argument(
        "--no-anomaly-filter",
        dest="anomaly_filter",
        action="store_false",
        help="Keep every session's votes (skip the anomaly screen).",
    )
    parser.add_argument(
        "--no-identity-filter",
        dest="identity_filter",
        action="store_false",
        help="Keep the votes on rounds whose answers named their own model or vendor.",
    )
    parser.add_argument(
        "--no-duplicate-cap",
        dest="duplicate_cap",
        action="store_false",
        help="Keep every vote of an over-asked prompt (no RATING_DUPLICATE_CAP).",
    )
    parser.add_argument(
        "--validate",
        action="store_true",
        help="Check the Fisher intervals against a multinomial bootstrap and log the result.",
    )
    parser.add_argument(
        "--resamples",
        type=_positive_int,
        default=DEFAULT_RESAMPLES,
        help=f"Bootstrap resamples for --validate (default {DEFAULT_RESAMPLES}).",
    )
    parser.add_argument("--seed", type=int, default=None, help="Seed of the bootstrap.")
    return parser


def _positive_int(raw: str) -> int:
    value = int(raw)
    if value < 2:
        raise argparse.ArgumentTypeError("must be an integer >= 2")
    return value


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the rating process; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Options (``sys.argv[1:]`` by default). A bad option exits with status 2 (argparse).
    environ : mapping, optional
        The environment (``os.environ`` by default): ``DATABASE_URL`` and the rating settings.
    """
    args = build_parser().parse_args(argv)
    try:
        settings = load_rating_settings(environ)
    except RatingSettingsError as exc:
        print(f"arena_rating: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if settings.database_url is None:
        print(
            "arena_rating: DATABASE_URL is not set (`arena rate` runs this against the "
            "embedded database)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    configure_logging(settings.log_level, settings.log_format)
    options = WorkerOptions(
        style=args.style,
        anomaly_filter=args.anomaly_filter,
        identity_filter=args.identity_filter,
        duplicate_cap=args.duplicate_cap,
        validate=args.validate,
        n_resamples=args.resamples,
        lock_wait_s=0.0 if args.loop else ONCE_LOCK_WAIT_S,
    )
    rng = np.random.default_rng(args.seed)
    return asyncio.run(_run(settings, options, rng, loop=args.loop))


async def _run(
    settings: RatingSettings, options: WorkerOptions, rng: np.random.Generator, *, loop: bool
) -> int:
    url = settings.database_url
    if url is None:  # checked by main; kept for the type checker
        return EXIT_USAGE
    engine = create_rating_engine(url)
    worker = RatingWorker(engine, settings, options, rng=rng)
    try:
        if loop:
            stop = asyncio.Event()
            running = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                running.add_signal_handler(signum, stop.set)
            _log.info("rating against %s", describe_url(url))
            await worker.run_loop(stop)
            return EXIT_OK
        try:
            await worker.run_pass()
        except DatabaseError as exc:
            _log.error("%s (%s)", describe_database_error(exc), describe_url(url))
            return EXIT_DATABASE
        except RatingFitError as exc:
            _log.error("the fit did not converge: %s", exc)
            return EXIT_FIT
        return EXIT_OK
    finally:
        await engine.dispose()
