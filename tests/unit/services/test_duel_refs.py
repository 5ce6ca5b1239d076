"""Duel references: minted opaque, read back from whatever a client resends, found above a vote."""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator

import pytest

from arena_api.core.events import PublicEvent, SlotDone, Token
from arena_api.core.models import ChatMessage
from arena_api.services._chat_text import duel_text, ref_line
from arena_api.services._duel_refs import find_ref, new_ref, ref_above, ref_key, round_above

REF = "arena-7kx2mq9tb4hd3nwz8cfr5pjs"


def test_a_reference_is_random_and_never_spells_a_word() -> None:
    refs = {new_ref() for _ in range(200)}

    assert len(refs) == 200
    assert all(re.fullmatch(r"arena-[23456789bcdfghjkmnpqrstvwxz]{24}", ref) for ref in refs)
    # No vowel: no model or provider name ("mock", "openai", "gemini", ...) can appear in one.
    assert not any(set("aeiouyl01") & set(ref.removeprefix("arena-")) for ref in refs)


def test_only_a_digest_of_the_reference_is_its_key_and_case_does_not_matter() -> None:
    assert ref_key(REF) == ref_key(REF.upper())
    assert re.fullmatch(r"[0-9a-f]{64}", ref_key(REF))
    assert REF.removeprefix("arena-") not in ref_key(REF)
    assert ref_key(REF) != ref_key(new_ref())


@pytest.mark.parametrize(
    "resent",
    [
        pytest.param(f"answers\n\n---\nvote line\n\n{ref_line(REF)}\n", id="as-sent"),
        pytest.param(f"answers --- vote line {ref_line(REF)}", id="newlines-dropped"),
        pytest.param(f"<p>answers</p><p>{ref_line(REF)}</p>", id="html"),
        pytest.param(f"*answers*\n\n`{REF}`", id="code-span"),
        pytest.param(f"ANSWERS\n{ref_line(REF).upper()}", id="upper-case"),
        pytest.param(f"{ref_line(new_ref())} quoted by a model\n\n{ref_line(REF)}", id="last-wins"),
    ],
)
def test_the_reference_is_read_back_from_whatever_the_client_resends(resent: str) -> None:
    assert find_ref(resent) == REF


@pytest.mark.parametrize(
    ("text", "found"),
    [
        pytest.param("Pick arena-duel or arena-single", None, id="model-ids"),
        pytest.param("no reference here", None, id="none"),
        pytest.param("Duel ref: xarena-7kx2mq9tb4hd3nwz8cfr5pjs", None, id="inside-a-word"),
        # A changed reference still reads as one, so the lookup refuses it by name.
        pytest.param("Duel ref: arena-7kx2mq9tb4hd3nwz8cfr5pja", "arena-7kx2mq9tb4hd3nwz8cfr5pja"),
    ],
)
def test_what_is_not_a_reference_is_not_taken_for_one(text: str, found: str | None) -> None:
    assert find_ref(text) == found


def _chat(*turns: tuple[str, str]) -> list[ChatMessage]:
    return [ChatMessage(role=role, content=content) for role, content in turns]  # type: ignore[arg-type]


def test_the_round_above_passes_over_commands_their_replies_and_unanswered_questions() -> None:
    history = _chat(
        ("system", "Be brief."),
        ("user", "Explain JWTs"),
        ("assistant", f"first duel\n{ref_line(REF)}"),
        ("user", "!leaderboard"),
        ("assistant", "| standings |"),
        ("system", "a client's note"),
        ("user", "!help"),
        ("assistant", "the commands"),
        ("user", "Are you there?"),
    )

    above = round_above(history)
    assert above is not None and above.content.startswith("first duel")
    assert ref_above(history) == REF


def test_the_latest_round_counts_even_when_it_is_no_duel_of_ours() -> None:
    older = f"first duel\n{ref_line(REF)}"
    history = _chat(("user", "q1"), ("assistant", older), ("user", "q2"), ("assistant", "plain"))

    assert ref_above(history) is None
    assert ref_above(history[:2]) == REF
    assert ref_above([]) is None
    assert ref_above(_chat(("user", "!a"), ("assistant", older))) is None


async def _events() -> AsyncGenerator[PublicEvent, None]:
    for slot in ("A", "B"):
        yield Token(slot=slot, token=f"answer {slot}")
        yield SlotDone(slot=slot)


async def test_a_duel_reply_ends_with_its_reference_line_only_when_given_one() -> None:
    with_ref = "".join([piece async for piece in duel_text(_events(), note=None, ref=REF)])
    without = "".join([piece async for piece in duel_text(_events(), note=None)])

    assert with_ref.splitlines()[-1] == f"Duel ref: {REF}"
    assert with_ref.splitlines()[-2] == ""  # a paragraph of its own
    assert "Duel ref" not in without and without.splitlines()[-1].startswith("Which answer")
