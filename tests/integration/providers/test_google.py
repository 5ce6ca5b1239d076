"""The Gemini provider against a fake ``streamGenerateContent?alt=sse`` endpoint."""

from __future__ import annotations

import dataclasses

import aiohttp

from arena_api.core.errors import ProviderStreamError
from arena_api.core.models import ChatMessage
from tests.fakes import gemini_server
from tests.integration.providers._streams import (
    CONVERSATION,
    drain,
    drain_until_error,
    leaked_names,
    model,
    text_of,
)
from tests.integration.providers.conftest import API_KEY, FakeVendor


async def test_streams_the_text_of_each_event(
    gemini_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    provider = gemini_fake.provider(http)

    chunks = await drain(provider.stream(model("ok"), CONVERSATION))

    assert [c.text for c in chunks if c.text] == list(gemini_server.OK_TOKENS)
    assert text_of(chunks) == "Hello from the fake."


async def test_final_chunk_reports_candidates_token_count_and_model_version(
    gemini_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("ok")

    chunks = await drain(gemini_fake.provider(http).stream(entry, CONVERSATION))

    final = chunks[-1]
    assert final.text == ""
    assert final.output_tokens == gemini_server.OK_OUTPUT_TOKENS
    assert final.model_version == gemini_server.model_version(entry.provider_model_id)


async def test_request_streams_as_sse_with_the_key_in_a_header(
    gemini_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("ok")

    await drain(gemini_fake.provider(http).stream(entry, CONVERSATION))

    request = gemini_fake.recorder.last
    assert request.method == "POST"
    assert request.path == f"/v1beta/models/{entry.provider_model_id}:streamGenerateContent"
    assert request.query == {"alt": "sse"}
    assert request.headers["x-goog-api-key"] == API_KEY
    assert API_KEY not in str(request.query)


async def test_system_messages_become_system_instruction_and_assistant_becomes_model(
    gemini_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    await drain(gemini_fake.provider(http).stream(model("ok"), CONVERSATION))

    assert gemini_fake.recorder.last.json == {
        "contents": [
            {"role": "user", "parts": [{"text": "What is an arena?"}]},
            {"role": "model", "parts": [{"text": "A place where models meet."}]},
            {"role": "user", "parts": [{"text": "And a blind one?"}]},
        ],
        "systemInstruction": {"parts": [{"text": "Answer briefly."}]},
    }


async def test_conversation_without_system_message_sends_no_system_instruction(
    gemini_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    question = [ChatMessage(role="user", content="Hi")]

    await drain(gemini_fake.provider(http).stream(model("ok"), question))

    assert "systemInstruction" not in gemini_fake.recorder.last.json


async def test_models_prefix_of_the_provider_model_id_is_not_doubled(
    gemini_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("ok")
    prefixed = dataclasses.replace(entry, provider_model_id=f"models/{entry.provider_model_id}")

    await drain(gemini_fake.provider(http).stream(prefixed, CONVERSATION))

    assert gemini_fake.recorder.last.path == (
        f"/v1beta/models/{entry.provider_model_id}:streamGenerateContent"
    )


async def test_thought_parts_are_left_out_of_the_answer(
    gemini_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    provider = gemini_fake.provider(http)

    chunks = await drain(provider.stream(model("thinking"), CONVERSATION))

    assert text_of(chunks) == "Hi."


async def test_blocked_prompt_raises_stream_error_without_naming_the_model(
    gemini_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("blocked", provider="google")

    chunks, error = await drain_until_error(gemini_fake.provider(http).stream(entry, CONVERSATION))

    assert chunks == []
    assert isinstance(error, ProviderStreamError)
    assert leaked_names(str(error), entry) == []
