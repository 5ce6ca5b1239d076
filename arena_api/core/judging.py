"""An LLM judge's side of a matchup: what it is shown, and what its verdicts mean.

The judge sees the conversation so far, the prompt and both answers, never a model's name.
The order it sees them in is drawn at random for each matchup, so a judge that favours the first
(or second) answer it reads favours no slot; with ``swap`` it judges twice, once in each order,
and a disagreement between the two readings becomes a tie. Verdicts are read in the judge's
terms (the first or second answer shown, "A" and "B" in its prompt) and mapped back to slots
here. Pure.

A prompt's images go to a judge that reads images (``vision``) on its message, and its prompt
says they are there; a judge that does not read them is told plainly how many there were and
that it cannot see them, and still gives its verdict on the text.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from arena_api.core.media import ChatImage
from arena_api.core.models import ChatMessage, Slot
from arena_api.core.records import ConversationRecord, Vote, winner_slot
from arena_api.core.verdicts import Choice

__all__ = [
    "DEFAULT_PROMPT",
    "PLACEHOLDERS",
    "SYSTEM_PROMPT",
    "Judgement",
    "JudgementSource",
    "Outcome",
    "Reading",
    "combine",
    "history_before",
    "image_note",
    "judge_messages",
    "outcome_vote",
    "slot_choice",
]

#: A matchup's judged outcome in slot terms: a slot wins, a tie, both bad, no readable verdict,
#: or no verdict at all (the judge's endpoint failed).
Outcome = Literal["A", "B", "tie", "both_bad", "unparseable", "failed"]
#: Who asked: a voter (the route or the UI), the shadow auto-judge, a suite run, or ``arena judge
#: backfill`` (a second opinion on a round a person voted on, to check the judge against people:
#: stored, never a vote).
JudgementSource = Literal["request", "autojudge", "suite", "backfill"]

SYSTEM_PROMPT = (
    "You are an impartial judge of AI assistants. Compare two answers to the user's last "
    "message, considering the conversation before it. Judge helpfulness, correctness, depth "
    "and clarity; ignore length for its own sake, the order the answers are shown in, and any "
    "name an answer gives itself."
)

#: What the judge is asked; ``models.yaml`` may replace it (``judge.prompt``). Every
#: placeholder must appear in a replacement.
DEFAULT_PROMPT = """{conversation}[The user's message]
{prompt}

[Answer A]
{answer_a}

[Answer B]
{answer_b}

Which answer is better? Reply with one JSON object and nothing else:
{{"reasoning": "<two or three sentences>", "verdict": "A" | "B" | "tie" | "both_bad"}}
Use "tie" when both are good and equal, "both_bad" when neither is acceptable."""

PLACEHOLDERS = ("{conversation}", "{prompt}", "{answer_a}", "{answer_b}")
_FIELD = re.compile(r"\{(conversation|prompt|answer_a|answer_b)\}|\{\{|\}\}")


def history_before(conversation: ConversationRecord | None, turn_index: int | None) -> str:
    """The turns before ``turn_index`` as the judge reads them: each prompt and the answer the
    voter kept (the context both models were given)."""
    if conversation is None or not turn_index:
        return ""
    lines: list[str] = []
    for turn in conversation.turns:
        if turn.turn_index >= turn_index:
            break
        slot = winner_slot(turn.vote)
        answer = turn.answer(slot) if slot else None
        lines += [f"[User]\n{turn.prompt}" + _attached(len(turn.images))]
        if answer is not None:
            lines += [f"[Assistant]\n{answer.content}"]
    return "[The conversation so far]\n" + "\n\n".join(lines) + "\n\n" if lines else ""


def _images(count: int) -> str:
    return f"{count} image" if count == 1 else f"{count} images"


def _attached(count: int) -> str:
    """An earlier turn's images, named in the history (only the last prompt's are shown)."""
    return f"\n[{_images(count)} attached here, not shown to you]" if count else ""


def image_note(count: int, *, seen: bool) -> str:
    """What the judge is told of the prompt's ``count`` images: that they are attached to its
    message (``seen``), or that it cannot see them; empty for a prompt without images."""
    if not count:
        return ""
    if seen:
        return (
            f"[The user's message came with {_images(count)}, attached to this message in "
            "the order the user gave them.]"
        )
    return (
        f"[The user's message came with {_images(count)}, which you cannot see. Judge the "
        "answers on what you can check without them.]"
    )


def judge_messages(
    template: str,
    conversation: str,
    prompt: str,
    first: str,
    second: str,
    *,
    images: Sequence[ChatImage] = (),
    vision: bool = False,
) -> list[ChatMessage]:
    """The judge's messages, ``first`` shown as "Answer A" and ``second`` as "Answer B".

    Args:
        images: the prompt's images (only their references are read unless ``vision``).
        vision: the judge reads images: they go on its message; otherwise its prompt says how
            many there were and that it cannot see them.
    """
    note = image_note(len(images), seen=vision)
    if note:
        prompt = f"{prompt}\n\n{note}" if prompt else note
    values = {"conversation": conversation, "prompt": prompt, "answer_a": first, "answer_b": second}
    # One pass, so an answer that happens to contain "{prompt}" is never substituted into; the
    # template's literal braces are written doubled, as str.format templates write them.
    body = _FIELD.sub(lambda m: values[m.group(1)] if m.group(1) else m.group(0)[0], template)
    shown = tuple(images) if vision else ()
    return [ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", body, shown)]


def slot_choice(choice: Choice | None, shown_first: Slot) -> Outcome:
    """A verdict in the judge's terms ("A" = the answer shown first) in slot terms."""
    if choice is None:
        return "unparseable"
    if choice in ("tie", "both_bad"):
        return choice
    other: Slot = "B" if shown_first == "A" else "A"
    return shown_first if choice == "A" else other


@dataclass(frozen=True)
class Reading:
    """One call of the judge: the order it saw, what it wrote, and what that means in slots."""

    shown_first: Slot
    text: str
    reasoning: str
    outcome: Outcome


def combine(readings: Sequence[Reading]) -> Outcome:
    """The matchup's outcome: one reading's, or, swapped, both if they agree, else a tie.

    A reading that could not be parsed leaves the whole verdict ``unparseable``: there is no
    second opinion to check the other against.
    """
    outcomes = {r.outcome for r in readings}
    if "unparseable" in outcomes:
        return "unparseable"
    return outcomes.pop() if len(outcomes) == 1 else "tie"


_VOTES: dict[str, Vote] = {"A": "left", "B": "right", "tie": "both_good", "both_bad": "both_bad"}


def outcome_vote(outcome: Outcome) -> Vote | None:
    """The vote a judged outcome records; ``None`` for ``unparseable`` (never a vote)."""
    return _VOTES.get(outcome)


@dataclass(frozen=True)
class Judgement:
    """One judgement of a matchup, as stored: the judge, its readings, the combined outcome and
    the vote it makes (``None``: no vote), with what it cost."""

    matchup_id: uuid.UUID
    source: JudgementSource
    judge_name: str
    judge_provider: str
    judge_model_id: str
    outcome: Outcome
    vote: Vote | None
    swapped: bool
    readings: tuple[Reading, ...]
    reasoning: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: Decimal | None = None
    error: str | None = None
