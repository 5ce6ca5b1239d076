from __future__ import annotations

import random
import uuid

import pytest

from arena_api.core import plans
from arena_api.core.errors import RoundConfigError
from arena_api.core.models import ModelEntry
from arena_api.core.plans import Plan, is_opted_in, resolve_default_model, resolve_plan

GPT = ModelEntry(uuid.UUID(int=1), "GPT Four", "openai", "gpt-4o")
LLAMA = ModelEntry(uuid.UUID(int=2), "Llama", "ollama", "llama3:8b")
GEMINI = ModelEntry(uuid.UUID(int=3), "Gemini", "google", "gemini-2.0-flash")
ROSTER = [GPT, LLAMA, GEMINI]


def plan(
    trigger: str,
    exposure: str,
    *,
    sample_rate: float = 0.0,
    opted_in: bool = False,
    rng: random.Random | None = None,
) -> Plan:
    return resolve_plan(
        trigger=trigger,
        exposure=exposure,
        sample_rate=sample_rate,
        opted_in=opted_in,
        rng=rng or random.Random(0),
    )


def test_module_exports_the_plan_surface() -> None:
    assert set(plans.__all__) == {
        "Exposure",
        "Plan",
        "Trigger",
        "is_opted_in",
        "resolve_default_model",
        "resolve_plan",
    }


@pytest.mark.parametrize(
    ("trigger", "exposure", "sample_rate", "opted_in", "expected"),
    [
        pytest.param("always", "blind", 0.0, False, "matchup", id="always-blind"),
        pytest.param("always", "shadow", 0.0, False, "shadow", id="always-shadow"),
        pytest.param("sampled", "blind", 1.0, False, "matchup", id="sampled-hit-blind"),
        pytest.param("sampled", "shadow", 1.0, False, "shadow", id="sampled-hit-shadow"),
        pytest.param("sampled", "blind", 0.0, True, "single", id="sampled-miss-blind"),
        pytest.param("sampled", "shadow", 0.0, True, "single", id="sampled-miss-shadow"),
        pytest.param("manual", "blind", 1.0, True, "matchup", id="manual-opted-in-blind"),
        pytest.param("manual", "shadow", 1.0, True, "shadow", id="manual-opted-in-shadow"),
        pytest.param("manual", "blind", 1.0, False, "single", id="manual-not-opted-in-blind"),
        pytest.param("manual", "shadow", 1.0, False, "single", id="manual-not-opted-in-shadow"),
    ],
)
def test_plan_follows_the_trigger_and_exposure_table(
    trigger: str, exposure: str, sample_rate: float, opted_in: bool, expected: Plan
) -> None:
    result = plan(trigger, exposure, sample_rate=sample_rate, opted_in=opted_in)

    assert result == expected


@pytest.mark.parametrize(
    ("trigger", "exposure", "sample_rate", "message"),
    [
        pytest.param("sometimes", "blind", 0.5, "trigger", id="unknown-trigger"),
        pytest.param("always", "visible", 0.5, "exposure", id="unknown-exposure"),
        pytest.param("ALWAYS", "blind", 0.5, "trigger", id="trigger-is-case-sensitive"),
        pytest.param("sampled", "blind", 1.5, "sample_rate", id="rate-above-one"),
        pytest.param("sampled", "blind", -0.1, "sample_rate", id="rate-below-zero"),
        pytest.param("sampled", "blind", float("nan"), "sample_rate", id="rate-nan"),
    ],
)
def test_unknown_axis_values_are_rejected(
    trigger: str, exposure: str, sample_rate: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        plan(trigger, exposure, sample_rate=sample_rate)


def test_sample_rate_zero_never_engages() -> None:
    rng = random.Random(1)

    results = {plan("sampled", "blind", sample_rate=0.0, rng=rng) for _ in range(2_000)}

    assert results == {"single"}


def test_sample_rate_one_always_engages() -> None:
    rng = random.Random(1)

    results = {plan("sampled", "blind", sample_rate=1.0, rng=rng) for _ in range(2_000)}

    assert results == {"matchup"}


def test_sample_rate_is_the_share_of_engaged_requests() -> None:
    rng = random.Random(20_241_130)

    engaged = sum(
        plan("sampled", "shadow", sample_rate=0.3, rng=rng) == "shadow" for _ in range(10_000)
    )

    # The standard deviation of the share is about 0.0046; allow more than 3 of them.
    assert 0.285 <= engaged / 10_000 <= 0.315


@pytest.mark.parametrize("trigger", ["always", "manual"])
def test_only_the_sampled_trigger_consumes_randomness(trigger: str) -> None:
    rng = random.Random(5)
    before = rng.getstate()

    plan(trigger, "blind", sample_rate=0.5, opted_in=True, rng=rng)

    assert rng.getstate() == before


@pytest.mark.parametrize(
    ("body_flag", "header", "expected"),
    [
        pytest.param(True, None, True, id="body-true"),
        pytest.param(False, None, False, id="body-false"),
        pytest.param(None, None, False, id="nothing"),
        pytest.param(None, "on", True, id="header-on"),
        pytest.param(None, "  ON ", True, id="header-on-padded-upper"),
        pytest.param(None, "True", True, id="header-true"),
        pytest.param(None, "1", True, id="header-one"),
        pytest.param(None, "off", False, id="header-off"),
        pytest.param(None, "0", False, id="header-zero"),
        pytest.param(None, "", False, id="header-empty"),
        pytest.param(None, "yes please", False, id="header-other"),
        pytest.param(False, "on", True, id="header-wins-over-body-false"),
        pytest.param(True, "off", True, id="body-wins-over-header-off"),
    ],
)
def test_opt_in_comes_from_body_flag_or_header(
    body_flag: bool | None, header: str | None, expected: bool
) -> None:
    assert is_opted_in(body_flag, header) is expected


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(str(LLAMA.id), id="uuid"),
        pytest.param(str(LLAMA.id).upper(), id="uuid-upper-case"),
        pytest.param("llama3:8b", id="provider-model-id"),
        pytest.param("Llama", id="display-name"),
        pytest.param("ollama:llama3:8b", id="provider-qualified"),
        pytest.param("  Llama\n", id="surrounding-whitespace"),
    ],
)
def test_default_model_resolves_from_each_accepted_form(value: str) -> None:
    model = resolve_default_model(value, ROSTER)

    assert model == LLAMA


def test_model_matched_by_several_forms_is_not_ambiguous() -> None:
    named_like_its_id = ModelEntry(uuid.UUID(int=9), "phi3", "ollama", "phi3")

    model = resolve_default_model("phi3", [*ROSTER, named_like_its_id])

    assert model == named_like_its_id


def test_ambiguous_default_model_lists_the_forms_and_roster() -> None:
    other_gpt = ModelEntry(uuid.UUID(int=4), "GPT via vLLM", "vllm", "gpt-4o")

    with pytest.raises(RoundConfigError) as caught:
        resolve_default_model("gpt-4o", [*ROSTER, other_gpt])

    error = caught.value
    assert (error.status, error.code) == (500, "default_model_missing")
    assert "matches 2 models" in error.message
    assert "provider:provider_model_id" in error.message
    assert "GPT Four (openai:gpt-4o)" in error.message
    assert "GPT via vLLM (vllm:gpt-4o)" in error.message


def test_ambiguity_is_resolved_by_the_provider_qualified_form() -> None:
    other_gpt = ModelEntry(uuid.UUID(int=4), "GPT via vLLM", "vllm", "gpt-4o")

    model = resolve_default_model("vllm:gpt-4o", [*ROSTER, other_gpt])

    assert model == other_gpt


@pytest.mark.parametrize(
    ("value", "models"),
    [
        pytest.param("claude", ROSTER, id="unknown-name"),
        pytest.param("llama", ROSTER, id="display-name-is-case-sensitive"),
        pytest.param(str(uuid.UUID(int=99)), ROSTER, id="unknown-uuid"),
        pytest.param("   ", ROSTER, id="blank"),
        pytest.param("Llama", [], id="empty-roster"),
    ],
)
def test_absent_default_model_is_a_config_error(value: str, models: list[ModelEntry]) -> None:
    with pytest.raises(RoundConfigError) as caught:
        resolve_default_model(value, models)

    error = caught.value
    assert (error.status, error.code) == (500, "default_model_missing")
    assert "matches no enabled model" in error.message
    assert "the model UUID, provider_model_id, display_name" in error.message
    for model in models:
        assert f"{model.display_name} ({model.provider}:{model.provider_model_id})" in (
            error.message
        )
