"""Every slot error code has one short message for voters, is documented, and reaches the
``slot_error`` the arena streams."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Sequence

import pytest

import arena_api.core.errors as errors
from arena_api.core.arena import ArenaCore, SlotRun
from arena_api.core.events import InternalSlotError
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.ports import ProviderChunk
from arena_api.core.slot_errors import (
    FALLBACK_MESSAGE,
    INTERNAL_ERROR,
    SLOT_ERROR_MESSAGES,
    voter_message,
)
from tests.support import ROOT

_CODES = re.compile(r"^\| `([a-z_]+)` \|", re.MULTILINE)


def _provider_errors() -> list[errors.ProviderError]:
    """One instance of every ``ProviderError`` class (HTTP errors at a 4xx and a 5xx)."""
    found: list[errors.ProviderError] = []
    for value in vars(errors).values():
        if isinstance(value, type) and issubclass(value, errors.ProviderError):
            if issubclass(value, errors.ProviderHTTPError):
                found += [value("failed", 404), value("failed", 503)]
            else:
                found.append(value("failed"))
    return found


@pytest.mark.parametrize("error", _provider_errors(), ids=lambda e: f"{type(e).__name__}")
def test_every_provider_error_has_a_code_with_a_voter_message(error: errors.ProviderError) -> None:
    assert error.code in SLOT_ERROR_MESSAGES


def test_http_errors_are_coded_by_status() -> None:
    codes = [errors.ProviderHTTPError("x", s).code for s in (400, 401, 404, 500, 502, 503)]

    assert codes == ["provider_rejected"] * 3 + ["provider_unavailable"] * 3
    assert errors.ProviderRateLimited("x", 429).code == "provider_rate_limited"


def test_every_voter_message_is_one_short_sentence_naming_no_vendor() -> None:
    for message in SLOT_ERROR_MESSAGES.values():
        assert message.endswith(".") and len(message) <= 80
        assert not re.search(r"openai|gemini|google|ollama|vllm|429|5\d\d", message, re.I)


def test_an_unknown_or_missing_code_falls_back_to_the_given_message() -> None:
    assert voter_message("provider_timeout") == SLOT_ERROR_MESSAGES["provider_timeout"]
    assert voter_message("no_such_code", "the client fell behind") == "the client fell behind"
    assert voter_message(None) == FALLBACK_MESSAGE


def test_the_providers_page_documents_every_code_with_its_voter_message() -> None:
    page = (ROOT / "docs" / "providers.md").read_text()

    documented = set(_CODES.findall(page)) - {"code"}  # the header row

    assert documented == set(SLOT_ERROR_MESSAGES)
    for message in SLOT_ERROR_MESSAGES.values():
        assert message in page


class _Failing:
    name = "fake"

    def __init__(self, error: BaseException | None) -> None:
        self.error = error

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        yield ProviderChunk(text="partial")
        if self.error is None:
            await asyncio.sleep(10)  # a stall
        else:
            raise self.error


@pytest.mark.parametrize(
    ("error", "code"),
    [
        pytest.param(errors.ProviderRateLimited("429", 429), "provider_rate_limited", id="429"),
        pytest.param(errors.ProviderReset("reset"), "provider_reset", id="reset"),
        pytest.param(None, "provider_timeout", id="slot-timeout"),
        pytest.param(RuntimeError("a bug"), INTERNAL_ERROR, id="bug"),
    ],
)
async def test_a_failed_slot_emits_its_error_code(error: BaseException | None, code: str) -> None:
    model = ModelEntry(uuid.uuid4(), "Model", "fake", "model")
    core = ArenaCore(slot_timeout_s=0.05)

    events = [e async for e in core.stream([], [SlotRun("A", model, _Failing(error))])]

    slot_errors = [e for e in events if isinstance(e, InternalSlotError)]
    assert [e.code for e in slot_errors] == [code]
