"""What the judge is told of a prompt's images: attached for a judge that reads them, named as
unseen for one that does not, and nothing for a prompt without any."""

from __future__ import annotations

import uuid

import pytest

from arena_api.core.judging import DEFAULT_PROMPT, history_before, image_note, judge_messages
from arena_api.core.media import ChatImage, ImageRef
from arena_api.core.models import ModelEntry
from arena_api.core.records import ConversationRecord, StoredAnswer, TurnRecord

PICTURES = (
    ChatImage(ImageRef("a" * 64, "image/png", 8, 6, 3), b"png"),
    ChatImage(ImageRef("b" * 64, "image/jpeg", 4, 4, 4), b"jpeg"),
)


def _user_message(*, vision: bool, images: tuple[ChatImage, ...] = PICTURES) -> tuple[str, int]:
    user = judge_messages(
        DEFAULT_PROMPT, "", "Which is red?", "x", "y", images=images, vision=vision
    )[1]
    return user.content, len(user.images)


def test_a_judge_that_reads_images_gets_them_on_its_message_and_is_told_so() -> None:
    text, attached = _user_message(vision=True)

    assert attached == 2
    assert "Which is red?\n\n[The user's message came with 2 images, attached" in text


def test_a_judge_that_does_not_read_images_gets_none_and_is_told_it_cannot_see_them() -> None:
    text, attached = _user_message(vision=False, images=PICTURES[:1])

    assert attached == 0
    assert "[The user's message came with 1 image, which you cannot see." in text


@pytest.mark.parametrize(
    "vision", [pytest.param(True, id="vision"), pytest.param(False, id="text")]
)
def test_a_prompt_without_images_reads_as_before(vision: bool) -> None:
    text, attached = _user_message(vision=vision, images=())

    assert attached == 0
    assert text == judge_messages(DEFAULT_PROMPT, "", "Which is red?", "x", "y")[1].content
    assert image_note(0, seen=vision) == ""


def test_an_earlier_turns_images_are_named_in_the_history() -> None:
    model = ModelEntry(uuid.uuid4(), "M", "fake", "m")
    turn = TurnRecord(
        turn_index=0,
        matchup_id=uuid.uuid4(),
        prompt="Look at this",
        mode="blind",
        vote="left",
        answers=(StoredAnswer("A", uuid.uuid4(), "A red square.", None),),
        slot_a=model,
        slot_b=model,
        images=(PICTURES[0].ref,),
    )

    history = history_before(ConversationRecord(uuid.uuid4(), None, (turn,)), 1)

    assert "[User]\nLook at this\n[1 image attached here, not shown to you]" in history
