"""The application services: one use case each, shared by the HTTP routes and the Reflex UI.

* ``ArenaService`` (``rounds.py``): rounds, votes and the control plane.
* ``ReadService`` (``reads.py``): the leaderboard, stored rounds and conversations, analytics.
* ``OpenAiChatService`` (``openai_chat.py``): the arena as OpenAI-compatible chat models, for
  external chat UIs such as Open WebUI (duel, compare columns, votes as chat commands).
"""

from __future__ import annotations

from arena_api.services.openai_chat import (
    ARENA_MODELS,
    CompletionReply,
    ModelCard,
    OpenAiChatService,
    TextReply,
)
from arena_api.services.reads import ReadService
from arena_api.services.rounds import ArenaService, RoundOptions, RoundPolicy, RoundStream

__all__ = [
    "ARENA_MODELS",
    "ArenaService",
    "CompletionReply",
    "ModelCard",
    "OpenAiChatService",
    "ReadService",
    "RoundOptions",
    "RoundPolicy",
    "RoundStream",
    "TextReply",
]
