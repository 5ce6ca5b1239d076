"""The commands a round starts from refuse what the database could not store."""

from __future__ import annotations

import pytest

from arena_api.core.errors import InvalidRequest
from arena_api.core.requests import ChatRequest, parse_command


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"prompt": "a\x00b"}, "prompt", id="prompt"),
        pytest.param({"prompt": "hi", "sessionId": "s\x00"}, "sessionId", id="session"),
    ],
)
def test_a_nul_character_is_an_invalid_request_naming_its_field(
    body: dict[str, str], field: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        parse_command(ChatRequest, body)

    assert list(refused.value.details or {}) == [field]


def test_any_other_character_is_taken() -> None:
    request = parse_command(ChatRequest, {"prompt": "naïve 😀 \x01 tab\there"})

    assert request.prompt == "naïve 😀 \x01 tab\there"
