"""The seed system's (OmniArena's) rows, as its PostgreSQL holds them.

Its data model is the one ours grew from (``seeds/omniarena-data-model.txt``): models,
conversations, turns (each with its matchup and the parent answer it continued), matchups
(``blind`` or ``shadow``), responses with their timings, and at most one preference per
matchup. So an import copies rows, not votes: every conversation with all its rounds, voted or
not, the answers with their timings, the votes with their time and session. A batch holds whole
conversations, so that what is written in one transaction is never half a conversation.

Rounds played before the seed had conversations (its migration 002 added them and backfilled
nothing) have no turn: each becomes a conversation of its own, with ids derived from the
matchup's, so a second import finds it again. The reader (``arena_api.db.omniarena``) needs the
columns of the seed's newest schema (migration 008); ``check_schema`` names what an older
database lacks.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Set
from dataclasses import dataclass
from typing import Any

__all__ = [
    "REQUIRED_COLUMNS",
    "TABLES",
    "SeedBatch",
    "SeedModel",
    "SeedSchemaError",
    "check_schema",
    "loose_round",
]

#: The seed's tables, and the columns its later migrations added that the reader needs.
TABLES = ("models", "conversations", "turns", "matchups", "responses", "preferences")
REQUIRED_COLUMNS = {
    "matchups": ("mode", "steers", "slot_a_provider_model_id", "harness_version"),
    "responses": ("ttft_ms", "stream_duration_ms", "output_token_count", "markdown_density"),
    "turns": ("parent_response_id",),
}
#: Where the ids of a loose round's conversation and turn come from (``uuid5`` of the matchup).
_LOOSE = uuid.UUID("1f0c5d2e-7a4b-5c39-9e61-0a8f4b2d6c17")


class SeedSchemaError(Exception):
    """The database is not the seed system's at a schema this reader knows."""


def check_schema(have: Set[tuple[str, str]]) -> None:
    """Raise ``SeedSchemaError`` unless ``have`` (table, column) holds the seed's schema."""
    tables = {table for table, _ in have}
    for table in TABLES:
        if table not in tables:
            raise SeedSchemaError(f"no table {table}: this is not an OmniArena database")
    missing = [f"{t}.{c}" for t, cs in REQUIRED_COLUMNS.items() for c in cs if (t, c) not in have]
    if missing:
        raise SeedSchemaError(
            f"the OmniArena schema lacks {', '.join(missing)}: run its migrations first "
            "(npm run db:migrate --workspace server)"
        )


@dataclass(frozen=True)
class SeedModel:
    id: uuid.UUID
    display_name: str
    provider: str
    provider_model_id: str


Row = dict[str, Any]


@dataclass(frozen=True)
class SeedBatch:
    """Whole conversations and every row that hangs off them, as the seed stores them."""

    conversations: list[Row]
    turns: list[Row]
    matchups: list[Row]
    responses: list[Row]
    preferences: list[Row]

    @property
    def conversation_ids(self) -> list[uuid.UUID]:
        return [c["id"] for c in self.conversations]

    def only(self, ids: Iterable[uuid.UUID]) -> SeedBatch:
        """The part of the batch that belongs to the conversations ``ids``."""
        keep = set(ids)
        turns = [t for t in self.turns if t["conversation_id"] in keep]
        rounds = {t["matchup_id"] for t in turns}
        return SeedBatch(
            conversations=[c for c in self.conversations if c["id"] in keep],
            turns=turns,
            matchups=[m for m in self.matchups if m["id"] in rounds],
            responses=[r for r in self.responses if r["matchup_id"] in rounds],
            preferences=[p for p in self.preferences if p["matchup_id"] in rounds],
        )


def loose_round(matchup: Row, session: str | None) -> tuple[Row, Row]:
    """The conversation and turn a round without a turn gets: ids derived from the matchup's
    (stable across imports), its time, prompt and voter's session."""
    conversation = uuid.uuid5(_LOOSE, f"conversation:{matchup['id']}")
    turn = {
        "id": uuid.uuid5(_LOOSE, f"turn:{matchup['id']}"),
        "conversation_id": conversation,
        "matchup_id": matchup["id"],
        "parent_response_id": None,
        "turn_index": 0,
        "prompt": matchup["prompt"],
        "created_at": matchup["created_at"],
    }
    head = {
        "id": conversation,
        "anonymous_session_id": session,
        "created_at": matchup["created_at"],
    }
    return head, turn
