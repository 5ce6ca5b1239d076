"""The export's scrubber: what it finds on its labelled corpus, and how it rewrites text."""

from __future__ import annotations

import time
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from arena_api.core import scrub as scrub_module
from arena_api.core.scrub import KINDS, PLACEHOLDERS, Scrubber, describe_counts, find, scrub
from tests.unit.core.scrub_scores import found_spans, load_corpus, score

RECORDS = load_corpus()
#: Issue 40: recall and precision of at least 0.95 for every kind.
TARGET = 0.95
#: Spans of each kind the corpus must hold, and near-miss records (nothing to find) in all.
MIN_SPANS_PER_KIND = 40
MIN_NEAR_MISSES = 200


def test_the_public_surface_is_what_we_meant() -> None:
    assert set(scrub_module.__all__) == {
        "DEFAULT_PHONE_REGIONS",
        "KINDS",
        "PLACEHOLDERS",
        "Finding",
        "Kind",
        "Scrubbed",
        "Scrubber",
        "describe_counts",
        "find",
        "scrub",
    }


def test_the_corpus_covers_every_kind_and_its_near_misses() -> None:
    per_kind = Counter(kind for record in RECORDS for kind, _, _ in record.expected)
    near_misses = [r for r in RECORDS if not r.expected]

    assert all(per_kind[kind] >= MIN_SPANS_PER_KIND for kind in KINDS), per_kind
    assert len(near_misses) >= MIN_NEAR_MISSES
    assert all(r.note for r in near_misses), "each near-miss says what it stands for"


def test_every_kind_has_recall_and_precision_of_at_least_095_on_the_corpus() -> None:
    scores = score(RECORDS)
    table = "\n".join(
        f"{kind:<8} spans {s.expected:>3}  recall {s.recall:.3f}  precision {s.precision:.3f}"
        for kind, s in scores.items()
    )
    print(f"\nscrubber on {len(RECORDS)} records:\n{table}")  # shown with `pytest -s`
    misses = {
        record.text[:60]: sorted(found_spans(record) ^ record.expected)
        for record in RECORDS
        if found_spans(record) != record.expected
    }

    assert all(s.recall >= TARGET and s.precision >= TARGET for s in scores.values()), (
        table,
        misses,
    )


def test_each_span_becomes_its_kinds_placeholder_and_is_counted() -> None:
    text = (
        "Mail ana@example.com or call +44 20 7946 0958; the box is 203.0.113.9, "
        "pay with 4111 1111 1111 1111, key sk-proj-4fQ9xT2mLr8ZkWb1Yc7Vn3JhGd6Ps0Ae5RuX."
    )

    scrubbed = scrub(text)

    assert scrubbed.text == (
        "Mail [EMAIL] or call [PHONE]; the box is [IP], pay with [CARD], key [SECRET]."
    )
    assert scrubbed.counts == {"email": 1, "phone": 1, "ip": 1, "card": 1, "secret": 1}


def test_text_with_nothing_to_scrub_comes_back_unchanged() -> None:
    text = "Version 1.2.3.4 shipped on 2024-01-15T12:30:45Z, commit 9fceb02, total $1,234.56."

    assert scrub(text).text == text and scrub(text).counts == {}


def test_a_password_in_a_url_is_one_secret_not_an_email() -> None:
    scrubbed = scrub("DATABASE_URL=postgres://app:Tr0ub4dor3x@db.example.com:5432/prod")

    assert scrubbed.text == "DATABASE_URL=postgres://[SECRET]@db.example.com:5432/prod"
    assert scrubbed.counts == {"secret": 1}


def test_scrubbing_scrubbed_text_changes_nothing() -> None:
    changed = {}
    for record in RECORDS:
        once = scrub(record.text).text
        again = scrub(once)
        if again.text != once or again.counts:
            changed[once] = again

    assert not changed


_PIECES = st.sampled_from(
    [
        *PLACEHOLDERS.values(),
        "a", "b@", "x.com", ".", ":", "::", "1", "12", "415", "255", "4111", " ", "-", "+",
        "(", ")", "=", '"', "key", "password", " is ", "sk-", "://", "u:p", "#", "v", "é", "中",
    ]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=40).map("".join))
def test_placeholders_are_never_found_again(text: str) -> None:
    once = scrub(text).text

    again = scrub(once)

    assert again.text == once and again.counts == {}


def test_offsets_count_characters_in_any_script() -> None:
    text = "🙂 联系 wang.wei@163.com，电话 +86 10 6552 9988。IP ２ 2001:db8::8a2e:370:7334 🚀"

    spans = [(f.kind, text[f.start : f.end]) for f in find(text)]

    assert spans == [
        ("email", "wang.wei@163.com"),
        ("phone", "+86 10 6552 9988"),
        ("ip", "2001:db8::8a2e:370:7334"),
    ]


def test_a_megabyte_of_text_is_scrubbed_in_seconds() -> None:
    """Every pattern is linear: a quadratic one would take hours here."""
    answer = (
        "Sure! Write to ops@example.com or call (415) 555-2671. The host 203.0.113.7 runs "
        "v1.2.3.4; see https://example.com/a/b?c=1 and `x = arr[1::2]` on 2024-01-15.\n"
        "def f(key, values):\n    return {k: v for k, v in zip(key, values)}  # 12:30:45\n"
    )
    inputs = {
        "answers": answer * (1_000_000 // len(answer)),
        "colons": ":" * 1_000_000,
        "digits": "1 2 " * 250_000,
        "word": "a" * 1_000_000,
        "at signs": "a@" * 500_000,
        "unterminated key": "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 1_000_000,
    }
    took = {}
    for name, text in inputs.items():
        started = time.perf_counter()
        scrub(text)
        took[name] = time.perf_counter() - started

    assert max(took.values()) < 15, took


def test_a_scrubber_adds_up_what_it_replaced_across_texts() -> None:
    scrubber = Scrubber()

    texts = [
        scrubber.text("a@example.com and b@example.org"),
        scrubber.text(None),
        scrubber.text(""),
        scrubber.text("call +1 415 555 2671"),
    ]

    assert texts == ["[EMAIL] and [EMAIL]", None, "", "call [PHONE]"]
    assert scrubber.counts == {"email": 2, "phone": 1, "ip": 0, "card": 0, "secret": 0}
    assert scrubber.summary() == (
        "2 emails, 1 phone number, 0 IP addresses, 0 card numbers, 0 secrets"
    )


def test_a_scrubber_scrubs_a_rows_text_fields_and_a_conversation() -> None:
    scrubber = Scrubber()
    row = {"vote_id": "v1", "prompt": "I am at 198.51.100.4", "answer_a": None}
    conversation: list[dict[str, str | None]] = [
        {"role": "user", "content": "my key is sk-3J8kq2LmNp5RtX7vYz9BcD1fGh4JkLm6"},
        {"role": "assistant", "content": "Never share keys."},
        {"role": "tool", "content": None, "name": "search"},
    ]

    scrubbed_row = scrubber.fields(row, ("prompt", "answer_a", "answer_b"))
    messages = scrubber.messages(conversation)

    assert scrubbed_row == {"vote_id": "v1", "prompt": "I am at [IP]", "answer_a": None}
    assert messages == [
        {"role": "user", "content": "my key is [SECRET]"},
        {"role": "assistant", "content": "Never share keys."},
        {"role": "tool", "content": None, "name": "search"},
    ]
    assert (
        conversation[0]["content"] == "my key is sk-3J8kq2LmNp5RtX7vYz9BcD1fGh4JkLm6"
    )  # untouched
    assert scrubber.counts["ip"] == 1 and scrubber.counts["secret"] == 1


def test_counts_read_in_words_with_singulars() -> None:
    assert describe_counts({"card": 1, "secret": 3}) == (
        "0 emails, 0 phone numbers, 0 IP addresses, 1 card number, 3 secrets"
    )


def test_national_numbers_count_only_in_the_regions_asked_for() -> None:
    text = "Ring 0161 496 0123 or +1 415 555 2671"

    assert [f.kind for f in find(text, phone_regions=("US",))] == ["phone"]
    assert [f.kind for f in find(text, phone_regions=("US", "GB"))] == ["phone", "phone"]
