"""A2UI: JSON Lines, in two dialects chosen by the client.

``a2ui`` (the default, compatible with existing arena clients) is flat, self-describing lines
versioned ``a2ui/1`` that paint one surface per slot::

    matchup_started -> surface_init {matchupId, matchupToken?, conversationId?, turnIndex?,
                                     surfaces, mode, votable}
    token           -> text_append {surface, text}
    slot_error      -> error {surface, message}
    slot_done       -> surface_done {surface}
    steered         -> steered {instruction}     (clients reset both surfaces)
    run_error       -> session_error {code, message}   (terminal)
    matchup_done    -> session_done

``a2ui-v0.9`` is the A2UI v0.9 message schema itself, for renderers built on the A2UI
specification (``@a2ui/web_core``): one surface per slot (``createSurface`` with the basic
catalog, a ``Column`` of a label, the answer and a status ``Text`` bound to the data model), then
``updateDataModel`` messages. A token replaces ``/text`` with the answer so far (A2UI replaces
the value at a path; it has no append), so this dialect sends O(n^2) bytes for an n-byte answer.
The matchup metadata (and vote token) is in each surface's data model at ``/matchup``. A2UI has
no terminal or error message: the stream simply ends, after ``/status`` says how.

Both dialects are validated by construction: every line is built from a fixed template.
"""

from __future__ import annotations

from typing import Any

from arena_api.core.events import (
    MatchupDone,
    MatchupStarted,
    PublicEvent,
    RunError,
    SlotDone,
    SlotError,
    Steered,
    Token,
)
from arena_api.core.models import Slot
from arena_api.protocols._adapter import ClosingAdapter
from arena_api.protocols._framing import json_line
from arena_api.protocols.base import RunContext
from arena_api.protocols.slot_error import error_code

__all__ = ["A2UI_VERSION", "BASIC_CATALOG_ID", "A2uiAdapter", "A2uiV09Adapter"]

A2UI_VERSION = "a2ui/1"
BASIC_CATALOG_ID = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"
_NDJSON = "application/x-ndjson"


class A2uiAdapter(ClosingAdapter):
    """The flat ``a2ui/1`` dialect."""

    name = "a2ui"
    media_type = _NDJSON

    def _frame(self, event: PublicEvent) -> bytes:
        if isinstance(event, Token):
            return _line("text_append", surface=event.slot, text=event.token)
        if isinstance(event, MatchupStarted):
            fields = {k: v for k, v in event.wire().items() if k not in ("type", "slots")}
            return _line("surface_init", **fields, surfaces=list(event.slots))
        if isinstance(event, SlotError):
            return _line("error", surface=event.slot, message=event.message, **error_code(event))
        if isinstance(event, SlotDone):
            return _line("surface_done", surface=event.slot)
        if isinstance(event, Steered):
            return _line("steered", instruction=event.instruction)
        if isinstance(event, RunError):
            return _line("session_error", code=event.code, message=event.message)
        if isinstance(event, MatchupDone):
            return _line("session_done")
        raise TypeError(f"unknown public event {event!r}")


def _line(kind: str, **fields: Any) -> bytes:
    return json_line({"v": A2UI_VERSION, "kind": kind, **fields})


class A2uiV09Adapter(ClosingAdapter):
    """The A2UI v0.9 dialect (``createSurface``/``updateComponents``/``updateDataModel``)."""

    name = "a2ui-v0.9"
    media_type = _NDJSON

    def __init__(self, context: RunContext | None = None) -> None:
        super().__init__(context)
        self._surfaces: dict[Slot, str] = {}
        self._text: dict[Slot, str] = {}
        self._done: set[Slot] = set()

    def _frame(self, event: PublicEvent) -> bytes:
        if isinstance(event, Token):
            if event.slot not in self._surfaces:
                return b""
            self._text[event.slot] += event.token
            return self._update(event.slot, "/text", self._text[event.slot])
        if isinstance(event, MatchupStarted):
            return self._start(event)
        if isinstance(event, SlotError):
            self._done.add(event.slot)
            return self._update(event.slot, "/error", event.message) + self._update(
                event.slot, "/status", "error"
            )
        if isinstance(event, SlotDone):
            if event.slot in self._done:
                return b""
            self._done.add(event.slot)
            return self._update(event.slot, "/status", "done")
        if isinstance(event, Steered):
            self._done.clear()
            frames = b""
            for slot in self._surfaces:
                self._text[slot] = ""
                frames += (
                    self._update(slot, "/text", "")
                    + self._update(slot, "/status", "streaming")
                    + self._update(slot, "/steered", event.instruction)
                )
            return frames
        if isinstance(event, RunError):
            message = f"{event.code}: {event.message}"
            return b"".join(
                self._update(slot, "/error", message) + self._update(slot, "/status", "failed")
                for slot in self._surfaces
                if slot not in self._done
            )
        if isinstance(event, MatchupDone):
            return b""
        raise TypeError(f"unknown public event {event!r}")

    def _start(self, event: MatchupStarted) -> bytes:
        metadata = {k: v for k, v in event.wire().items() if k != "type"}
        frames = []
        for slot in event.slots:
            surface = f"{event.matchup_id}:{slot}"
            self._surfaces[slot] = surface
            self._text[slot] = ""
            frames += [
                _message("createSurface", surfaceId=surface, catalogId=BASIC_CATALOG_ID),
                _message("updateComponents", surfaceId=surface, components=_components(slot)),
                _message(
                    "updateDataModel",
                    surfaceId=surface,
                    path="/",
                    value={"slot": slot, "text": "", "status": "streaming", "matchup": metadata},
                ),
            ]
        return b"".join(frames)

    def _update(self, slot: Slot, path: str, value: Any) -> bytes:
        return _message("updateDataModel", surfaceId=self._surfaces[slot], path=path, value=value)


def _message(kind: str, **body: Any) -> bytes:
    return json_line({"version": "v0.9", kind: body})


def _components(slot: Slot) -> list[dict[str, Any]]:
    return [
        {"id": "root", "component": "Column", "children": ["label", "answer", "status"]},
        {"id": "label", "component": "Text", "text": f"Model {slot}", "variant": "h3"},
        {"id": "answer", "component": "Text", "text": {"path": "/text"}},
        {"id": "status", "component": "Text", "text": {"path": "/status"}, "variant": "caption"},
    ]
