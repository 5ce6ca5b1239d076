"""Why a vote: the configured reasons, a vote's reasons checked against them, and other systems'
reasons mapped onto ours."""

from __future__ import annotations

import pytest

from arena_api.core.errors import VoteError
from arena_api.core.reasons import (
    DEFAULT_VOTE_REASONS,
    MAX_VOTE_REASONS,
    VoteReasons,
    parse_vote_reasons,
    reason_key,
)
from arena_api.settings import SettingsError, load_settings

REASONS = VoteReasons(DEFAULT_VOTE_REASONS)


def test_the_setting_keeps_the_operators_order_and_ignores_blanks() -> None:
    assert parse_vote_reasons(" style , accuracy,,follows-format ") == (
        "style",
        "accuracy",
        "follows-format",
    )


def test_an_empty_setting_offers_no_reasons() -> None:
    assert load_settings({"ARENA_VOTE_REASONS": ""}).vote_reasons == ()


def test_the_default_setting_offers_the_default_reasons() -> None:
    assert load_settings({}).vote_reasons == DEFAULT_VOTE_REASONS


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("Accuracy", id="uppercase"),
        pytest.param("so fast", id="space"),
        pytest.param("1st", id="leading-digit"),
        pytest.param("a" * 33, id="too-long"),
        pytest.param("style,accuracy,style", id="duplicate"),
        pytest.param(",".join(f"r{n}" for n in range(MAX_VOTE_REASONS + 1)), id="too-many"),
    ],
)
def test_a_bad_reasons_setting_stops_the_start_naming_the_variable(raw: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({"ARENA_VOTE_REASONS": raw})

    assert caught.value.name == "ARENA_VOTE_REASONS"


def test_a_votes_reasons_are_stored_in_the_offered_order() -> None:
    assert REASONS.check(["speed", "accuracy"]) == ("accuracy", "speed")


def test_a_vote_without_reasons_has_none() -> None:
    assert REASONS.check(()) == ()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        pytest.param(["accuracy", "vibes"], "unknown reason 'vibes'", id="unknown"),
        pytest.param(["Accuracy"], "unknown reason 'Accuracy'", id="not-the-slug"),
        pytest.param(["style", "style"], "given twice: style", id="duplicate"),
        pytest.param(["speed"] * 6, "6 reasons, at most 5", id="too-many"),
    ],
)
def test_a_reason_the_arena_does_not_offer_is_refused_with_a_stable_code(
    given: list[str], said: str
) -> None:
    with pytest.raises(VoteError) as caught:
        REASONS.check(given)

    assert (caught.value.status, caught.value.code) == (400, "invalid_reasons")
    assert caught.value.details is not None
    assert any(said in problem for problem in caught.value.details["reasons"])


def test_no_reason_is_accepted_when_none_are_offered() -> None:
    with pytest.raises(VoteError):
        VoteReasons(()).check(["accuracy"])


def test_a_chip_says_the_slug_in_words() -> None:
    assert [VoteReasons.label(s) for s in ("helpfulness", "follows-format", "on_topic")] == [
        "Helpfulness",
        "Follows format",
        "On topic",
    ]


@pytest.mark.parametrize(
    ("external", "ours"),
    [
        pytest.param("accuracy", "accuracy", id="our-slug"),
        pytest.param("  SPEED ", "speed", id="our-slug-any-case"),
        pytest.param("accurate_information", "accuracy", id="openwebui-key-up"),
        pytest.param("not_factually_correct", "accuracy", id="openwebui-key-down"),
        pytest.param("Followed instructions perfectly", "helpfulness", id="openwebui-label"),
        pytest.param("Don't like the style", "style", id="openwebui-label-apostrophe"),
        pytest.param("too_verbose", "style", id="verbosity-is-style"),
        pytest.param("refused_when_it_shouldnt_have", "helpfulness", id="over-refusal"),
        pytest.param("other", None, id="other-dropped"),
        pytest.param("", None, id="blank-dropped"),
        pytest.param("it rhymed", None, id="unknown-dropped"),
    ],
)
def test_another_systems_reason_becomes_one_of_ours_or_is_dropped(
    external: str, ours: str | None
) -> None:
    assert REASONS.adopt(external) == ours


def test_a_synonym_of_a_reason_the_operator_removed_is_dropped() -> None:
    reasons = VoteReasons(("style", "follows-format"))

    assert (reasons.adopt("accurate_information"), reasons.adopt("Follows Format")) == (
        None,
        "follows-format",
    )


def test_several_external_reasons_are_adopted_as_a_vote_stores_them() -> None:
    adopted = REASONS.adopt_all(["being_lazy", "accurate_information", "not_helpful", "other"])

    assert adopted == ("accuracy", "helpfulness")


def test_the_comparable_key_drops_accents_apostrophes_and_punctuation() -> None:
    assert reason_key("  Didn’t fully-follow Instructions, café! ") == (
        "didnt_fully_follow_instructions_cafe"
    )
