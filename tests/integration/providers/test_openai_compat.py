"""The OpenAI-compatible provider against a fake endpoint that speaks OpenAI's wire format."""

from __future__ import annotations

import aiohttp

from tests.fakes import openai_server
from tests.integration.providers._streams import (
    CONVERSATION,
    drain,
    drain_until_error,
    model,
    text_of,
)
from tests.integration.providers.conftest import API_KEY, FakeVendor


async def test_streams_the_answer_text_delta_by_delta(
    openai_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    provider = openai_fake.provider(http)

    chunks = await drain(provider.stream(model("ok"), CONVERSATION))

    assert [c.text for c in chunks if c.text] == list(openai_server.OK_TOKENS)
    assert text_of(chunks) == "Hello from the fake."


async def test_final_chunk_reports_usage_completion_tokens_and_chunk_model(
    openai_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("ok")

    chunks = await drain(openai_fake.provider(http).stream(entry, CONVERSATION))

    final = chunks[-1]
    assert final.text == ""
    assert final.output_tokens == openai_server.OK_OUTPUT_TOKENS
    assert final.model_version == openai_server.model_version(entry.provider_model_id)


async def test_request_is_a_streaming_chat_completion_with_usage_and_bearer_key(
    openai_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("ok")

    await drain(openai_fake.provider(http).stream(entry, CONVERSATION))

    request = openai_fake.recorder.last
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.json["model"] == entry.provider_model_id
    assert request.json["stream"] is True
    assert request.json["stream_options"] == {"include_usage": True}
    assert request.json["messages"] == [
        {"role": m.role, "content": m.content} for m in CONVERSATION
    ]


async def test_makes_exactly_one_request_when_the_endpoint_fails(
    openai_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    """No retry inside a timed slot."""
    provider = openai_fake.provider(http)

    _, error = await drain_until_error(provider.stream(model("server-error"), CONVERSATION))

    assert error is not None
    assert len(openai_fake.recorder.requests) == 1
