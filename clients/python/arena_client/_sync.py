"""``Arena``: the blocking client (``AsyncArena`` in ``_async.py`` is its twin for asyncio)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any, Literal, TypeVar

import httpx

from arena_client import models as m
from arena_client._websocket import connect
from arena_client._wire import (
    MATCHUP_HEADER,
    Call,
    Outcome,
    Retry,
    RoundState,
    RoundView,
    Slot,
    Votes,
    as_retry,
    client_headers,
    control_outcome,
    new_session,
    ops,
    transport_error,
)
from arena_client.errors import ArenaError, ConnectionLost, error_from_answer

__all__ = ["Analytics", "Arena", "Round", "Suites"]

T = TypeVar("T")
Image = bytes | str | Mapping[str, str]


class Round(RoundView):
    """One round as it streams: iterate it for its typed events, or ``wait()`` for both answers.

    Its matchup id and vote token are known at once (the server sends them as a header before
    the stream). A stream that drops raises ``ConnectionLost``; the round goes on on the server
    and ``recover()`` reads what it stored.
    """

    def __init__(self, arena: Arena, response: httpx.Response, state: RoundState) -> None:
        super().__init__(state)
        self._arena, self._response = arena, response
        self._chunks = response.iter_bytes()

    # -- the stream ----------------------------------------------------------------------------
    def __iter__(self) -> Iterator[m.NativeEvent]:
        """The events not read yet, as they arrive (a loop left early resumes where it was)."""
        while True:
            event = self._state.take()
            if event is not None:
                yield event
                continue
            if self._state.finished:
                self._response.close()
                return
            try:
                chunk = next(self._chunks)
            except StopIteration:
                self._response.close()
                raise self._state.cut_short() from None
            except httpx.TransportError as exc:
                self._response.close()
                raise self._state.cut_short(exc) from exc
            self._state.feed(chunk)

    def wait(self) -> Round:
        """Read the stream to its end; raises ``RoundFailed`` for a ``run_error``."""
        for _ in self:
            pass
        self._state.check()
        return self

    def close(self) -> None:
        """Stop reading (the round itself goes on on the server: ``stop()`` ends it)."""
        self._response.close()

    def __enter__(self) -> Round:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def recover(self, timeout: float = 120.0, poll: float = 0.5) -> Round:
        """After a dropped stream: wait for the round's answers as the server stored them."""
        conversation = self.conversation_id
        if conversation is None:
            raise ArenaError("Only a round of a conversation can be recovered", code="not_stored")
        deadline = time.monotonic() + timeout
        while not self._state.recovered(
            self._arena.conversation(conversation, session=self.session)
        ):
            if time.monotonic() > deadline:
                raise ConnectionLost(
                    "The round's answers were not stored in time", code="recover_timeout"
                )
            time.sleep(poll)
        return self

    # -- what can be done with it -----------------------------------------------------------
    def vote(self, outcome: Outcome, reasons: Iterable[str] | None = None) -> m.VoteReveal:
        """Vote (``left``, ``right``, ``both_good``, ``both_bad``, ``skip``) once the round
        has ended; the answer reveals both models."""
        if not self._state.finished:
            self.wait()
        reveal = self._arena._send(
            ops.vote(self.matchup_id, self.started.matchup_token, outcome, reasons)
        )
        self.reveal = reveal
        return reveal

    def judge(self) -> m.JudgeReveal:
        """Have the arena's judge model vote on this round; its verdict and the reveal."""
        if not self._state.finished:
            self.wait()
        reveal = self._arena._send(ops.judge(self.matchup_id, self.started.matchup_token))
        self.reveal = reveal
        return reveal

    def follow_up(self, prompt: str, *, images: Iterable[Image] = ()) -> Round:
        """The next turn of this conversation (after the vote, where the arena asks one)."""
        conversation = (
            self.reveal.conversation_id if self.reveal else None
        ) or self.conversation_id
        if conversation is None:
            raise ArenaError("This round starts no conversation to follow", code="not_continuable")
        return self._arena.round(
            prompt, session=self.session, conversation=conversation, images=images
        )

    def stop(self) -> bool:
        """End both slots now (what they wrote is kept); ``False`` if it had already ended."""
        return self._arena.control(self._state.control("stop"))

    def steer(self, instruction: str) -> bool:
        """Restart both slots with ``instruction`` added (``steered`` comes in the stream)."""
        return self._arena.control(self._state.control("steer", instruction))


class Analytics:
    """The analytics reads (``/api/arena/analytics/*``)."""

    def __init__(self, arena: Arena) -> None:
        self._arena = arena

    def categories(self, votes: Votes = "human") -> m.CategoriesView:
        return self._arena._send(ops.analytics("categories", m.CategoriesView, votes=votes))

    def summary(self, votes: Votes = "human", category: str | None = None) -> m.SummaryView:
        return self._arena._send(
            ops.analytics("summary", m.SummaryView, votes=votes, category=category)
        )

    def head_to_head(self, votes: Votes = "human", category: str | None = None) -> m.HeadToHeadView:
        return self._arena._send(
            ops.analytics("head-to-head", m.HeadToHeadView, votes=votes, category=category)
        )

    def model_metrics(
        self, votes: Votes = "human", category: str | None = None
    ) -> m.ModelMetricsView:
        return self._arena._send(
            ops.analytics("model-metrics", m.ModelMetricsView, votes=votes, category=category)
        )

    def activity(
        self,
        bucket: Literal["day", "hour"] = "day",
        since: datetime | None = None,
        votes: Votes = "human",
        category: str | None = None,
    ) -> m.ActivityView:
        return self._arena._send(
            ops.analytics(
                "activity",
                m.ActivityView,
                bucket=bucket,
                since=since,
                votes=votes,
                category=category,
            )
        )

    def cost(
        self,
        bucket: Literal["day", "week", "month"] = "day",
        since: datetime | None = None,
        category: str | None = None,
    ) -> m.CostView:
        return self._arena._send(
            ops.analytics("cost", m.CostView, bucket=bucket, since=since, category=category)
        )

    def style_control(
        self, votes: Votes = "human", category: str | None = None
    ) -> m.StyleControlView:
        return self._arena._send(
            ops.analytics("style-control", m.StyleControlView, votes=votes, category=category)
        )

    def rating_history(
        self,
        since: datetime | None = None,
        points: int | None = None,
        votes: Votes = "human",
        category: str | None = None,
    ) -> m.RatingHistoryView:
        return self._arena._send(
            ops.analytics(
                "rating-history",
                m.RatingHistoryView,
                since=since,
                points=points,
                votes=votes,
                category=category,
            )
        )

    def reasons(self, votes: Votes = "human", category: str | None = None) -> m.ReasonCountsView:
        return self._arena._send(
            ops.analytics("reasons", m.ReasonCountsView, votes=votes, category=category)
        )

    def judge_agreement(self, category: str | None = None) -> m.JudgeAgreementView:
        return self._arena._send(
            ops.analytics("judge-agreement", m.JudgeAgreementView, category=category)
        )


class Suites:
    """Eval suites: list them, run one with progress, compare runs."""

    def __init__(self, arena: Arena) -> None:
        self._arena = arena

    def list(self) -> m.SuitesView:
        return self._arena._send(ops.suites())

    def start(self, name: str) -> m.SuiteRunView:
        """Start a run of suite ``name`` and return at once (``running``)."""
        return self._arena._send(ops.suite_start(name))

    def get(self, run_id: str | uuid.UUID) -> m.SuiteRunView:
        return self._arena._send(ops.suite_run(run_id))

    def runs(self, suite: str | None = None) -> m.SuiteRunsView:
        return self._arena._send(ops.suite_runs(suite))

    def resume(self, run_id: str | uuid.UUID) -> m.SuiteRunView:
        return self._arena._send(ops.suite_resume(run_id))

    def diff(self, a: str | uuid.UUID, b: str | uuid.UUID) -> m.SuiteDiffView:
        return self._arena._send(ops.suite_diff(a, b))

    def wait(
        self,
        run: m.SuiteRunView,
        progress: Callable[[m.SuiteRunView], object] | None = None,
        poll: float = 1.0,
        timeout: float | None = None,
    ) -> m.SuiteRunView:
        """Follow ``run`` until it is no longer ``running``; ``progress`` sees every change."""
        deadline = None if timeout is None else time.monotonic() + timeout
        seen = None
        while True:
            if progress is not None and (run.completed, run.status) != seen:
                seen = (run.completed, run.status)
                progress(run)
            if run.status != "running":
                return run
            if deadline is not None and time.monotonic() > deadline:
                raise ArenaError(
                    f"Suite run {run.run_id} still running after {timeout} s", code="suite_timeout"
                )
            time.sleep(poll)
            run = self.get(run.run_id)

    def run(
        self,
        name: str,
        progress: Callable[[m.SuiteRunView], object] | None = None,
        poll: float = 1.0,
        timeout: float | None = None,
    ) -> m.SuiteRunView:
        """Run suite ``name`` to its end, calling ``progress`` as prompts complete."""
        return self.wait(self.start(name), progress, poll, timeout)


class Arena:
    """A blocking client of one arena.

    Args:
        base_url: where the arena answers (``http://localhost:3001``).
        token: an API token (``ARENA_API_TOKENS`` or one a user made), sent as a bearer token.
        session: the voter's session id for every round; by default each new conversation
            gets one of its own.
        retry: opt-in waiting out 429 and 503 answers (``Retry-After`` honoured): a ``Retry``,
            a number of attempts, or ``True`` for the default policy.
        timeout: seconds for connecting and between two reads of an answer.
        client: an ``httpx.Client`` of your own (its base URL and headers used as they are).
    """

    def __init__(
        self,
        base_url: str = "http://localhost:3001",
        token: str | None = None,
        *,
        session: str | None = None,
        retry: Retry | int | bool | None = None,
        timeout: float = 60.0,
        client: httpx.Client | None = None,
    ) -> None:
        headers = client_headers(token)
        self._client = client or httpx.Client(base_url=base_url, headers=headers, timeout=timeout)
        self._owns_client = client is None
        self.session = session
        self.retry = as_retry(retry)
        self.analytics = Analytics(self)
        self.suites = Suites(self)

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    def __enter__(self) -> Arena:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- sending ---------------------------------------------------------------------------------
    def _answer(self, request: httpx.Request) -> httpx.Response:
        """The streamed answer to ``request``, its error raised (and, with ``retry``, waited
        out and asked again)."""
        attempt = 1
        while True:
            try:
                response = self._client.send(request, stream=True)
            except httpx.TransportError as exc:
                error: ArenaError = transport_error(request, exc)
            else:
                if response.status_code < 400:
                    return response
                try:
                    error = error_from_answer(
                        response.status_code, response.headers, response.read()
                    )
                finally:
                    response.close()
            wait = self.retry.wait(error, attempt) if self.retry else None
            if wait is None:
                raise error
            time.sleep(wait)
            attempt += 1

    def _request(self, call: Call[Any], accept: str = "application/json") -> httpx.Request:
        return self._client.build_request(
            call.method, call.path, params=call.params, json=call.body, headers={"accept": accept}
        )

    def _send(self, call: Call[T]) -> T:
        response = self._answer(self._request(call))
        try:
            return call.read(response.read())
        except httpx.TransportError as exc:
            raise transport_error(response.request, exc) from exc
        finally:
            response.close()

    def _round(self, body: dict[str, Any]) -> Round:
        call: Call[Any] = Call("POST", "/api/arena/chat", dict, body=body)
        response = self._answer(self._request(call, accept="text/event-stream"))
        try:
            state = RoundState.from_header(
                response.headers.get(MATCHUP_HEADER), body.get("sessionId")
            )
        except BaseException:
            response.close()
            raise
        return Round(self, response, state)

    # -- rounds ----------------------------------------------------------------------------------
    def round(
        self,
        prompt: str,
        *,
        session: str | None = None,
        mode: Literal["blind", "named"] = "blind",
        models: tuple[str, str] | list[str] | None = None,
        images: Iterable[Image] = (),
        conversation: str | uuid.UUID | None = None,
    ) -> Round:
        """Start a round and return it as its stream begins (errors before that raise here).

        ``mode="named"`` with two roster ids of ``models`` asks those two, named from the
        start; ``images`` are bytes, URLs or data URLs; ``conversation`` continues one.
        """
        session = session or self.session or new_session()
        return self._round(
            ops.chat_body(
                prompt,
                session=session,
                conversation=conversation,
                mode=mode,
                models=models,
                images=images,
            )
        )

    def join(
        self,
        prompt: str,
        *,
        key: str,
        session: str,
        slot: Slot | None = None,
        conversation: str | uuid.UUID | None = None,
    ) -> Round:
        """One half of a matchup shared by two requests with the same ``key``, ``session``,
        conversation and prompt (one request per model, as a client with a column per model
        sends): each streams its slot, one vote for both. With ``slot`` this request streams
        that slot; the server answers 409 ``join_unpaired`` if no sibling comes in time."""
        return self._round(
            ops.chat_body(
                prompt, session=session, conversation=conversation, join_key=key, slot=slot
            )
        )

    def control(self, message: Mapping[str, Any], timeout: float = 30.0) -> bool:
        """Send one message over the control socket and read its reply."""
        with connect(self._client, "/api/arena/control") as socket:
            socket.send_json(message)
            return control_outcome(socket.receive_json(timeout=timeout))

    def vote(
        self,
        matchup_id: str,
        token: str,
        outcome: Outcome,
        reasons: Iterable[str] | None = None,
    ) -> m.VoteReveal:
        """Vote on a round known by its id and token (``Round.vote`` for one of yours)."""
        return self._send(ops.vote(matchup_id, token, outcome, reasons))

    # -- reads -----------------------------------------------------------------------------------
    def matchup(self, matchup_id: str | uuid.UUID) -> m.MatchupView:
        return self._send(ops.matchup(matchup_id))

    def conversation(
        self, conversation_id: str | uuid.UUID, session: str | None = None
    ) -> m.ConversationView:
        return self._send(ops.conversation(conversation_id, session))

    def leaderboard(
        self,
        votes: Votes = "human",
        category: str | None = None,
        *,
        include_named: bool = False,
        filters: bool = True,
    ) -> m.LeaderboardView:
        """The board of ``votes`` (people's, the judge's, or all), of one ``category``."""
        return self._send(ops.leaderboard(votes, category, include_named, filters))

    def vote_reasons(self) -> m.ReasonChoicesView:
        return self._send(ops.vote_reasons())

    def health(self) -> m.Health:
        return self._send(ops.health())

    def models(self) -> m.ModelList:
        return self._send(ops.models())

    def export(
        self,
        since: datetime | None = None,
        until: datetime | None = None,
        *,
        include_text: bool = False,
        scrub: bool = True,
    ) -> Iterator[dict[str, Any]]:
        """The open vote data, one row per vote, read as it streams."""
        call = ops.export(since, until, include_text, scrub)
        response = self._answer(self._request(call, accept="application/x-ndjson"))
        try:
            for line in response.iter_lines():
                if line.strip():
                    yield call.read(line.encode())
        except httpx.TransportError as exc:
            raise ConnectionLost(f"the export: {exc}", code="stream_interrupted") from exc
        finally:
            response.close()
