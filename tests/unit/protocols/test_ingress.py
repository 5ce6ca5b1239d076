"""The three ingress parsers as pure functions: which body they read, and what they refuse."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from arena_api.core.errors import InvalidRequest
from arena_api.protocols import get_protocol, parse_chat_body

CONVERSATION = str(uuid.uuid4())


def _parse(protocol: str, body: Any) -> Any:
    return parse_chat_body(get_protocol(protocol), body)


def test_ag_ui_reads_the_newest_user_message_and_forwarded_props() -> None:
    body = {
        "threadId": "t",
        "runId": "r",
        "messages": [
            {"id": "1", "role": "user", "content": "old"},
            {"id": "2", "role": "assistant", "content": "answer"},
            {"id": "3", "role": "user", "content": [{"type": "text", "text": " new "}]},
        ],
        "forwardedProps": {"sessionId": "s", "conversationId": CONVERSATION, "arena": True},
    }

    parsed = _parse("ag-ui", body)

    assert parsed.request.prompt == "new" and parsed.request.session_id == "s"
    assert str(parsed.request.conversation_id) == CONVERSATION and parsed.request.arena is True
    assert (parsed.context.thread_id, parsed.context.run_id) == ("t", "r")


def test_ag_ui_thread_id_is_never_read_as_a_conversation() -> None:
    parsed = _parse(
        "ag-ui", {"threadId": CONVERSATION, "messages": [{"role": "user", "content": "x"}]}
    )

    assert parsed.request.conversation_id is None


@pytest.mark.parametrize(
    ("protocol", "body", "field"),
    [
        pytest.param(
            "ag-ui",
            {"messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}]},
            "messages[0].content[0]",
            id="ag-ui-image",
        ),
        pytest.param("ag-ui", {"messages": []}, "messages", id="ag-ui-empty"),
        pytest.param(
            "ag-ui",
            {"messages": [{"role": "user", "content": "x"}], "runId": 7},
            "runId",
            id="ag-ui-bad-run-id",
        ),
        pytest.param(
            "ag-ui",
            {"messages": [{"role": "user", "content": "x"}], "forwardedProps": {"sessionId": 3}},
            "forwardedProps.sessionId",
            id="ag-ui-bad-session",
        ),
        pytest.param(
            "openai",
            {"messages": [{"role": "user", "content": [{"type": "input_audio"}]}]},
            "messages[0].content[0]",
            id="openai-audio",
        ),
        pytest.param(
            "openai",
            {"messages": [{"role": "user", "content": "x"}], "stream": "yes"},
            "stream",
            id="openai-stream-not-bool",
        ),
        pytest.param(
            "openai",
            {"messages": [{"role": "user", "content": "x"}], "user": "u" * 201},
            "user",
            id="openai-user-too-long",
        ),
        pytest.param(
            "vercel-ai",
            {"messages": [{"role": "user", "parts": [{"type": "step-start"}]}]},
            "messages[0]",
            id="vercel-no-text",
        ),
        pytest.param(
            "vercel-ai",
            {
                "messages": [
                    {"role": "user", "content": "x", "experimental_attachments": [{"url": "u"}]}
                ]
            },
            "messages[0].experimental_attachments[0]",
            id="vercel-v4-attachment",
        ),
        pytest.param(
            "vercel-ai",
            {"messages": [{"role": "user", "content": "x"}], "conversationId": "nope"},
            "conversationId",
            id="vercel-bad-conversation",
        ),
    ],
)
def test_a_bad_envelope_names_the_clients_field(protocol: str, body: Any, field: str) -> None:
    with pytest.raises(InvalidRequest) as raised:
        _parse(protocol, body)

    assert field in (raised.value.details or {})


def test_openai_user_object_of_a_proxy_seeds_the_session_with_its_id() -> None:
    body = {"messages": [{"role": "user", "content": "x"}], "user": {"id": "owui-1", "email": "e"}}

    assert _parse("openai", body).request.session_id == "owui-1"


def test_a_body_with_a_prompt_is_the_arenas_own_on_every_protocol() -> None:
    body = {"prompt": "mine", "messages": [{"role": "user", "content": "theirs"}]}

    assert {_parse(p, body).request.prompt for p in ("ag-ui", "openai", "vercel-ai")} == {"mine"}


@pytest.mark.parametrize(
    ("protocol", "body"),
    [
        pytest.param(
            "ag-ui",
            {
                "thread_id": "t",
                "messages": [
                    {"id": "0", "role": "activity", "activityType": "a", "content": {"k": 1}},
                    {"id": "1", "role": "reasoning", "content": "hmm"},
                    {"id": "2", "role": "user", "content": "x", "name": "ann"},
                ],
                "forwardedProps": {"sessionId": "s", "copilotkit": {"x": 1}},
                "parentRunId": "p",
            },
            id="ag-ui-1.0-roles-and-extras",
        ),
        pytest.param(
            "openai",
            {
                "model": "arena-duel",
                "messages": [
                    {"role": "function", "name": "f", "content": "42"},
                    {"role": "assistant", "content": None, "tool_calls": []},
                    {"role": "user", "content": [{"type": "text", "text": "x", "cache": 1}]},
                ],
                "temperature": 0.2,
                "omni_arena": {"sessionId": "s", "extra": True},
            },
            id="openai-legacy-role-and-extras",
        ),
        pytest.param(
            "vercel-ai",
            {
                "id": "c",
                "messages": [
                    {
                        "id": "1",
                        "role": "user",
                        "metadata": {"at": 1},
                        "parts": [{"type": "text", "text": "x", "state": "done"}],
                    }
                ],
                "trigger": "submit-message",
                "messageId": None,
                "sessionId": "s",
                "anything": [1, 2],
            },
            id="vercel-extras",
        ),
    ],
)
def test_an_envelope_with_fields_of_the_clients_own_is_read(protocol: str, body: Any) -> None:
    parsed = _parse(protocol, body)

    assert (parsed.request.prompt, parsed.request.session_id) == ("x", "s")


def test_ag_ui_snake_case_spellings_are_read() -> None:
    body = {
        "thread_id": "t",
        "run_id": "r",
        "messages": [{"role": "user", "content": "x"}],
        "forwarded_props": {"session_id": "s"},
    }

    parsed = _parse("ag-ui", body)

    assert (parsed.context.thread_id, parsed.context.run_id) == ("t", "r")
    assert parsed.request.session_id == "s"


@pytest.mark.parametrize(
    ("protocol", "body", "field"),
    [
        pytest.param(
            "openai",
            {"messages": [{"role": "user", "content": 5}]},
            "messages[0].content",
            id="union-branch-tags-left-out",
        ),
        pytest.param(
            "vercel-ai",
            {"messages": [{"role": "user", "parts": [{"text": "x"}]}]},
            "messages[0].parts[0].type",
            id="missing-member",
        ),
        pytest.param(
            "ag-ui",
            {"messages": [{"role": "user", "content": "x"}, "hi"]},
            "messages[1]",
            id="not-an-object",
        ),
        pytest.param(
            "openai",
            {"messages": [{"role": "user", "content": "x"}], "model": 3},
            "model",
            id="model-not-a-string",
        ),
    ],
)
def test_a_body_that_does_not_fit_its_schema_is_named_at_the_field_path(
    protocol: str, body: Any, field: str
) -> None:
    with pytest.raises(InvalidRequest) as raised:
        _parse(protocol, body)

    assert raised.value.code == "invalid_request" and raised.value.status == 400
    assert list(raised.value.details or {}) == [field]
    assert raised.value.message.startswith(f"{field}: ")


def test_every_offending_field_is_listed_and_the_message_counts_the_others() -> None:
    body = {"messages": [{"role": "user", "content": "x"}], "stream": "yes", "model": 3}

    with pytest.raises(InvalidRequest) as raised:
        _parse("openai", body)

    assert set(raised.value.details or {}) == {"stream", "model"}
    assert raised.value.message.endswith("(and 1 more field)")


def test_a_union_branch_is_never_named_as_a_field() -> None:
    body = {"messages": [{"role": "user", "content": "x"}], "user": {"name": "no id"}}

    with pytest.raises(InvalidRequest) as raised:
        _parse("openai", body)

    assert set(raised.value.details or {}) == {"user", "user.id"}
