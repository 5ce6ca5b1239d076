"""Open WebUI feedback records read as battles: one per sibling, counted as its leaderboard
counts them, text from the snapshot, reasons adopted, and what compares nothing skipped."""

from __future__ import annotations

import io
import json
from typing import Any

from arena_api.core.reasons import DEFAULT_VOTE_REASONS, VoteReasons
from arena_api.interop.battles import BadRecord, Battle
from arena_api.interop.openwebui import OpenWebUIFeedback


def _record(n: int = 0, **data: Any) -> dict[str, Any]:
    return {
        "id": f"f{n}",
        "user_id": "u1",
        "version": 0,
        "type": "rating",
        "data": {"rating": 1, "model_id": "a", "sibling_model_ids": ["b", "c"], **data},
        "meta": {"arena": True, "chat_id": "c1", "message_id": "m-a"},
        "snapshot": {
            "chat": {
                "chat": {
                    "history": {
                        "messages": {
                            "u": {"id": "u", "content": "Why?", "childrenIds": ["m-a", "m-b"]},
                            "m-a": {"id": "m-a", "parentId": "u", "content": "A!", "model": "a"},
                            "m-b": {
                                "id": "m-b",
                                "parentId": "u",
                                "content": "B!",
                                "model": "arena-model",
                                "selectedModelId": "b",
                            },
                        }
                    }
                }
            }
        },
        "created_at": 1_760_000_000,
        "updated_at": 1_760_000_000,
    }


def _read(records: list[Any]) -> tuple[list[Battle | BadRecord], OpenWebUIFeedback]:
    reader = OpenWebUIFeedback(VoteReasons(DEFAULT_VOTE_REASONS).adopt)
    return list(reader.read(io.StringIO(json.dumps(records)))), reader


def test_a_rating_is_one_battle_per_sibling_with_the_snapshot_text() -> None:
    (b, c), _ = _read([_record(reason="not_factually_correct")])

    assert isinstance(b, Battle) and isinstance(c, Battle)
    assert (b.source_id, b.model_a, b.model_b, b.vote) == ("f0:b", "a", "b", "left")
    assert b.exchanges[0].prompt == "Why?" and b.exchanges[0].answer_a == "A!"
    assert b.exchanges[0].answer_b == "B!" and c.exchanges[0].answer_b is None
    assert b.reasons == ("accuracy",) and b.voter == "u1" and not b.named


def test_thumbs_down_loses_and_what_compares_nothing_is_skipped() -> None:
    records = [
        _record(1, rating=-1),
        _record(2, sibling_model_ids=None),
        _record(3, rating=0),
        {**_record(4), "meta": {"arena": False}},
    ]

    battles, reader = _read(records)

    assert [(b.source_id, b.vote, b.named) for b in battles if isinstance(b, Battle)] == [
        ("f1:b", "right", False),
        ("f1:c", "right", False),
        ("f4:b", "left", True),
        ("f4:c", "left", True),
    ]
    assert reader.skipped == 2


def test_bad_records_say_which_feedback() -> None:
    battles, _ = _read([_record(1, model_id=""), {**_record(2), "created_at": "now"}, 7])

    assert [str(b) for b in battles] == [
        "item 0 (feedback f1): data.model_id must name a model",
        "item 1 (feedback f2): created_at must be a Unix time in seconds",
        "item 2: a feedback record must be a JSON object",
    ]
