"""Linear history: how a conversation may continue, and the context its next turn answers.

Only the prompts and the *winning* response of each completed turn form the context; a client's
own history is never used. A tie, both-bad, skip or unvoted turn has no winner and ends the branch.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from arena_api.core.errors import ConversationError
from arena_api.core.media import ChatImage
from arena_api.core.models import ChatMessage
from arena_api.core.records import ConversationRecord, winner_slot

__all__ = ["NextTurn", "is_continuable", "next_turn"]


@dataclass(frozen=True)
class NextTurn:
    turn_index: int
    parent_response_id: uuid.UUID | None
    history: tuple[ChatMessage, ...]


def is_continuable(conversation: ConversationRecord) -> bool:
    """May the next turn pass this conversation's id? True after a decisive vote only."""
    if not conversation.turns:
        return False
    last = conversation.turns[-1]
    slot = winner_slot(last.vote)
    answer = last.answer(slot) if slot else None
    return answer is not None and answer.error is None


def _created_ms(matchup_id: uuid.UUID) -> int | None:
    """When a matchup was created, from its time-ordered (v7) id; ``None`` for other ids."""
    return matchup_id.int >> 80 if matchup_id.version == 7 else None


def next_turn(
    conversation: ConversationRecord,
    session_id: str | None,
    *,
    requested_at_ms: int | None = None,
) -> NextTurn:
    """The position, parent and context of the turn that would continue ``conversation``.

    Args:
        requested_at_ms: when the continuing request arrived (Unix ms). A last turn created
            after that was made by a concurrent request that won the race: that is a
            conflict, not a turn the caller left unvoted.

    Raises:
        ConversationError: 403 ``conversation_forbidden`` for another session's conversation,
            409 ``conversation_conflict`` when a concurrent request advanced it first,
            409 ``conversation_not_ready`` when the last turn has no winning response.
    """
    if conversation.session_id is not None and conversation.session_id != session_id:
        raise ConversationError(
            "Conversation session mismatch", status=403, code="conversation_forbidden"
        )
    if not is_continuable(conversation):
        last = conversation.turns[-1] if conversation.turns else None
        created = _created_ms(last.matchup_id) if last is not None else None
        if created is not None and requested_at_ms is not None and created >= requested_at_ms:
            raise ConversationError(
                "Another request already advanced this conversation",
                status=409,
                code="conversation_conflict",
            )
        raise ConversationError(
            "The previous turn has no decisive vote; start a new conversation",
            status=409,
            code="conversation_not_ready",
        )
    history: list[ChatMessage] = []
    parent: uuid.UUID | None = None
    for turn in conversation.turns:
        slot = winner_slot(turn.vote)
        answer = turn.answer(slot) if slot else None
        if answer is None:  # only the last turn is checked above; earlier ones were continued
            raise ConversationError(
                "The conversation history is incomplete", status=409, code="conversation_not_ready"
            )
        history += [
            ChatMessage(
                role="user", content=turn.prompt, images=tuple(ChatImage(r) for r in turn.images)
            ),
            ChatMessage(role="assistant", content=answer.content),
        ]
        parent = answer.response_id
    return NextTurn(len(conversation.turns), parent, tuple(history))
