r"""Matchmakers: which two models meet in a round, or which challenger shadows the incumbent.

``RandomMatchmaker`` picks uniformly. ``SmartMatchmaker`` samples a pair with a probability
proportional to its weight: a mixture of three kinds of uncertainty, each scaled to sum to 1
over the candidate pairs, evened out between the models and given a floor:

    mix(a, b)    = (1 - r) (1 - q) win(a, b) / sum(win) + (1 - r) q prec(a, b) / sum(prec)
                   + r rank(a, b) / sum(rank)
    weight(a, b) = mix(a, b) even_a even_b + floor * (the largest of mix * even over the pairs)
    r            = rank_share * doubt,   q = precision_share
    even_x       = clamp((t_x g + 1) / (g_x + 1), 1 / EVEN_CAP, EVEN_CAP) ** balance
                   g_x = the games model x has played against the roster, g = their mean
    t_x          = 1 + up    for the first LEAD_PLACES places of the ranking
                 = 1 - down  for the last L = min(LEAD_PLACES, floor(n / 2) - 2, n - LEAD_PLACES)
                 = 1         for the places between, and for every model while one is unrated
                   up = min(tilt, L / (2 LEAD_PLACES)),  down = up LEAD_PLACES / L

    win(a, b)  = E|e_n| - E|e_(n+1)|                                 the win matrix
    prec(a, b) = s_a**2 learn_a + s_b**2 learn_b,  learn_x = s_x**2 S / (1 + s_x**2 S)
                 how much one more vote shrinks the variances of the two ratings (each by the
                 Laplace update of one observation of information S); 0 with an unrated model
    rank(a, b) = overlap * learn * top     for neighbours in the ranking
               = 1                         when a or b is unrated;   0 for any other pair
    doubt      = sum(overlap_k * reach_k * top_k) / sum(top_k)   over the ranking's neighbour
                 pairs k;  = 1 while a candidate is unrated
    reach_k    = min(1, gap / sigma_k),  gap = (R_first - R_last) / (n - 1) the board's mean
                 neighbour gap, sigma_k = sqrt(v_k) in display points

with, from the snapshot's display ratings ``R`` and 95 % interval widths (``s = width /
(2 * 1.96)`` and ``d = (R_a - R_b) / (400 / ln 10)``, both in log-odds):

    p       = 1 / (1 + exp(-d)),  S = p (1 - p)     a's predicted win rate; a vote's variance
    overlap = exp(-z**2 / 2),  z = |d| / sqrt(s_a**2 + s_b**2)    is their order in doubt?
              (0 when both intervals have width 0, or z >= 38)
    learn   = v S / (1 + v S),  v = s_a**2 + s_b**2       share of the variance of d that one
              more vote removes (the Laplace update of one observation of information S)
    top     = 1 / (1 + (k / TOP_RANKS)**3),  k = the better place of the two (the leader's is 0):
              near 1 over the top ranks, 1/2 at TOP_RANKS, 1/9 at twice that

and from the pair's record, ``n`` games in which a scored ``h n`` points (a tie is 1/2):

    e_n     ~ N(h - p, u**2),  u = min(S sqrt(v), 1/2)     the error of the head-to-head rate h,
              taking the ratings' prediction for the truth, give or take its own uncertainty
    e_(n+1) ~ N(n (h - p) / (n + 1), (n**2 u**2 + S) / (n + 1)**2)    after one more vote
    E|N(m, sd**2)| = sd sqrt(2 / pi) exp(-m**2 / (2 sd**2)) + m erf(m / (sd sqrt 2))

A pair without games scores E|N(0, S)|, the error its first vote's rate will carry (S = 1/4 with
an unrated model), so that every pair of the matrix is played early; a played pair with an
unrated model scores 0 (nothing predicts its rate yet; the ranking term has it). A model without
a finite rating and interval width counts as unrated (and ``s_x**2`` counts as at most 10**6 in
``prec``). A term that is 0 for every pair drops out, and the others share its weight.

``even`` keeps the models' shares of the votes close. Chasing records pair by pair would
otherwise spread them (by 11 % between the models of a 10-model board, against 2 % under random
pairing), and an uneven split widens the median interval (by about 1 % there, measured: at that
size random pairing is close to optimal for the median width, so every per cent counts). The
clamp bounds the pull: a model enabled on a board of many votes has its pairs weighed at most
``EVEN_CAP ** (2 * balance)`` (3.8) times higher against the others', however far behind it
is, instead of playing every round until it catches up.

``t`` tilts the shares towards the top of the board. Its order is what a leaderboard's readers
look at, and it takes the most votes to settle. With about even shares, the variance of the
difference between two ratings is about 2 / (g S) whoever the two models played, so only more
games for the top models tell them apart sooner. The last places of the ranking, whose order
matters least, give those games up (keeping at least half the mean share); the places between
keep the mean share. At most ``floor(n / 2) - 2`` models lose games, so the two intervals whose
widths make the median are not theirs (with one to spare: the widest intervals are not always
the last places'), and the median interval stays where an even split puts it. The other terms
pull back, so the shares reached are about 60 % of the way to the targets (1.09 and 0.865 of
the mean on 12 models after 5,000 votes, against 1.15 and 0.775). The measured effect is in
docs/rating.md (``benchmarks/matchmaking.py``).

``prec`` keeps the intervals of the board shrinking evenly: it favours the models whose
ratings are least known, against opponents close enough for a vote to be informative.
``win`` sends votes where the head-to-head matrix is most likely wrong: a pair whose record
strays from what the ratings predict is played until the stray fades (it was noise) or holds
(the pair does not follow the ratings, and the matrix shows it with more votes behind it). An
even split cannot do this: it spends as much on a pair whose record already agrees with the
ratings as on one that does not, and the best fixed split is within a few per cent of even
(``benchmarks/matchmaking.py`` prints that bound). Choosing pairs by their records leaves the
rating fit unbiased (the likelihood of the votes does not depend on how pairs were chosen),
but a pair's record that agrees with the ratings by chance is played less, so the matrix leans
towards the ratings by at most the noise of a record. ``rank`` sends its share to the
neighbours of the ranking whose intervals overlap, the top of the board first, and to models
that have no rating yet. Its share shrinks with ``doubt`` as the order settles, so a board
whose order is known spends its votes on the win matrix and the intervals. ``reach`` holds the
share back while the neighbours lie closer than the intervals can tell apart: the votes cast so
far are ``reach**2`` of those that bring the board's mean neighbour gap to one standard error of
the difference. Until then votes on the order buy little of it and cost the intervals (on a
board of 50 models spread over 200 points, all of them); the share grows as the intervals
shrink. The ranking is over the rated candidates (ties broken by id).

The floor keeps each of the ``P`` candidate pairs at a probability of at least
``floor / (P * (1 + floor))``. A challenger is drawn by the same terms, computed over the pairs of
the roster (incumbent and candidates), for the pairs (incumbent, candidate), with the floor over
those. The work per round is O(n**2) in the number of models (tens), independent of the votes.
"""

from __future__ import annotations

import itertools
import math
import random
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from arena_api.core.errors import NotEnoughModels, RoundConfigError
from arena_api.core.models import ModelEntry
from arena_api.core.ports import Matchmaker, MatchmakingSnapshot, pair_key
from arena_api.core.scale import SCALE

__all__ = [
    "DEFAULT_BALANCE",
    "DEFAULT_FLOOR",
    "DEFAULT_PRECISION_SHARE",
    "DEFAULT_RANK_SHARE",
    "DEFAULT_TILT",
    "EVEN_CAP",
    "LEAD_PLACES",
    "TOP_RANKS",
    "RandomMatchmaker",
    "SmartMatchmaker",
    "make_matchmaker",
]

DEFAULT_FLOOR = 0.05
#: Share of the weight given to the order of the ranking; the rest to the win matrix and intervals.
DEFAULT_RANK_SHARE = 0.3
#: Share of the rest given to the ratings' precision; the remainder goes to the win matrix.
DEFAULT_PRECISION_SHARE = 0.5
#: Power of each model's ``even`` factor: how hard the weights pull its share of the votes back
#: towards the mean.
DEFAULT_BALANCE = 3.0
#: Share of the mean games that ``even`` adds to the target of each of the first LEAD_PLACES
#: models of the ranking (and takes from the last places').
DEFAULT_TILT = 0.15
#: The places at the top of the ranking whose order the tilt buys: the top five and the model
#: that could enter it.
LEAD_PLACES = 6
#: The most the ratio of the mean games to a model's games counts for in ``even`` (and the
#: least, its inverse).
EVEN_CAP = 1.25
#: Rank at which a neighbour pair's ``top`` factor has fallen to one half; it falls with the cube
#: of the rank, so the order at the top of the board takes most of the ranking's share.
TOP_RANKS = 5.0
#: The normal quantile of a two-sided 95 % interval: width = 2 * 1.96 * standard error.
_Z_95 = 1.959963984540054
_ROOT_2_OVER_PI = math.sqrt(2.0 / math.pi)
#: A rating's variance (log-odds squared) beyond which the precision term counts it as this:
#: a standard error of 1,000 log-odds already says "nothing known", and squares stay finite.
_MAX_VARIANCE = 1e6

_Pair = tuple[ModelEntry, ModelEntry]
_T = TypeVar("_T")


@dataclass(frozen=True)
class RandomMatchmaker:
    """Uniform over distinct pairs, and over challengers."""

    def pick_pair(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot, rng: random.Random
    ) -> tuple[ModelEntry, ModelEntry]:
        """Two distinct models, in random order.

        Raises:
            NotEnoughModels: (503, ``not_enough_models``) fewer than two distinct models.
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
    """Samples pairs by the win matrix's error, the ratings' precision and the ranking's
    overlap (see the module doc).

    Args:
        floor: Share of the best score added to every pair's weight; 0 disables the floor.
        rank_share: Share of the score given to the ranking's order, in [0, 1].
        precision_share: Share of the rest given to the ratings' precision, in [0, 1]; the
            remainder goes to the win matrix.
        balance: Power of the ``even`` factors; 0 leaves the models' shares of the votes alone
            (and the tilt with them).
        tilt: Share of the mean games the first ``LEAD_PLACES`` models' targets gain, in [0, 1]
            (capped so that the last places keep at least half the mean); 0 targets even shares.

    Raises:
        ValueError: ``floor`` or ``balance`` is negative or not finite, or a share is outside
            [0, 1].
    """

    floor: float = DEFAULT_FLOOR
    rank_share: float = DEFAULT_RANK_SHARE
    precision_share: float = DEFAULT_PRECISION_SHARE
    balance: float = DEFAULT_BALANCE
    tilt: float = DEFAULT_TILT
    _memo: dict[str, tuple[Any, Any]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        for name in ("floor", "balance"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        for name in ("rank_share", "precision_share", "tilt"):
            share = getattr(self, name)
            if not 0.0 <= share <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {share!r}")

    def pick_pair(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot, rng: random.Random
    ) -> tuple[ModelEntry, ModelEntry]:
        """Two distinct models drawn by weight, in random order.

        Raises:
            NotEnoughModels: (503, ``not_enough_models``) fewer than two distinct models.
        """
        drawn = self._weighted_pairs(models, stats)
        (first, second) = rng.choices(drawn.items, cum_weights=drawn.cumulative)[0]
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
        drawn = self._weighted_challengers(models, incumbent, stats)
        return rng.choices(drawn.items, cum_weights=drawn.cumulative)[0]

    def pair_probabilities(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot
    ) -> dict[tuple[uuid.UUID, uuid.UUID], float]:
        """The probability ``pick_pair`` gives each unordered pair, keyed by ``pair_key``.

        Raises:
            NotEnoughModels: (503, ``not_enough_models``) fewer than two distinct models.
        """
        return {
            pair_key(a.id, b.id): p
            for (a, b), p in self._weighted_pairs(models, stats).probabilities()
        }

    def challenger_probabilities(
        self, models: Sequence[ModelEntry], incumbent: ModelEntry, stats: MatchmakingSnapshot
    ) -> dict[uuid.UUID, float]:
        """The probability ``pick_challenger`` gives each candidate, keyed by model id.

        Raises:
            RoundConfigError: (500, ``shadow_challenger_missing``) no other model.
        """
        return {
            m.id: p for m, p in self._weighted_challengers(models, incumbent, stats).probabilities()
        }

    def _weighted_pairs(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot
    ) -> _Weighted[_Pair]:
        def weigh() -> _Weighted[_Pair]:
            candidates = _distinct_pair_candidates(models)
            pairs = [(a, b) for i, a in enumerate(candidates) for b in candidates[i + 1 :]]
            return _weighted(pairs, self._floored(self._scores(candidates, pairs, stats)))

        return self._remembered("pairs", (stats, tuple(models)), weigh)

    def _weighted_challengers(
        self, models: Sequence[ModelEntry], incumbent: ModelEntry, stats: MatchmakingSnapshot
    ) -> _Weighted[ModelEntry]:
        def weigh() -> _Weighted[ModelEntry]:
            candidates = _challengers(models, incumbent)
            roster = [incumbent, *candidates]
            pairs = [(a, b) for i, a in enumerate(roster) for b in roster[i + 1 :]]
            # The incumbent comes first in the roster, so its pairs are the first len(candidates).
            scores = self._scores(roster, pairs, stats)[: len(candidates)]
            return _weighted(candidates, self._floored(scores))

        return self._remembered("challengers", (stats, tuple(models), incumbent), weigh)

    def _remembered(
        self, kind: str, key: tuple[object, ...], weigh: Callable[[], _Weighted[_T]]
    ) -> _Weighted[_T]:
        """``weigh()``, or what it gave last time for the same snapshot object and roster.

        Rounds between two refreshes of the snapshot (seconds apart) share its weights, so a
        round costs a draw, not the O(n**2) weighing. One entry per kind: a new snapshot or
        roster replaces it.
        """
        held = self._memo.get(kind)
        if held is not None and held[0][0] is key[0] and held[0][1:] == key[1:]:
            return cast(_Weighted[_T], held[1])
        value = weigh()
        self._memo[kind] = (key, value)
        return value

    def _scores(
        self, roster: Sequence[ModelEntry], pairs: Sequence[_Pair], stats: MatchmakingSnapshot
    ) -> list[float]:
        """mix * even_a * even_b of the module doc, for each of ``pairs``."""
        rated = _rated(roster, stats)
        ranking = _ranking(roster, rated)
        order_share = self.rank_share * ranking.doubt
        rest = 1.0 - order_share
        terms = (
            (
                rest * (1.0 - self.precision_share),
                [_win_matrix_gain(a, b, stats, rated) for a, b in pairs],
            ),
            (
                rest * self.precision_share,
                [_precision_gain(rated.get(a.id), rated.get(b.id)) for a, b in pairs],
            ),
            (order_share, [_rank_uncertainty(a, b, rated, ranking) for a, b in pairs]),
        )
        scores = [0.0] * len(pairs)
        for share, values in terms:
            total = math.fsum(values)
            # A term that is 0 everywhere says nothing; the floor and the normalisation in the
            # callers make the others take the whole weight.
            if share > 0.0 and total > 0.0:
                scores = [s + share * v / total for s, v in zip(scores, values, strict=True)]
        if self.balance == 0.0:
            return scores
        even = _evenness(roster, stats, self.balance, _targets(roster, ranking, self.tilt))
        return [s * even[a.id] * even[b.id] for s, (a, b) in zip(scores, pairs, strict=True)]

    def _floored(self, scores: list[float]) -> list[float]:
        best = max(scores)
        weights = [score + self.floor * best for score in scores]
        # Only when every term vanishes (certain ratings, no step left to take): stay uniform.
        if not math.fsum(weights) > 0.0:
            return [1.0] * len(scores)
        return weights


@dataclass(frozen=True)
class _Weighted(Generic[_T]):
    """What a draw picks from: the items, their weights and the weights' running sums."""

    items: list[_T]
    weights: list[float]
    cumulative: list[float]

    def probabilities(self) -> Iterator[tuple[_T, float]]:
        """Each item with the probability a draw gives it."""
        total = math.fsum(self.weights)
        return ((item, w / total) for item, w in zip(self.items, self.weights, strict=True))


def _weighted(items: list[_T], weights: list[float]) -> _Weighted[_T]:
    return _Weighted(items, weights, list(itertools.accumulate(weights)))


@dataclass(frozen=True)
class _Rated:
    """A rated model: its display rating and its standard error in log-odds."""

    rating: float
    stderr: float


@dataclass(frozen=True)
class _Ranking:
    """Each rated candidate's place (0 for the best) and how much of the order is in doubt."""

    place: dict[uuid.UUID, int]
    doubt: float


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
    if missing := NotEnoughModels.among(len(candidates)):
        raise missing
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


def _rated(models: Sequence[ModelEntry], stats: MatchmakingSnapshot) -> dict[uuid.UUID, _Rated]:
    """The models with a finite rating and interval width; the others count as unrated."""
    rated: dict[uuid.UUID, _Rated] = {}
    for model in models:
        rating, width = stats.rating.get(model.id), stats.ci_width.get(model.id)
        if rating is None or width is None or not (math.isfinite(rating) and math.isfinite(width)):
            continue
        rated[model.id] = _Rated(rating, max(width, 0.0) / (2.0 * _Z_95) / SCALE)
    return rated


def _ranking(roster: Sequence[ModelEntry], rated: dict[uuid.UUID, _Rated]) -> _Ranking:
    """The rated models in rating order (ties broken by id), and the doubt of the module doc."""
    order = sorted(rated, key=lambda model_id: (-rated[model_id].rating, model_id.bytes))
    place = {model_id: k for k, model_id in enumerate(order)}
    if len(rated) < len(roster):
        return _Ranking(place, 1.0)  # an unrated model has no place yet: all is in doubt
    neighbours = [(rated[order[k]], rated[order[k + 1]]) for k in range(len(order) - 1)]
    gap = (rated[order[0]].rating - rated[order[-1]].rating) / len(neighbours)
    tops = [_top(k) for k in range(len(neighbours))]
    doubts = [_overlap(a, b) * _reach(a, b, gap) for a, b in neighbours]
    doubt = math.fsum(d * t for d, t in zip(doubts, tops, strict=True)) / math.fsum(tops)
    return _Ranking(place, doubt)


def _targets(
    roster: Sequence[ModelEntry], ranking: _Ranking, tilt: float
) -> dict[uuid.UUID, float]:
    """t_x of the module doc for the models whose target is not 1, keyed by id."""
    n = len(roster)
    tail = min(LEAD_PLACES, n // 2 - 2, n - LEAD_PLACES)  # <= 0 on boards of six or fewer
    if tail <= 0 or tilt == 0.0 or len(ranking.place) < n:
        return {}
    up = min(tilt, tail / (2.0 * LEAD_PLACES))
    down = up * LEAD_PLACES / tail
    return {
        model_id: 1.0 + up if place < LEAD_PLACES else 1.0 - down
        for model_id, place in ranking.place.items()
        if place < LEAD_PLACES or place >= n - tail
    }


def _evenness(
    roster: Sequence[ModelEntry],
    stats: MatchmakingSnapshot,
    balance: float,
    targets: dict[uuid.UUID, float],
) -> dict[uuid.UUID, float]:
    """even_x of the module doc for each model of ``roster``, keyed by id, with the targets t_x
    of ``targets`` (1 for a model not in it)."""
    games = {model.id: 0.0 for model in roster}
    for i, a in enumerate(roster):
        for b in roster[i + 1 :]:
            played = float(max(stats.games.get(pair_key(a.id, b.id), 0), 0))
            games[a.id] += played
            games[b.id] += played
    mean = math.fsum(games.values()) / len(games)
    return {
        model_id: min(
            max((targets.get(model_id, 1.0) * mean + 1.0) / (played + 1.0), 1.0 / EVEN_CAP),
            EVEN_CAP,
        )
        ** balance
        for model_id, played in games.items()
    }


def _reach(a: _Rated, b: _Rated, gap: float) -> float:
    """min(1, gap / sigma) of the module doc, for a mean neighbour gap in display points."""
    sigma = SCALE * math.hypot(a.stderr, b.stderr)
    ratio = gap / sigma if sigma > 0.0 else math.inf  # certain ratings tell any gap apart
    return ratio if ratio < 1.0 else 1.0  # (also for a nan of infinite ratings)


def _top(place: int) -> float:
    return 1.0 / (1.0 + (place / TOP_RANKS) ** 3)


def _overlap(a: _Rated, b: _Rated) -> float:
    """exp(-z**2 / 2) for the pair's distance z in standard errors of the difference."""
    spread = math.hypot(a.stderr, b.stderr)  # sqrt(v), without overflow
    if not spread > 0.0:
        return 0.0  # certain ratings: their order is known
    z = abs(a.rating - b.rating) / SCALE / spread
    return math.exp(-0.5 * z * z) if math.isfinite(z) else 0.0  # far apart: exp gives 0.0


def _vote_variance(a: _Rated | None, b: _Rated | None) -> float:
    """p (1 - p) for the expected score p of a against b; 1/4 when either is unrated."""
    if a is None or b is None:
        return 0.25
    # e / (1 + e)**2 with e = exp(-|d|) is p (1 - p) without overflow for any difference.
    e = math.exp(-abs(a.rating - b.rating) / SCALE)
    return e / (1.0 + e) ** 2


def _win_matrix_gain(
    a: ModelEntry, b: ModelEntry, stats: MatchmakingSnapshot, rated: dict[uuid.UUID, _Rated]
) -> float:
    """E|e_n| - E|e_(n+1)| of the module doc: how much one more vote is expected to shrink the
    error of the pair's head-to-head rate (0 when it is expected to grow)."""
    key = pair_key(a.id, b.id)
    n = float(max(stats.games.get(key, 0), 0))
    first, second = rated.get(key[0]), rated.get(key[1])
    variance = _vote_variance(first, second)
    if n == 0.0:
        return _mean_absolute(0.0, math.sqrt(variance))
    if first is None or second is None:
        return 0.0
    d = (first.rating - second.rating) / SCALE
    predicted = 1.0 / (1.0 + math.exp(-d)) if d > -700.0 else 0.0
    rate = min(max(stats.points.get(key, 0.0) / n, 0.0), 1.0)
    spread = math.hypot(first.stderr, second.stderr)
    uncertainty = min(variance * spread, 0.5) if variance > 0.0 else 0.0  # 0 * inf is nan
    stray = rate - predicted
    now = _mean_absolute(stray, uncertainty)
    # n / (n + 1) and 1 / (n + 1) as such, so that a huge n keeps its digits and never overflows
    keep, fresh = 1.0 / (1.0 + 1.0 / n), 1.0 / (n + 1.0)
    noise = math.hypot(keep * uncertainty, fresh * math.sqrt(variance))
    after = _mean_absolute(stray * keep, noise)
    return max(now - after, 0.0)


def _mean_absolute(mean: float, sd: float) -> float:
    """E|X| for X ~ N(mean, sd**2): the folded normal's mean (|mean| when sd is 0)."""
    if not sd > 0.0:
        return abs(mean)
    z = mean / sd
    return sd * _ROOT_2_OVER_PI * math.exp(-0.5 * z * z) + mean * math.erf(z / math.sqrt(2.0))


def _precision_gain(a: _Rated | None, b: _Rated | None) -> float:
    """s_a**2 learn_a + s_b**2 learn_b of the module doc; 0 with an unrated model."""
    if a is None or b is None:
        return 0.0
    variance = _vote_variance(a, b)
    gain = 0.0
    for model in (a, b):
        prior = min(model.stderr * model.stderr, _MAX_VARIANCE)
        gain += prior * (prior * variance / (1.0 + prior * variance))
    return gain


def _rank_uncertainty(
    a: ModelEntry, b: ModelEntry, rated: dict[uuid.UUID, _Rated], ranking: _Ranking
) -> float:
    """overlap * learn * top for neighbours in the ranking, 1 with an unrated model, else 0."""
    ra, rb = rated.get(a.id), rated.get(b.id)
    if ra is None or rb is None:
        return 1.0
    place_a, place_b = ranking.place[a.id], ranking.place[b.id]
    if abs(place_a - place_b) != 1:
        return 0.0
    overlap = _overlap(ra, rb)
    if overlap == 0.0:
        return 0.0
    spread = math.hypot(ra.stderr, rb.stderr)
    information = spread * spread * _vote_variance(ra, rb)  # v S; inf for absurd widths
    learn = information / (1.0 + information) if information < math.inf else 1.0
    return overlap * learn * _top(min(place_a, place_b))
