"""The arena page's example prompts (``ARENA_EXAMPLE_PROMPTS``): the setting, the files, the
fallback when a file cannot be used, and the draw a visit shows."""

from __future__ import annotations

import logging
import random
import re
from pathlib import Path

import pytest

from arena_api.bootstrap import _load_examples
from arena_api.core.requests import MAX_PROMPT_CHARS
from arena_api.examples import (
    BUILTIN_EXAMPLE_PROMPTS,
    ExamplePromptsError,
    example_prompts,
    load_example_prompts,
)
from arena_api.services.examples import ExamplePrompts
from arena_api.settings import load_settings
from tests.support import ROOT


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(None, "builtin", id="default"),
        pytest.param("", "builtin", id="empty"),
        pytest.param(" BuiltIn ", "builtin", id="builtin-any-case"),
        pytest.param("off", "off", id="off"),
        pytest.param("OFF", "off", id="off-any-case"),
        pytest.param("/srv/prompts.txt", Path("/srv/prompts.txt"), id="path"),
    ],
)
def test_the_setting_names_the_builtin_examples_none_or_a_file(
    raw: str | None, expected: object
) -> None:
    env = {} if raw is None else {"ARENA_EXAMPLE_PROMPTS": raw}

    settings = load_settings(env)

    assert settings.example_prompts == expected


def test_the_builtin_examples_are_a_few_usable_prompts() -> None:
    assert 3 <= len(BUILTIN_EXAMPLE_PROMPTS) <= 4
    assert all(0 < len(p) <= MAX_PROMPT_CHARS and p == p.strip() for p in BUILTIN_EXAMPLE_PROMPTS)
    assert example_prompts("builtin") == BUILTIN_EXAMPLE_PROMPTS


def test_off_offers_no_examples() -> None:
    assert example_prompts("off") == ()


def test_a_text_file_holds_one_prompt_a_line_without_blanks_or_comments(tmp_path: Path) -> None:
    file = tmp_path / "prompts.txt"
    file.write_text("# ours\nWrite a haiku about tea.\n\n   \n  Explain TCP to a child.  \n")

    prompts = load_example_prompts(file)

    assert prompts == ("Write a haiku about tea.", "Explain TCP to a child.")


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_a_yaml_file_holds_a_list_whose_prompts_may_span_lines(tmp_path: Path, suffix: str) -> None:
    file = tmp_path / f"prompts{suffix}"
    text = (
        '["Write a haiku about tea.", "Review:\\ndef f(x): return x"]'
        if suffix == ".json"
        else "- Write a haiku about tea.\n- |\n  Review:\n  def f(x): return x\n"
    )
    file.write_text(text)

    prompts = example_prompts(file)

    assert prompts == ("Write a haiku about tea.", "Review:\ndef f(x): return x")


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        pytest.param("prompts.txt", None, "cannot read .*No such file", id="missing"),
        pytest.param("prompts.txt", b"\xff\xfe bad", "not UTF-8 text", id="not-utf8"),
        pytest.param("prompts.txt", b"# only a comment\n\n", "holds no prompts", id="no-prompts"),
        pytest.param("prompts.yaml", b"- [unclosed\n", r"not valid YAML \(line", id="bad-yaml"),
        pytest.param("prompts.yaml", b"prompt: hello\n", "a YAML list", id="not-a-list"),
        pytest.param("prompts.yaml", b"", "holds no prompts", id="empty-yaml"),
        pytest.param("prompts.yaml", b"- fine\n- 42\n", "prompt 2 is not text", id="number"),
        pytest.param("prompts.yaml", b"- fine\n- '  '\n", "prompt 2 is blank", id="blank"),
        pytest.param(
            "prompts.txt",
            b"x" * (MAX_PROMPT_CHARS + 1),
            f"prompt 1 is longer than {MAX_PROMPT_CHARS}",
            id="too-long",
        ),
    ],
)
def test_a_file_that_cannot_be_used_is_refused_in_one_line(
    tmp_path: Path, name: str, content: bytes | None, expected: str
) -> None:
    file = tmp_path / name
    if content is not None:
        file.write_bytes(content)

    with pytest.raises(ExamplePromptsError, match=expected) as raised:
        load_example_prompts(file)

    assert "\n" not in str(raised.value) and str(file) in str(raised.value)


def test_the_server_logs_a_file_it_cannot_use_and_shows_the_builtin_examples(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    missing = tmp_path / "nowhere.txt"
    settings = load_settings({"ARENA_EXAMPLE_PROMPTS": str(missing)})

    with caplog.at_level(logging.ERROR, logger="arena_api.bootstrap"):
        prompts = _load_examples(settings)

    assert prompts == BUILTIN_EXAMPLE_PROMPTS
    [record] = caplog.records
    assert record.getMessage().startswith(
        f"ARENA_EXAMPLE_PROMPTS: cannot read the example prompts file {missing}: "
    )
    assert record.getMessage().endswith("showing the built-in examples")


def test_a_visit_draws_a_few_of_a_long_list_in_the_operators_order() -> None:
    prompts = [f"prompt {i}" for i in range(10)]

    drawn = ExamplePrompts(tuple(prompts)).draw(4, random.Random(7))

    assert len(drawn) == 4 and len(set(drawn)) == 4
    assert drawn == sorted(drawn, key=prompts.index)


def test_a_short_list_is_shown_whole() -> None:
    assert ExamplePrompts(BUILTIN_EXAMPLE_PROMPTS).draw(4) == list(BUILTIN_EXAMPLE_PROMPTS)


def test_the_self_hosting_pages_example_file_loads(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "self-hosting.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```yaml\n(# prompts\.yaml.*?)```", page, flags=re.S)
    file = tmp_path / "prompts.yaml"
    file.write_text(block)

    prompts = load_example_prompts(file)

    assert len(prompts) == 2 and "\n" in prompts[1]
