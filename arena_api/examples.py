"""The example prompts the arena page offers before a voter's first round
(``ARENA_EXAMPLE_PROMPTS``): built in, none, or read from a file at start.

A file of prompts is either a YAML list of strings (a name ending ``.yaml``, ``.yml`` or
``.json``), where a prompt may run over several lines::

    - Write a haiku about PostgreSQL.
    - |
      Review this function:
      def double(x): return x * 2

or plain text, one prompt a line; blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import ValidationError

from arena_api.core.requests import MAX_PROMPT_CHARS, ChatRequest

__all__ = [
    "BUILTIN_EXAMPLE_PROMPTS",
    "ExamplePromptsError",
    "example_prompts",
    "load_example_prompts",
]

#: Shown when the operator names no file: code, writing, reasoning and a fun one, so a first
#: round already tells two models apart.
BUILTIN_EXAMPLE_PROMPTS: tuple[str, ...] = (
    "Write a Python function that checks whether a string is a palindrome, ignoring case, "
    "spaces and punctuation.",
    "Write a short, friendly email declining a meeting and suggesting two other times.",
    "A bat and a ball cost $1.10 in total. The bat costs $1.00 more than the ball. How much "
    "does the ball cost? Explain your reasoning.",
    "Explain how a rainbow forms, as a pirate would.",
)

_YAML_SUFFIXES = (".yaml", ".yml", ".json")


class ExamplePromptsError(ValueError):
    """The file of example prompts cannot be read or holds no usable prompt."""


def load_example_prompts(path: Path) -> tuple[str, ...]:
    """The prompts of a file, in its order.

    Raises:
        ExamplePromptsError: the file cannot be read, is not UTF-8 text or valid YAML, or an
            entry is not a usable prompt (not text, blank, too long for a round), or it holds
            none.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ExamplePromptsError(f"the example prompts file {path} is not UTF-8 text") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ExamplePromptsError(
            f"cannot read the example prompts file {path}: {reason}"
        ) from None
    if path.suffix.lower() in _YAML_SUFFIXES:
        entries = _yaml_entries(path, text)
    else:
        entries = [
            line.strip()
            for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        ]
    prompts = tuple(_checked(path, index, entry) for index, entry in enumerate(entries, start=1))
    if not prompts:
        raise ExamplePromptsError(
            f"the example prompts file {path} holds no prompts "
            "(set ARENA_EXAMPLE_PROMPTS=off to show none)"
        )
    return prompts


def _yaml_entries(path: Path, text: str) -> list[object]:
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise ExamplePromptsError(
            f"the example prompts file {path} is not valid YAML{where}"
        ) from None
    if value is None:
        return []
    if not isinstance(value, list):
        raise ExamplePromptsError(
            f"the example prompts file {path} must hold a YAML list of prompts"
        )
    return value


#: How a round's refusal of a prompt reads for an entry of the file.
_PROBLEMS = {
    "string_type": "is not text",
    "string_too_long": f"is longer than {MAX_PROMPT_CHARS} characters",
}


def _checked(path: Path, index: int, entry: object) -> str:
    """One entry as the prompt a round would take: ``ChatRequest``'s own rules decide (but an
    example has no images, so it needs words)."""
    if isinstance(entry, str) and not entry.strip():
        raise ExamplePromptsError(f"the example prompts file {path}: prompt {index} is blank")
    try:
        return ChatRequest.model_validate({"prompt": entry}).prompt
    except ValidationError as exc:
        error = exc.errors()[0]
        problem = _PROBLEMS.get(error["type"], error["msg"].removeprefix("Value error, "))
    raise ExamplePromptsError(f"the example prompts file {path}: prompt {index} {problem}")


def example_prompts(choice: Path | Literal["builtin", "off"]) -> tuple[str, ...]:
    """The prompts ``ARENA_EXAMPLE_PROMPTS`` names.

    Raises:
        ExamplePromptsError: it names a file that ``load_example_prompts`` refuses.
    """
    if choice == "builtin":
        return BUILTIN_EXAMPLE_PROMPTS
    if choice == "off":
        return ()
    return load_example_prompts(choice)
