"""What an answer costs: exact arithmetic on known token counts, and the billing rule."""

from __future__ import annotations

from decimal import Decimal

import pytest

from arena_api.core.cost import (
    MESSAGE_OVERHEAD_TOKENS,
    bill,
    estimate_prompt_tokens,
    price,
)
from arena_api.core.models import ChatMessage, Prices
from arena_api.core.response_metrics import estimate_tokens

PRICES = Prices(input_per_mtok=Decimal("2.5"), output_per_mtok=Decimal("10"))
MESSAGES = [ChatMessage("system", "Be brief."), ChatMessage("user", "Explain JWTs")]


@pytest.mark.parametrize(
    ("input_tokens", "output_tokens", "expected"),
    [
        pytest.param(1_000, 500, Decimal("0.0075"), id="thousand-in-five-hundred-out"),
        pytest.param(1_000_000, 1_000_000, Decimal("12.5"), id="a-million-each"),
        pytest.param(0, 0, Decimal("0"), id="nothing"),
        pytest.param(1, 0, Decimal("0.0000025"), id="one-input-token"),
        pytest.param(0, 1, Decimal("0.00001"), id="one-output-token"),
    ],
)
def test_cost_is_tokens_times_price_per_million(
    input_tokens: int, output_tokens: int, expected: Decimal
) -> None:
    assert price(input_tokens, output_tokens, PRICES) == expected


def test_cost_is_kept_to_the_nano_dollar() -> None:
    cheap = Prices(input_per_mtok=Decimal("0.075"), output_per_mtok=Decimal("0.3"))

    assert price(7, 3, cheap) == Decimal("0.000001425")
    assert price(1, 0, Prices(Decimal("0.0001"), Decimal("0"))) == Decimal("0")


def test_a_model_without_prices_has_no_cost_not_a_cost_of_zero() -> None:
    assert price(1_000, 1_000, None) is None


def test_the_prompt_estimate_counts_every_message_and_its_framing() -> None:
    expected = sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in MESSAGES)

    assert estimate_prompt_tokens(MESSAGES) == expected


def test_provider_counts_are_used_as_reported() -> None:
    billed = bill(
        messages=MESSAGES,
        content="Hello",
        reported_input=1_000,
        reported_output=500,
        prices=PRICES,
    )

    assert (billed.input_tokens, billed.input_source) == (1_000, "provider")
    assert (billed.output_tokens, billed.output_source) == (500, "provider")
    assert billed.cost_usd == Decimal("0.0075")


def test_an_answer_stopped_midway_is_billed_for_what_it_read_and_wrote_estimated() -> None:
    content = "JWTs are signed tokens that"

    billed = bill(
        messages=MESSAGES, content=content, reported_input=None, reported_output=None, prices=PRICES
    )

    assert billed.input_tokens == estimate_prompt_tokens(MESSAGES) > 0
    assert billed.output_tokens == estimate_tokens(content) > 0
    assert billed.input_source == billed.output_source == "estimated"
    assert billed.cost_usd == price(billed.input_tokens, billed.output_tokens, PRICES)


def test_an_answer_that_failed_before_its_first_token_costs_nothing() -> None:
    billed = bill(
        messages=MESSAGES, content="", reported_input=None, reported_output=None, prices=PRICES
    )

    assert (billed.input_tokens, billed.output_tokens) == (0, 0)
    assert billed.cost_usd == Decimal("0")


def test_a_failure_the_provider_still_reported_usage_for_is_billed_as_reported() -> None:
    billed = bill(
        messages=MESSAGES, content="", reported_input=120, reported_output=None, prices=PRICES
    )

    assert (billed.input_tokens, billed.input_source) == (120, "provider")
    assert billed.cost_usd == Decimal("0.0003")
