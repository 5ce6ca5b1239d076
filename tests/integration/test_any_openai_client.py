"""Any OpenAI chat client can vote: no chat id, only the conversation the client resends.

The clients here send no header of Open WebUI's. Each duel reply ends with its reference line
(``Duel ref: arena-…``), the client sends the reply back as an assistant message with the next
message, and the arena finds the duel by it: ``!a`` and friends vote and reveal, and the next
question continues from the winner. Real clients (the ``openai`` SDK and the ``llm`` command-line
tool) and hand-made bodies (what a client may do to the reply's text before resending it).
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import shutil
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
import pytest
import yaml
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.roster import load_roster
from arena_api.services._duel_refs import new_ref
from tests.integration.arena_harness import Arena, serve_arena
from tests.support import ROOT

ROSTER = load_roster(ROOT / "models.yaml")
REF_LINE = re.compile(r"^Duel ref: (arena-[23456789bcdfghjkmnpqrstvwxz]{24})$")


def _leaks(raw: str) -> list[str]:
    names = [m.display_name for m in ROSTER.models] + [m.provider_model_id for m in ROSTER.models]
    return [name for name in names if name.lower() in raw.lower()]


def _ref(reply: str) -> str:
    """The reference on the reply's last line (asserting that it is there)."""
    found = REF_LINE.match(reply.rstrip().splitlines()[-1])
    assert found, reply
    return found.group(1)


@dataclass
class PlainClient:
    """A chat client that sends no id: the conversation so far, as it chooses to resend it."""

    arena: Arena
    history: list[dict[str, Any]] = field(default_factory=list)
    #: What the client does to an answer's text before it sends it back.
    resend: Callable[[str], Any] = lambda text: text
    system: str | None = None

    async def ask(self, content: str, *, model: str = "arena-duel") -> tuple[str, dict[str, Any]]:
        """Send ``content``; the answer's text and its ``omni_arena`` metadata (not kept)."""
        messages = [*self.history, {"role": "user", "content": content}]
        if self.system is not None:
            messages = [{"role": "system", "content": self.system}, *messages]
        response = await self.arena.client.post(
            "/v1/chat/completions", json={"model": model, "stream": True, "messages": messages}
        )
        assert response.status_code == 200, response.text
        chunks = [
            json.loads(line[6:])
            for line in response.text.splitlines()
            if line.startswith("data: ") and line != "data: [DONE]"
        ]
        text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
        metadata = next((c["omni_arena"] for c in chunks if "omni_arena" in c), {})
        if not content.startswith("!"):  # a vote's reveal and the standings name models
            assert not _leaks(response.text)
        return text, metadata

    async def send(self, content: str, *, model: str = "arena-duel") -> tuple[str, dict[str, Any]]:
        """Ask, and keep the exchange in the history (the answer as the client resends it)."""
        text, metadata = await self.ask(content, model=model)
        self.history += [
            {"role": "user", "content": content},
            {"role": "assistant", "content": self.resend(text)},
        ]
        return text, metadata


async def _votes(arena: Arena) -> list[Any]:
    return await arena.rows(
        "SELECT matchup_id, vote, anonymous_session_id FROM preferences ORDER BY created_at"
    )


async def _names(arena: Arena, matchup_id: str) -> tuple[str, str]:
    row = (
        await arena.rows(
            "SELECT a.display_name AS a, b.display_name AS b FROM matchups m "
            "JOIN models a ON a.id = m.slot_a_model_id JOIN models b ON b.id = m.slot_b_model_id "
            "WHERE m.id = :m",
            m=uuid.UUID(matchup_id),
        )
    )[0]
    return row.a, row.b


async def _continues_from(arena: Arena, later: str, earlier: str, slot: str) -> bool:
    """Is matchup ``later`` the next turn of ``earlier``'s conversation, after its ``slot``?"""
    return bool(
        await arena.scalar(
            "SELECT t.parent_response_id = r.id AND t.turn_index = e.turn_index + 1 "
            "AND t.conversation_id = e.conversation_id "
            "FROM turns t, turns e, responses r "
            "WHERE t.matchup_id = :later AND e.matchup_id = :earlier "
            "AND r.matchup_id = :earlier AND r.slot = :slot",
            later=uuid.UUID(later),
            earlier=uuid.UUID(earlier),
            slot=slot,
        )
    )


# -- the openai SDK ------------------------------------------------------------------------------


async def test_the_openai_sdk_votes_sees_the_reveal_and_continues_from_the_winner(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        client = openai.AsyncOpenAI(base_url=arena.url + "/v1", api_key="x", max_retries=0)
        messages: list[dict[str, str]] = []

        async def say(content: str) -> str:
            messages.append({"role": "user", "content": content})
            stream = await client.chat.completions.create(
                model="arena-duel",
                messages=messages,  # type: ignore[arg-type]
                stream=True,
            )
            text = ""
            async for chunk in stream:
                text += chunk.choices[0].delta.content or ""
            messages.append({"role": "assistant", "content": text})
            return text

        duel = await say("Explain JWTs")
        reveal = await say("!a")
        follow = await say("Go deeper")
        first, second = [
            str(r.matchup_id)
            for r in await arena.rows("SELECT matchup_id FROM turns ORDER BY created_at")
        ]
        a_name, b_name = await _names(arena, first)
        votes = await _votes(arena)
        continued = await _continues_from(arena, second, first, "A")
        stored_keys = await arena.scalar(
            "SELECT count(*) FROM external_chats WHERE chat_key LIKE '%' || :ref || '%'",
            ref=_ref(duel)[len("arena-") :],
        )

    assert duel.startswith("### Answer A") and "### Answer B" in duel
    assert "**`!a`**" in duel.split("---")[-1]
    assert not _leaks(duel)
    assert reveal.startswith("**Vote recorded: Answer A is better.**")
    assert f"| A | **{a_name}** (winner) |" in reveal and f"| B | {b_name} |" in reveal
    assert "continues this conversation from Answer A" in reveal
    assert [(str(v.matchup_id), v.vote) for v in votes] == [(first, "left")]
    assert votes[0].anonymous_session_id.startswith("openai-chat:")
    assert _ref(duel)[6:] not in votes[0].anonymous_session_id
    assert follow.startswith("### Answer A")  # no fresh-start note
    assert continued
    assert _ref(follow) != _ref(duel)
    assert stored_keys == 0  # only a digest of the reference is stored


# -- what a client does to the reply -------------------------------------------------------------


def _strip_markdown(text: str) -> str:
    text = re.sub(r"^#+ |^> |^---$", "", text, flags=re.MULTILINE)
    return re.sub(r"[*`_]", "", text)


def _as_html(text: str) -> str:
    return "".join(f"<p>{html.escape(line)}</p>" for line in text.splitlines() if line)


@pytest.mark.parametrize(
    ("resend", "system"),
    [
        pytest.param(lambda t: t, None, id="as-sent"),
        pytest.param(lambda t: "\n\n " + t.strip() + " \n", None, id="whitespace-trimmed-padded"),
        pytest.param(lambda t: " ".join(t.split()), None, id="newlines-dropped"),
        pytest.param(_strip_markdown, None, id="markdown-stripped"),
        pytest.param(_as_html, None, id="rendered-to-html"),
        pytest.param(lambda t: t.upper(), None, id="upper-cased"),
        pytest.param(lambda t: [{"type": "text", "text": t}], None, id="text-parts"),
        pytest.param(lambda t: t, "You are terse.", id="system-prompt-added"),
    ],
)
async def test_a_vote_finds_its_duel_however_the_client_resends_the_reply(
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    resend: Callable[[str], Any],
    system: str | None,
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = PlainClient(arena, resend=resend)
        _, duel = await chat.send("Explain JWTs")
        chat.system = system  # a client may send another system prompt with the next message
        reveal, _ = await chat.send("!b")
        votes = await _votes(arena)

    assert reveal.startswith("**Vote recorded: Answer B is better.**")
    assert [(str(v.matchup_id), v.vote) for v in votes] == [(duel["matchupId"], "right")]


# -- which duel ----------------------------------------------------------------------------------


async def test_a_vote_goes_to_the_duel_right_above_it_and_an_edited_history_picks_another(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = PlainClient(arena)
        _, first = await chat.send("Explain JWTs")
        branch = list(chat.history)  # the chat as it stood after the first duel
        _, second = await chat.send("And OAuth?")
        latest, _ = await chat.send("!b")
        again, _ = await chat.send("!a")
        after_help, _ = await chat.send("!help")
        chat.history = branch  # the user goes back and votes on the first duel instead
        edited, _ = await chat.send("!a")
        votes = await _votes(arena)

    assert latest.startswith("**Vote recorded: Answer B is better.**")
    assert again.startswith("This round already has a vote (Answer B is better), so nothing")
    assert "**Arena commands**" in after_help
    assert edited.startswith("**Vote recorded: Answer A is better.**")
    assert sorted((str(v.matchup_id), v.vote) for v in votes) == sorted(
        [(second["matchupId"], "right"), (first["matchupId"], "left")]
    )


async def test_commands_between_the_duel_and_the_vote_do_not_hide_the_duel(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = PlainClient(arena)
        _, duel = await chat.send("Explain JWTs")
        await chat.send("!leaderboard")
        # A question whose request failed: the client kept it without an answer.
        chat.history.append({"role": "user", "content": "Are you there?"})
        reveal, _ = await chat.send("!tie")
        fresh, _ = await chat.send("Next question")
        votes = await _votes(arena)

    assert reveal.startswith("**Vote recorded: both answers are good (a tie).**")
    assert [(str(v.matchup_id), v.vote) for v in votes] == [(duel["matchupId"], "both_good")]
    assert fresh.startswith("*The last vote (a tie) picked no winner")


async def test_the_same_vote_sent_twice_answers_the_reveal_twice_and_records_one_vote(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = PlainClient(arena)
        await chat.send("Explain JWTs")
        replies = await asyncio.gather(chat.ask("!a"), chat.ask("!a"))
        votes = await _votes(arena)

    assert all(text.startswith("**Vote recorded: Answer A is better.**") for text, _ in replies)
    assert [v.vote for v in votes] == ["left"]


# -- refused votes -------------------------------------------------------------------------------


async def test_a_changed_or_foreign_reference_is_refused_and_the_real_one_still_votes(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = PlainClient(arena)
        nothing, _ = await chat.ask("!a")
        duel, started = await chat.send("Explain JWTs")
        ref = _ref(duel)
        genuine = list(chat.history)
        changed = ref[:-1] + ("b" if ref[-1] != "b" else "c")
        chat.history[-1] = {"role": "assistant", "content": duel.replace(ref, changed)}
        forged, _ = await chat.ask("!a")
        chat.history[-1] = {"role": "assistant", "content": duel.replace(ref, new_ref())}
        foreign, _ = await chat.ask("!a")
        chat.history[-1] = {"role": "assistant", "content": duel.replace(f"Duel ref: {ref}", "")}
        stripped, _ = await chat.ask("!a")
        refused_votes = await _votes(arena)
        chat.history = genuine
        recorded, _ = await chat.ask("!a")
        votes = await _votes(arena)

    assert nothing.startswith("There is no arena duel above this message to vote on")
    assert forged.startswith(f"The duel reference above (`{changed}`) is not one this arena")
    assert "**No vote was recorded.**" in forged and "**No vote was recorded.**" in foreign
    assert stripped.startswith("There is no arena duel above this message to vote on")
    assert refused_votes == []
    assert recorded.startswith("**Vote recorded: Answer A is better.**")
    assert [(str(v.matchup_id), v.vote) for v in votes] == [(started["matchupId"], "left")]


async def test_the_reference_outlives_a_restart_with_another_token_secret(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        chat = PlainClient(arena)
        _, first = await chat.send("Explain JWTs")
    secret = {"MATCHUP_TOKEN_SECRET": "another-secret-of-sufficient-length"}
    async with serve_arena(db, database_url, tmp_path, **secret) as restarted:
        chat.arena = restarted
        reveal, _ = await chat.send("!b")
        _, second = await chat.send("Go deeper")
        continued = await _continues_from(restarted, second["matchupId"], first["matchupId"], "B")

    assert reveal.startswith("**Vote recorded: Answer B is better.**")
    assert continued


async def test_the_chat_id_keeps_its_own_way_and_a_duel_with_it_carries_no_reference(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """A reference found in the history of a chat that sends its id is not what it votes by."""
    async with serve_arena(db, database_url, tmp_path) as arena:
        plain = PlainClient(arena)
        await plain.send("Explain JWTs")
        body = {"model": "arena-duel", "stream": True}
        headers = {"x-openwebui-chat-id": "chat-1"}
        with_id = await arena.client.post(
            "/v1/chat/completions",
            json={**body, "messages": [{"role": "user", "content": "hi"}]},
            headers=headers,
        )
        vote = await arena.client.post(
            "/v1/chat/completions",
            json={**body, "messages": [*plain.history, {"role": "user", "content": "!a"}]},
            headers={"x-openwebui-chat-id": "chat-2"},
        )
        votes = await arena.scalar("SELECT count(*) FROM preferences")

    assert "Duel ref:" not in with_id.text
    assert "There is no round to vote on in this chat yet" in vote.text
    assert votes == 0


# -- the llm command-line tool -------------------------------------------------------------------


def _llm() -> str:
    """The ``llm`` executable of this virtualenv (a dev dependency: ``make setup`` installs it)."""
    beside = Path(sys.executable).with_name("llm")
    found = str(beside) if beside.exists() else shutil.which("llm")
    if found is None:
        pytest.fail("the llm command-line tool is missing: pip install -e '.[dev]'")
    return found


async def _run_llm(home: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LLM_"))}
    env.update(LLM_USER_PATH=str(home), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1")
    process = await asyncio.create_subprocess_exec(
        _llm(),
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    return out.decode()


async def test_the_llm_command_line_tool_duels_votes_and_continues_from_the_winner(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    home = tmp_path / "llm"
    home.mkdir()
    async with serve_arena(db, database_url, tmp_path) as arena:
        models = [
            {"model_id": "arena-duel", "model_name": "arena-duel", "api_base": arena.url + "/v1"}
        ]
        (home / "extra-openai-models.yaml").write_text(yaml.safe_dump(models))
        duel = await _run_llm(home, "-m", "arena-duel", "Explain JWTs")
        reveal = await _run_llm(home, "-c", "!a")
        follow = await _run_llm(home, "-c", "Go deeper")
        first, second = [
            str(r.matchup_id)
            for r in await arena.rows("SELECT matchup_id FROM turns ORDER BY created_at")
        ]
        a_name, _ = await _names(arena, first)
        votes = await _votes(arena)
        continued = await _continues_from(arena, second, first, "A")
    for name, out in (("duel", duel), ("vote", reveal), ("follow-up", follow)):
        print(f"--- llm {name} ---\n{out}")

    assert duel.startswith("### Answer A") and "### Answer B" in duel
    assert _ref(duel) and not _leaks(duel)
    assert reveal.startswith("**Vote recorded: Answer A is better.**")
    assert f"| A | **{a_name}** (winner) |" in reveal
    assert [(str(v.matchup_id), v.vote) for v in votes] == [(first, "left")]
    assert follow.startswith("### Answer A") and _ref(follow) != _ref(duel)
    assert continued
