"""JSON bodies are parsed with their nesting bounded: no recursion error reaches a route."""

from __future__ import annotations

import pytest

from arena_api.routes._request import MAX_JSON_DEPTH, MAX_JSON_VALUES, TooDeep, parse_json


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000,
        b"{" * 100_000,
        b'{"a":' * (MAX_JSON_DEPTH + 1) + b"1" + b"}" * (MAX_JSON_DEPTH + 1),
        b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1),
        b"[" * 1_000_000 + b"]" * 1_000_000,
    ],
)
def test_too_deep_is_refused_before_parsing(body: bytes) -> None:
    with pytest.raises(TooDeep):
        parse_json(body)


@pytest.mark.parametrize(
    ("body", "value"),
    [
        (b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH, None),
        (b'["' + b"[" * 10_000 + b'"]', ["[" * 10_000]),  # brackets in a string do not nest
        (b'{"quote": "\\"[[[", "n": [[1]]}', {"quote": '"[[[', "n": [[1]]}),
        ('{"prompt": "\u00e9"}', {"prompt": "\u00e9"}),
    ],
)
def test_what_nests_within_the_bound_parses_as_json(body: bytes | str, value: object) -> None:
    parsed = parse_json(body)

    assert value is None or parsed == value


def test_the_depth_bound_is_exact() -> None:
    with pytest.raises(TooDeep, match="deeper than 64"):
        parse_json(b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1))

    parse_json(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH)


def test_too_many_arrays_and_objects_are_refused_however_flat() -> None:
    flat = b"[" + b"[]," * MAX_JSON_VALUES + b"[]]"

    with pytest.raises(TooDeep, match="more than 10,000"):
        parse_json(flat)


def test_malformed_json_is_a_value_error_not_too_deep() -> None:
    with pytest.raises(ValueError) as caught:
        parse_json(b'{"prompt": ')

    assert not isinstance(caught.value, TooDeep)
