"""The exceptions ``arena_rating`` raises, as one tree.

::

    RatingError
    ├── RatingInputError (also ValueError)   arrays of the wrong shape, range or label
    ├── RatingFitError                       the optimiser stopped without converging
    └── DatabaseError
        ├── DatabaseUnreachable              no connection to DATABASE_URL could be made
        └── SchemaMissing                    connected, but the arena tables are not there

Callers catch the branch they care about: the worker loop retries on ``DatabaseError`` and logs a
``RatingFitError`` without dying; the command line maps each branch onto an exit status.
"""

from __future__ import annotations

__all__ = [
    "DatabaseError",
    "DatabaseUnreachable",
    "RatingError",
    "RatingFitError",
    "RatingInputError",
    "SchemaMissing",
]


class RatingError(Exception):
    """Base of every error raised by ``arena_rating``."""


class RatingInputError(RatingError, ValueError):
    """An input array has the wrong shape, holds a value out of range, or an unknown label."""


class RatingFitError(RatingError):
    """``scipy.optimize.minimize`` reported that it did not converge."""


class DatabaseError(RatingError):
    """The database could not serve the rating pass."""


class DatabaseUnreachable(DatabaseError):
    """No connection to the database could be made (refused, unknown host, bad credentials)."""


class SchemaMissing(DatabaseError):
    """The database answered but has no arena schema (``arena db upgrade`` was never run)."""
