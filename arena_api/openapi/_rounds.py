"""The operations that start rounds and take votes: the chat routes (every protocol), the vote
and its reasons."""

from __future__ import annotations

from arena_api.openapi._operation import Operation, json_answer, json_body, param, ref
from arena_api.protocols import PROTOCOLS

__all__ = ["ROUND_OPERATIONS"]

_PROTOCOL_NAMES = sorted({alias for p in PROTOCOLS for alias in (p.name, *p.aliases)})
_PROTOCOL = param(
    "query",
    "protocol",
    {"type": "string", "enum": _PROTOCOL_NAMES},
    "The wire protocol of the answer (case-insensitive); without it, the first `Accept` media "
    "type a protocol claims, else native SSE. An unknown value is native SSE too. "
    + "; ".join(f"`{p.name}`: " + ", ".join(f"`{m}`" for m in p.media_types) for p in PROTOCOLS)
    + ".",
)
_X_ARENA = param(
    "header",
    "X-Arena",
    {"type": "string", "enum": ["on", "1", "true", "off"]},
    "`on` (or `1`, `true`) opts in to the arena under `ARENA_TRIGGER=manual`, like the body's "
    "`arena: true`.",
)
_CHAT_ID = param(
    "header",
    "X-OpenWebUI-Chat-Id",
    {"type": "string", "minLength": 1, "maxLength": 200},
    "The external chat's id (the header's name is `ARENA_CHAT_ID_HEADER`): pairs compare "
    "columns, takes `!a`/`!b` votes, continues from the winner.",
)
_USER_ID = param(
    "header",
    "X-OpenWebUI-User-Id",
    {"type": "string", "minLength": 1, "maxLength": 200},
    "The external chat's user (the header's name is `ARENA_USER_ID_HEADER`); its digest is the "
    "anonymous session of that user's rounds and votes.",
)
_PROMPT = "Explain JWTs in simple terms"
_USER_MESSAGE = {"role": "user", "content": _PROMPT}
_ARENA_BODY = {"prompt": _PROMPT, "sessionId": "session-1"}
_OPENAI_BODY = {"model": "arena-duel", "messages": [_USER_MESSAGE], "stream": True}
_CHAT_EXAMPLES = {
    "arena": _ARENA_BODY,
    "ag-ui": {
        "threadId": "thread-1",
        "runId": "run-1",
        "messages": [{"id": "m1", **_USER_MESSAGE}],
        "forwardedProps": {"sessionId": "session-1"},
    },
    "ai-sdk": {
        "id": "chat-1",
        "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": _PROMPT}]}],
        "sessionId": "session-1",
    },
    "openai": {**_OPENAI_BODY, "model": "omni-arena", "omni_arena": {"sessionId": "session-1"}},
}


_CHAT_BODIES = {
    "anyOf": [
        ref("ChatRequest"),
        ref("RunAgentInput"),
        ref("UseChatRequest"),
        ref("ChatCompletionsRequest"),
    ]
}
_JSON_ERRORS = (400, 413, 415)
_ROUND_ERRORS = (*_JSON_ERRORS, 403, 404, 409, 429, 500, 503, 504)
_MATCHUP_HEADER = {
    "x-arena-matchup": {
        "description": "The round's `matchup_started` event as JSON, without its `type` (absent "
        "on an in-band failure).",
        "schema": {"type": "string"},
    }
}
_ROUND_CODES = (
    "403 `conversation_forbidden` (another session's conversation); 404 "
    "`conversation_not_found`; 409 `conversation_conflict`, `conversation_not_ready` or a slot "
    "join's `join_unpaired`, `join_slot_taken`, `join_slots_exhausted`, `join_expired`; 409 "
    "`model_paused` or `model_archived` when a named round (or, on the OpenAI front, the "
    "`model`) names a paused or archived model."
)

ROUND_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "post",
        "/api/arena/chat",
        "startRound",
        "Start a round: two anonymous answers streamed side by side",
        "rounds",
        {
            "200": {
                "description": "The round's events in the protocol asked for. An AG-UI request "
                "gets a failure before the stream in-band, as a single `RUN_ERROR` event.",
                "headers": _MATCHUP_HEADER,
                "content": {
                    "text/event-stream": {"schema": ref("ChatSseEvent")},
                    "application/x-ndjson": {
                        "schema": {
                            "type": "object",
                            "description": "One line of an A2UI stream (`a2ui/1` records or "
                            "A2UI v0.9 messages).",
                        }
                    },
                },
            }
        },
        errors=_ROUND_ERRORS,
        parameters=(_PROTOCOL, _X_ARENA),
        body=json_body(
            _CHAT_BODIES,
            "The arena's own body on any protocol; the protocol's own envelope (a `messages` "
            "array and no `prompt`) on AG-UI, the AI SDK and OpenAI.",
            _CHAT_EXAMPLES,
        ),
        description="Failures before the stream keep their status: " + _ROUND_CODES,
    ),
    *(
        Operation(
            "post",
            path,
            operation_id,
            "OpenAI chat completions: a matchup, or the arena's chat front",
            "openai",
            {
                "200": {
                    "description": "`chat.completion.chunk` events (a matchup: one choice per "
                    "slot; the chat front: one answer on `choices[0]`), or a plain "
                    "`chat.completion` for an Open WebUI helper task.",
                    "headers": _MATCHUP_HEADER,
                    "content": {
                        "text/event-stream": {"schema": ref("OpenAiSseEvent")},
                        "application/json": {"schema": ref("ChatCompletion")},
                    },
                }
            },
            errors=_ROUND_ERRORS,
            parameters=(_CHAT_ID, _USER_ID),
            body=json_body(
                {"anyOf": [ref("ChatCompletionsRequest"), ref("ChatRequest")]},
                "An OpenAI chat-completions body (or the arena's own).",
                {"chat-front": _OPENAI_BODY, "matchup": _CHAT_EXAMPLES["openai"]},
            ),
            description="Failures before the stream keep their status: " + _ROUND_CODES,
        )
        for path, operation_id in (
            ("/chat/completions", "createChatCompletion"),
            ("/v1/chat/completions", "createChatCompletionV1"),
        )
    ),
    Operation(
        "post",
        "/api/arena/vote",
        "vote",
        "Vote on a matchup and reveal both models",
        "votes",
        {"200": json_answer("The vote is stored; both models are revealed.", "VoteReveal")},
        errors=(*_JSON_ERRORS, 403, 404, 409, 429, 503),
        body=json_body(
            ref("VoteRequest"),
            "The matchup, its vote token, the vote and, optionally, why (`reasons`: some of "
            "`GET /api/arena/vote-reasons`).",
            {
                "vote": {
                    "matchupId": "0190f8a2-7b1c-7d3e-9f00-1a2b3c4d5e6f",
                    "matchupToken": "<the matchupToken of matchup_started>",
                    "vote": "left",
                },
                "vote-with-reasons": {
                    "matchupId": "0190f8a2-7b1c-7d3e-9f00-1a2b3c4d5e6f",
                    "matchupToken": "<the matchupToken of matchup_started>",
                    "vote": "left",
                    "reasons": ["accuracy", "style"],
                },
            },
        ),
        description="400 `invalid_reasons` (a reason this arena does not offer, one given "
        "twice, or more than it offers; `details.reasons` says which; nothing is stored); 401 "
        "`invalid_token` (bad, expired or another matchup's token); 403 `not_votable` (a shadow "
        "matchup); 404 `matchup_not_found`; 409 `already_voted`. The reveal echoes the stored "
        "`reasons`, in the offered order.",
    ),
    Operation(
        "get",
        "/api/arena/vote-reasons",
        "getVoteReasons",
        "The reasons a vote may carry, for clients to offer as chips",
        "votes",
        {
            "200": json_answer(
                "`ARENA_VOTE_REASONS` in chip order: each reason's id (what a vote sends) and "
                "label; empty when none are offered.",
                "ReasonChoicesView",
            )
        },
        errors=(503,),
    ),
    Operation(
        "post",
        "/api/arena/matchups/{matchup_id}/judge",
        "askJudge",
        "Let the judge model vote on a matchup",
        "votes",
        {
            "200": json_answer(
                "The judge's verdict. `accepted`: it is the matchup's vote (method `judge`) and "
                "the models are revealed; otherwise its verdict could not be read "
                "(`judge.outcome` `unparseable`), no vote was made and the round stays blind.",
                "JudgeReveal",
            )
        },
        errors=(*_JSON_ERRORS, 403, 404, 409, 429, 502, 503),
        parameters=(
            param("path", "matchup_id", {"type": "string", "format": "uuid"}, "The matchup's id."),
        ),
        body=json_body(
            ref("JudgeRequest"),
            "The matchup's vote token, as a vote carries.",
            {"judge": {"matchupToken": "<the matchupToken of matchup_started>"}},
        ),
        description="The judge (`judge:` in `models.yaml`) reads the conversation so far, the "
        "prompt and both answers, anonymised and in a random order (both orders with `swap`). "
        "401 `invalid_token`; 403 `not_votable`; 404 `matchup_not_found` or "
        "`judge_not_configured`; 409 `already_voted` (before or while the judge read) or "
        "`answers_pending`; 502 `judge_failed`.",
    ),
)
