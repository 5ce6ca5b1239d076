"""What the sync and the async client share, with no I/O: the requests of every operation, the
reading of the native event stream, a round's state, and the retry policy.

``Arena`` and ``AsyncArena`` each only send a ``Call`` and hand the answer back to it, so a
rule (a path, a parameter, how an answer is read) is written once here for both.
"""

from __future__ import annotations

import base64
import collections
import json
import random
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from arena_client import models as m
from arena_client.errors import ArenaError, ConnectionLost, ControlRefused, RoundFailed

__all__ = [
    "Call",
    "Retry",
    "RoundState",
    "RoundView",
    "SseDecoder",
    "Votes",
    "ops",
]

T = TypeVar("T")
ModelT = TypeVar("ModelT", bound=BaseModel)

Votes = Literal["human", "judge", "all"]
Outcome = Literal["left", "right", "both_good", "both_bad", "skip"]
Slot = Literal["A", "B"]

#: The code of a ``ConnectionLost`` whose request never reached the server.
CONNECT_FAILED = "connect_failed"

#: The header that carries a round's ``matchup_started`` (minus ``type``) before its stream.
MATCHUP_HEADER = "x-arena-matchup"


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request and how to read its answer: ``answer`` validates the JSON body."""

    method: str
    path: str
    answer: type[T]
    params: Mapping[str, str] = field(default_factory=dict)
    body: Mapping[str, Any] | None = None

    def read(self, content: bytes) -> T:
        try:
            if issubclass(self.answer, BaseModel):
                return self.answer.model_validate_json(content)
            return self.answer(json.loads(content))  # type: ignore[call-arg]
        except (ValidationError, ValueError) as exc:
            raise ArenaError(
                f"The answer of {self.method} {self.path} is not what this client knows: {exc}",
                code="unexpected_answer",
            ) from exc


@dataclass(frozen=True)
class Retry:
    """Opt-in retries of what started nothing on the server: answers that say "not now" (429
    and 503) and, with ``connect``, a connection that could not be opened (a server
    restarting). Waits what ``Retry-After`` asks (else an exponential backoff with jitter), at
    most ``max_wait`` seconds a time, and gives up after ``attempts`` tries in all."""

    attempts: int = 4
    max_wait: float = 60.0
    backoff: float = 0.5
    statuses: frozenset[int] = frozenset({429, 503})
    connect: bool = True

    def wait(self, error: ArenaError, attempt: int) -> float | None:
        """Seconds to wait before try ``attempt + 1`` after ``error``; ``None``: give up."""
        again = error.status in self.statuses or (self.connect and error.code == CONNECT_FAILED)
        if not again or attempt >= self.attempts:
            return None
        asked = error.retry_after
        if asked is None:
            asked = self.backoff * 2 ** (attempt - 1) * (1 + random.random() / 2)
        return asked if asked <= self.max_wait else None


def as_retry(retry: Retry | int | bool | None) -> Retry | None:
    if retry is None or retry is False:
        return None
    if retry is True:
        return Retry()
    if isinstance(retry, int):
        return Retry(attempts=retry) if retry > 1 else None
    return retry


class SseDecoder:
    """Server-sent events from bytes as they arrive: ``(event, data)`` for each whole event
    (comments, such as the server's keep-alive pings, and ``id``/``retry`` fields skipped)."""

    def __init__(self) -> None:
        self._buffer = b""
        self._after_cr = False
        self._event = ""
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        buffer = self._buffer + chunk
        if self._after_cr and buffer.startswith(b"\n"):
            buffer = buffer[1:]  # the rest of a \r\n whose \r ended the last chunk
        self._after_cr = False
        if b"\r" in buffer:
            # Line ends may be \r\n or \r alone.
            self._after_cr = buffer.endswith(b"\r")
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *lines, self._buffer = buffer.split(b"\n")
        out: list[tuple[str, str]] = []
        for raw in lines:
            if not raw:
                if self._data:
                    out.append((self._event or "message", "\n".join(self._data)))
                self._event, self._data = "", []
                continue
            name, _, value = raw.decode("utf-8", "replace").partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "data":
                self._data.append(value)
            elif name == "event":
                self._event = value
        return out


def read_event(name: str, data: str) -> m.NativeEvent | None:
    """The typed event of one SSE event (``None`` for an event this client does not know,
    which a newer server may add)."""
    model = m.NATIVE_EVENTS.get(name)
    if model is None:
        return None
    try:
        return model.model_validate_json(data)  # type: ignore[return-value]
    except ValidationError as exc:
        raise ArenaError(
            f"A {name} event this client cannot read: {exc}", code="unexpected_answer"
        ) from exc


class RoundState:
    """A round as its events arrive: the metadata of ``matchup_started`` (from the header at
    once), each slot's answer so far, its errors, how it ended."""

    def __init__(self, started: m.MatchupStarted, session: str | None) -> None:
        self.started = started
        self.session = session
        self.answers: dict[str, str] = {slot: "" for slot in started.slots}
        self.slot_errors: dict[str, m.SlotError] = {}
        self.done_slots: set[str] = set()
        self.steers: list[str] = []
        self.run_error: m.RunError | None = None
        self.finished = False
        #: Every event read so far, in order.
        self.events: list[m.NativeEvent] = []
        self._decoder = SseDecoder()
        self._pending: collections.deque[m.NativeEvent] = collections.deque()

    def feed(self, chunk: bytes) -> None:
        """Decode ``chunk`` of the stream; its events wait for ``take``."""
        for name, data in self._decoder.feed(chunk):
            event = read_event(name, data)
            if event is not None:
                self._pending.append(event)

    def take(self) -> m.NativeEvent | None:
        """The next event decoded and not yet read (applied to the state as it is read), so a
        reader that stops half-way through a chunk loses nothing."""
        if not self._pending:
            return None
        event = self._pending.popleft()
        self.apply(event)
        self.events.append(event)
        return event

    @classmethod
    def from_header(cls, header: str | None, session: str | None) -> RoundState:
        if not header:
            raise ArenaError(
                "The round's answer has no x-arena-matchup header", code="unexpected_answer"
            )
        return cls(m.MatchupStarted.model_validate_json(header), session)

    def apply(self, event: m.NativeEvent) -> None:
        if isinstance(event, m.MatchupStarted):
            self.started = event
        elif isinstance(event, m.Token):
            self.answers[event.slot] = self.answers.get(event.slot, "") + event.token
        elif isinstance(event, m.SlotError):
            self.slot_errors[event.slot] = event
        elif isinstance(event, m.SlotDone):
            self.done_slots.add(event.slot)
        elif isinstance(event, m.Steered):
            self.steers.append(event.instruction)
            self.answers = {slot: "" for slot in self.answers}  # both slots start again
        elif isinstance(event, m.RunError):
            self.run_error, self.finished = event, True
        elif isinstance(event, m.MatchupDone):
            self.finished = True

    def cut_short(self, exc: BaseException | None = None) -> ConnectionLost:
        """The error of a stream that ended before ``matchup_done``."""
        why = f": {exc}" if exc else ""
        return ConnectionLost(
            f"The stream of matchup {self.started.matchup_id} ended before the round did{why}; "
            "it goes on on the server: recover() reads its answers",
            code="stream_interrupted",
        )

    def check(self) -> None:
        """Raise ``RoundFailed`` for a round that ended with ``run_error``."""
        if self.run_error is not None:
            raise RoundFailed(self.run_error.message, code=self.run_error.code)

    def recovered(self, conversation: m.ConversationView) -> bool:
        """Take the stored answers of this round's turn; ``False`` while they are not all
        stored yet."""
        turn = next(
            (t for t in conversation.turns if t.matchup_id == self.started.matchup_id), None
        )
        if turn is None or len(turn.answers) < len(self.started.slots):
            return False
        for answer in turn.answers:
            self.answers[answer.slot] = answer.content
            self.done_slots.add(answer.slot)
            if answer.error:
                self.slot_errors[answer.slot] = m.SlotError(slot=answer.slot, message=answer.error)
        self.finished = True
        return True

    def control(self, kind: Literal["stop", "steer"], instruction: str = "") -> dict[str, Any]:
        message: dict[str, Any] = {"type": kind, "matchupId": self.started.matchup_id}
        if self.started.matchup_token:
            message["matchupToken"] = self.started.matchup_token
        if kind == "steer":
            message["instruction"] = instruction
        return message


class RoundView:
    """What is known of a round (``Round`` and ``AsyncRound`` share it): its metadata, known
    before the first event, and what its events said so far."""

    def __init__(self, state: RoundState) -> None:
        self._state = state
        #: The vote's (or the judge's) answer, once given.
        self.reveal: m.VoteReveal | m.JudgeReveal | None = None

    @property
    def events(self) -> list[m.NativeEvent]:
        """Every event read so far."""
        return list(self._state.events)

    @property
    def started(self) -> m.MatchupStarted:
        return self._state.started

    @property
    def matchup_id(self) -> str:
        return self._state.started.matchup_id

    @property
    def conversation_id(self) -> str | None:
        return self._state.started.conversation_id

    @property
    def session(self) -> str | None:
        return self._state.session

    @property
    def answers(self) -> dict[str, str]:
        """Each slot's answer so far (``"A"``, ``"B"``)."""
        return dict(self._state.answers)

    @property
    def left(self) -> str:
        return self._state.answers.get("A", "")

    @property
    def right(self) -> str:
        return self._state.answers.get("B", "")

    @property
    def slot_errors(self) -> dict[str, m.SlotError]:
        return dict(self._state.slot_errors)

    @property
    def run_error(self) -> m.RunError | None:
        return self._state.run_error

    @property
    def finished(self) -> bool:
        return self._state.finished


def transport_error(request: httpx.Request, exc: Exception) -> ConnectionLost:
    """The ``ConnectionLost`` of an httpx transport failure of ``request``."""
    code = CONNECT_FAILED if isinstance(exc, httpx.ConnectError) else "connection_failed"
    error = ConnectionLost(f"{request.method} {request.url.path}: {exc}", code=code)
    error.__cause__ = exc
    return error


def client_headers(token: str | None) -> dict[str, str]:
    """The headers of every request: the client's name and version, and the token."""
    from arena_client import __version__

    headers = {"user-agent": f"arena-client-python/{__version__}"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    return headers


def control_outcome(reply: Mapping[str, Any]) -> bool:
    """Whether a control reply says yes; raises ``ControlRefused`` for an error frame."""
    if reply.get("type") == "error":
        raise ControlRefused(str(reply.get("message")), code="control_malformed")
    ok = bool(reply.get("ok", reply.get("accepted", False)))
    if not ok and reply.get("code"):
        raise ControlRefused(str(reply.get("reason") or reply["code"]), code=str(reply["code"]))
    return ok


def _params(**values: object) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, datetime):
            out[name] = value.isoformat()
        else:
            out[name] = str(value)
    return out


def _image(image: bytes | str | Mapping[str, str]) -> dict[str, str]:
    """An image of a prompt: raw bytes, an http(s) URL or data URL, or the wire form."""
    if isinstance(image, bytes):
        return {"data": base64.b64encode(image).decode("ascii")}
    if isinstance(image, str):
        return {"url": image} if not image.startswith("data:") else {"data": image}
    return dict(image)


class ops:
    """Every operation's ``Call``."""

    @staticmethod
    def chat_body(
        prompt: str,
        *,
        session: str | None,
        conversation: str | uuid.UUID | None = None,
        mode: Literal["blind", "named"] = "blind",
        models: tuple[str, str] | list[str] | None = None,
        images: Iterable[bytes | str | Mapping[str, str]] = (),
        join_key: str | None = None,
        slot: Slot | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"prompt": prompt}
        if session is not None:
            body["sessionId"] = session
        if conversation is not None:
            body["conversationId"] = str(conversation)
        if mode != "blind":
            body["mode"] = mode
        if models is not None:
            body["models"] = list(models)
        if images := [_image(image) for image in images]:
            body["images"] = images
        if join_key is not None:
            body["joinKey"] = join_key
        if slot is not None:
            body["slot"] = slot
        return body

    @staticmethod
    def vote(
        matchup_id: str, token: str | None, outcome: Outcome, reasons: Iterable[str] | None
    ) -> Call[m.VoteReveal]:
        if not token:
            raise ArenaError("This round takes no vote (it has no vote token)", code="not_votable")
        body: dict[str, Any] = {"matchupId": matchup_id, "matchupToken": token, "vote": outcome}
        if reasons:
            body["reasons"] = list(reasons)
        return Call("POST", "/api/arena/vote", m.VoteReveal, body=body)

    @staticmethod
    def judge(matchup_id: str, token: str | None) -> Call[m.JudgeReveal]:
        if not token:
            raise ArenaError(
                "This round cannot be judged (it has no vote token)", code="not_votable"
            )
        return Call(
            "POST",
            f"/api/arena/matchups/{matchup_id}/judge",
            m.JudgeReveal,
            body={"matchupToken": token},
        )

    @staticmethod
    def matchup(matchup_id: str | uuid.UUID) -> Call[m.MatchupView]:
        return Call("GET", f"/api/arena/matchups/{matchup_id}", m.MatchupView)

    @staticmethod
    def conversation(
        conversation_id: str | uuid.UUID, session: str | None = None
    ) -> Call[m.ConversationView]:
        return Call(
            "GET",
            f"/api/arena/conversations/{conversation_id}",
            m.ConversationView,
            params=_params(sessionId=session),
        )

    @staticmethod
    def leaderboard(
        votes: Votes, category: str | None, include_named: bool, filters: bool
    ) -> Call[m.LeaderboardView]:
        params = _params(
            votes=votes,
            category=category,
            include="named" if include_named else None,
            filters=None if filters else "off",
        )
        return Call("GET", "/api/arena/leaderboard", m.LeaderboardView, params=params)

    @staticmethod
    def analytics(name: str, answer: type[ModelT], **params: object) -> Call[ModelT]:
        return Call("GET", f"/api/arena/analytics/{name}", answer, params=_params(**params))

    @staticmethod
    def vote_reasons() -> Call[m.ReasonChoicesView]:
        return Call("GET", "/api/arena/vote-reasons", m.ReasonChoicesView)

    @staticmethod
    def health() -> Call[m.Health]:
        return Call("GET", "/health", m.Health)

    @staticmethod
    def models() -> Call[m.ModelList]:
        return Call("GET", "/models", m.ModelList)

    @staticmethod
    def suites() -> Call[m.SuitesView]:
        return Call("GET", "/api/suites", m.SuitesView)

    @staticmethod
    def suite_start(name: str) -> Call[m.SuiteRunView]:
        return Call("POST", f"/api/suites/{name}/run", m.SuiteRunView)

    @staticmethod
    def suite_run(run_id: str | uuid.UUID) -> Call[m.SuiteRunView]:
        return Call("GET", f"/api/suites/runs/{run_id}", m.SuiteRunView)

    @staticmethod
    def suite_resume(run_id: str | uuid.UUID) -> Call[m.SuiteRunView]:
        return Call("POST", f"/api/suites/runs/{run_id}/resume", m.SuiteRunView)

    @staticmethod
    def suite_runs(suite: str | None) -> Call[m.SuiteRunsView]:
        return Call("GET", "/api/suites/runs", m.SuiteRunsView, params=_params(suite=suite))

    @staticmethod
    def suite_diff(a: str | uuid.UUID, b: str | uuid.UUID) -> Call[m.SuiteDiffView]:
        return Call("GET", f"/api/suites/runs/{a}/diff/{b}", m.SuiteDiffView)

    @staticmethod
    def export(
        since: datetime | None, until: datetime | None, include_text: bool, scrub: bool
    ) -> Call[dict[str, Any]]:
        params = _params(since=since, until=until, includeText=include_text, scrub=scrub)
        return Call("GET", "/api/arena/export", dict, params=params)


def new_session() -> str:
    """A session id for a client that names none: one voter per conversation."""
    return f"py-{uuid.uuid4()}"
