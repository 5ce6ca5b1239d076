"""The read model's manifest: each summary table, the triggers that keep it, its recount.

Summary tables are kept current by row (and one statement) triggers in the writing transaction,
and recounted from ``preferences``, ``matchups`` and ``responses`` by SQL functions. Their SQL
lives in ``arena_api/db/sql/`` (one file per version); this module says which objects make up
the read model today, at which version, so that ``arena db rebuild``, the demo seeder and the
tests never keep a list of their own. ``tests/unit/db/test_read_model.py`` checks it against a
migrated database, both ways.

::

    preferences ──┐ triggers      ┌──> model_vote_stats, pair_vote_stats, pair_outcome_stats, ...
    matchups    ──┼─────────────> ┤
    responses   ──┘               └──> category_* (per slice of prompts)
                     recounts (RECOUNTS, outermost first): rebuild(conn) calls each once
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "FUNCTIONS",
    "RECOUNTS",
    "SUMMARIES",
    "TRIGGERS",
    "Function",
    "Recount",
    "SqlExecutor",
    "Summary",
    "Trigger",
    "rebuild",
]


@dataclass(frozen=True)
class Function:
    """A SQL function of the read model and its current version in ``arena_api/db/sql/``."""

    name: str
    version: int
    #: Its argument types as ``pg_get_function_identity_arguments`` prints them.
    arguments: str = ""


@dataclass(frozen=True)
class Trigger:
    """A trigger (its file in ``arena_api/db/sql/``) on ``table`` that runs ``function``."""

    name: str
    version: int
    table: str
    function: str


@dataclass(frozen=True)
class Recount:
    """A function that recounts ``summaries`` from scratch.

    ``within`` names the recount that already calls this one: ``rebuild`` runs only the
    outermost recounts, so that nothing is counted twice.
    """

    function: str
    summaries: tuple[str, ...]
    within: str | None = None


@dataclass(frozen=True)
class Summary:
    """A summary table, the triggers that keep it and the recount that rebuilds it."""

    table: str
    triggers: tuple[str, ...]
    recount: str

    @property
    def watches(self) -> tuple[str, ...]:
        """The tables whose writes change this summary (the tables of its triggers)."""
        by_name = {trigger.name: trigger.table for trigger in TRIGGERS}
        return tuple(dict.fromkeys(by_name[name] for name in self.triggers))


FUNCTIONS: tuple[Function, ...] = (
    # what the triggers run
    Function("arena_count_vote", 2),
    Function("arena_roll_up_vote", 2),
    Function("arena_count_matchup", 2),
    Function("arena_roll_up_response", 3),
    Function("arena_roll_up_cost", 1),
    Function("arena_count_category_vote", 1),
    Function("arena_count_category_response", 1),
    Function("arena_count_category_matchup", 1),
    Function("arena_move_category_rounds", 1),
    # what those call
    Function("arena_count_style_deltas", 2, "m uuid, delta integer, voted_by text"),
    Function(
        "arena_count_category_votes",
        1,
        "rec preferences, a uuid, b uuid, slices text[], delta integer",
    ),
    Function("arena_count_category_answer", 1, "r responses, slices text[], d integer"),
    Function("arena_prompt_slices", 1, "categories text[], language text"),
    # the recounts
    Function("arena_rebuild_vote_stats", 5),
    Function("arena_rebuild_analytics", 4),
    Function("arena_rebuild_category_stats", 1),
    Function("arena_rebuild_cost", 1),
)

TRIGGERS: tuple[Trigger, ...] = (
    Trigger("preferences_count_vote", 3, "preferences", "arena_count_vote"),
    Trigger("preferences_roll_up_vote", 3, "preferences", "arena_roll_up_vote"),
    Trigger("preferences_count_category_vote", 1, "preferences", "arena_count_category_vote"),
    Trigger("matchups_count_matchup", 1, "matchups", "arena_count_matchup"),
    Trigger("matchups_count_category_matchup", 1, "matchups", "arena_count_category_matchup"),
    Trigger("matchups_move_category_rounds", 1, "matchups", "arena_move_category_rounds"),
    Trigger("responses_roll_up_response", 1, "responses", "arena_roll_up_response"),
    Trigger("responses_roll_up_cost", 1, "responses", "arena_roll_up_cost"),
    Trigger("responses_count_category_answer", 1, "responses", "arena_count_category_response"),
)

_VOTES = "preferences_count_vote"
_OUTCOMES = ("matchups_count_matchup", "preferences_roll_up_vote")
_ANSWERS = ("responses_roll_up_response",)
_SLICE_VOTES = ("preferences_count_category_vote", "matchups_move_category_rounds")
_SLICE_ANSWERS = ("responses_count_category_answer", "matchups_move_category_rounds")

SUMMARIES: tuple[Summary, ...] = (
    Summary("model_vote_stats", (_VOTES,), "arena_rebuild_vote_stats"),
    Summary("pair_vote_stats", (_VOTES,), "arena_rebuild_vote_stats"),
    Summary("pair_outcome_stats", _OUTCOMES, "arena_rebuild_analytics"),
    Summary("vote_activity", ("preferences_roll_up_vote",), "arena_rebuild_analytics"),
    Summary("pair_style_stats", ("preferences_roll_up_vote", *_ANSWERS), "arena_rebuild_analytics"),
    Summary("model_response_stats", _ANSWERS, "arena_rebuild_analytics"),
    Summary("response_latency_values", _ANSWERS, "arena_rebuild_analytics"),
    Summary("response_latency_buckets", _ANSWERS, "arena_rebuild_analytics"),
    Summary("model_cost_daily", ("responses_roll_up_cost",), "arena_rebuild_cost"),
    Summary(
        "category_pair_stats",
        ("matchups_count_category_matchup", *_SLICE_VOTES),
        "arena_rebuild_category_stats",
    ),
    Summary("category_vote_activity", _SLICE_VOTES, "arena_rebuild_category_stats"),
    Summary("category_response_stats", _SLICE_ANSWERS, "arena_rebuild_category_stats"),
    Summary("category_latency_values", _SLICE_ANSWERS, "arena_rebuild_category_stats"),
    Summary("category_latency_buckets", _SLICE_ANSWERS, "arena_rebuild_category_stats"),
    Summary("category_cost_daily", _SLICE_ANSWERS, "arena_rebuild_category_stats"),
)


def _recount(function: str, within: str | None = None) -> Recount:
    summaries = tuple(s.table for s in SUMMARIES if s.recount == function)
    return Recount(function, summaries, within)


#: Every recount, an outer one before those it calls.
RECOUNTS: tuple[Recount, ...] = (
    _recount("arena_rebuild_vote_stats"),
    _recount("arena_rebuild_analytics", within="arena_rebuild_vote_stats"),
    _recount("arena_rebuild_category_stats", within="arena_rebuild_vote_stats"),
    _recount("arena_rebuild_cost"),
)


class SqlExecutor(Protocol):
    """What ``rebuild`` needs of a connection (an ``asyncpg.Connection`` has it)."""

    async def execute(self, query: str, /) -> object: ...


async def rebuild(conn: SqlExecutor) -> tuple[Recount, ...]:
    """Recount every summary table from scratch, in the caller's transaction.

    Args:
        conn: a connection to a migrated database; run this inside a transaction so that readers
            never see a summary half recounted.

    Returns:
        Every recount that ran (``RECOUNTS``; those ``within`` another ran as part of it).
    """
    for recount in RECOUNTS:
        if recount.within is None:
            await conn.execute(f"SELECT {recount.function}()")
    return RECOUNTS
