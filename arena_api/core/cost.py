"""What an answer cost: its tokens, as the provider reported them or as estimated, times the
model's prices.

The billing rule, the same for every provider:

* an answer that produced text is billed for the prompt it read and the text it wrote, also when
  it was stopped or broke off midway (the provider generated those tokens);
* an answer that failed before its first token (the endpoint refused, errored or never spoke)
  is billed nothing: providers do not bill a request they failed, so its tokens are 0 unless
  the provider itself reported usage;
* a count the provider reported is used as is (``provider``); otherwise it is estimated
  (``estimated``): the prompt from the messages sent, the answer from its text.

Cost is ``input_tokens × input price + output_tokens × output price``, prices in US dollars per
million tokens, computed in exact decimals and kept to the nano-dollar. A model without prices
has no cost (``None``), never a cost of zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from arena_api.core.events import TokenCountSource
from arena_api.core.models import ChatMessage, Prices
from arena_api.core.response_metrics import estimate_tokens

__all__ = ["MESSAGE_OVERHEAD_TOKENS", "Billed", "bill", "estimate_prompt_tokens", "price"]

#: Tokens a chat format spends around each message (role markers and separators), as OpenAI's
#: own counting guide has it for its chat models.
MESSAGE_OVERHEAD_TOKENS = 4
_MILLION = Decimal(1_000_000)
_NANO = Decimal("0.000000001")


def estimate_prompt_tokens(messages: Sequence[ChatMessage]) -> int:
    """The prompt tokens of a conversation, for providers that report none."""
    return sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in messages)


def price(input_tokens: int, output_tokens: int, prices: Prices | None) -> Decimal | None:
    """US dollars for these tokens at ``prices`` (``None`` without prices)."""
    if prices is None:
        return None
    total = input_tokens * prices.input_per_mtok + output_tokens * prices.output_per_mtok
    return (total / _MILLION).quantize(_NANO)


@dataclass(frozen=True)
class Billed:
    input_tokens: int
    input_source: TokenCountSource
    output_tokens: int
    output_source: TokenCountSource
    cost_usd: Decimal | None


def bill(
    *,
    messages: Sequence[ChatMessage],
    content: str,
    reported_input: int | None,
    reported_output: int | None,
    prices: Prices | None,
) -> Billed:
    """Apply the billing rule to one answer."""
    produced = bool(content) or reported_output is not None or reported_input is not None
    input_source: TokenCountSource = "provider" if reported_input is not None else "estimated"
    output_source: TokenCountSource = "provider" if reported_output is not None else "estimated"
    if reported_input is not None:
        input_tokens = reported_input
    else:
        input_tokens = estimate_prompt_tokens(messages) if produced else 0
    output_tokens = reported_output if reported_output is not None else estimate_tokens(content)
    return Billed(
        input_tokens=input_tokens,
        input_source=input_source,
        output_tokens=output_tokens,
        output_source=output_source,
        cost_usd=price(input_tokens, output_tokens, prices),
    )
