"""Eval suites (``suites/*.yaml``), parsed and validated at start.

A suite is a named set of prompts a team re-runs after every model change; each prompt becomes
a headless round judged by the roster's judge::

    name: support-basics
    description: What our support bot is asked most.
    models: [GPT-4o mini, Gemini 2.5 Flash]   # optional: this pair every time
    prompts:
      - prompt: How do I reset my password?
        category: account
        reference: Settings, then Security, then Reset.   # optional, for the reader

Every file is loaded on its own: a broken one is reported with its file and line (and what is
wrong) and the others still load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from arena_api.core.requests import MAX_PROMPT_CHARS

__all__ = ["Suite", "SuiteLoad", "SuitePrompt", "load_suites"]

_NAME = r"^[a-z0-9][a-z0-9._-]{0,63}$"


class SuitePrompt(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS)
    category: str | None = Field(default=None, min_length=1, max_length=100)
    reference: str | None = Field(default=None, min_length=1, max_length=MAX_PROMPT_CHARS)

    @field_validator("prompt")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("prompt", "category", "reference")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        # As a round's prompt (core.requests): PostgreSQL's text cannot hold NUL.
        if value is not None and "\x00" in value:
            raise ValueError("must not contain NUL characters")
        return value


class Suite(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=_NAME)
    description: str = Field(default="", max_length=2_000)
    #: A fixed pair (display name, provider model id or id of two roster models); without it,
    #: the matchmaker draws a pair for each prompt.
    models: tuple[str, str] | None = None
    prompts: tuple[SuitePrompt, ...] = Field(min_length=1, max_length=10_000)


@dataclass(frozen=True)
class SuiteLoad:
    """The suites that loaded, by name, and one line per file that did not."""

    suites: dict[str, Suite]
    errors: tuple[str, ...]


def _line_of(node: yaml.Node | None, location: Sequence[int | str]) -> int | None:
    """The 1-based line of ``location`` (a pydantic error's path) in the composed YAML."""
    line = node.start_mark.line + 1 if node is not None else None
    for step in location:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            node = node.value[step] if step < len(node.value) else None
        else:
            break
        if node is None:
            break
        line = node.start_mark.line + 1
    return line


def _load_one(path: Path) -> Suite:
    """Raises: ValueError: one line saying where (file and line) and what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it: {exc.strerror}") from None
    try:
        data: Any = yaml.safe_load(text)
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ValueError(f"{where}: not valid YAML: {problem}") from None
    try:
        return Suite.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        line = _line_of(node, first["loc"])
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        where = f"{path}:{line}" if line else str(path)
        raise ValueError(f"{where}: {field}: {first['msg']}") from None


def load_suites(folder: Path) -> SuiteLoad:
    """Every ``*.yaml`` / ``*.yml`` suite in ``folder`` (none when it does not exist)."""
    suites: dict[str, Suite] = {}
    errors: list[str] = []
    files = sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]) if folder.is_dir() else []
    for path in files:
        try:
            suite = _load_one(path)
        except ValueError as exc:
            errors.append(str(exc))
            continue
        if suite.name in suites:
            errors.append(f"{path}: name: another suite is already named {suite.name!r}")
            continue
        suites[suite.name] = suite
    return SuiteLoad(suites=suites, errors=tuple(errors))
