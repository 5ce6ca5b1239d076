"""OpenAiChatService: the arena as OpenAI-compatible chat models, for external chat UIs.

A chat UI such as Open WebUI lists ``GET /v1/models``, shows ``choices[0]`` of one request per
selected model, and has no vote button. So the arena is offered as pseudo-models, none of which
names a real model, and everything else is said in the chat:

    model id       what a request to it gets
    arena-duel     one blind matchup; both answers in one message, under "Answer A" / "Answer B"
    arena-a / -b   one column each of Open WebUI's compare view: the two requests of one turn
                   (same chat id, same messages) share one matchup through slot join, and each
                   streams its own slot, whichever arrives first
    arena-single   one hidden model answers (``ARENA_DEFAULT_MODEL``, else one per chat); no vote
    a roster model exactly that model answers, alone: no pairing, no vote (so its label is true)

``!a``, ``!b``, ``!tie``, ``!bad``, ``!skip`` vote on the chat's latest votable matchup and
answer with the reveal; ``!leaderboard`` and ``!help`` answer the standings and the commands. A
chat is known by Open WebUI's ``X-OpenWebUI-Chat-Id`` header when it sends one (the compare
columns need it: it pairs their two requests). Any other client is known by the conversation it
resends: each duel reply ends with a random reference line, and a vote or follow-up finds its
duel by the reference in the round above it (``_duel_refs``). Either way the duel's matchup and
arena conversation are kept in PostgreSQL (``ChatLinks``, keyed by a digest of the chat id or of
the reference), so a decisive vote lets the next message continue from the winner, across
restarts, and both kinds of vote take the same recording step. Open WebUI's helper tasks
(title, tags, follow-ups) are answered at once without a model (``_helper_tasks``). Any other
model id is not served here: the route runs the OpenAI-compatible matchup of the seed API on it.

Images: the newest message's ``image_url`` parts are the round's images, checked by the round
before anything is stored (a refused one is named at its place in ``messages``). A chat UI
resends an earlier message's images with every message; those are not read again: a follow-up
that continues the arena conversation shows the models the images its stored turns hold, so
nothing is counted twice. ``arena-single``, whose chat no stored conversation holds, sends the
chat's own history, earlier images included (checked as a prompt's are), to a model that reads
images.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from arena_api.core.errors import ArenaError, InvalidRequest, NotEnoughModels, NotFound
from arena_api.core.join import JoinError
from arena_api.core.models import ChatMessage, ModelEntry, Slot
from arena_api.core.ports import ChatLink, ChatLinks, RoundReads
from arena_api.core.records import Vote
from arena_api.core.requests import ChatCall, ChatRequest, parse_command, stream_false_refused
from arena_api.core.votes import cast_vote
from arena_api.services import _chat_text as text
from arena_api.services._duel_refs import new_ref, ref_above, ref_key
from arena_api.services._helper_tasks import answer_helper_task, is_helper_task
from arena_api.services._reveal import reveal
from arena_api.services.reads import ReadService
from arena_api.services.rounds import ArenaService, RoundOptions, RoundStream
from arena_api.services.votes import VoteRecorder

__all__ = [
    "ARENA_MODELS",
    "ArenaModel",
    "CompletionReply",
    "ModelCard",
    "OpenAiChatService",
    "TextReply",
]

#: How the metrics name rounds this front starts (an OpenAI chat UI such as Open WebUI).
_PROTOCOL = "openai-chat"

Layout = Literal["duel", "column", "single"]
Listing = Literal["arena", "roster", "both"]


@dataclass(frozen=True)
class ArenaModel:
    """One pseudo-model of the blind roster."""

    id: str
    name: str
    description: str
    layout: Layout
    slot: Slot | None = None


ARENA_MODELS: Mapping[str, ArenaModel] = {
    m.id: m
    for m in (
        ArenaModel(
            "arena-duel",
            "Arena · Duel (A + B)",
            "A blind matchup: two anonymous answers in one message. Vote with !a, !b, !tie, "
            "!bad or !skip.",
            "duel",
        ),
        ArenaModel(
            "arena-a",
            "Arena A",
            "Slot A of a blind matchup. Select it together with Arena B for side-by-side "
            "columns; vote with !a or !b.",
            "column",
            "A",
        ),
        ArenaModel(
            "arena-b",
            "Arena B",
            "Slot B of a blind matchup. Select it together with Arena A for side-by-side "
            "columns; vote with !a or !b.",
            "column",
            "B",
        ),
        ArenaModel(
            "arena-single",
            "Arena · Single (no vote)",
            "One hidden model answers; nothing to vote on.",
            "single",
        ),
    )
}


@dataclass(frozen=True)
class ModelCard:
    """An entry of ``GET /v1/models``."""

    id: str
    name: str
    owned_by: str
    description: str | None = None


@dataclass(frozen=True)
class TextReply:
    """One answer to stream on ``choices[0]``; ``metadata`` is the matchup (``omni_arena``)."""

    model: str
    text: AsyncGenerator[str, None]
    metadata: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class CompletionReply:
    """A non-streaming completion (a helper task's answer)."""

    model: str
    content: str


Reply = TextReply | CompletionReply


async def _lines(*pieces: str) -> AsyncGenerator[str, None]:
    for piece in pieces:
        yield piece


def _digest(kind: str, value: str) -> str:
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


#: How a request's ``model`` may name a roster model: its id, display name or
#: ``provider:provider_model_id``; failing those, its bare provider model id.
_NAME_FORMS: tuple[Callable[[ModelEntry], tuple[str, ...]], ...] = (
    lambda m: (str(m.id), m.display_name, f"{m.provider}:{m.provider_model_id}"),
    lambda m: (m.provider_model_id,),
)


class OpenAiChatService:
    """The OpenAI chat front (see the module docstring).

    Args:
        arena: starts the rounds.
        reads: the leaderboard and conversations.
        repository: the stored matchups that commands vote on.
        chats: where each external chat stands.
        listing: what ``models()`` lists (``ARENA_OPENAI_MODELS``).
    """

    def __init__(
        self,
        *,
        arena: ArenaService,
        reads: ReadService,
        repository: RoundReads,
        chats: ChatLinks,
        votes: VoteRecorder,
        listing: Listing = "arena",
    ) -> None:
        self._arena = arena
        self._reads = reads
        self._repo = repository
        self._chats = chats
        self._votes = votes
        self._listing = listing

    # -- the model list --------------------------------------------------------------------------

    async def models(self) -> list[ModelCard]:
        """The pseudo-models, the named roster or both, per ``ARENA_OPENAI_MODELS``."""
        cards = []
        if self._listing in ("arena", "both"):
            cards += [
                ModelCard(m.id, m.name, "arena", m.description) for m in ARENA_MODELS.values()
            ]
        if self._listing in ("roster", "both"):
            cards += [
                ModelCard(str(m.id), m.display_name, m.provider) for m in await self._arena.roster()
            ]
        return cards

    async def model(self, model_id: str) -> ModelCard:
        """One listed model.

        Raises:
            NotFound: ``model_not_found``.
        """
        for card in await self.models():
            if card.id == model_id:
                return card
        raise NotFound(f"The model '{model_id}' does not exist", code="model_not_found")

    async def _named(self, model_id: str) -> ModelEntry | None:
        """The enabled model (with a configured provider) that ``model_id`` names: its id,
        display name or ``provider:provider_model_id`` (or provider model id, if unique).

        Raises:
            ModelNotMatched: (409 ``model_paused`` / ``model_archived``) it names no enabled
                model but a paused or archived one, which answers nobody (a chat UI may still
                offer it from an older model list).
        """
        roster = await self._arena.playable_roster()  # cached: this runs on every request
        for forms in _NAME_FORMS:
            found = [m for m in roster if model_id in forms(m)]
            if len(found) == 1:
                return found[0]
        held_back = await self._arena.held_back()  # cached too
        for forms in _NAME_FORMS:
            held = [h for h in held_back if model_id in forms(h.model)]
            if len(held) == 1:
                raise held[0].not_matched(field="model")
        return None

    # -- replies ---------------------------------------------------------------------------------

    async def reply(self, call: ChatCall) -> Reply | None:
        """Answer one request of an OpenAI chat UI; ``None`` when it is not for this front (a
        model id that is neither an arena model nor a roster model, and no helper task): the
        route then runs the seed API's matchup.

        Raises:
            InvalidRequest: ``stream: false`` on anything but a helper task, or a bad prompt.
            ModelNotMatched: the model id names a paused or archived model (409).
            ArenaError: a round could not start (as on the arena's own chat route).
        """
        model_id = call.model or "arena"
        if is_helper_task(call):
            return CompletionReply(model_id, answer_helper_task(call.prompt))
        arena_model = ARENA_MODELS.get(model_id)
        named = None if arena_model is not None else await self._named(model_id)
        if arena_model is None and named is None:
            return None
        if not call.stream:
            raise stream_false_refused()
        command = text.command_of(call.prompt)
        column = arena_model.slot if arena_model is not None else None
        if command is not None:
            return TextReply(model_id, await self._command(call, command, column))
        if arena_model is None or arena_model.layout == "single":
            return await self._single(call, model_id, named)
        if arena_model.layout == "duel":
            return await self._duel(call, model_id)
        assert arena_model.slot is not None
        return await self._column(call, model_id, arena_model.slot)

    # -- rounds ----------------------------------------------------------------------------------

    @staticmethod
    def _chat_key(call: ChatCall) -> str | None:
        return _digest("chat", call.chat_id) if call.chat_id else None

    @staticmethod
    def _session(call: ChatCall) -> str | None:
        """The anonymous session of the chat's rounds and votes: a digest of the Open WebUI user
        (or, lacking that, of the chat), never the id itself."""
        if call.user_id:
            return "openwebui:" + _digest("user", call.user_id)[:32]
        if call.chat_id:
            return "openwebui:" + _digest("chat", call.chat_id)[:32]
        return None

    @staticmethod
    def _request(call: ChatCall, **fields: Any) -> ChatRequest:
        """The round's command, with the newest message's images (the round checks them, and
        names a refused one at its place in ``messages``); a bad prompt is reported at its
        place in ``messages`` too."""
        data = {"prompt": call.prompt, **fields}
        if call.images:
            data |= {"images": call.images, "imageFields": call.image_fields}
        try:
            return parse_command(ChatRequest, data)
        except InvalidRequest as exc:
            details = {
                _client_field(call, key): value for key, value in (exc.details or {}).items()
            }
            raise InvalidRequest(exc.message, details=details) from None

    async def _continuation(
        self, link: ChatLink | None, session_id: str | None
    ) -> tuple[uuid.UUID | None, str | None]:
        """The arena conversation a round that follows ``link``'s round continues, or the note
        saying why it starts afresh (nothing for a chat's first round)."""
        if link is None or link.conversation_id is None:
            return None, None
        try:
            view = await self._reads.conversation(link.conversation_id, session_id)
        except ArenaError:
            return None, text.fresh_note(None)
        if view.continuable:
            return link.conversation_id, None
        return None, text.fresh_note(view.turns[-1].vote if view.turns else None)

    async def _link(
        self, chat_key: str | None, session_id: str | None, round_: RoundStream
    ) -> bool:
        """Point the chat at the round's matchup; ``False`` when there is nothing to vote on."""
        started = round_.started
        if chat_key is None or session_id is None or not started.votable:
            return False
        conversation = uuid.UUID(started.conversation_id) if started.conversation_id else None
        await self._chats.link(
            ChatLink(chat_key, session_id, uuid.UUID(started.matchup_id), conversation)
        )
        return True

    async def _link_above(self, call: ChatCall) -> tuple[str | None, ChatLink | None]:
        """For a chat without a chat id: the duel reference of the round above the new message
        and, when this arena issued it, that duel's link."""
        ref = ref_above(call.history)
        return ref, (await self._chats.get(ref_key(ref)) if ref else None)

    @staticmethod
    def _metadata(round_: RoundStream) -> dict[str, Any]:
        return {k: v for k, v in round_.started.wire().items() if k != "type"}

    async def _duel(self, call: ChatCall, model_id: str) -> TextReply:
        chat_key, session_id = self._chat_key(call), self._session(call)
        ref = None
        if chat_key is None:
            # Known by no chat id: the duel above (if any) is where this one continues from, and
            # this duel gets a reference of its own for the next message to name. The session
            # stays the conversation's, since a conversation is continued by its own session.
            _, link = await self._link_above(call)
            ref = new_ref()
            chat_key = ref_key(ref)
            session_id = session_id or (link.session_id if link else _ref_session(ref))
        else:
            link = await self._chats.get(chat_key)
        conversation_id, note = await self._continuation(link, session_id)
        request = self._request(call, sessionId=session_id, conversationId=conversation_id)
        round_ = await self._arena.start_round(
            request, options=RoundOptions(plan="matchup", protocol=_PROTOCOL)
        )
        linked = await self._link(chat_key, session_id, round_)
        body = text.duel_text(round_.events(), note=note, ref=ref if linked else None)
        return TextReply(model_id, body, self._metadata(round_))

    async def _column(self, call: ChatCall, model_id: str, slot: Slot) -> TextReply:
        chat_key, session_id = self._chat_key(call), self._session(call)
        if chat_key is None:
            return TextReply(model_id, _lines(text.NO_CHAT_ID_COLUMN))
        conversation_id, note = await self._continuation(
            await self._chats.get(chat_key), session_id
        )
        # The two columns of one turn carry the same chat id and the same messages, whatever
        # the database says by the time the second arrives: that is what pairs them.
        request = self._request(
            call,
            sessionId=session_id,
            conversationId=conversation_id,
            joinKey="openwebui:" + call.digest,
        )
        try:
            round_ = await self._arena.start_round(
                request, options=RoundOptions(plan="matchup", slot=slot, protocol=_PROTOCOL)
            )
        except JoinError as exc:
            line = {
                "join_unpaired": text.UNPAIRED_COLUMN,
                "join_expired": text.UNPAIRED_COLUMN,
                "join_slot_taken": text.SAME_SLOT_COLUMN,
                "join_slots_exhausted": text.SAME_SLOT_COLUMN,
                "join_disabled": text.JOIN_OFF_COLUMN,
            }.get(exc.code)
            if line is None:
                raise
            return TextReply(model_id, _lines(line.format(slot=slot)))
        await self._link(chat_key, session_id, round_)
        body = text.column_text(round_.events(), slot, note=note)
        return TextReply(model_id, body, self._metadata(round_))

    async def _single(self, call: ChatCall, model_id: str, named: ModelEntry | None) -> TextReply:
        model = named or await self._hidden_model(call)
        request = self._request(call, sessionId=self._session(call))
        options = RoundOptions(
            plan="single",
            model=model,
            context=_own_context(await self._with_earlier_images(call)),
            protocol=_PROTOCOL,
        )
        round_ = await self._arena.start_round(request, options=options)
        return TextReply(model_id, text.single_text(round_.events()), self._metadata(round_))

    async def _with_earlier_images(self, call: ChatCall) -> tuple[ChatMessage, ...]:
        """The chat's history with its user messages' images, checked as a prompt's are (a
        single model's chat is stored nowhere: the client's copy is all there is)."""
        if not call.earlier_images:
            return call.history
        history = list(call.history)
        for index, message in enumerate(call.history):
            shown = [i for i in call.earlier_images if i.message == index]
            if shown:
                images = await self._arena.read_images(
                    [i.body for i in shown], [i.field for i in shown]
                )
                history[index] = ChatMessage(message.role, message.content, images)
        return tuple(history)

    async def _hidden_model(self, call: ChatCall) -> ModelEntry:
        """``arena-single``'s model: the default model, else one fixed per chat (a chat keeps
        talking to one model), else any.

        Raises:
            NotEnoughModels: (503, ``no_models``) no enabled model has a configured provider.
        """
        if self._arena.default_model is not None:
            return self._arena.default_model
        roster = sorted(await self._arena.playable_roster(), key=lambda m: m.id.bytes)
        if call.images or call.earlier_images:  # a chat with images goes to a model that reads them
            roster = [m for m in roster if m.vision] or roster
        if missing := NotEnoughModels.among(len(roster), needed=1, code="no_models"):
            raise missing
        if call.chat_id is None:
            return random.choice(roster)
        return roster[int(_digest("single", call.chat_id)[:8], 16) % len(roster)]

    # -- commands --------------------------------------------------------------------------------

    async def _command(
        self, call: ChatCall, command: str, column: Slot | None
    ) -> AsyncGenerator[str, None]:
        if command == "!help":
            return _lines(text.help_text())
        if command == "!leaderboard":
            return _lines(text.leaderboard_text(await self._reads.leaderboard()))
        return _lines(await self._vote(call, text.VOTE_COMMANDS[command], column))

    async def _vote(self, call: ChatCall, vote: Vote, column: Slot | None) -> str:
        """Vote on the chat's latest votable matchup (without a chat id: the duel of the round
        above the command); the answer is the reveal or a sentence."""
        chat_key = self._chat_key(call)
        if chat_key is not None:
            link = await self._chats.get(chat_key)
        else:
            ref, link = await self._link_above(call)
            if ref is None:
                return text.NO_DUEL_ABOVE
            if link is None:
                return text.unknown_ref_text(ref)
        matchup = await self._repo.get_matchup(link.matchup_id) if link else None
        if link is None or matchup is None:
            return text.NOTHING_TO_VOTE
        result = "sibling" if link.vote_message == call.digest else None
        if result is None:
            cast = cast_vote(
                matchup, vote, method="human", source="chat", session_id=link.session_id
            )
            result = await self._votes.record_command(cast, link.chat_key, call.digest)
        if result == "moved":
            return text.NOTHING_TO_VOTE
        if result == "recorded":
            return text.reveal_text(reveal(matchup), vote, column=column)
        stored = await self._repo.get_matchup(matchup.id)
        recorded = stored.vote if stored is not None and stored.vote is not None else vote
        if result == "sibling":
            return text.reveal_text(reveal(matchup), recorded, column=column)
        return text.already_voted_text(reveal(matchup), recorded, column=column)


def _client_field(call: ChatCall, key: str) -> str:
    """Where the chat-completions body held a ``ChatRequest`` field that failed validation."""
    if key == "prompt" or key == "images":
        return call.prompt_field
    head, _, rest = key.partition(".")
    index = rest.split(".", 1)[0]
    if head == "images" and index.isdigit() and int(index) < len(call.image_fields):
        return call.image_fields[int(index)]
    return key


def _ref_session(ref: str) -> str:
    """The anonymous session of a conversation begun by the duel ``ref`` in a chat that sends
    no ids: a digest of the reference, never the reference (which would let its reader vote)."""
    return "openai-chat:" + _digest("ref-session", ref)[:32]


def _own_context(history: Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
    """A chat's own history for a single model: without the arena's commands and their replies."""
    kept: list[ChatMessage] = []
    skip_reply = False
    for message in history:
        if message.role == "user" and text.command_of(message.content) is not None:
            skip_reply = True
            continue
        if message.role == "assistant" and skip_reply:
            skip_reply = False
            continue
        skip_reply = False
        kept.append(message)
    return tuple(kept)
