"""What the chat front writes into a chat UI: answers laid out as Markdown, reveals, standings.

An OpenAI chat UI shows one text per request, so everything the arena's own UI shows as controls
becomes text here: the duel's two headed answers, a failed answer's marked line, the vote
commands, the reveal after a vote and the leaderboard as a table. Nothing written before a vote
names a model.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Mapping

from arena_api.core.events import (
    SLOT_ERROR_MARKER,
    PublicEvent,
    RunError,
    SlotDone,
    SlotError,
    Token,
)
from arena_api.core.lifecycle import ACTIVE, STATUS_NOTES
from arena_api.core.models import Slot
from arena_api.core.records import DECISIVE_VOTES, Vote, winner_slot
from arena_api.core.views import LeaderboardView, RevealedModels

__all__ = [
    "COMMANDS",
    "VOTE_COMMANDS",
    "already_voted_text",
    "column_text",
    "command_of",
    "duel_text",
    "fresh_note",
    "help_text",
    "leaderboard_text",
    "ref_line",
    "reveal_text",
    "single_text",
    "unknown_ref_text",
]

#: The vote commands and the vote each records.
VOTE_COMMANDS: Mapping[str, Vote] = {
    "!a": "left",
    "!b": "right",
    "!tie": "both_good",
    "!bad": "both_bad",
    "!skip": "skip",
}
COMMANDS = frozenset({*VOTE_COMMANDS, "!leaderboard", "!help"})
_ALIASES = {"!lb": "!leaderboard", "!board": "!leaderboard", "!commands": "!help"}

#: Where the chat id comes from, for the lines that say how to turn it on.
CHAT_ID_SETTING = "`ENABLE_FORWARD_USER_INFO_HEADERS=true`"

_VOTE_LINES: Mapping[str, str] = {
    "left": "Answer A is better",
    "right": "Answer B is better",
    "both_good": "both answers are good (a tie)",
    "both_bad": "both answers are bad",
    "skip": "skipped, no preference",
}


_NO_WINNER = {"both_good": "a tie", "both_bad": "both bad", "skip": "a skip"}


def command_of(prompt: str) -> str | None:
    """The command a message is (``!a``, ``!leaderboard``, ...), or ``None`` for a prompt."""
    word = prompt.strip().lower().rstrip(".!?")
    if word and not word.startswith("!"):
        return None
    word = "!" + word.lstrip("!")
    word = _ALIASES.get(word, word)
    return word if word in COMMANDS else None


# -- answers -------------------------------------------------------------------------------------


def _heading(slot: Slot) -> str:
    return f"### Answer {slot}\n\n"


def _failure(slot: Slot | None, message: str) -> str:
    what = f"Answer {slot}" if slot else "This answer"
    return f"\n\n> ⚠️ **{what} failed:** {message} `{SLOT_ERROR_MARKER}`\n"


_EMPTY = "*(The model returned an empty answer.)*"


def _unclosed_fence(text: str) -> str:
    """The fence that closes a code block an answer left open, so the next heading renders."""
    opened = sum(1 for line in text.splitlines() if line.lstrip().startswith("```")) % 2
    return "\n```" if opened else ""


_VOTE_HELP = (
    "Which answer is better? Reply **`!a`** or **`!b`** · `!tie` both good · `!bad` both bad · "
    "`!skip` · `!help`"
)


def ref_line(ref: str) -> str:
    """The line that ends a duel reply when the chat sends no chat id: it names the duel for
    the votes and follow-ups the client sends back with it (``_duel_refs``). Plain text, on a
    paragraph of its own, so rendering or stripping Markdown leaves it as it is."""
    return f"Duel ref: {ref}"


def _duel_footer(ref: str | None) -> str:
    footer = f"\n\n---\n{_VOTE_HELP}"
    return footer + f"\n\n{ref_line(ref)}" if ref else footer


def _column_footer(slot: Slot) -> str:
    own = "!a" if slot == "A" else "!b"
    return (
        f"\n\n---\nReply **`{own}`** if this column (Arena {slot}) is better · `!tie` · `!bad` · "
        "`!skip`"
    )


class _Answer:
    """One slot's text as it streams: whether anything arrived, and the text so far."""

    def __init__(self) -> None:
        self.text = ""
        self.failed = False

    def add(self, piece: str) -> str:
        self.text += piece
        return piece

    def close(self) -> str:
        """What ends the answer: nothing, or the placeholder of an empty one."""
        return "" if self.text.strip() or self.failed else _EMPTY


async def _events(events: AsyncGenerator[PublicEvent, None]) -> AsyncIterator[PublicEvent]:
    async with contextlib.aclosing(events) as stream:
        async for event in stream:
            yield event


async def duel_text(
    events: AsyncGenerator[PublicEvent, None], *, note: str | None, ref: str | None = None
) -> AsyncGenerator[str, None]:
    """Both answers in one message: A streams live under its heading, B follows (held back
    while A streams, then live), then the vote line and, for a chat known by no chat id, the
    duel's reference as the last line."""
    if note:
        yield note
    yield _heading("A")
    answers = {"A": _Answer(), "B": _Answer()}
    held: list[str] = []
    a_done = False

    def route(slot: Slot, piece: str) -> str:
        answers[slot].add(piece)
        if slot == "A" or a_done:
            return piece
        held.append(piece)
        return ""

    async for event in _events(events):
        if isinstance(event, Token):
            yield route(event.slot, event.token)
        elif isinstance(event, SlotError):
            answers[event.slot].failed = True
            yield route(event.slot, _failure(event.slot, event.message))
        elif isinstance(event, SlotDone):
            yield route(event.slot, answers[event.slot].close())
            if event.slot == "A":
                a_done = True
                yield _unclosed_fence(answers["A"].text) + "\n\n" + _heading("B") + "".join(held)
        elif isinstance(event, RunError):
            yield _failure(None, event.message)
            return
    yield _unclosed_fence(answers["B"].text) + _duel_footer(ref)


async def column_text(
    events: AsyncGenerator[PublicEvent, None], slot: Slot, *, note: str | None
) -> AsyncGenerator[str, None]:
    """One compare column: its slot's answer, then the vote line naming its own command."""
    if note:
        yield note
    answer = _Answer()
    async for event in _events(events):
        if isinstance(event, Token) and event.slot == slot:
            yield answer.add(event.token)
        elif isinstance(event, SlotError) and event.slot == slot:
            answer.failed = True
            yield _failure(slot, event.message)
        elif isinstance(event, SlotDone) and event.slot == slot:
            yield answer.close()
        elif isinstance(event, RunError):
            yield _failure(None, event.message)
            return
    yield _unclosed_fence(answer.text) + _column_footer(slot)


async def single_text(events: AsyncGenerator[PublicEvent, None]) -> AsyncGenerator[str, None]:
    """One model's answer, as it is."""
    answer = _Answer()
    async for event in _events(events):
        if isinstance(event, Token):
            yield answer.add(event.token)
        elif isinstance(event, SlotError):
            answer.failed = True
            yield _failure(None, event.message)
        elif isinstance(event, SlotDone):
            yield answer.close()
        elif isinstance(event, RunError):
            yield _failure(None, event.message)


def fresh_note(last_vote: str | None) -> str:
    """The first line of a round that could not continue the chat's arena conversation."""
    if last_vote is None:
        why = "The last round got no vote"
    elif last_vote in DECISIVE_VOTES:
        why = "The last round's winning answer cannot be continued"
    else:
        why = f"The last vote ({_NO_WINNER.get(last_vote, last_vote)}) picked no winner"
    return f"*{why}, so this starts a fresh conversation with a new blind pair.*\n\n"


# -- votes ---------------------------------------------------------------------------------------


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _identities(models: RevealedModels, vote: str) -> str:
    winner = winner_slot(vote)
    rows = ["| Answer | Model |", "|---|---|"]
    for slot, identity in (("A", models.A), ("B", models.B)):
        name = _escape(identity.display_name)
        rows.append(
            f"| {slot} | **{name}** (winner) |" if slot == winner else f"| {slot} | {name} |"
        )
    return "\n".join(rows)


def _own_column(models: RevealedModels, column: Slot | None, vote: str) -> str:
    if column is None:
        return ""
    name = _escape((models.A if column == "A" else models.B).display_name)
    verdict = {column: " — the winner", None: ""}.get(winner_slot(vote), " — not the winner")
    return f"**This column (Arena {column}) was {name}**{verdict}.\n\n"


def reveal_text(models: RevealedModels, vote: Vote, *, column: Slot | None) -> str:
    """The reveal after a vote; a compare column names its own model first."""
    if vote in DECISIVE_VOTES:
        slot = winner_slot(vote)
        after = f"Your next message continues this conversation from Answer {slot}."
    else:
        after = "Your next message starts a fresh conversation with a new blind pair."
    return (
        f"{_own_column(models, column, vote)}**Vote recorded: {_VOTE_LINES[vote]}.**\n\n"
        f"{_identities(models, vote)}\n\n{after}"
    )


def already_voted_text(models: RevealedModels, vote: str, *, column: Slot | None) -> str:
    """The answer to a second vote on a round: what was recorded, and who the models were."""
    return (
        f"{_own_column(models, column, vote)}This round already has a vote "
        f"({_VOTE_LINES.get(vote, vote)}), so nothing changed. Ask something new to start the "
        f"next round.\n\n{_identities(models, vote)}"
    )


NOTHING_TO_VOTE = (
    "There is no round to vote on in this chat yet: ask something first, then vote with "
    "`!a`, `!b`, `!tie`, `!bad` or `!skip`."
)
NO_DUEL_ABOVE = (
    "There is no arena duel above this message to vote on. A vote answers the latest "
    "**Arena · Duel** (`arena-duel`) reply, found by the `Duel ref: arena-…` line that ends it: "
    "ask something with `arena-duel` first, and keep that line when your client edits the "
    "conversation. Then vote with `!a`, `!b`, `!tie`, `!bad` or `!skip`."
)


def unknown_ref_text(ref: str) -> str:
    """The answer to a vote whose duel reference this arena never issued."""
    return (
        f"The duel reference above (`{ref}`) is not one this arena issued: it was changed, or it "
        "comes from another arena server. **No vote was recorded.** Vote right after an "
        "unchanged **Arena · Duel** reply of this server."
    )


NO_CHAT_ID_COLUMN = (
    "The side-by-side arena needs the chat id to pair its two columns, which Open WebUI sends "
    f"only with {CHAT_ID_SETTING}: set it on Open WebUI and restart it. Until then, use "
    "**Arena · Duel**."
)
UNPAIRED_COLUMN = (
    "**Arena {slot}** is one column of a side-by-side pair: select **Arena A** and **Arena B** "
    "together (the **+** beside the model name), or use **Arena · Duel** for both answers in one "
    "message."
)
SAME_SLOT_COLUMN = (
    "Both columns asked for **Arena {slot}**: select **Arena A** and **Arena B**, one of each."
)
JOIN_OFF_COLUMN = (
    "Side-by-side rounds are turned off on this server (`ARENA_JOIN_WINDOW_MS=0`): use "
    "**Arena · Duel**."
)


# -- standings and help --------------------------------------------------------------------------


def leaderboard_text(board: LeaderboardView) -> str:
    """The standings as a Markdown table: rating ± interval once fitted, else the win rate;
    a paused or archived model's name says so."""
    if not board.models:
        return "**Leaderboard**\n\nNo models are enabled."
    rated = any(m.rating is not None for m in board.models)
    if rated:
        rows = ["| # | Model | Rating | 95% CI | Win rate | W / L / T | Votes |"]
        rows.append("|---:|---|---:|---|---:|---|---:|")
    else:
        rows = ["| # | Model | Win rate | W / L / T | Votes |", "|---:|---|---:|---|---:|"]
    for position, m in enumerate(board.models, start=1):
        record = f"{m.wins} / {m.losses} / {m.ties}"
        rate = f"{m.win_rate * 100:.1f}%" if m.decided else "–"
        name = _escape(m.display_name)
        if m.status != ACTIVE:
            name += f" ({m.status})"
        if not rated:
            rows.append(f"| {position} | {name} | {rate} | {record} | {m.total_votes} |")
            continue
        rank = m.rank_range.label if m.rank_range is not None else "–"
        if m.provisional:
            name += " *"
        rating = f"{m.rating:.0f}" if m.rating is not None else "unrated"
        interval = m.confidence_interval
        ci = f"{interval.lower:.0f}–{interval.upper:.0f}" if interval else "–"
        rows.append(f"| {rank} | {name} | {rating} | {ci} | {rate} | {record} | {m.total_votes} |")
    votes = sum(m.total_votes for m in board.models) // 2
    if rated:
        caption = "Bradley-Terry ratings with 95% confidence intervals"
        if any(m.rank_range and m.rank_range.best != m.rank_range.worst for m in board.models):
            caption += "; # is every rank the interval allows"
        if any(m.provisional for m in board.models):
            caption += "; * provisional (too few votes or too wide an interval), listed last"
    else:
        caption = "no rating fit yet, so ranked by win rate; ratings follow the next fit"
    for status, note in STATUS_NOTES.items():
        if any(m.status == status for m in board.models):
            caption += f"; {note}"
    counted = f"{votes} vote" if votes == 1 else f"{votes} votes"
    return f"**Leaderboard** · {counted} · {caption}\n\n" + "\n".join(rows)


def help_text() -> str:
    return (
        "**Arena commands**\n\n"
        "- `!a` / `!b` — Answer A / Answer B is better\n"
        "- `!tie` — both are good · `!bad` — both are bad · `!skip` — no preference\n"
        "- `!leaderboard` — the standings\n"
        "- `!help` — this list\n\n"
        "**Arena models**: *Arena · Duel* shows both anonymous answers in one message. Select "
        "*Arena A* and *Arena B* together (the **+** beside the model name) for two columns side "
        "by side. *Arena · Single* answers with one hidden model and takes no vote. A vote "
        "reveals both models; after `!a` or `!b`, your next message continues from the winner."
    )
