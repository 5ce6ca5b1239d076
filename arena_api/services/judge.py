"""The LLM judge: asks the judge model of ``models.yaml`` which answer of a matchup is better,
and records its verdict as the matchup's vote (``method = 'judge'``).

A voter asks through ``POST /api/arena/matchups/{id}/judge`` or the arena page's "Ask the
judge" button (``ask``, with the matchup's vote token, once both answers are in); the shadow
auto-judge and suite runs call ``judge`` directly. Either way the judge sees the conversation so
far, the prompt and both answers, anonymised, in an order drawn at random (with ``swap``, in
both orders); its verdict claims the matchup's one vote through the same constraint a person's
vote does, and is stored with its reasoning and cost whether or not it won that claim.
``arena judge backfill`` (``JudgeBackfill``) calls ``judge`` too, on rounds people voted on: its
verdicts are stored and never claim a vote.

A prompt's images go with it to a judge that reads images (``vision: true`` in the roster),
their bytes loaded from the image store; a judge that does not read them is told how many there
were and that it cannot see them (``arena_api.core.judging.image_note``), and judges the text.

A verdict that cannot be read is an ``unparseable`` outcome: stored, never a vote, never an
exception. A judge endpoint that fails is a ``failed`` outcome (stored; the voter hears 502
``judge_failed``).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from arena_api.core.cost import bill, estimate_prompt_tokens
from arena_api.core.errors import ArenaError, NotFound, ProviderError, VoteError
from arena_api.core.judging import (
    Judgement,
    JudgementSource,
    Reading,
    combine,
    history_before,
    judge_messages,
    outcome_vote,
    slot_choice,
)
from arena_api.core.media import ChatImage, ImageRef
from arena_api.core.models import ChatMessage, ModelEntry, Slot
from arena_api.core.ports import (
    ProviderResolver,
    RoundReads,
)
from arena_api.core.records import DECISIVE_VOTES, MatchupRecord
from arena_api.core.verdicts import parse_verdict
from arena_api.core.views import JudgeReading, JudgeReveal, JudgeView
from arena_api.core.votes import cast_vote
from arena_api.services._reveal import reveal
from arena_api.services.rounds import ArenaService
from arena_api.services.votes import VoteRecorder

__all__ = ["JudgeModel", "JudgeService", "RoundImages"]


class RoundImages(Protocol):
    """A round's images as the judge reads them (``arena_api.db.media.PostgresImages``)."""

    async def of_round(self, matchup_id: uuid.UUID) -> tuple[ImageRef, ...]:
        """The images of the round's prompt, in order."""
        ...

    async def load(self, refs: Iterable[ImageRef]) -> dict[str, bytes]:
        """The bytes of each image by its SHA-256 (one deleted meanwhile is left out)."""
        ...


@dataclass(frozen=True)
class JudgeModel:
    """The judge of ``models.yaml``: the model to call, its prompt, whether to swap."""

    model: ModelEntry
    template: str
    swap: bool = False


@dataclass(frozen=True)
class _Material:
    """What the judge reads of a matchup: the conversation so far, the prompt and its images
    (with their bytes when the judge reads images), both answers."""

    history: str
    prompt: str
    answers: Mapping[Slot, str]
    images: tuple[ChatImage, ...] = ()
    vision: bool = False

    def messages(self, template: str, shown_first: Slot) -> list[ChatMessage]:
        """The judge's messages with ``shown_first``'s answer as "Answer A"."""
        second: Slot = "B" if shown_first == "A" else "A"
        return judge_messages(
            template,
            self.history,
            self.prompt,
            self.answers[shown_first],
            self.answers[second],
            images=self.images,
            vision=self.vision,
        )


@dataclass(frozen=True)
class _Call:
    text: str
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal | None


class JudgeService:
    def __init__(
        self,
        *,
        arena: ArenaService,
        repository: RoundReads,
        votes: VoteRecorder,
        providers: ProviderResolver,
        judge: JudgeModel | None,
        timeout_s: float,
        rng: random.Random | None = None,
        images: RoundImages | None = None,
    ) -> None:
        self._arena = arena
        self._repo = repository
        self._votes = votes
        self._providers = providers
        self._judge = judge
        self._timeout_s = timeout_s
        self._rng = rng or random.SystemRandom()
        #: The rounds' images; none: the judge is neither sent images nor told of them.
        self._images = images

    @property
    def judge_name(self) -> str | None:
        """The judge's display name; None when no judge is configured."""
        return self._judge.model.display_name if self._judge else None

    def require_judge(self) -> JudgeModel:
        """The configured judge.

        Raises:
            ArenaError: 404 ``judge_not_configured`` when the roster names none.
        """
        if self._judge is None:
            raise ArenaError(
                "No judge is configured (add a `judge:` to models.yaml)",
                status=404,
                code="judge_not_configured",
            )
        return self._judge

    async def ask(self, matchup_id: uuid.UUID, matchup_token: str) -> JudgeReveal:
        """A voter asks the judge to vote on their matchup.

        Raises:
            VoteError: as a vote would (401 token, 403 shadow, 404 unknown), and 409
                ``already_voted`` when the matchup has a vote (before or while the judge read).
            ArenaError: 404 ``judge_not_configured``; 409 ``answers_pending`` before both
                answers are stored; 502 ``judge_failed`` when the judge's endpoint failed.
        """
        self.require_judge()
        matchup, _ = await self._arena.votable_matchup(matchup_id, matchup_token)
        if matchup.vote is not None:
            raise VoteError(
                "A vote was already recorded for this matchup", status=409, code="already_voted"
            )
        judgement, recorded = await self.judge(matchup, source="request")
        if judgement.outcome == "failed":
            raise ArenaError(
                "The judge did not answer; try again or vote yourself",
                status=502,
                code="judge_failed",
            )
        if judgement.vote is not None and not recorded:
            raise VoteError(
                "A vote was recorded for this matchup while the judge read it",
                status=409,
                code="already_voted",
            )
        return JudgeReveal(
            accepted=recorded,
            vote=judgement.vote if recorded else None,
            judge=_view(judgement),
            models=reveal(matchup) if recorded else None,
            continuable=recorded and judgement.vote in DECISIVE_VOTES,
            conversation_id=str(matchup.conversation_id)
            if recorded and matchup.conversation_id
            else None,
        )

    async def judge(
        self, matchup: MatchupRecord | uuid.UUID, *, source: JudgementSource
    ) -> tuple[Judgement, bool]:
        """Judge a matchup and record the verdict (and its vote, if it makes one and the matchup
        has none yet): the judgement and whether its vote was recorded.

        Raises:
            ArenaError: 404 ``judge_not_configured``; 404 for an unknown matchup; 409
                ``answers_pending`` before both answers are stored.
        """
        judge = self.require_judge()
        matchup = await self._matchup(matchup)
        material = await self._material(matchup, vision=judge.model.vision, with_bytes=True)
        first: Slot = self._rng.choice(("A", "B"))
        orders: list[Slot] = [first, "B" if first == "A" else "A"] if judge.swap else [first]
        readings: list[Reading] = []
        calls: list[_Call] = []
        error: str | None = None
        for shown_first in orders:
            messages = material.messages(judge.template, shown_first)
            try:
                call = await self._call(judge.model, messages)
            except ProviderError as exc:
                error = str(exc) or type(exc).__name__
                break
            calls.append(call)
            parsed = parse_verdict(call.text)
            readings.append(
                Reading(
                    shown_first=shown_first,
                    text=call.text,
                    reasoning=parsed.reasoning,
                    outcome=slot_choice(parsed.choice, shown_first),
                )
            )
        outcome = "failed" if error is not None else combine(readings)
        vote = outcome_vote(outcome)
        priced = [c.cost_usd for c in calls if c.cost_usd is not None]
        judgement = Judgement(
            matchup_id=matchup.id,
            source=source,
            judge_name=judge.model.display_name,
            judge_provider=judge.model.provider,
            judge_model_id=judge.model.provider_model_id,
            outcome=outcome,
            vote=vote,
            swapped=judge.swap,
            readings=tuple(readings),
            reasoning=_reasoning(readings),
            input_tokens=sum(c.input_tokens for c in calls),
            output_tokens=sum(c.output_tokens for c in calls),
            cost_usd=sum(priced, Decimal(0)) if calls and len(priced) == len(calls) else None,
            error=error,
        )
        cast = None
        if vote is not None and source != "backfill":  # a second opinion is never the vote
            cast = cast_vote(matchup, vote, method="judge", source=source)
        return judgement, await self._votes.record_judgement(judgement, cast)

    async def prompt_tokens(self, matchup_id: uuid.UUID) -> int:
        """The prompt tokens judging a matchup would send, every reading's, as estimated from
        the stored text (the same messages ``judge`` sends; a provider counts its own).

        Raises:
            ArenaError: as ``judge`` does before it calls the judge.
        """
        judge = self.require_judge()
        matchup = await self._matchup(matchup_id)
        # the same text as the judge is sent; the images' bytes are not counted, nor loaded
        material = await self._material(matchup, vision=judge.model.vision, with_bytes=False)
        return self.readings * estimate_prompt_tokens(material.messages(judge.template, "A"))

    @property
    def readings(self) -> int:
        """How many times the judge reads each matchup: twice when it swaps the order."""
        return 2 if self._judge is not None and self._judge.swap else 1

    async def _matchup(self, matchup: MatchupRecord | uuid.UUID) -> MatchupRecord:
        if isinstance(matchup, MatchupRecord):
            return matchup
        found = await self._repo.get_matchup(matchup)
        if found is None:
            raise NotFound("Matchup not found", code="matchup_not_found")
        return found

    async def _material(
        self, matchup: MatchupRecord, *, vision: bool, with_bytes: bool
    ) -> _Material:
        """What the judge reads of ``matchup`` (the images' bytes only for a judge that reads
        images, ``vision``, and ``with_bytes``).

        Raises:
            ArenaError: 409 ``answers_pending`` before both answers are stored.
        """
        content = await self._repo.get_matchup_content(matchup.id)
        answers = {a.slot: a.content for a in content[1]} if content else {}
        if content is None or set(answers) != {"A", "B"}:
            raise ArenaError(
                "Both answers must be in before the judge can read them",
                status=409,
                code="answers_pending",
            )
        conversation = (
            await self._repo.get_conversation(matchup.conversation_id)
            if matchup.conversation_id and matchup.turn_index
            else None
        )
        images = await self._round_images(matchup.id, with_bytes=vision and with_bytes)
        return _Material(
            history_before(conversation, matchup.turn_index),
            content[0],
            answers,
            images,
            vision,
        )

    async def _round_images(
        self, matchup_id: uuid.UUID, *, with_bytes: bool
    ) -> tuple[ChatImage, ...]:
        """The images of the round's prompt: references only, or with their bytes (an image
        deleted meanwhile, by text retention, is left out)."""
        if self._images is None:
            return ()
        refs = await self._images.of_round(matchup_id)
        if not refs or not with_bytes:
            return tuple(ChatImage(r) for r in refs)
        found = await self._images.load(refs)
        return tuple(ChatImage(r, found[r.sha256]) for r in refs if r.sha256 in found)

    async def _call(self, model: ModelEntry, messages: Sequence[ChatMessage]) -> _Call:
        """The judge's whole answer to ``messages``, with its tokens and cost.

        Raises:
            ProviderError: the endpoint failed, is not configured, or fell silent past the
                judge's timeout.
        """
        provider = self._providers.resolve(model.provider)
        parts: list[str] = []
        reported_input: int | None = None
        reported_output: int | None = None
        try:
            async with asyncio.timeout(self._timeout_s):
                async for chunk in provider.stream(model, messages):
                    parts.append(chunk.text)
                    if chunk.input_tokens is not None:
                        reported_input = chunk.input_tokens
                    if chunk.output_tokens is not None:
                        reported_output = chunk.output_tokens
        except TimeoutError:
            raise ProviderError(f"the judge gave no verdict within {self._timeout_s:g} s") from None
        text = "".join(parts)
        billed = bill(
            messages=messages,
            content=text,
            reported_input=reported_input,
            reported_output=reported_output,
            prices=model.prices,
        )
        return _Call(text, billed.input_tokens, billed.output_tokens, billed.cost_usd)


def _reasoning(readings: Sequence[Reading]) -> str:
    """The judge's reasoning, each reading's, saying which answer the judge called "Answer A"
    (it saw them in a drawn order, and its words follow that order, not the page's)."""
    parts = []
    for r in readings:
        if r.shown_first == "A":
            parts.append(r.reasoning)
        else:
            parts.append(f'(The judge read B first: its "Answer A" is B.) {r.reasoning}')
    return "\n\n".join(parts)


def _view(judgement: Judgement) -> JudgeView:
    return JudgeView(
        name=judgement.judge_name,
        outcome=judgement.outcome,
        reasoning=judgement.reasoning,
        swapped=judgement.swapped,
        readings=[
            JudgeReading(shown_first=r.shown_first, outcome=r.outcome) for r in judgement.readings
        ],
        input_tokens=judgement.input_tokens,
        output_tokens=judgement.output_tokens,
        cost_usd=None if judgement.cost_usd is None else float(judgement.cost_usd),
    )
