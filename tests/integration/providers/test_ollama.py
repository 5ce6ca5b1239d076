"""The Ollama provider against a fake server speaking ``/api/chat`` NDJSON."""

from __future__ import annotations

import aiohttp

from tests.fakes import ollama_server
from tests.integration.providers._streams import CONVERSATION, drain, model, text_of
from tests.integration.providers.conftest import FakeVendor


async def test_streams_the_content_of_each_line(
    ollama_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    provider = ollama_fake.provider(http)

    chunks = await drain(provider.stream(model("ok"), CONVERSATION))

    assert [c.text for c in chunks if c.text] == list(ollama_server.OK_TOKENS)
    assert text_of(chunks) == "Hello from the fake."


async def test_final_chunk_reports_eval_count_and_model(
    ollama_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("ok")

    chunks = await drain(ollama_fake.provider(http).stream(entry, CONVERSATION))

    final = chunks[-1]
    assert final.text == ""
    assert final.output_tokens == ollama_server.OK_OUTPUT_TOKENS
    assert final.model_version == entry.provider_model_id


async def test_request_is_a_streaming_native_chat(
    ollama_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("ok")

    await drain(ollama_fake.provider(http).stream(entry, CONVERSATION))

    request = ollama_fake.recorder.last
    assert (request.method, request.path) == ("POST", "/api/chat")
    assert request.json == {
        "model": entry.provider_model_id,
        "messages": [{"role": m.role, "content": m.content} for m in CONVERSATION],
        "stream": True,
    }


async def test_base_url_with_a_trailing_slash_reaches_the_same_path(
    ollama_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    provider = ollama_fake.provider(http, url=f"{ollama_fake.url}/")

    await drain(provider.stream(model("ok"), CONVERSATION))

    assert ollama_fake.recorder.last.path == "/api/chat"
