"""Seeded synthetic arenas with known strengths, tie threshold and style effects.

Votes are drawn from the very model the rating process fits (Rao-Kupper with style deltas), so a
correct implementation must recover what was planted. Every function takes its
``numpy.random.Generator``; nothing here seeds global state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit

from arena_rating import Outcome, PairCounts, StyleVotes, pair_counts_from_votes

Floats = NDArray[np.float64]

#: Planted raw-unit style effects (log-odds per token, per unit of density, per ms), position
#: outright; chosen so each is a few tenths of a log-odds per standard deviation.
PLANTED_STYLE = {
    "position": 0.08,
    "verbosity": 0.0015,
    "formatting": 1.5,
    "latency_ttft": -0.0003,
    "latency_duration": 0.0,
}


@dataclass(frozen=True)
class Simulated:
    """One synthetic arena: per-vote slots, outcome and the metrics of both responses."""

    strengths: Floats
    slot_a: NDArray[np.intp]
    slot_b: NDArray[np.intp]
    outcomes: NDArray[np.int8]
    tokens_a: Floats
    tokens_b: Floats
    markdown_a: Floats
    markdown_b: Floats
    ttft_a: Floats
    ttft_b: Floats
    duration_a: Floats
    duration_b: Floats

    @property
    def n_models(self) -> int:
        return int(self.strengths.size)

    @property
    def n_votes(self) -> int:
        return int(self.slot_a.size)

    def features(self) -> Floats:
        """Raw deltas A minus B in ``STYLE_FEATURES`` order (position = 1)."""
        return np.column_stack(
            [
                np.ones(self.n_votes),
                self.tokens_a - self.tokens_b,
                self.markdown_a - self.markdown_b,
                self.ttft_a - self.ttft_b,
                self.duration_a - self.duration_b,
            ]
        )

    def counts(self) -> PairCounts:
        return pair_counts_from_votes(self.n_models, self.slot_a, self.slot_b, self.outcomes)

    def style_votes(self) -> StyleVotes:
        return StyleVotes(self.n_models, self.slot_a, self.slot_b, self.outcomes, self.features())

    def vote_labels(self, rng: np.random.Generator) -> NDArray[np.str_]:
        """``left`` / ``right`` / ``both_good`` or ``both_bad`` (ties split at random)."""
        tie_label = np.where(rng.random(self.n_votes) < 0.5, "both_good", "both_bad")
        return np.where(
            self.outcomes == Outcome.FIRST_WINS,
            "left",
            np.where(self.outcomes == Outcome.SECOND_WINS, "right", tie_label),
        )


def planted_standardised(sim: Simulated, per_unit: dict[str, float]) -> Floats:
    """The planted coefficients on the fit's scale: raw effect times the delta's SD."""
    scales = sim.features().std(axis=0)
    scales[0] = 1.0
    return np.array(list(per_unit.values())) * scales


def centred_strengths(rng: np.random.Generator, n_models: int, spread: float = 0.8) -> Floats:
    strengths = rng.normal(0.0, spread, n_models)
    return strengths - strengths.mean()


def simulate(
    rng: np.random.Generator,
    strengths: Floats,
    n_votes: int,
    *,
    tie_threshold: float = 0.5,
    style: dict[str, float] | None = None,
    pairs: NDArray[np.intp] | None = None,
) -> Simulated:
    """Draw ``n_votes`` votes between random pairs (or between the given ``pairs``).

    Response metrics depend on the model (some models are wordier, slower, heavier on Markdown),
    so style and strength are confounded as in a real arena; with ``style`` the outcome depends on
    the raw deltas through the planted per-unit effects.
    """
    n = strengths.size
    if pairs is None:
        a = rng.integers(0, n, n_votes)
        b = (a + rng.integers(1, n, n_votes)) % n
    else:
        chosen = pairs[rng.integers(0, len(pairs), n_votes)]
        flip = rng.random(n_votes) < 0.5
        a = np.where(flip, chosen[:, 1], chosen[:, 0])
        b = np.where(flip, chosen[:, 0], chosen[:, 1])
    verbosity = rng.uniform(150, 900, n)
    markdown = rng.uniform(0.02, 0.4, n)
    ttft = rng.uniform(200, 1500, n)
    ms_per_token = rng.uniform(10, 40, n)

    def metrics(model: NDArray[np.intp]) -> tuple[Floats, Floats, Floats, Floats]:
        tokens = np.maximum(1.0, np.rint(rng.normal(verbosity[model], 120)))
        md = np.clip(rng.normal(markdown[model], 0.08), 0.0, 1.0)
        first = np.rint(rng.gamma(2.0, ttft[model] / 2.0))
        duration = np.maximum(
            0.0, np.rint(tokens * ms_per_token[model] + rng.normal(0, 500, a.size))
        )
        return tokens, md, first, duration

    tok_a, md_a, ttft_a, dur_a = metrics(a)
    tok_b, md_b, ttft_b, dur_b = metrics(b)
    d = strengths[a] - strengths[b]
    if style is not None:
        effects = np.array(list(style.values()))
        deltas = np.column_stack(
            [np.ones(a.size), tok_a - tok_b, md_a - md_b, ttft_a - ttft_b, dur_a - dur_b]
        )
        d = d + deltas @ effects
    u = rng.random(a.size)
    p_a = expit(d - tie_threshold)
    p_b = expit(-d - tie_threshold)
    outcomes = np.where(
        u < p_a, Outcome.FIRST_WINS, np.where(u < p_a + p_b, Outcome.SECOND_WINS, Outcome.TIE)
    ).astype(np.int8)
    return Simulated(
        strengths, a, b, outcomes, tok_a, tok_b, md_a, md_b, ttft_a, ttft_b, dur_a, dur_b
    )


#: Kinds of voting sessions a synthetic arena holds.
HONEST, ALWAYS_LEFT, STUFFER, CLICKER = "honest", "always-left", "stuffer", "clicker"


@dataclass(frozen=True)
class VoteLog:
    """Votes with their sessions and timestamps, as the ``preferences`` table holds them."""

    n_models: int
    slot_a: NDArray[np.intp]
    slot_b: NDArray[np.intp]
    votes: NDArray[np.str_]
    session_ids: NDArray[np.str_]
    timestamps_s: Floats
    kinds: NDArray[np.str_]

    def outcomes(self) -> NDArray[np.int8]:
        """Outcome codes of the non-skip votes (slot A's side)."""
        keep = self.votes != "skip"
        labels = self.votes[keep]
        return np.where(
            labels == "left",
            Outcome.FIRST_WINS,
            np.where(labels == "right", Outcome.SECOND_WINS, Outcome.TIE),
        ).astype(np.int8)

    def counts(self, *, drop_sessions: set[str] | None = None) -> PairCounts:
        """Pair counts of the non-skip votes, without the votes of ``drop_sessions``."""
        keep = self.votes != "skip"
        if drop_sessions:
            keep &= ~np.isin(self.session_ids, list(drop_sessions))
        labels = self.votes[keep]
        outcomes = np.where(
            labels == "left",
            Outcome.FIRST_WINS,
            np.where(labels == "right", Outcome.SECOND_WINS, Outcome.TIE),
        )
        return pair_counts_from_votes(self.n_models, self.slot_a[keep], self.slot_b[keep], outcomes)

    def kind_of_session(self) -> dict[str, str]:
        return dict(zip(self.session_ids.tolist(), self.kinds.tolist(), strict=True))


def simulate_sessions(
    rng: np.random.Generator,
    strengths: Floats,
    *,
    honest: int,
    always_left: int = 0,
    stuffers: int = 0,
    clickers: int = 0,
    target: int = 0,
    tie_threshold: float = 0.5,
) -> VoteLog:
    """Honest sessions voting from ``strengths`` plus planted bots.

    - honest: 1 + Poisson(8) votes, gaps of 5 s + Exp(40 s), 5% skips;
    - always-left: 30-60 votes, every one for slot A, human-like gaps;
    - stuffer: 150-400 votes, always for ``target`` when it is shown, human-like gaps;
    - clicker: 10-40 votes 0.1-1 s apart, always for ``target`` when it is shown.
    """
    n = strengths.size
    parts: list[tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.str_], str, Floats, str]] = []
    plan = (
        [(HONEST, i) for i in range(honest)]
        + [(ALWAYS_LEFT, i) for i in range(always_left)]
        + [(STUFFER, i) for i in range(stuffers)]
        + [(CLICKER, i) for i in range(clickers)]
    )
    for kind, i in plan:
        if kind == HONEST:
            size = 1 + int(rng.poisson(8))
            gaps = 5.0 + rng.exponential(40.0, size)
        elif kind == ALWAYS_LEFT:
            size = int(rng.integers(30, 61))
            gaps = 5.0 + rng.exponential(20.0, size)
        elif kind == STUFFER:
            size = int(rng.integers(150, 401))
            gaps = 5.0 + rng.exponential(20.0, size)
        else:
            size = int(rng.integers(10, 41))
            gaps = rng.uniform(0.1, 1.0, size)
        a = rng.integers(0, n, size)
        b = (a + rng.integers(1, n, size)) % n
        d = strengths[a] - strengths[b]
        u = rng.random(size)
        p_a, p_b = expit(d - tie_threshold), expit(-d - tie_threshold)
        votes = np.where(
            u < p_a,
            "left",
            np.where(u < p_a + p_b, "right", np.where(u < 0.5, "both_good", "both_bad")),
        )
        if kind == HONEST:
            votes = np.where(rng.random(size) < 0.05, "skip", votes)
        elif kind == ALWAYS_LEFT:
            votes = np.full(size, "left")
        else:
            votes = np.where(a == target, "left", np.where(b == target, "right", votes))
        start = rng.uniform(0, 86_400)
        parts.append((a, b, votes.astype(str), f"{kind}-{i}", start + np.cumsum(gaps), kind))
    return VoteLog(
        n_models=n,
        slot_a=np.concatenate([p[0] for p in parts]),
        slot_b=np.concatenate([p[1] for p in parts]),
        votes=np.concatenate([p[2] for p in parts]),
        session_ids=np.concatenate([np.full(p[0].size, p[3]) for p in parts]),
        timestamps_s=np.concatenate([p[4] for p in parts]),
        kinds=np.concatenate([np.full(p[0].size, p[5]) for p in parts]),
    )
