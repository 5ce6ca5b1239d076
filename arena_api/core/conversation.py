"""Linear history: how a conversation may continue, and the context its next turn answers.

Only the prompts and the *winning* response of each completed turn form the context; a client's
own history is never used. A tie, both-bad, skip or unvoted turn has no winner and ends the branch.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from arena_api.core.errors import ConversationError
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


def next_turn(conversation: ConversationRecord, session_id: str | None) -> NextTurn:
    """The position, parent and context of the turn that would continue ``conversation``.

    Raises:
        ConversationError: 403 ``conversation_forbidden`` for another session's conversation,
            409 ``conversation_not_ready`` when the last turn has no winning response.
    """
    if conversation.session_id is not None and conversation.session_id != session_id:
        raise ConversationError(
            "Conversation session mismatch", status=403, code="conversation_forbidden"
        )
    if not is_continuable(conversation):
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
            ChatMessage(role="user", content=turn.prompt),
            ChatMessage(role="assistant", content=answer.content),
        ]
        parent = answer.response_id
    return NextTurn(len(conversation.turns), parent, tuple(history))
