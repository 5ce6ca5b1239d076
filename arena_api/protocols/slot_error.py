"""The marker that keeps a slot failure, written as assistant text, apart from a model's words.

AG-UI and OpenAI have no per-message error, only text. Their adapters carry a ``slot_error``
twice: structurally (AG-UI ``CUSTOM slot_error``, OpenAI ``omni_arena_error``) and as this text in
the failed slot's own message, so a client that renders only content still shows the failure.
"""

from __future__ import annotations

from arena_api.core.events import SLOT_ERROR_MARKER, SlotError

__all__ = ["SLOT_ERROR_MARKER", "error_code", "slot_error_text"]


def error_code(event: SlotError) -> dict[str, str]:
    """The slot error's stable code (``core.slot_errors``) as the field every structured
    payload carries beside its message; nothing for an error without one."""
    return {"code": event.code} if event.code else {}


def slot_error_text(message: str) -> str:
    """The failed slot's closing text: the marker, then the (model-free) error message."""
    return f"\n\n{SLOT_ERROR_MARKER} {message}\n"
