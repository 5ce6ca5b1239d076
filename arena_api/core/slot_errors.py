"""The codes a ``slot_error`` carries, and what a voter reads for each: the one mapping.

A slot error's ``message`` is the technical account (still blind: it names no model, provider or
vendor); its ``code`` is stable, for machines; ``voter_message(code)`` is the short sentence the
arena page shows in the failed answer's pane. ``docs/providers.md`` lists every code (a test
keeps it complete).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["FALLBACK_MESSAGE", "INTERNAL_ERROR", "SLOT_ERROR_MESSAGES", "voter_message"]

#: A bug in one slot (never a provider's fault); the other slot goes on.
INTERNAL_ERROR = "internal_error"

FALLBACK_MESSAGE = "This model could not finish its answer."

SLOT_ERROR_MESSAGES: Mapping[str, str] = MappingProxyType(
    {
        "provider_rate_limited": "This model is rate-limited by its provider right now.",
        "provider_unavailable": "This model's provider is unavailable right now.",
        "provider_rejected": "This model's provider refused the request.",
        "provider_unreachable": "This model's provider could not be reached.",
        "provider_reset": "The connection to this model broke off.",
        "provider_timeout": "This model stopped answering in time.",
        "provider_bad_response": "This model's provider sent a reply that could not be read.",
        "provider_too_large": "This model's provider sent a reply too large to accept.",
        "provider_error": "This model's provider reported an error while answering.",
        "provider_refused": "This model declined to answer this prompt.",
        INTERNAL_ERROR: "This answer failed unexpectedly.",
    }
)


def voter_message(code: str | None, fallback: str | None = None) -> str:
    """What a voter reads for a slot error with ``code``.

    Args:
        code: the ``slot_error``'s code; ``None`` for an error that carries none.
        fallback: shown for a missing or unknown code (e.g. the error's own message).
    """
    if code is not None and code in SLOT_ERROR_MESSAGES:
        return SLOT_ERROR_MESSAGES[code]
    return fallback or FALLBACK_MESSAGE
