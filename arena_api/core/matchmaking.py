r"""Matchmakers: which two models meet in a round, or which challenger shadows the incumbent.

``RandomMatchmaker`` picks uniformly. ``SmartMatchmaker`` samples a pair with probability
proportional to an information score, so that votes go where they teach the ratings most:

    score(a, b)  = coldness(a, b) + uncertainty(a, b)
    coldness     = 1 / (1 + games(a, b))                  under-evaluated pairs first
    uncertainty  = (u(a) + u(b)) / 2,  u(m) = width(m) / max width   (unrated: u = 1)
    weight(a, b) = score(a, b) + floor * max score        every pair stays reachable

The maximum width is taken over the rated models among the candidates. Both terms lie in
[0, 1], and the floor term keeps each of the ``P`` candidate pairs at a probability of at least
``floor / (P * (1 + floor))``. A challenger is drawn the same way over the pairs
(incumbent, candidate). The work is O(n²) in the number of models, which is tens.
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena_api.core.errors import RoundConfigError
from arena_api.core.models import ModelEntry
from arena_api.core.ports import Matchmaker, MatchmakingSnapshot, pair_key

__all__ = [
    "DEFAULT_FLOOR",
    "RandomMatchmaker",
    "SmartMatchmaker",
    "make_matchmaker",
]

DEFAULT_FLOOR = 0.05


@dataclass(frozen=True)
class RandomMatchmaker:
    """Uniform over distinct pairs, and over challengers."""

    def pick_pair(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot, rng: random.Random
    ) -> tuple[ModelEntry, ModelEntry]:
        """Two distinct models, in random order.

        Raises:
            RoundConfigError: (500, ``not_enough_models``) fewer than two distinct models.
        """
        candidates = _distinct_pair_candidates(models)
        first, second = rng.sample(candidates, 2)
        return first, second

    def pick_challenger(
        self,
        models: Sequence[ModelEntry],
        incumbent: ModelEntry,
        stats: MatchmakingSnapshot,
        rng: random.Random,
    ) -> ModelEntry:
        """A model other than ``incumbent``, uniformly.

        Raises:
            RoundConfigError: (500, ``shadow_challenger_missing``) no other model.
        """
        return rng.choice(_challengers(models, incumbent))


@dataclass(frozen=True)
class SmartMatchmaker:
    """Samples pairs in proportion to coldness plus rating uncertainty (see the module doc).

    Args:
        floor: Share of the best score added to every pair's weight; 0 disables the floor.

    Raises:
        ValueError: ``floor`` is negative or not finite.
    """

    floor: float = DEFAULT_FLOOR

    def __post_init__(self) -> None:
        if not (math.isfinite(self.floor) and self.floor >= 0.0):
            raise ValueError(f"floor must be a finite number >= 0, got {self.floor!r}")

    def pick_pair(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot, rng: random.Random
    ) -> tuple[ModelEntry, ModelEntry]:
        """Two distinct models drawn by weight, in random order.

        Raises:
            RoundConfigError: (500, ``not_enough_models``) fewer than two distinct models.
        """
        pairs, weights = self._weighted_pairs(models, stats)
        (first, second) = rng.choices(pairs, weights=weights)[0]
        return (first, second) if rng.random() < 0.5 else (second, first)

    def pick_challenger(
        self,
        models: Sequence[ModelEntry],
        incumbent: ModelEntry,
        stats: MatchmakingSnapshot,
        rng: random.Random,
    ) -> ModelEntry:
        """A model other than ``incumbent``, drawn by the weight of (incumbent, candidate).

        Raises:
            RoundConfigError: (500, ``shadow_challenger_missing``) no other model.
        """
        candidates, weights = self._weighted_challengers(models, incumbent, stats)
        return rng.choices(candidates, weights=weights)[0]

    def pair_probabilities(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot
    ) -> dict[tuple[uuid.UUID, uuid.UUID], float]:
        """The probability ``pick_pair`` gives each unordered pair, keyed by ``pair_key``.

        Raises:
            RoundConfigError: (500, ``not_enough_models``) fewer than two distinct models.
        """
        pairs, weights = self._weighted_pairs(models, stats)
        total = math.fsum(weights)
        return {pair_key(a.id, b.id): w / total for (a, b), w in zip(pairs, weights, strict=True)}

    def challenger_probabilities(
        self, models: Sequence[ModelEntry], incumbent: ModelEntry, stats: MatchmakingSnapshot
    ) -> dict[uuid.UUID, float]:
        """The probability ``pick_challenger`` gives each candidate, keyed by model id.

        Raises:
            RoundConfigError: (500, ``shadow_challenger_missing``) no other model.
        """
        candidates, weights = self._weighted_challengers(models, incumbent, stats)
        total = math.fsum(weights)
        return {m.id: w / total for m, w in zip(candidates, weights, strict=True)}

    def _weighted_pairs(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot
    ) -> tuple[list[tuple[ModelEntry, ModelEntry]], list[float]]:
        candidates = _distinct_pair_candidates(models)
        uncertainty = _uncertainties(candidates, stats)
        pairs = [(a, b) for i, a in enumerate(candidates) for b in candidates[i + 1 :]]
        scores = [_score(a, b, stats, uncertainty) for a, b in pairs]
        return pairs, self._floored(scores)

    def _weighted_challengers(
        self, models: Sequence[ModelEntry], incumbent: ModelEntry, stats: MatchmakingSnapshot
    ) -> tuple[list[ModelEntry], list[float]]:
        candidates = _challengers(models, incumbent)
        uncertainty = _uncertainties([incumbent, *candidates], stats)
        scores = [_score(incumbent, c, stats, uncertainty) for c in candidates]
        return candidates, self._floored(scores)

    def _floored(self, scores: list[float]) -> list[float]:
        best = max(scores)
        weights = [score + self.floor * best for score in scores]
        # Only astronomically large game counts with zero widths get here; stay uniform then.
        if not math.fsum(weights) > 0.0:
            return [1.0] * len(scores)
        return weights


def make_matchmaker(kind: str, *, floor: float = DEFAULT_FLOOR) -> Matchmaker:
    """The matchmaker named by the ``MATCHMAKER`` setting (``smart`` or ``random``).

    Raises:
        ValueError: unknown kind, or an invalid floor.
    """
    if kind == "smart":
        return SmartMatchmaker(floor=floor)
    if kind == "random":
        return RandomMatchmaker()
    raise ValueError(f"unknown matchmaker {kind!r}; expected 'smart' or 'random'")


def _distinct(models: Iterable[ModelEntry]) -> list[ModelEntry]:
    """``models`` without repeated ids, first occurrence kept, order preserved."""
    seen: dict[uuid.UUID, ModelEntry] = {}
    for model in models:
        seen.setdefault(model.id, model)
    return list(seen.values())


def _distinct_pair_candidates(models: Sequence[ModelEntry]) -> list[ModelEntry]:
    candidates = _distinct(models)
    if len(candidates) < 2:
        raise RoundConfigError(
            f"a matchup needs two distinct enabled models, {len(candidates)} available",
            status=500,
            code="not_enough_models",
        )
    return candidates


def _challengers(models: Sequence[ModelEntry], incumbent: ModelEntry) -> list[ModelEntry]:
    candidates = [m for m in _distinct(models) if m.id != incumbent.id]
    if not candidates:
        raise RoundConfigError(
            "a shadow round needs an enabled model other than the default model",
            status=500,
            code="shadow_challenger_missing",
        )
    return candidates


def _uncertainties(
    models: Sequence[ModelEntry], stats: MatchmakingSnapshot
) -> dict[uuid.UUID, float]:
    """Each model's interval width over the widest among ``models``; unrated models get 1."""
    widths: dict[uuid.UUID, float] = {}
    for model in models:
        width = stats.ci_width.get(model.id)
        # A missing, NaN or infinite width says nothing is known: maximally uncertain.
        if width is not None and math.isfinite(width):
            widths[model.id] = max(width, 0.0)
    widest = max(widths.values(), default=0.0)
    return {
        model.id: (widths[model.id] / widest if widest > 0.0 else 0.0)
        if model.id in widths
        else 1.0
        for model in models
    }


def _score(
    a: ModelEntry,
    b: ModelEntry,
    stats: MatchmakingSnapshot,
    uncertainty: dict[uuid.UUID, float],
) -> float:
    games = max(stats.games.get(pair_key(a.id, b.id), 0), 0)
    coldness = 1 / (1 + games)  # int division: no overflow for huge counts
    return coldness + (uncertainty[a.id] + uncertainty[b.id]) / 2.0
