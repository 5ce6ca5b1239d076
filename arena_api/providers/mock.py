"""A deterministic, network-free provider for trying the product and for tests.

The answer opens with a tag derived from a hash of the model's UUID (``[#3fa2c1]``), never from
its display name or provider model id, so a blind voter learns nothing from it. The words after the
tag are drawn by a ``random.Random`` seeded from the model id and the last user message: the same
question to the same model always gets the same answer. Some Markdown (a bold word, an inline code
span, a list line) is mixed in so the answer has a non-zero Markdown density.

A model whose provider model id starts with ``mock-judge`` is a judge: it answers the judge's
prompt with a JSON verdict (``{"reasoning": ..., "verdict": "A" | "B" | "tie"}``) drawn from a
hash of what it read, so the same matchup shown in the same order always gets the same verdict.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import AsyncIterator, Sequence

from arena_api.core.cost import estimate_prompt_tokens
from arena_api.core.media import IMAGE_MEDIA_TYPES
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.ports import ProviderChunk

__all__ = ["MOCK_MODEL_VERSION", "MockModelProvider", "mock_tag"]

MOCK_MODEL_VERSION = "mock-1"

_WORDS = (
    "answer",
    "arena",
    "balance",
    "careful",
    "clear",
    "compare",
    "context",
    "detail",
    "example",
    "first",
    "general",
    "idea",
    "language",
    "likely",
    "model",
    "notice",
    "option",
    "point",
    "question",
    "reason",
    "result",
    "second",
    "simple",
    "step",
    "summary",
    "together",
    "useful",
    "value",
    "whole",
    "word",
)

# Where the Markdown goes, as token positions; the tag is token 0.
_BOLD_AT = 2
_CODE_AT = 4
_LIST_AT = 6


def mock_tag(model: ModelEntry) -> str:
    """The tag that opens every answer of ``model``: a short hash of its UUID."""
    return f"[#{hashlib.sha256(model.id.bytes).hexdigest()[:6]}]"


def _seed(model: ModelEntry, messages: Sequence[ChatMessage]) -> int:
    question = next((m.content for m in reversed(messages) if m.role == "user"), "")
    digest = hashlib.sha256(model.id.bytes + b"\x00" + question.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def _verdict(model: ModelEntry, messages: Sequence[ChatMessage]) -> list[str]:
    choice = ("A", "B", "tie")[_seed(model, messages) % 3]
    reasoning = {
        "A": "Answer A is more complete.",
        "B": "Answer B is clearer.",
        "tie": "Both answers are equally good.",
    }[choice]
    verdict = f'{{"reasoning": "{reasoning}", "verdict": "{choice}"}}'
    return [verdict[i : i + 16] for i in range(0, len(verdict), 16)]


def _tokens(model: ModelEntry, messages: Sequence[ChatMessage], count: int) -> list[str]:
    if model.provider_model_id.startswith("mock-judge"):
        return _verdict(model, messages)
    rng = random.Random(_seed(model, messages))
    described = _described(messages)
    tokens = [mock_tag(model) + " ", *described]
    # A description of images is followed by words of an answer, however few were asked for.
    end = max(count, len(tokens) + 1) if described else count
    for position in range(len(tokens), end):
        word = rng.choice(_WORDS)
        if position == _BOLD_AT:
            tokens.append(f"**{word}** ")
        elif position == _CODE_AT:
            tokens.append(f"`{word}` ")
        elif position == _LIST_AT:
            tokens.append(f"\n\n- {word} ")
        else:
            tokens.append(f"{word} ")
    return tokens


def _described(messages: Sequence[ChatMessage]) -> list[str]:
    """What a mock vision model says of the newest prompt's images: each one's format, size in
    pixels and bytes, and the start of its SHA-256 (so a test can tell which bytes it got)."""
    images = next((m.images for m in reversed(messages) if m.role == "user"), ())
    if not images:
        return []
    said = [f"I see {len(images)} image{'s' if len(images) > 1 else ''}: "]
    for number, image in enumerate(images, 1):
        kind = IMAGE_MEDIA_TYPES.get(image.media_type, image.media_type).upper()
        digest = hashlib.sha256(image.data).hexdigest()[:8]
        said.append(
            f"{number}. {kind} {image.ref.width}x{image.ref.height}, {len(image.data)} bytes, "
            f"sha256 {digest}. "
        )
    return said


class MockModelProvider:
    """Streams a made-up answer of exactly ``tokens`` tokens at ``tokens_per_second``.

    Args:
        tokens_per_second: Streaming pace; 0 streams as fast as possible (still yielding to the
            event loop after every token).
        tokens: Tokens per answer, the tag included; at least 1.

    Raises:
        ValueError: ``tokens`` is below 1 or ``tokens_per_second`` is negative.
    """

    name = "mock"

    def __init__(self, tokens_per_second: float, tokens: int) -> None:
        if tokens < 1:
            raise ValueError(f"tokens must be at least 1, got {tokens}")
        if tokens_per_second < 0:
            raise ValueError(f"tokens_per_second must not be negative, got {tokens_per_second}")
        self.tokens_per_second = tokens_per_second
        self.tokens = tokens

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        """Yield the answer one token per chunk; the last chunk carries the count and version."""
        tokens = _tokens(model, messages, self.tokens)
        loop = asyncio.get_running_loop()
        started = loop.time()
        for index, text in enumerate(tokens):
            if self.tokens_per_second > 0 and index > 0:
                # Sleep until the token's slot on a fixed schedule, so pauses do not add up drift.
                due = started + index / self.tokens_per_second
                await asyncio.sleep(max(0.0, due - loop.time()))
            else:
                await asyncio.sleep(0)
            if index == len(tokens) - 1:
                yield ProviderChunk(
                    text=text,
                    output_tokens=len(tokens),
                    input_tokens=estimate_prompt_tokens(messages),
                    model_version=MOCK_MODEL_VERSION,
                )
            else:
                yield ProviderChunk(text=text)
