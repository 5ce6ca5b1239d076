"""``ArenaService`` wired to in-memory fakes: the fast tier's bootstrap (cosmicpython's
``bootstrap.bootstrap(uow=FakeUnitOfWork())``), so a test arranges a roster, starts a round,
votes or steers, and reads what was stored, in milliseconds."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena_api.core.arena import ArenaCore
from arena_api.core.join import Joiner
from arena_api.core.matchmaking import RandomMatchmaker
from arena_api.core.models import ModelEntry
from arena_api.core.requests import ChatRequest
from arena_api.core.tokens import MatchupTokenService
from arena_api.services.rounds import ArenaService, RoundOptions, RoundPolicy, RoundStream
from arena_api.services.votes import VoteRecorder
from tests.fakes.ports import (
    FakeClock,
    FakeProviders,
    FakeRoundStore,
    RecordingObserver,
    ScriptedProvider,
    model,
)
from tests.fakes.votes import FakeVoteStore

__all__ = ["SECRET", "FakeArena", "ROSTER", "drain"]

SECRET = b"a test secret of enough bytes"
ROSTER = (model("aurora", number=1), model("borealis", number=2), model("cirrus", number=3))


@dataclass
class FakeArena:
    """An ``ArenaService`` and the fakes behind it (build it inside a running event loop)."""

    models: Sequence[ModelEntry] = ROSTER
    policy: RoundPolicy = field(default_factory=RoundPolicy)
    provider: ScriptedProvider = field(default_factory=ScriptedProvider)
    join: Joiner | None = None
    roster_ttl_s: float = 2.0
    seed: int = 0
    clock: FakeClock = field(default_factory=FakeClock)
    store: FakeRoundStore = field(default_factory=FakeRoundStore)
    votes: FakeVoteStore = field(default_factory=FakeVoteStore)
    observer: RecordingObserver = field(default_factory=RecordingObserver)

    def __post_init__(self) -> None:
        self.store.models = list(self.models)
        self.tokens = MatchupTokenService(SECRET, clock=self.clock.time)
        self.service = ArenaService(
            repository=self.store,
            votes=VoteRecorder(self.votes, self.observer),
            providers=FakeProviders(self.provider),
            matchmaker=RandomMatchmaker(),
            core=ArenaCore(slot_timeout_s=60, clock=self.clock.monotonic),
            tokens=self.tokens,
            policy=self.policy,
            join=self.join,
            rng=random.Random(self.seed),
            observer=self.observer,
            clock=self.clock,
            roster_ttl_s=self.roster_ttl_s,
        )

    async def start(
        self, prompt: str = "hi", *, options: RoundOptions | None = None, **fields: Any
    ) -> RoundStream:
        """Start a round of ``ChatRequest(prompt=prompt, **fields)``."""
        request = ChatRequest.model_validate({"prompt": prompt, **fields})
        return await self.service.start_round(request, options=options)


async def drain(stream: RoundStream) -> list[tuple[str, dict[str, Any]]]:
    """Every public event of ``stream`` after ``matchup_started``, as (type, payload)."""
    events: list[tuple[str, dict[str, Any]]] = [
        (event.type, event.model_dump(exclude={"type"}, exclude_none=True))
        async for event in stream.events()
    ]
    return events[1:]
