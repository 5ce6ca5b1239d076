"""Expert review queues: an admin makes one from a suite run or from stored rounds, names its
reviewers and how many reviews each item needs (k); each reviewer works through it one blind
item at a time; the admin reads its progress and agreement (``core.review``).

Blindness holds for reviewers in both senses: an item shows the prompt and the two answers as A
and B, never the models; and no reviewer is ever shown another's verdict (only admins read the
agreement). A reviewer's verdict is one of the arena's votes, with optional reasons
(``ARENA_VOTE_REASONS``) and a comment; a skip passes the item on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from arena_api.core.errors import ArenaError, InvalidRequest, NotFound, ShuttingDown
from arena_api.core.models import ModelEntry
from arena_api.core.reasons import VoteReasons
from arena_api.core.requests import ChatRequest, parse_command
from arena_api.core.review import Agreement, ItemVerdicts, queue_agreement
from arena_api.core.sides import VOTES
from arena_api.core.users import Actor, Grant, Member
from arena_api.core.votes import ReviewVerdict
from arena_api.services.rounds import RoundOptions
from arena_api.services.votes import VoteRecorder

__all__ = ["ReviewService", "ReviewStore"]

_MAX_ITEMS = 1000
_MAX_COMMENT = 2000
_MAX_PROMPTS = 200
_log = logging.getLogger(__name__)


class ReviewStore(Protocol):
    async def suite_rounds(self, run_id: uuid.UUID) -> list[uuid.UUID]: ...

    async def stored_rounds(
        self,
        category: str | None,
        models: Sequence[uuid.UUID] | None,
        since: datetime | None,
        until: datetime | None,
        limit: int,
    ) -> list[uuid.UUID]: ...

    async def create(
        self,
        name: str,
        k: int,
        source: dict[str, Any],
        reviewers: Sequence[str],
        matchups: Sequence[uuid.UUID],
        actor: Actor,
        pending: int = 0,
    ) -> uuid.UUID: ...

    async def add_round(
        self, queue_id: uuid.UUID, position: int, matchup_id: uuid.UUID | None
    ) -> None: ...

    async def queues(self, reviewer_id: str | None) -> list[Any]: ...

    async def queue(self, queue_id: uuid.UUID) -> Any | None: ...

    async def progress(self, queue_id: uuid.UUID) -> list[Any]: ...

    async def is_reviewer(self, queue_id: uuid.UUID, user_id: str) -> bool: ...

    async def next_item(self, queue_id: uuid.UUID, user_id: str) -> Any | None: ...

    async def my_progress(self, queue_id: uuid.UUID, user_id: str) -> tuple[int, int]: ...

    async def verdicts(self, queue_id: uuid.UUID) -> list[ItemVerdicts]: ...


class Members(Protocol):
    async def members(self) -> list[Member]: ...


class Rounds(Protocol):
    """How a queue made of prompts gets its rounds: ``services.rounds.ArenaService``."""

    async def playable_roster(self, *, refresh: bool = False) -> list[ModelEntry]: ...

    async def start_round(
        self,
        request: ChatRequest,
        *,
        x_arena: str | None = None,
        options: RoundOptions | None = None,
    ) -> Any: ...


@dataclass(frozen=True)
class QueueAgreement:
    queue: Mapping[str, Any]
    agreement: Agreement
    labels: Mapping[str, str]  # reviewer id -> email or name


def _uuid(raw: Any, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(raw))
    except ValueError:
        raise NotFound(f"No such {what}") from None


def _when(raw: Any, name: str) -> datetime | None:
    if raw is None:
        return None
    try:
        return datetime.fromisoformat(str(raw))
    except ValueError:
        raise InvalidRequest(f"{name} must be an ISO 8601 time", details={name: ["iso"]}) from None


def _forbidden() -> ArenaError:
    return ArenaError(
        "This queue is not yours to review", status=403, code="not_a_reviewer_of_this_queue"
    )


class ReviewService:
    def __init__(
        self,
        store: ReviewStore,
        members: Members,
        reasons: VoteReasons,
        votes: VoteRecorder,
        rounds: Rounds | None = None,
    ) -> None:
        """``votes`` records the verdicts (the one vote path); ``rounds`` plays the rounds of
        a queue made from a list of prompts."""
        self._store = store
        self._votes = votes
        self._members = members
        self._reasons = reasons
        self._rounds_source = rounds
        self._tasks: set[asyncio.Task[None]] = set()

    async def create(self, body: Mapping[str, Any], actor: Actor) -> uuid.UUID:
        """A queue from ``body``: ``name``, ``k``, ``reviewers`` (user ids, reviewers or
        admins, at least ``k``), and ``source``: ``{"suiteRun": id}`` or ``{"rounds":
        {"category", "models": [id, id], "since", "until", "limit"}}``.

        Raises:
            InvalidRequest: a field, a reviewer who is not one, fewer reviewers than ``k``, or
                a source with no round whose two answers came (``no_rounds``).
        """
        name = body.get("name")
        if not isinstance(name, str) or not 0 < len(name.strip()) <= 100:
            raise InvalidRequest("name must be 1 to 100 characters", details={"name": ["1..100"]})
        k = body.get("k", 2)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 20:
            raise InvalidRequest("k must be a whole number from 1 to 20", details={"k": ["1..20"]})
        wanted = body.get("reviewers")
        if not isinstance(wanted, list) or not all(isinstance(r, str) for r in wanted):
            raise InvalidRequest("reviewers must be a list of user ids", details={"reviewers": []})
        roles = {m.user.id: m.user.role for m in await self._members.members()}
        reviewers = list(dict.fromkeys(wanted))
        strangers = [r for r in reviewers if roles.get(r) not in ("reviewer", "admin")]
        if strangers:
            raise InvalidRequest(
                "every reviewer must be a user with the reviewer or admin role",
                details={"reviewers": strangers},
            )
        if len(reviewers) < k:
            raise InvalidRequest(
                f"{k} reviews an item need at least {k} reviewers", details={"reviewers": []}
            )
        source = body.get("source")
        if isinstance(source, dict) and "prompts" in source:
            prompts, pair = await self._prompts(source)
            queue_id = await self._store.create(
                name.strip(), k, dict(source), reviewers, [], actor, pending=len(prompts)
            )
            task = asyncio.create_task(self._play(queue_id, prompts, pair))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return queue_id
        matchups = await self._rounds(source)
        if not matchups:
            raise ArenaError(
                "The source has no round whose two answers both came",
                status=400,
                code="no_rounds",
            )
        return await self._store.create(name.strip(), k, dict(source), reviewers, matchups, actor)  # type: ignore[arg-type]

    async def _prompts(
        self, source: Mapping[str, Any]
    ) -> tuple[list[str], tuple[ModelEntry, ModelEntry] | None]:
        """A list of prompts' source: the prompts, and the pair of models that answers them
        (``models``, two ids of playable models) or none (the matchmaker draws per prompt)."""
        if set(source) - {"prompts", "models"}:
            raise InvalidRequest("source takes prompts and models", details={"source": ["keys"]})
        prompts = source.get("prompts")
        if (
            not isinstance(prompts, list)
            or not 0 < len(prompts) <= _MAX_PROMPTS
            or not all(isinstance(p, str) and 0 < len(p.strip()) <= 20_000 for p in prompts)
        ):
            raise InvalidRequest(
                f"prompts must be 1 to {_MAX_PROMPTS} texts of 1 to 20,000 characters",
                details={"prompts": ["texts"]},
            )
        if self._rounds_source is None:  # pragma: no cover - bootstrap always passes it
            raise ArenaError("Rounds cannot be played here", status=503, code="starting")
        pair = None
        models = source.get("models")
        if models is not None:
            if not isinstance(models, list) or len(models) != 2:
                raise InvalidRequest("models must be two model ids", details={"models": ["pair"]})
            roster = {str(m.id): m for m in await self._rounds_source.playable_roster()}
            chosen = [roster.get(str(m)) for m in models]
            if None in chosen or chosen[0] == chosen[1]:
                raise InvalidRequest(
                    "models must be two different models that can answer now",
                    details={"models": ["playable"]},
                )
            pair = (chosen[0], chosen[1])
        return [p.strip() for p in prompts], pair  # type: ignore[return-value]

    async def _play(
        self, queue_id: uuid.UUID, prompts: list[str], pair: tuple[ModelEntry, ModelEntry] | None
    ) -> None:
        """Play each prompt as a headless blind round, in order; a round whose answers both
        came becomes an item (a failed one is left out), and the queue counts down."""
        assert self._rounds_source is not None
        for position, prompt in enumerate(prompts, start=1):
            matchup_id = None
            try:
                request = parse_command(
                    ChatRequest, {"prompt": prompt, "sessionId": f"review:{queue_id}"}
                )
                round_ = await self._rounds_source.start_round(
                    request, options=RoundOptions(protocol="review", pair=pair)
                )
                failed = False
                async with contextlib.aclosing(round_.events()) as events:
                    async for event in events:
                        failed = failed or getattr(event, "type", "") in ("slot_error", "run_error")
                if not failed:
                    matchup_id = uuid.UUID(round_.started.matchup_id)
            except (asyncio.CancelledError, ShuttingDown):
                raise
            except Exception:
                _log.exception("a review queue's round failed (queue %s)", queue_id)
            with contextlib.suppress(Exception):
                await self._store.add_round(queue_id, position, matchup_id)

    async def close(self) -> None:
        """Stop playing queues' rounds (the server stops)."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _rounds(self, source: Any) -> list[uuid.UUID]:
        if isinstance(source, dict) and set(source) == {"suiteRun"}:
            return (await self._store.suite_rounds(_uuid(source["suiteRun"], "suite run")))[
                :_MAX_ITEMS
            ]
        if (
            isinstance(source, dict)
            and set(source) == {"rounds"}
            and isinstance(source["rounds"], dict)
        ):
            rounds = source["rounds"]
            category = rounds.get("category")
            if category is not None and not isinstance(category, str):
                raise InvalidRequest("category must be text", details={"category": ["text"]})
            models = rounds.get("models")
            if models is not None:
                if not isinstance(models, list) or len(models) != 2:
                    raise InvalidRequest(
                        "models must be two model ids", details={"models": ["[id, id]"]}
                    )
                models = [_uuid(m, "model") for m in models]
            limit = rounds.get("limit", 50)
            if (
                not isinstance(limit, int)
                or isinstance(limit, bool)
                or not 1 <= limit <= _MAX_ITEMS
            ):
                raise InvalidRequest(
                    f"limit must be from 1 to {_MAX_ITEMS}", details={"limit": ["range"]}
                )
            return await self._store.stored_rounds(
                category,
                models,
                _when(rounds.get("since"), "since"),
                _when(rounds.get("until"), "until"),
                limit,
            )
        raise InvalidRequest(
            'source must be {"suiteRun": id} or {"rounds": {...}}', details={"source": ["shape"]}
        )

    async def queues(self, grant: Grant) -> list[Any]:
        """Every queue for an admin; a reviewer's own otherwise."""
        return await self._store.queues(None if grant.role == "admin" else grant.user_id)

    async def queue(self, raw_id: str) -> tuple[Any, list[Any]]:
        """A queue and each reviewer's progress (admins)."""
        queue_id = _uuid(raw_id, "queue")
        queue = await self._store.queue(queue_id)
        if queue is None:
            raise NotFound("No such queue")
        return queue, await self._store.progress(queue_id)

    async def _assigned(self, raw_id: str, grant: Grant) -> uuid.UUID:
        queue_id = _uuid(raw_id, "queue")
        if await self._store.queue(queue_id) is None:
            raise NotFound("No such queue")
        if grant.user_id is None or not await self._store.is_reviewer(queue_id, grant.user_id):
            raise _forbidden()
        return queue_id

    async def next_item(self, raw_id: str, grant: Grant) -> tuple[Any | None, tuple[int, int]]:
        """The reviewer's next item (``None``: nothing left for them) and their progress."""
        queue_id = await self._assigned(raw_id, grant)
        assert grant.user_id is not None
        item = await self._store.next_item(queue_id, grant.user_id)
        return item, await self._store.my_progress(queue_id, grant.user_id)

    async def verdict(self, raw_item: str, body: Mapping[str, Any], grant: Grant) -> None:
        """Raises: InvalidRequest, NotFound, 403 ``not_a_reviewer_of_this_queue``, 409
        ``already_reviewed`` or ``item_complete``."""
        vote = body.get("vote")
        if vote not in VOTES:
            raise InvalidRequest(
                f"vote must be one of {', '.join(VOTES)}", details={"vote": ["unknown"]}
            )
        given = body.get("reasons") or []
        if not isinstance(given, list) or not all(isinstance(r, str) for r in given):
            raise InvalidRequest("reasons must be a list", details={"reasons": ["list"]})
        reasons = self._reasons.check(given)
        comment = body.get("comment")
        if comment is not None and (not isinstance(comment, str) or len(comment) > _MAX_COMMENT):
            raise InvalidRequest(
                f"comment must be text of at most {_MAX_COMMENT} characters",
                details={"comment": ["text"]},
            )
        if grant.user_id is None:
            raise _forbidden()
        result = await self._votes.record_review(
            ReviewVerdict(
                _uuid(raw_item, "item"),
                grant.user_id,
                vote,
                reasons,
                (comment or "").strip() or None,
            )
        )
        if result == "not_found":
            raise NotFound("No such item")
        if result == "not_reviewer":
            raise _forbidden()
        if result == "duplicate":
            raise ArenaError(
                "You have reviewed this item already", status=409, code="already_reviewed"
            )
        if result == "complete":
            raise ArenaError(
                "This item has all the reviews it needs", status=409, code="item_complete"
            )

    async def agreement(self, raw_id: str) -> QueueAgreement:
        queue, _ = await self.queue(raw_id)
        verdicts = await self._store.verdicts(queue["id"])
        labels = {m.user.id: m.user.label for m in await self._members.members()}
        return QueueAgreement(queue, queue_agreement(verdicts, queue["k"]), labels)
