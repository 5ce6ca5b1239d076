"""The example prompts the arena page offers before a first round: the few a visit shows."""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["ExamplePrompts"]


@dataclass(frozen=True)
class ExamplePrompts:
    """The prompts ``ARENA_EXAMPLE_PROMPTS`` named, read once at start (``arena_api.examples``)."""

    prompts: tuple[str, ...] = ()

    def draw(self, count: int, rng: random.Random | None = None) -> list[str]:
        """``count`` of the prompts at random (all of them when there are no more), in the
        order the operator wrote them: a long list shows a different few on each visit."""
        if len(self.prompts) <= count:
            return list(self.prompts)
        picked = (rng or random.Random()).sample(range(len(self.prompts)), count)
        return [self.prompts[i] for i in sorted(picked)]
