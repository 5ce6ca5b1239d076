"""The roster in the admin console: add a model, edit one, pause or archive it, and test its
connection with a one-prompt probe.

The roster lives in ``models``; the roster file seeds it at every start (``seed_roster``: the
file's models take the file's values, a file model the file dropped is archived) and leaves the
models added here alone, so the console says where each came from. A running server follows a
change within seconds (the matchmaker reads the enabled models from the database). Every change
is audited with the state before and after.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from arena_api.core.errors import ArenaError, InvalidRequest, NotFound, ProviderError
from arena_api.core.lifecycle import ACTIVE, IMPORTED_PROVIDER, MODEL_STATUSES, ModelStatus
from arena_api.core.models import ChatMessage, RosterItem
from arena_api.core.ports import ProviderResolver
from arena_api.core.users import Actor

__all__ = ["PROBE_PROMPT", "Probe", "RosterAdmin", "RosterStore"]

#: What the connection test asks.
PROBE_PROMPT = "Reply with a short greeting of five words."
_PROBE_TIMEOUT_S = 30.0
_PROBE_CHARS = 200
_MAX_NAME, _MAX_MODEL_ID = 100, 200


class RosterStore(Protocol):
    async def items(self) -> list[RosterItem]: ...

    async def item(self, model_id: uuid.UUID) -> RosterItem | None: ...

    async def add(
        self,
        display_name: str,
        provider: str,
        provider_model_id: str,
        prices: tuple[Decimal, Decimal] | None,
        status: ModelStatus,
        actor: Actor,
        vision: bool = False,
    ) -> RosterItem | None: ...

    async def edit(
        self,
        model_id: uuid.UUID,
        display_name: str,
        prices: tuple[Decimal, Decimal] | None,
        status: ModelStatus,
        actor: Actor,
        vision: bool | None = None,
    ) -> tuple[RosterItem, RosterItem] | None: ...


@dataclass(frozen=True)
class Probe:
    """A connection test: the first tokens and how long they took, or why it failed."""

    ok: bool
    first_token_ms: int | None
    total_ms: int
    text: str
    error_code: str | None = None
    error: str | None = None


def _text(fields: Mapping[str, Any], name: str, limit: int) -> str:
    value = fields.get(name)
    if not isinstance(value, str) or not 0 < len(value.strip()) <= limit:
        raise InvalidRequest(
            f"{name} must be text of 1 to {limit} characters", details={name: ["required"]}
        )
    return value.strip()


def _prices(fields: Mapping[str, Any], current: tuple[Decimal, Decimal] | None) -> Any:
    """``(input, output)`` US dollars per million tokens, both or neither (null clears)."""
    if "prices" not in fields:
        return current
    raw = fields["prices"]
    if raw is None:
        return None
    try:
        if not isinstance(raw, list) or len(raw) != 2 or any(isinstance(p, bool) for p in raw):
            raise ValueError
        pair = tuple(Decimal(str(p)) for p in raw)
        if any(not p.is_finite() or p < 0 or p > 1_000_000 for p in pair):
            raise ValueError
    except (ValueError, InvalidOperation):
        raise InvalidRequest(
            "prices must be [input, output] US dollars per million tokens, 0 or more",
            details={"prices": ["[input, output]"]},
        ) from None
    return pair


def _vision(fields: Mapping[str, Any], current: bool | None) -> bool | None:
    """Whether the model reads images (``vision``; absent: as it is)."""
    if "vision" not in fields:
        return current
    if not isinstance(fields["vision"], bool):
        raise InvalidRequest("vision must be true or false", details={"vision": ["boolean"]})
    return fields["vision"]


def _status(fields: Mapping[str, Any], current: ModelStatus) -> ModelStatus:
    status = fields.get("status", current)
    if status not in MODEL_STATUSES:
        raise InvalidRequest(
            f"status must be one of {', '.join(MODEL_STATUSES)}", details={"status": ["unknown"]}
        )
    return status  # type: ignore[no-any-return]


def _model_id(raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise NotFound("No such model") from None


class RosterAdmin:
    def __init__(
        self,
        store: RosterStore,
        providers: ProviderResolver,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._providers = providers
        self._monotonic = monotonic

    def providers(self) -> list[str]:
        """The providers this server has configured: what a new model may use."""
        return sorted(self._providers.names())

    async def items(self) -> list[RosterItem]:
        return await self._store.items()

    async def add(self, fields: Mapping[str, Any], actor: Actor) -> RosterItem:
        """Raises: InvalidRequest (a field, or a provider this server lacks), 409
        ``model_exists``."""
        name = _text(fields, "displayName", _MAX_NAME)
        provider = _text(fields, "provider", 40)
        model_id = _text(fields, "providerModelId", _MAX_MODEL_ID)
        if provider not in self._providers.names():
            raise InvalidRequest(
                f"provider must be one this server has configured: {', '.join(self.providers())}",
                details={"provider": ["not configured"]},
            )
        added = await self._store.add(
            name,
            provider,
            model_id,
            _prices(fields, None),
            _status(fields, ACTIVE),
            actor,
            vision=bool(_vision(fields, False)),
        )
        if added is None:
            raise ArenaError(
                f"{provider}:{model_id} is already in the roster; edit it instead",
                status=409,
                code="model_exists",
            )
        return added

    async def edit(
        self, raw_id: str, fields: Mapping[str, Any], actor: Actor
    ) -> tuple[RosterItem, RosterItem]:
        """Raises: NotFound, InvalidRequest (a field, or ``active`` for a model only known
        from an import)."""
        model_id = _model_id(raw_id)
        current = await self._store.item(model_id)
        if current is None:
            raise NotFound("No such model")
        prices = current.model.prices
        pair = None if prices is None else (prices.input_per_mtok, prices.output_per_mtok)
        name = _text(fields, "displayName", _MAX_NAME) if "displayName" in fields else None
        status = _status(fields, current.status)
        if status == ACTIVE and current.model.provider == IMPORTED_PROVIDER:
            raise InvalidRequest(
                "A model known only from imported votes cannot be active: nothing answers as it",
                details={"status": ["imported"]},
            )
        changed = await self._store.edit(
            model_id,
            name or current.model.display_name,
            _prices(fields, pair),
            status,
            actor,
            vision=_vision(fields, None),
        )
        if changed is None:
            raise NotFound("No such model")
        return changed

    async def probe(self, raw_id: str) -> Probe:
        """Ask the model one short prompt through its provider, as a round would.

        Raises: NotFound.
        """
        item = await self._store.item(_model_id(raw_id))
        if item is None:
            raise NotFound("No such model")
        started = self._monotonic()
        first: float | None = None
        text = ""
        try:
            provider = self._providers.resolve(item.model.provider)
            messages = [ChatMessage(role="user", content=PROBE_PROMPT)]
            async with asyncio.timeout(_PROBE_TIMEOUT_S):
                async for chunk in provider.stream(item.model, messages):
                    if chunk.text and first is None:
                        first = self._monotonic()
                    text += chunk.text
                    if len(text) >= _PROBE_CHARS:
                        break
        except ProviderError as exc:
            return self._probe(started, first, text, exc.code, str(exc))
        except TimeoutError:
            return self._probe(
                started, first, text, "provider_timeout", f"No answer in {_PROBE_TIMEOUT_S:.0f} s"
            )
        if not text.strip():
            return self._probe(started, first, text, "empty_answer", "The model answered nothing")
        return self._probe(started, first, text)

    def _probe(
        self,
        started: float,
        first: float | None,
        text: str,
        code: str | None = None,
        error: str | None = None,
    ) -> Probe:
        now = self._monotonic()
        return Probe(
            ok=code is None,
            first_token_ms=None if first is None else round((first - started) * 1000),
            total_ms=round((now - started) * 1000),
            text=text[:_PROBE_CHARS],
            error_code=code,
            error=error,
        )
