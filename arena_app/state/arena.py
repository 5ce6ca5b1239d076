"""The arena page's state: one blind round at a time, streamed from ArenaService in-process.

Blindness: everything in a public var reaches the browser, so the vote token lives in a backend
var (``_token``) and identities enter public vars only from the vote's reveal.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import reflex as rx

from arena_api.core.errors import ArenaError, NotEnoughModels
from arena_api.core.events import (
    MatchupDone,
    MatchupStarted,
    RunError,
    SlotDone,
    SlotError,
    Steered,
    Token,
)
from arena_api.core.models import SLOTS
from arena_api.core.ratelimit import refusal_message
from arena_api.core.requests import ChatRequest, VoteRequest, parse_command
from arena_api.core.slot_errors import voter_message
from arena_api.core.views import RevealedModels
from arena_api.services import RoundOptions
from arena_api.services.live_feeds import LiveFeed
from arena_app.backend import services
from arena_app.formatting import dollars
from arena_app.state.attachments import Attachment, AttachmentsState
from arena_app.state.leaderboard import LeaderboardState
from arena_app.state.pane_text import freeze_blocks, shows_as_typed
from arena_app.state.vote_reasons import VoteReasonsState

# Each answer streams into a state of its own (``PaneAState``, ``PaneBState``), so that a flush
# re-renders one pane, not the page. Every token reaches the page at once through the round's
# live feed (``arena_api.services.live_feeds``); the state takes the words into the answer's
# Markdown when its line ends, a status comes or ``FOLD_S`` has passed and the words would look
# different as Markdown, at most once per ``FRAME_S``.
FRAME_S = 0.02
FOLD_S = 0.25
TAIL_CHARS = 1024
#: Example prompts a visit offers before its first round (drawn from ``ARENA_EXAMPLE_PROMPTS``).
EXAMPLES_SHOWN = 4
VOTE_LABELS = {
    "left": "A is better",
    "right": "B is better",
    "both_good": "Both are good",
    "both_bad": "Both are bad",
    "skip": "Skipped",
}


class LivePane(rx.State, mixin=True):
    """One answer as it streams (see ``pane_text``): its whole Markdown blocks, the block still
    open, and how much of the answer they hold (``folded``, in UTF-16 code units, as the browser
    counts). The page shows the rest, from the live feed, as plain text after the open block; in
    a code block (``in_code``) as code. Whole blocks only ever grow in number and the browser
    renders each once; Reflex sends a var whole when it changes, so a fold inside a block sends
    the open block alone and the list goes out only when a block ends. ``_text`` keeps the
    answer as the model wrote it."""

    blocks: list[str] = []
    open_block: str = ""
    folded: int = 0
    in_code: bool = False
    _text: str = ""

    def _clear(self) -> None:
        if self._text:
            self.blocks, self.open_block, self.folded, self.in_code = [], "", 0, False
            self._text = ""

    def _fold(self, text: str) -> None:
        """Take ``text``, the answer's next words, into the Markdown of the open block."""
        if not text:
            return
        self._text += text
        whole, self.open_block, self.in_code = freeze_blocks(self.open_block + text, TAIL_CHARS)
        if whole:
            self.blocks = [*self.blocks, *whole]
        self.folded += len(text.encode("utf-16-le")) // 2


class PaneAState(LivePane, rx.State):
    """The answer in pane A."""


class PaneBState(LivePane, rx.State):
    """The answer in pane B."""


class ArenaState(rx.State):
    """The round on screen and the finished turns of the conversation above it."""

    session_id: str = rx.LocalStorage("", name="arena_session")
    prompt: str = ""
    error_a: str = ""
    error_b: str = ""
    done_a: bool = False
    done_b: bool = False
    streaming: bool = False
    matchup_id: str = ""
    conversation_id: str = ""
    turn_index: int = 0
    votable: bool = False
    vote_cast: str = ""
    reveal_a: str = ""
    reveal_b: str = ""
    continuable: bool = False
    notice: str = ""
    #: Why no round can start (too few models can answer; the page then says how to add
    #: some); empty while the arena can play.
    setup_notice: str = ""
    #: What a first visit may ask (``ARENA_EXAMPLE_PROMPTS``): a click puts one in the box.
    examples: list[str] = []
    #: The prompt of the round on screen, shown above its answers (the person's own words).
    round_prompt: str = ""
    turns: list[dict[str, str]] = []
    #: The images of each turn in ``turns`` (same order): ``{"thumb", "href", "label"}``,
    #: ``href`` a signed link to the whole image (``arena_api.services.image_links``).
    turn_images: list[list[dict[str, str]]] = []
    #: The images of the round on screen, as ``turn_images`` holds them.
    round_images: list[dict[str, str]] = []
    live_feed: str = ""  # the URL of the round's live feed while it streams
    # Named side-by-side: the person picks both models and sees their names from the start.
    mode: str = "blind"
    roster: list[dict[str, str]] = []  # the playable models, for the named mode's pickers
    named_a: str = ""
    named_b: str = ""
    # The roster's judge model (empty: none): it may vote on a round instead of the person.
    judge_name: str = ""
    judging: bool = False
    judge_verdict: str = ""  # what the judge decided, shown with the reveal
    judge_reasoning: str = ""
    _matchup: str = ""  # the id of the round on screen, as soon as it has started
    _token: str = ""
    #: The round on screen's images (bytes kept for "New round, same prompt").
    _round_files: list[Attachment] = []

    @rx.var
    def has_round(self) -> bool:
        """A round is on screen: voted, streaming or still starting."""
        return self.matchup_id != "" or self.streaming

    @rx.var
    def shows_welcome(self) -> bool:
        """Nothing asked yet in this conversation, and the arena can play: the page says how
        it works and offers examples."""
        return not self.has_round and not self.turns and not self.setup_notice

    @rx.var
    def shows_votes(self) -> bool:
        """The vote bar is shown: the round is votable, voted, or still starting (most rounds
        are votable, so the bar is laid out before the first token rather than beside it)."""
        return self.votable or self.vote_cast != "" or (self.streaming and not self.matchup_id)

    @rx.var
    def can_vote(self) -> bool:
        return self.votable and self.done_a and self.done_b and not self.vote_cast

    @rx.var
    def announcement(self) -> str:
        """What a screen reader hears, politely: the round's steps, never its tokens."""
        if self.vote_cast:
            return (
                f"Vote recorded: {self.outcome}. Model A was {self.reveal_a}, "
                f"model B was {self.reveal_b}."
            )
        slots = (("A", self.error_a, self.done_a), ("B", self.error_b, self.done_b))
        failed = [f"Answer {slot} failed." for slot, error, _ in slots if error]
        if self.done_a and self.done_b:
            if self.votable:
                return " ".join([*failed, "Both answers are in. Vote with the keys 1 to 5."])
            return " ".join([*failed, "The answers are in."])
        if self.streaming:
            done = [
                f"Answer {s} is complete." for s, d in (("A", self.done_a), ("B", self.done_b)) if d
            ]
            return " ".join(["Two anonymous answers are being written.", *failed, *done])
        return ""

    @rx.var
    def outcome(self) -> str:
        return VOTE_LABELS.get(self.vote_cast, "")

    @rx.var
    def prompt_placeholder(self) -> str:
        if self.continuable:
            return "Follow up: the conversation continues from the winning answer"
        if self.mode == "named":
            return "Ask anything. The two models you picked answer side by side."
        return "Ask anything. Two anonymous models answer side by side."

    @rx.event
    async def on_load(self) -> None:
        if not self.session_id:
            self.session_id = uuid.uuid4().hex
        self.judge_name = services().judge.judge_name or ""
        missing = NotEnoughModels.among(len(await services().arena.playable_roster()))
        setup = missing.shortage if missing else ""
        if setup != self.setup_notice:
            self.setup_notice = setup
        (await self.get_state(AttachmentsState))._load_limits()
        examples = services().examples.draw(EXAMPLES_SHOWN)
        if examples != self.examples:
            self.examples = examples
        if self.mode == "named":
            await self._load_roster()

    async def _load_roster(self) -> None:
        """The models the named mode may pick (sent to the page only once it is chosen)."""
        roster = [
            {"id": str(m.id), "name": m.display_name}
            for m in await services().arena.playable_roster()
        ]
        if roster != self.roster:
            self.roster = roster

    @rx.event
    async def set_mode(self, mode: str | list[str]) -> None:
        """Blind or named side by side; a conversation keeps the mode it started in."""
        if isinstance(mode, list):  # the segmented control's type; one item is picked
            mode = mode[0] if mode else ""
        if mode not in ("blind", "named") or mode == self.mode or self.streaming:
            return
        await self._new_conversation()
        self.mode = mode
        if mode == "named":
            await self._load_roster()
        if mode == "named" and len(self.roster) >= 2 and not (self.named_a and self.named_b):
            self.named_a, self.named_b = self.roster[0]["id"], self.roster[1]["id"]

    @rx.event
    def set_named_a(self, model_id: str) -> None:
        self.named_a = model_id

    @rx.event
    def set_named_b(self, model_id: str) -> None:
        self.named_b = model_id

    @rx.event
    def set_prompt(self, value: str) -> None:
        self.prompt = value

    @rx.event
    def use_example(self, text: str) -> Any:
        """An example goes into the box, to send or to edit first (nothing is sent for the
        person), and the box takes the focus."""
        if self.streaming:
            return None
        self.prompt = text
        return rx.call_script(FOCUS_PROMPT)

    @rx.event
    async def new_conversation(self) -> None:
        await self._new_conversation()

    async def _new_conversation(self) -> None:
        await self._clear_round()
        self.turns = []
        self.turn_images = []
        self.conversation_id = ""
        self.continuable = False
        self.notice = ""

    async def _clear_round(self) -> None:
        await self._reset_text()
        reasons = await self.get_state(VoteReasonsState)
        if reasons.picked:
            reasons.picked = []
        self.error_a = self.error_b = ""
        self.done_a = self.done_b = False
        self.matchup_id = self.vote_cast = self.reveal_a = self.reveal_b = ""
        self.judge_verdict = self.judge_reasoning = ""
        self.votable = False
        self._matchup = self._token = ""
        if self.round_images:
            self.round_images = []
        self._round_files = []

    async def _archive_round(self) -> None:
        """Move the voted round into the conversation's history above the panes."""
        if self.matchup_id and self.vote_cast:
            pane_a, pane_b = await self._panes()
            self.turns = [
                *self.turns,
                {
                    "prompt": self.round_prompt,
                    "a": pane_a._text,
                    "b": pane_b._text,
                    "reveal_a": self.reveal_a,
                    "reveal_b": self.reveal_b,
                    "outcome": self.outcome,
                },
            ]
            self.turn_images = [*self.turn_images, self.round_images]

    async def _over_limit(self, group: str) -> bool:
        """Count this page's request against ``ARENA_RATE_LIMIT``, as the HTTP routes do; when
        over it, say so in the notice."""
        refusal = await services().limiter.check(group, self.router.session.client_ip)
        if refusal is not None:
            self.notice = refusal_message(refusal.retry_after_s)
        return refusal is not None

    @rx.event(background=True)
    async def send(self) -> Any:
        async with self:
            prompt = self.prompt.strip()
            attachments = await self.get_state(AttachmentsState)
            asked = prompt or attachments.items  # an image alone asks too
            if self.streaming or not asked or await self._over_limit("chat"):
                return
            if not self.session_id:
                self.session_id = uuid.uuid4().hex
            continuing = self.continuable and self.conversation_id
            if not continuing:
                self.turns = []
                self.turn_images = []
                self.conversation_id = ""
            else:
                await self._archive_round()
            await self._clear_round()
            files, thumbs = attachments._taken()
            self.streaming = True
            self.notice = ""
            self.prompt = ""
            self.continuable = False
            self.round_prompt = prompt
            body: dict[str, Any] = {"prompt": prompt, "sessionId": self.session_id}
            if continuing:
                body["conversationId"] = self.conversation_id
            if files:
                body["images"] = [f.body() for f in files]
            if self.mode == "named":
                body |= {"mode": "named", "models": [self.named_a, self.named_b]}
            # The page follows the feed while the round starts, so that no token waits for it.
            feeds = services().feeds
            feed = feeds.open()
            self.live_feed = feed.url
        try:
            round_ = await services().arena.start_round(
                parse_command(ChatRequest, body), options=RoundOptions(protocol="ui")
            )
        except BaseException as exc:
            feeds.close(feed)
            if not isinstance(exc, ArenaError):
                raise
            async with self:
                self.streaming = False
                self.live_feed = ""
                self.prompt = prompt
                self.round_prompt = ""
                self.continuable = bool(continuing)
                # The images stay attached, to edit the prompt or remove them and send again.
                if isinstance(exc, NotEnoughModels):  # said by the setup notice, in full
                    self.setup_notice = exc.shortage
                else:
                    self.notice = _describe(exc)
            return
        async with self:
            # Backend vars only: they send the page nothing (the pump applies the rest).
            self._matchup = round_.started.matchup_id
            self._token = round_.started.matchup_token or ""
            if files:
                self._show_round_images(files, thumbs)
                (await self.get_state(AttachmentsState))._clear()
        await self._pump(round_.events(), feed)

    def _show_round_images(self, files: list[Attachment], thumbs: list[dict[str, str]]) -> None:
        """The started round's images above its answers, each a link to the whole image
        (signed for this page's session, under the name the round stored it by)."""
        links = services().image_links
        self._round_files = files
        self.round_images = [
            {
                "thumb": thumb["thumb"],
                "label": thumb["label"],
                "href": "" if links is None else links.link(file.sha256, self.session_id),
            }
            for file, thumb in zip(files, thumbs, strict=True)
        ]

    async def _panes(self) -> tuple[LivePane, LivePane]:
        return await self.get_state(PaneAState), await self.get_state(PaneBState)

    async def _reset_text(self) -> None:
        for pane in await self._panes():
            pane._clear()

    async def _pump(self, events: Any, feed: LiveFeed) -> None:
        """Consume the round's public events: each token goes to the live feed at once, and a
        flusher task takes the text into the panes' Markdown and applies the statuses.

        The round's ids (``matchup_started``) wait for its first other status: nothing the page
        shows changes with them before, and a delta of this state re-renders most of the page
        beside the first tokens. A round that cannot be voted on applies them at once, to hide
        the vote bar, and so does a named round, to show its models' names."""
        feeds = services().feeds
        pending: dict[str, list[str]] = {slot: [] for slot in SLOTS}
        lines_ended: set[str] = set()  # slots whose pending text ends a line
        line_start: dict[str, bool] = dict.fromkeys(SLOTS, True)  # its Markdown ends a line
        statuses: list[Any] = []
        reset = False
        dirty = asyncio.Event()  # something came
        due = asyncio.Event()  # a line ended, a status came or the round ended: fold now
        finished = False
        started: MatchupStarted | None = None  # applied with the next status

        async def flush(slots: set[str]) -> None:
            """Fold the pending text of ``slots`` and apply the statuses."""
            nonlocal reset, started
            applied, clear_text = statuses[:], reset
            statuses.clear()
            reset = False
            if clear_text:
                line_start.update(dict.fromkeys(SLOTS, True))
            chunks = {slot: "".join(pending[slot]) if slot in slots else "" for slot in pending}
            for slot in slots:
                pending[slot].clear()
                if chunks[slot]:
                    line_start[slot] = chunks[slot].endswith("\n")
            lines_ended.difference_update(slots)
            async with self:
                if clear_text:
                    await self._reset_text()
                    self.live_feed = feed.url
                for pane, text in zip(await self._panes(), chunks.values(), strict=True):
                    pane._fold(text)
                if started is not None and (applied or finished):
                    applied.insert(0, started)
                    started = None
                for status in applied:
                    self._apply(status)

        def worth_folding(slot: str) -> bool:
            """On the timer: whether the slot's words would show differently as Markdown."""
            text = "".join(pending[slot])
            if not text:
                return False
            if not feed.followed or len(text) > TAIL_CHARS:
                return True
            return not shows_as_typed(text, line_start[slot])

        async def flusher() -> None:
            while True:
                await dirty.wait()
                try:
                    await asyncio.wait_for(due.wait(), FOLD_S)
                    timed_out = False
                except TimeoutError:
                    timed_out = True
                due.clear()
                # A line's end folds its own pane only: the other's words wait in its live tail
                # for a line end of their own, so each message re-renders one answer. A status,
                # a steer or the round's end folds both; the timer folds a pane whose words
                # would look different as Markdown, or that no page sees through the feed.
                if finished or reset or statuses:
                    slots = set(pending)
                elif timed_out:
                    slots = lines_ended | {slot for slot in pending if worth_folding(slot)}
                else:
                    slots = set(lines_ended)
                if all(not pending[slot] for slot in set(pending) - slots):
                    dirty.clear()
                await flush(slots)
                if finished:
                    return
                await asyncio.sleep(FRAME_S)

        task = asyncio.create_task(flusher())
        try:
            async for event in events:
                if isinstance(event, Token):
                    feed.append(event.slot, event.token)
                    pending[event.slot].append(event.token)
                    if "\n" in event.token:
                        lines_ended.add(event.slot)
                        due.set()
                elif isinstance(event, MatchupStarted) and event.votable and not event.models:
                    started = event  # a named round's names show at once, as statuses do
                elif isinstance(event, Steered):
                    for parts in pending.values():
                        parts.clear()
                    reset = True
                    feeds.close(feed)
                    feed = feeds.open()
                    due.set()
                else:
                    statuses.append(event)
                    due.set()
                dirty.set()
        finally:
            finished = True
            due.set()
            dirty.set()
            await asyncio.gather(task, return_exceptions=True)
            await events.aclose()
            await flush(set(pending))
            feeds.close(feed)
            async with self:
                self.streaming = False
                self.live_feed = ""

    def _apply(self, event: Any) -> None:
        if isinstance(event, MatchupStarted):
            self.matchup_id = event.matchup_id
            self.conversation_id = event.conversation_id or ""
            self.turn_index = event.turn_index or 0
            self.votable = event.votable
            if event.models:  # a named round: its models were picked, so shown at once
                self.reveal_a = event.models["A"].display_name
                self.reveal_b = event.models["B"].display_name
        elif isinstance(event, SlotError):
            # What a voter reads for the code (core.slot_errors), not the technical message.
            setattr(self, f"error_{event.slot.lower()}", voter_message(event.code, event.message))
        elif isinstance(event, SlotDone):
            setattr(self, f"done_{event.slot.lower()}", True)
        elif isinstance(event, MatchupDone):
            self.done_a = self.done_b = True
        elif isinstance(event, RunError):
            self.notice = event.message
            self.done_a = self.done_b = True
            self.votable = False

    @rx.event
    async def stop(self) -> None:
        if self.streaming and self._matchup:
            await services().arena.stop(uuid.UUID(self._matchup))

    def _voter(self) -> str | None:
        """The signed-in person of this socket, as its own session cookie says."""
        access = services().access
        if not access.single_sign_on:
            return None
        session = access.session_of(self.router.headers.cookie)
        return None if session is None else session.user_id

    @rx.event
    async def vote(self, choice: str) -> Any:
        if not self.can_vote or choice not in VOTE_LABELS or await self._over_limit("vote"):
            return None
        reasons = (await self.get_state(VoteReasonsState)).picked
        try:
            reveal = await services().arena.vote(
                parse_command(
                    VoteRequest,
                    {
                        "matchupId": self.matchup_id,
                        "matchupToken": self._token,
                        "vote": choice,
                        "reasons": reasons,
                    },
                ),
                source="ui",
                user_id=self._voter(),
            )
        except ArenaError as exc:
            self.notice = _describe(exc)
            return None
        self._record_vote(choice, reveal.models, reveal.continuable)
        return LeaderboardState.load

    def _record_vote(self, choice: str, models: RevealedModels, continuable: bool) -> None:
        self._token = ""
        self.vote_cast = choice
        self.reveal_a = models.A.display_name
        self.reveal_b = models.B.display_name
        self.continuable = continuable
        self.votable = False

    @rx.event(background=True)
    async def ask_judge(self) -> Any:
        """The judge votes instead of the person: its verdict, reasoning and cost, then the
        reveal (an unreadable verdict leaves the round to the person)."""
        async with self:
            if not self.can_vote or self.judging or not self.judge_name:
                return None
            if await self._over_limit("judge"):
                return None
            self.judging = True
            self.notice = ""
            matchup, token = self.matchup_id, self._token
        try:
            verdict = await services().judge.ask(uuid.UUID(matchup), token)
        except ArenaError as exc:
            async with self:
                self.judging = False
                self.notice = _describe(exc)
            return None
        async with self:
            self.judging = False
            if self.matchup_id != matchup:  # a new round started meanwhile
                return None
            cost = verdict.judge.cost_usd
            spent = f" · cost {dollars(cost)}" if cost is not None else ""
            self.judge_reasoning = verdict.judge.reasoning
            if verdict.models is None or verdict.vote is None:
                self.judge_verdict = f"{verdict.judge.name} gave no readable verdict{spent}"
                self.notice = "The judge's verdict could not be read: vote yourself."
                return None
            self._record_vote(verdict.vote, verdict.models, verdict.continuable)
            self.judge_verdict = f"Judged by {verdict.judge.name}: {self.outcome}{spent}"
            # The person's ticked reasons were not the judge's: they are not shown as sent.
            (await self.get_state(VoteReasonsState)).picked = []
        return LeaderboardState.load

    @rx.event
    async def copy_answer(self, slot: str) -> Any:
        """Put an answer's Markdown source, as the model wrote it, on the clipboard."""
        if slot not in SLOTS:
            return None
        pane_a, pane_b = await self._panes()
        pane = pane_a if slot == "A" else pane_b
        if not pane._text:
            return None
        return [rx.set_clipboard(pane._text), rx.toast.success(f"Answer {slot} copied")]

    @rx.event
    async def same_prompt(self) -> Any:
        """A fresh matchup (a new draw of the pair) on the prompt of the round on screen."""
        if self.streaming or not self.round_prompt:
            return None
        self.prompt = self.round_prompt
        self.continuable = False
        if self._round_files:  # the same images too
            attachments = await self.get_state(AttachmentsState)
            attachments._restore(
                self._round_files,
                [
                    {"id": f.id, "thumb": i["thumb"], "label": i["label"]}
                    for f, i in zip(self._round_files, self.round_images, strict=True)
                ],
            )
        return ArenaState.send

    @rx.event
    def copy_share_link(self) -> Any:
        if not self.vote_cast:
            return None
        return [
            rx.call_script(
                f"navigator.clipboard.writeText(window.location.origin + '/m/{self.matchup_id}')"
            ),
            rx.toast.success("Link to this matchup's reveal copied"),
        ]


# The box takes the focus with the caret after the example, once the example is in it.
FOCUS_PROMPT = """
requestAnimationFrame(() => requestAnimationFrame(() => {
  const box = document.querySelector('textarea[data-testid="prompt"]');
  if (box) { box.focus(); box.setSelectionRange(box.value.length, box.value.length); }
}));
"""


#: What the page says for a round's refusal in its own words, by the refusal's code.
_REFUSALS = {
    "not_enough_vision_models": (
        "Fewer than two models here read images, so a prompt with images cannot be played. "
        "Remove the images to ask in text, or ask the operator to mark vision models "
        "(`vision: true` in the roster)."
    ),
}


def _describe(error: ArenaError) -> str:
    if error.code in _REFUSALS:
        return _REFUSALS[error.code]
    if error.details:
        first = next(iter(error.details.values()))
        detail = first[0] if isinstance(first, list) and first else str(first)
        if detail == error.message:  # an image's refusal names its field in the message
            return error.message
        return f"{error.message}: {detail}"
    return error.message


class TemplateState(rx.State):
    """Saved prompt templates, kept in the browser's localStorage."""

    stored: str = rx.LocalStorage("[]", name="arena_templates", sync=True)

    @rx.var
    def names(self) -> list[str]:
        return [t["name"] for t in _templates(self.stored)]

    @rx.event
    async def save(self) -> Any:
        arena = await self.get_state(ArenaState)
        text = arena.prompt.strip()
        if not text:
            return rx.toast.info("Type a prompt first, then save it as a template")
        name = text.splitlines()[0][:40]
        kept = [t for t in _templates(self.stored) if t["name"] != name]
        self.stored = json.dumps([*kept, {"name": name, "prompt": text}][-50:])
        return rx.toast.success(f"Saved template “{name}”")

    @rx.event
    async def use(self, name: str) -> None:
        for template in _templates(self.stored):
            if template["name"] == name:
                arena = await self.get_state(ArenaState)
                arena.prompt = template["prompt"]

    @rx.event
    def remove(self, name: str) -> None:
        self.stored = json.dumps([t for t in _templates(self.stored) if t["name"] != name])


def _templates(stored: str) -> list[dict[str, str]]:
    try:
        value = json.loads(stored or "[]")
    except ValueError:
        return []
    return (
        [
            t
            for t in value
            if isinstance(t, dict)
            and isinstance(t.get("name"), str)
            and isinstance(t.get("prompt"), str)
        ]
        if isinstance(value, list)
        else []
    )
