"""A circuit breaker per model: one that keeps failing sits out of matchmaking for a while.

A model that failed ``failures`` of its last ``window`` answers is paused: the matchmaker draws
it no more, so voters stop meeting a pane that only says the provider is down. After
``cooldown_s`` it is half-open: the next round that draws it is its trial (one at a time), and
an answer resumes it, a failure pauses it for another cooldown. A trial that never reports (its
round died with its server) is given up after a cooldown, and another round may try.

A failure is an answer the provider could not give (rate-limited, unavailable, unreachable, cut
off, unreadable, too slow). A person's stop is none, nor is a model declining a prompt
(``provider_refused``): it answered. Pure: the clock is given; the rounds service reports.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from arena_api.core.models import ModelEntry

__all__ = ["NOT_FAILURES", "BreakerChange", "CircuitBreaker", "PausedModel"]

#: Slot error codes that say nothing about the model's health.
NOT_FAILURES = frozenset({"provider_refused"})


@dataclass(frozen=True)
class PausedModel:
    model: ModelEntry
    #: When (on the breaker's clock) it may be tried again.
    until: float


@dataclass(frozen=True)
class BreakerChange:
    """A model was paused or resumed: what the metrics and the alerts hear."""

    model: ModelEntry
    state: Literal["paused", "resumed"]
    failures: int
    window: int
    cooldown_s: float


@dataclass
class _Circuit:
    model: ModelEntry
    outcomes: deque[bool]  # True: failed
    paused_at: float | None = None
    trial_at: float | None = None  # when the half-open trial round started


@dataclass
class CircuitBreaker:
    failures: int
    window: int
    cooldown_s: float
    clock: Callable[[], float]
    #: Told of each pause and resume (the metrics' gauge, the alerts).
    listeners: list[Callable[[BreakerChange], None]] = field(default_factory=list)
    _circuits: dict[uuid.UUID, _Circuit] = field(default_factory=dict)

    def _circuit(self, model: ModelEntry) -> _Circuit:
        circuit = self._circuits.get(model.id)
        if circuit is None:
            circuit = self._circuits[model.id] = _Circuit(model, deque(maxlen=self.window))
        return circuit

    def _waiting(self, circuit: _Circuit, now: float) -> bool:
        """Paused and not yet up for a trial (or its trial is still out)."""
        if circuit.paused_at is None:
            return False
        if now < circuit.paused_at + self.cooldown_s:
            return True
        return circuit.trial_at is not None and now < circuit.trial_at + self.cooldown_s

    def playable(self, roster: Sequence[ModelEntry]) -> list[ModelEntry]:
        """The models of ``roster`` the matchmaker may draw: all but the paused ones (a paused
        one whose cooldown is over is drawable, for its trial)."""
        now = self.clock()
        circuits = self._circuits
        return [m for m in roster if m.id not in circuits or not self._waiting(circuits[m.id], now)]

    def drawn(self, model: ModelEntry) -> None:
        """A round starts with ``model``: if it is half-open, this round is its trial."""
        circuit = self._circuits.get(model.id)
        if circuit is not None and circuit.paused_at is not None:
            circuit.trial_at = self.clock()

    def record(self, model: ModelEntry, failed: bool) -> BreakerChange | None:
        """One answer of ``model`` ended; the change it made, if any."""
        circuit = self._circuit(model)
        now = self.clock()
        if circuit.paused_at is not None:  # the trial's answer (or a named round's)
            if failed:
                circuit.paused_at, circuit.trial_at = now, None
                return None
            circuit.paused_at = circuit.trial_at = None
            circuit.outcomes.clear()
            return self._change(model, "resumed")
        circuit.outcomes.append(failed)
        if sum(circuit.outcomes) >= self.failures:
            circuit.paused_at = now
            circuit.outcomes.clear()
            return self._change(model, "paused")
        return None

    def paused(self) -> list[PausedModel]:
        """The paused models (half-open ones too: they are not resumed until an answer)."""
        return [
            PausedModel(c.model, c.paused_at + self.cooldown_s)
            for c in self._circuits.values()
            if c.paused_at is not None
        ]

    def _change(self, model: ModelEntry, state: Literal["paused", "resumed"]) -> BreakerChange:
        change = BreakerChange(model, state, self.failures, self.window, self.cooldown_s)
        for listener in self.listeners:
            listener(change)
        return change
