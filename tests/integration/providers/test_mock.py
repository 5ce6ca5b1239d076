"""The mock provider: deterministic, blind-safe, exact in length and paced."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import time
import uuid

import pytest

from arena_api.core.models import ChatMessage
from arena_api.core.verdicts import parse_verdict
from arena_api.providers.mock import MOCK_MODEL_VERSION, MockModelProvider, mock_tag
from tests.integration.providers._streams import CONVERSATION, drain, model, text_of

QUESTION = [ChatMessage(role="user", content="Why is the sky blue?")]


async def test_same_question_to_same_model_gives_the_same_answer() -> None:
    provider = MockModelProvider(tokens_per_second=0, tokens=40)

    first = await drain(provider.stream(model("a", "mock"), QUESTION))
    second = await drain(provider.stream(model("a", "mock"), QUESTION))

    assert first == second


async def test_another_question_gives_another_answer() -> None:
    provider = MockModelProvider(tokens_per_second=0, tokens=40)
    other = [*QUESTION, ChatMessage(role="assistant", content="x"), ChatMessage("user", "Why?")]

    first = text_of(await drain(provider.stream(model("a", "mock"), QUESTION)))
    second = text_of(await drain(provider.stream(model("a", "mock"), other)))

    assert first != second


async def test_answer_opens_with_a_tag_hashed_from_the_model_uuid() -> None:
    entry = model("a", "mock")
    expected = f"[#{hashlib.sha256(entry.id.bytes).hexdigest()[:6]}] "

    chunks = await drain(MockModelProvider(0, 10).stream(entry, QUESTION))

    assert chunks[0].text == expected
    assert mock_tag(entry) == expected.strip()


async def test_tag_follows_the_id_and_ignores_the_names() -> None:
    entry = model("a", "mock")
    renamed = dataclasses.replace(entry, display_name="Other", provider_model_id="other")
    other_id = dataclasses.replace(entry, id=uuid.uuid4())
    provider = MockModelProvider(0, 10)

    tags = [(await drain(provider.stream(e, QUESTION)))[0].text for e in (entry, renamed, other_id)]

    assert tags[0] == tags[1]
    assert tags[0] != tags[2]
    assert entry.display_name not in tags[0]
    assert entry.provider_model_id not in tags[0]


@pytest.mark.parametrize("tokens", [1, 2, 7, 60])
async def test_answer_has_exactly_the_configured_number_of_non_empty_tokens(tokens: int) -> None:
    chunks = await drain(MockModelProvider(0, tokens).stream(model("a", "mock"), CONVERSATION))

    assert len(chunks) == tokens
    assert all(chunk.text for chunk in chunks)
    assert chunks[-1].output_tokens == tokens
    assert chunks[-1].model_version == MOCK_MODEL_VERSION
    assert all(chunk.output_tokens is None for chunk in chunks[:-1])


async def test_answer_contains_bold_inline_code_and_a_list_line() -> None:
    chunks = await drain(MockModelProvider(0, 60).stream(model("a", "mock"), QUESTION))

    text = text_of(chunks)
    assert "**" in text
    assert "`" in text
    assert "\n- " in text


async def test_pace_is_honoured() -> None:
    """20 tokens at 200/s leave 19 gaps of 5 ms."""
    provider = MockModelProvider(tokens_per_second=200, tokens=20)
    started = time.monotonic()

    await drain(provider.stream(model("a", "mock"), QUESTION))

    assert 0.08 <= time.monotonic() - started < 1.0


async def test_zero_rate_streams_fast_but_lets_other_tasks_run() -> None:
    provider = MockModelProvider(tokens_per_second=0, tokens=2000)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    started = time.monotonic()

    await drain(provider.stream(model("a", "mock"), QUESTION))

    elapsed = time.monotonic() - started
    ticker.cancel()
    assert elapsed < 0.5
    assert ticks > 100


@pytest.mark.parametrize(
    ("tokens_per_second", "tokens"),
    [pytest.param(10, 0, id="no-tokens"), pytest.param(-1, 10, id="negative-rate")],
)
def test_rejects_an_impossible_configuration(tokens_per_second: float, tokens: int) -> None:
    with pytest.raises(ValueError):
        MockModelProvider(tokens_per_second, tokens)


async def test_the_mock_judge_answers_with_a_readable_verdict_the_same_each_time() -> None:
    provider = MockModelProvider(tokens_per_second=0, tokens=40)
    judge = dataclasses.replace(model("judge", "mock"), provider_model_id="mock-judge")
    verdicts = set()

    for question in ("Compare these", "Compare those", "Which is better?", "And now?"):
        messages = [ChatMessage(role="user", content=question)]
        first = text_of(await drain(provider.stream(judge, messages)))
        again = text_of(await drain(provider.stream(judge, messages)))
        assert first == again
        verdicts.add(parse_verdict(first).choice)

    assert None not in verdicts and len(verdicts) > 1
