"""Duel references: how a chat that sends no chat id tells the arena which duel it votes on.

Every chat client resends the whole conversation with each message, the arena's own duel
replies included. So a duel reply that ends with a reference line carries its matchup into every
later request of that chat, whatever the client (the line is written by ``_chat_text``):

    Duel ref: arena-7kx2mq9tb4hd3nwz8cfr5pjs

The reference is a random capability minted per duel (24 symbols of a 27-letter alphabet, about
114 bits). The server keeps only its SHA-256, as the duel's key among the chat links
(``ChatLinks``, beside the keys of chat ids), so a reference is verified by looking it up: one
changed by hand, or minted by another arena, finds nothing and votes on nothing. It is drawn at
random, not derived from the matchup or its models, so it says nothing about them and may stand
in the reply before the vote. (An HMAC of the matchup id would be no harder to forge, would
still need the stored row for the one vote path, and would stop verifying when the token secret
changes, as a development secret does at every restart.)

The alphabet is lower-case consonants and the digits 2-9: no vowel, so a reference never spells
a word (a model or provider name among them), and no ``l``, ``0``, ``1``, ``o`` to misread. It has
no Markdown meaning, so it survives a client that renders or strips Markdown, trims whitespace
or drops newlines. Reading is lenient (any case, any 20-32 letters and digits after ``arena-``)
so that a changed reference is reported as such, not overlooked.

A vote names the duel of *the round it answers*: the latest answer above it, passing over the
arena's commands and their replies (``round_above``). Voting an older, unvoted duel instead would
record a preference about answers the user is no longer looking at.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Sequence

from arena_api.core.models import ChatMessage
from arena_api.services._chat_text import command_of

__all__ = ["find_ref", "new_ref", "ref_above", "ref_key", "round_above"]

_ALPHABET = "23456789bcdfghjkmnpqrstvwxz"
_SYMBOLS = 24
_PREFIX = "arena-"
# What might be a reference: lenient, so a reference changed by hand still reads as one (and is
# refused by the lookup) instead of being taken for no reference at all.
_REF = re.compile(r"(?<![A-Za-z0-9])arena-([A-Za-z0-9]{20,32})(?![A-Za-z0-9])", re.IGNORECASE)


def new_ref() -> str:
    """A fresh duel reference: ``arena-`` and 24 random symbols."""
    return _PREFIX + "".join(secrets.choice(_ALPHABET) for _ in range(_SYMBOLS))


def ref_key(ref: str) -> str:
    """The key a duel's link is stored under: a SHA-256 of its reference, never the reference."""
    return hashlib.sha256(f"duel-ref:{ref.lower()}".encode()).hexdigest()


def find_ref(text: str) -> str | None:
    """The last duel reference in ``text`` (the reply's own line comes last), lower-cased."""
    found = _REF.findall(text)
    return _PREFIX + found[-1].lower() if found else None


def _answers_a_command(history: Sequence[ChatMessage], index: int) -> bool:
    """Is the assistant message at ``index`` the reply to one of the arena's commands?"""
    for message in reversed(history[:index]):
        if message.role == "system":
            continue
        return message.role == "user" and command_of(message.content) is not None
    return False


def round_above(history: Sequence[ChatMessage]) -> ChatMessage | None:
    """The latest answer in ``history`` that is not the reply to a command: the round a new
    message follows. A user message left without an answer (a failed request) is passed over."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role == "assistant" and not _answers_a_command(history, index):
            return message
    return None


def ref_above(history: Sequence[ChatMessage]) -> str | None:
    """The reference of the round above, or ``None`` when that round is no duel of ours (or its
    reference line was lost)."""
    answer = round_above(history)
    return find_ref(answer.content) if answer is not None else None
