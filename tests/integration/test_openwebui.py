"""Open WebUI against our ``/v1``: its real request sequence replayed on the real server.

The requests are shaped as Open WebUI 0.12.4 sends them (PROTOCOLS.md §10): the forwarded user
and chat headers, a body of exactly ``stream``, ``model``, ``messages`` and its 36 built-in tools,
one request per compare column 13-50 ms apart, a title task ~90 ms before the first streaming
request, and a typed command sent once per column ~10 ms apart, each carrying the highlighted
column's history.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.roster import load_roster
from tests.fakes._recording import Recorder
from tests.fakes.openai_server import OK_TOKENS, create_app
from tests.integration.arena_harness import Arena, roster_of, serve_arena
from tests.integration.protocols._faults import failing_vendor
from tests.integration.test_metrics import votes_counted
from tests.support import ROOT, ServerThread, free_port

ARENA_IDS = ["arena-duel", "arena-a", "arena-b", "arena-single"]
ROSTER = load_roster(ROOT / "models.yaml")


def _tools() -> list[dict[str, Any]]:
    """A ``tools`` array of Open WebUI's size and shape: 36 function tools, about 24 KB."""
    return [
        {
            "type": "function",
            "function": {
                "name": f"builtin_tool_{n}",
                "description": f"Built-in tool number {n}. " + "It does something useful. " * 16,
                "parameters": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "What to look for. " * 4},
                        "count": {"type": "integer", "description": "How many results."},
                    },
                    "required": ["query"],
                },
            },
        }
        for n in range(36)
    ]


TOOLS = _tools()


def _title_task(first_message: str) -> str:
    return (
        "### Task:\nGenerate a concise title summarizing the chat history.\n### Output:\n"
        'JSON format: { "title": "your concise title here" }\n### Chat History:\n'
        f"<chat_history>\nUSER: {first_message}\n</chat_history>"
    )


def _task(kind: str, shape: str) -> str:
    return (
        f"### Task:\nSuggest {kind}.\n### Output:\nJSON format: {shape}\n### Chat History:\n"
        "<chat_history>\nUSER: hi\nASSISTANT: hello\n</chat_history>"
    )


@dataclass
class Reply:
    """One streamed answer: the text of ``choices[0]``, every chunk, the raw headers and body."""

    text: str
    chunks: list[dict[str, Any]]
    raw: str

    @property
    def metadata(self) -> dict[str, Any]:
        return next((c["omni_arena"] for c in self.chunks if "omni_arena" in c), {})


@dataclass
class OpenWebUi:
    """An Open WebUI chat as our server sees it: its headers and the history it sends."""

    arena: Arena
    chat_id: str | None = field(default_factory=lambda: str(uuid.uuid4()))
    user_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    history: list[dict[str, str]] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        headers = {
            "authorization": "Bearer x",
            "x-openwebui-user-id": self.user_id,
            "x-openwebui-user-name": "Ada%20Lovelace",
            "x-openwebui-user-email": "ada@example.org",
            "x-openwebui-user-role": "admin",
            "x-openwebui-auth-type": "none",
        }
        if self.chat_id is not None:
            headers["x-openwebui-chat-id"] = self.chat_id
        return headers

    def _messages(self, content: str) -> list[dict[str, str]]:
        return [*self.history, {"role": "user", "content": content}]

    async def stream(self, model: str, content: str) -> Reply:
        body = {"stream": True, "model": model, "messages": self._messages(content), "tools": TOOLS}
        response = await self.arena.client.post(
            "/v1/chat/completions", json=body, headers=self.headers
        )
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("text/event-stream")
        chunks = [
            json.loads(line[6:])
            for line in response.text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"
        ]
        assert response.text.rstrip().endswith("data: [DONE]")
        text = "".join(
            c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]
        )
        return Reply(text, chunks, f"{response.headers}\n{response.text}")

    async def task(self, model: str, content: str, **extra: Any) -> Any:
        body = {"stream": False, "model": model, "messages": self._messages(content), **extra}
        return await self.arena.client.post("/v1/chat/completions", json=body, headers=self.headers)

    async def send(self, model: str, content: str) -> Reply:
        """Ask in a one-model chat; the exchange joins the history as Open WebUI shows it."""
        reply = await self.stream(model, content)
        self.history += [
            {"role": "user", "content": content},
            {"role": "assistant", "content": reply.text},
        ]
        return reply

    async def compare(
        self, content: str, *, first: str = "arena-a", gap_s: float = 0.02
    ) -> dict[str, Reply]:
        """One message in a compare chat: a request per column, ``gap_s`` apart; the history
        goes on with the last column's answer (the highlighted one)."""
        second = "arena-b" if first == "arena-a" else "arena-a"

        async def late() -> Reply:
            await asyncio.sleep(gap_s)
            return await self.stream(second, content)

        replies = dict(
            zip(
                (first, second),
                await asyncio.gather(self.stream(first, content), late()),
                strict=True,
            )
        )
        self.history += [
            {"role": "user", "content": content},
            {"role": "assistant", "content": replies["arena-b"].text},
        ]
        return replies


def _leaks(raw: str, roster: Sequence[Any] = ROSTER.models) -> list[str]:
    """Identities of ``roster`` found in ``raw``."""
    names = [m.display_name for m in roster] + [m.provider_model_id for m in roster]
    return [name for name in names if name in raw]


async def _answers(arena: Arena, matchup_id: str) -> dict[str, str]:
    rows = await arena.rows(
        "SELECT slot, content FROM responses WHERE matchup_id = :m", m=uuid.UUID(matchup_id)
    )
    return {r.slot: r.content for r in rows}


# -- the model list ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("listing", "expected"),
    [
        pytest.param("arena", ARENA_IDS, id="arena"),
        pytest.param("roster", [], id="roster"),
        pytest.param("both", ARENA_IDS, id="both"),
    ],
)
async def test_the_model_list_offers_the_blind_arena_and_the_roster_as_configured(
    db: AsyncEngine, database_url: str, tmp_path: Path, listing: str, expected: list[str]
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_OPENAI_MODELS=listing) as arena:
        response = await arena.client.get("/v1/models", headers=OpenWebUi(arena).headers)
        models = response.json()["data"]

    ids = [m["id"] for m in models]
    names = {m["name"] for m in models}
    roster_names = {m.display_name for m in ROSTER.models}
    assert [i for i in ids if i.startswith("arena-")] == expected
    if listing == "arena":
        assert len(ids) == len(ARENA_IDS) and not _leaks(response.text)
    else:
        assert roster_names <= names
    assert all(m["object"] == "model" and isinstance(m["created"], int) for m in models)


# -- duel ----------------------------------------------------------------------------------------


async def test_a_duel_streams_both_blind_answers_in_one_message_after_its_title_task(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        title = await chat.task("arena-duel", _title_task("Explain JWTs"), max_tokens=1000)
        matchups_after_title = await arena.scalar("SELECT count(*) FROM matchups")
        await asyncio.sleep(0.09)
        reply = await chat.send("arena-duel", "Explain JWTs")
        answers = await _answers(arena, reply.metadata["matchupId"])

    assert title.status_code == 200
    completion = title.json()
    assert completion["object"] == "chat.completion"
    assert json.loads(completion["choices"][0]["message"]["content"]) == {
        "title": "Arena: Explain JWTs"
    }
    assert matchups_after_title == 0
    assert reply.text.startswith(f"### Answer A\n\n{answers['A']}")
    assert f"### Answer B\n\n{answers['B']}" in reply.text
    assert "!a" in reply.text.split("---")[-1]
    assert "Duel ref:" not in reply.text  # a chat with an id is known by it, as before
    assert {c["model"] for c in reply.chunks} == {"arena-duel"}
    assert all(len(c["choices"]) == 1 for c in reply.chunks)
    assert reply.metadata["votable"] is True
    assert not _leaks(reply.raw + title.text)


async def test_a_failed_slot_shows_a_marked_line_and_the_other_answer_still_streams(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    with failing_vendor() as (roster, env):
        async with serve_arena(db, database_url, tmp_path, roster=roster, **env) as arena:
            reply = await OpenWebUi(arena).send("arena-duel", "hi")

    healthy, failed = ("A", "B") if reply.text.startswith("### Answer A\n\nHello") else ("B", "A")
    section = reply.text.split(f"### Answer {failed}\n\n")[1]
    assert section.lstrip().startswith(f"> ⚠️ **Answer {failed} failed:**")
    assert "[omni-arena:slot-error]" in section
    assert f"### Answer {healthy}\n\n{''.join(OK_TOKENS)}" in reply.text
    assert not _leaks(reply.raw, roster.models)


# -- votes and multi-turn ------------------------------------------------------------------------


async def test_a_vote_reveals_both_models_and_the_next_message_continues_from_the_winner(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        first = await chat.send("arena-duel", "Explain JWTs")
        reveal = await chat.send("arena-duel", "!a")
        second = await chat.send("arena-duel", "Go deeper")
        slots = await arena.rows(
            "SELECT a.display_name AS a, b.display_name AS b FROM matchups m "
            "JOIN models a ON a.id = m.slot_a_model_id JOIN models b ON b.id = m.slot_b_model_id "
            "WHERE m.id = :m",
            m=uuid.UUID(first.metadata["matchupId"]),
        )
        vote = await arena.rows("SELECT vote, anonymous_session_id FROM preferences")
        parent = await arena.scalar(
            "SELECT t.parent_response_id = r.id FROM turns t, responses r "
            "WHERE t.matchup_id = :second AND r.matchup_id = :first AND r.slot = 'A'",
            second=uuid.UUID(second.metadata["matchupId"]),
            first=uuid.UUID(first.metadata["matchupId"]),
        )

    assert reveal.text.startswith("**Vote recorded: Answer A is better.**")
    assert f"| A | **{slots[0].a}** (winner) |" in reveal.text
    assert f"| B | {slots[0].b} |" in reveal.text
    assert [v.vote for v in vote] == ["left"]
    assert vote[0].anonymous_session_id.startswith("openwebui:")
    assert chat.user_id not in vote[0].anonymous_session_id
    assert second.metadata["conversationId"] == first.metadata["conversationId"]
    assert second.metadata["turnIndex"] == 1
    assert parent is True
    assert second.text.startswith("### Answer A")


@pytest.mark.parametrize("command", ["!tie", "!bad", "!skip"])
async def test_after_a_vote_without_a_winner_the_next_message_starts_fresh_and_says_so(
    db: AsyncEngine, database_url: str, tmp_path: Path, command: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        first = await chat.send("arena-duel", "Explain JWTs")
        reveal = await chat.send("arena-duel", command)
        second = await chat.send("arena-duel", "Go deeper")

    assert reveal.text.startswith("**Vote recorded:")
    assert "starts a fresh conversation" in reveal.text
    assert second.text.startswith("*The last vote (")
    assert "starts a fresh conversation with a new blind pair" in second.text.splitlines()[0]
    assert second.metadata["conversationId"] != first.metadata["conversationId"]
    assert second.metadata["turnIndex"] == 0


async def test_voting_twice_or_on_nothing_answers_a_sentence_and_records_one_vote(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        early = await chat.send("arena-duel", "!b")
        await chat.send("arena-duel", "Explain JWTs")
        await chat.send("arena-duel", "!b")
        again = await chat.send("arena-duel", "!a")
        without_chat = await OpenWebUi(arena, chat_id=None).send("arena-duel", "!a")
        votes = await arena.rows("SELECT vote FROM preferences")

    assert early.text.startswith("There is no round to vote on in this chat yet")
    assert again.text.startswith("This round already has a vote (Answer B is better)")
    assert without_chat.text.startswith("There is no arena duel above this message to vote on")
    assert [v.vote for v in votes] == ["right"]


async def test_the_chat_survives_a_restart_between_the_vote_and_the_next_turn(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        first = await chat.send("arena-duel", "Explain JWTs")
    async with serve_arena(db, database_url, tmp_path) as restarted:
        chat.arena = restarted
        reveal = await chat.send("arena-duel", "!b")
    async with serve_arena(db, database_url, tmp_path) as again:
        chat.arena = again
        second = await chat.send("arena-duel", "Go deeper")

    assert reveal.text.startswith("**Vote recorded: Answer B is better.**")
    assert second.metadata["conversationId"] == first.metadata["conversationId"]
    assert second.metadata["turnIndex"] == 1


async def test_leaderboard_and_help_answer_as_markdown(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        await chat.send("arena-duel", "Explain JWTs")
        await chat.send("arena-duel", "!a")
        board = await chat.send("arena-duel", "!leaderboard")
        help_ = await chat.send("arena-single", "!help")

    lines = board.text.splitlines()
    assert lines[0].startswith("**Leaderboard** · 1 vote · no rating fit yet")
    assert lines[2] == "| # | Model | Win rate | W / L / T | Votes |"
    assert lines[4].endswith("| 100.0% | 1 / 0 / 0 | 1 |")
    assert len([line for line in lines if line.startswith("| ")]) == 1 + len(ROSTER.models)
    assert all(f"`{c}`" in help_.text for c in ("!a", "!b", "!tie", "!bad", "!skip"))


# -- compare view --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "gap_s"),
    [
        pytest.param("arena-a", 0.013, id="a-first-13ms"),
        pytest.param("arena-b", 0.013, id="b-first-13ms"),
        pytest.param("arena-a", 0.05, id="a-first-50ms"),
        pytest.param("arena-b", 0.05, id="b-first-50ms"),
    ],
)
async def test_the_two_compare_columns_share_one_matchup_each_showing_its_own_slot(
    db: AsyncEngine, database_url: str, tmp_path: Path, first: str, gap_s: float
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        await chat.task("arena-a", _title_task("Compare me"))
        replies = await chat.compare("Compare me", first=first, gap_s=gap_s)
        matchups = await arena.scalar("SELECT count(*) FROM matchups")
        answers = await _answers(arena, replies["arena-a"].metadata["matchupId"])

    a, b = replies["arena-a"], replies["arena-b"]
    assert matchups == 1
    assert a.metadata["matchupId"] == b.metadata["matchupId"]
    assert (a.metadata["slots"], b.metadata["slots"]) == (["A"], ["B"])
    assert a.text.startswith(answers["A"]) and b.text.startswith(answers["B"])
    assert "Answer B" not in a.text and "**`!a`**" in a.text and "**`!b`**" in b.text
    assert {c["model"] for c in a.chunks} == {"arena-a"}
    assert {c["model"] for c in b.chunks} == {"arena-b"}
    assert not _leaks(a.raw + b.raw)


async def test_a_vote_sent_by_both_columns_records_one_vote_and_each_names_its_own_model(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        turn = await chat.compare("Compare me")
        votes = await chat.compare("!b", gap_s=0.01)
        names = await arena.rows(
            "SELECT a.display_name AS a, b.display_name AS b FROM matchups m "
            "JOIN models a ON a.id = m.slot_a_model_id JOIN models b ON b.id = m.slot_b_model_id"
        )
        recorded = await arena.rows("SELECT vote FROM preferences")
        follow = await chat.compare("Go deeper")
        on_metrics = await votes_counted(arena.client)

    a_name, b_name = names[0].a, names[0].b
    assert [v.vote for v in recorded] == ["right"]
    assert on_metrics == {("human", "chat"): 1}  # one vote, counted once
    assert votes["arena-a"].text.startswith(f"**This column (Arena A) was {a_name}** — not the")
    assert votes["arena-b"].text.startswith(f"**This column (Arena B) was {b_name}** — the winner")
    assert all("Vote recorded: Answer B is better." in r.text for r in votes.values())
    conversation = turn["arena-a"].metadata["conversationId"]
    assert follow["arena-a"].metadata["conversationId"] == conversation
    assert follow["arena-b"].metadata["turnIndex"] == 1


async def test_without_the_chat_id_each_column_says_how_to_turn_it_on_and_runs_nothing(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        replies = await OpenWebUi(arena, chat_id=None).compare("Compare me")
        matchups = await arena.scalar("SELECT count(*) FROM matchups")

    assert matchups == 0
    for reply in replies.values():
        assert "ENABLE_FORWARD_USER_INFO_HEADERS=true" in reply.text
        assert len(reply.text.splitlines()) == 1


async def test_a_lone_column_says_how_to_pick_its_pair_and_stores_nothing(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_JOIN_WINDOW_MS="200") as arena:
        reply = await OpenWebUi(arena).send("arena-b", "Only one column")
        matchups = await arena.scalar("SELECT count(*) FROM matchups")

    assert matchups == 0
    assert reply.text.startswith("**Arena B** is one column of a side-by-side pair")


# -- helper tasks, single and named models -------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param(_task("tags", '{ "tags": ["tag1", "tag2"] }'), {"tags": []}, id="tags"),
        pytest.param(
            _task("follow-ups", '{ "follow_ups": ["Suggested next message 1"] }'),
            {"follow_ups": []},
            id="follow-ups",
        ),
        pytest.param(_task("queries", '{ "queries": ["q"] }'), {"queries": []}, id="queries"),
        pytest.param(_task("nothing known", "whatever you like"), {}, id="unknown"),
    ],
)
async def test_helper_tasks_get_the_json_they_ask_for_and_start_no_round(
    db: AsyncEngine, database_url: str, tmp_path: Path, content: str, expected: dict[str, Any]
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await OpenWebUi(arena).task("arena-b", content)
        matchups = await arena.scalar("SELECT count(*) FROM matchups")

    assert response.status_code == 200
    assert json.loads(response.json()["choices"][0]["message"]["content"]) == expected
    assert matchups == 0


async def test_stream_false_on_anything_but_a_helper_task_is_refused(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await OpenWebUi(arena).task("arena-duel", "hi")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"
    assert response.json()["details"] == {"stream": ["must be true or omitted"]}


@pytest.fixture
def vendor() -> Any:
    recorder = Recorder()
    with ServerThread(create_app(recorder), free_port()) as server:
        yield server.url, recorder


async def test_a_named_model_gets_exactly_that_model_alone_with_the_chat_as_context(
    db: AsyncEngine, database_url: str, tmp_path: Path, vendor: tuple[str, Recorder]
) -> None:
    url, recorder = vendor
    roster = roster_of(("Alpha", "openai", "alpha--ok"), ("Beta", "openai", "beta--ok"))
    env = {"OPENAI_BASE_URL": f"{url}/v1", "OPENAI_API_KEY": "sk-test", "ARENA_MOCK_PROVIDER": "0"}
    async with serve_arena(
        db, database_url, tmp_path, roster=roster, ARENA_OPENAI_MODELS="both", **env
    ) as arena:
        chat = OpenWebUi(arena)
        chat.history = [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "!leaderboard"},
            {"role": "assistant", "content": "| table |"},
            {"role": "user", "content": "Earlier question"},
            {"role": "assistant", "content": "Earlier answer"},
        ]
        reply = await chat.send("Beta", "Now this")
        vote = await chat.send("Beta", "!a")
        matchups = await arena.scalar("SELECT count(*) FROM matchups")

    sent = recorder.last.json
    assert sent["model"] == "beta--ok"
    assert [(m["role"], m["content"]) for m in sent["messages"]] == [
        ("system", "Be brief."),
        ("user", "Earlier question"),
        ("assistant", "Earlier answer"),
        ("user", "Now this"),
    ]
    assert reply.text == "".join(OK_TOKENS)
    assert reply.metadata["votable"] is False and reply.metadata["mode"] == "single"
    assert {c["model"] for c in reply.chunks} == {"Beta"}
    assert matchups == 0
    assert vote.text.startswith("There is no round to vote on")


async def test_the_single_arena_model_answers_with_one_hidden_model_fixed_per_chat(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = OpenWebUi(arena)
        first = await chat.send("arena-single", "Hello")
        second = await chat.send("arena-single", "Hello again")
        matchups = await arena.scalar("SELECT count(*) FROM matchups")

    tag = first.text.split("]")[0]
    assert tag.startswith("[#") and second.text.startswith(tag)
    assert first.metadata["mode"] == "single" and first.metadata["votable"] is False
    assert matchups == 0
    assert not _leaks(first.raw + second.raw)


# -- a real client -------------------------------------------------------------------------------


async def test_the_openai_sdk_reads_a_duel_stream_and_a_helper_completion(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        headers = OpenWebUi(arena).headers
        client = openai.AsyncOpenAI(
            base_url=arena.url + "/v1", api_key="x", max_retries=0, default_headers=headers
        )
        text = ""
        stream = await client.chat.completions.create(
            model="arena-duel", messages=[{"role": "user", "content": "Explain JWTs"}], stream=True
        )
        async for chunk in stream:
            text += chunk.choices[0].delta.content or ""
        title = await client.chat.completions.create(
            model="arena-duel",
            messages=[{"role": "user", "content": _title_task("Explain JWTs")}],
            stream=False,
        )
        listed = [m.id async for m in client.models.list()]

    assert text.startswith("### Answer A") and "### Answer B" in text
    assert title.choices[0].message.content == '{"title": "Arena: Explain JWTs"}'
    assert listed == ARENA_IDS


async def test_a_renamed_chat_id_header_is_read_where_the_operator_says(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_CHAT_ID_HEADER="X-Team-Chat") as arena:
        body = {"stream": True, "model": "arena-duel"}
        headers = {"x-team-chat": "chat-7"}
        await arena.client.post(
            "/v1/chat/completions",
            json={**body, "messages": [{"role": "user", "content": "hi"}]},
            headers=headers,
        )
        vote = await arena.client.post(
            "/v1/chat/completions",
            json={**body, "messages": [{"role": "user", "content": "!a"}]},
            headers=headers,
        )
        votes = await arena.scalar("SELECT count(*) FROM preferences")

    assert "Vote recorded: Answer A is better." in vote.text
    assert votes == 1
