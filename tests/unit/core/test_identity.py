"""An answer that names its own model, family or vendor; and one that does not."""

from __future__ import annotations

import uuid

import pytest

from arena_api.core.identity import identity_terms, names_itself
from arena_api.core.models import ModelEntry


def _model(name: str, provider: str, model_id: str) -> ModelEntry:
    return ModelEntry(uuid.uuid4(), name, provider, model_id)


GPT = _model("GPT-4o mini", "openai", "gpt-4o-mini")
CLAUDE = _model("Claude Sonnet", "host-proxy", "anthropic/claude-sonnet-4")
GEMINI = _model("Gemini 2.5 Flash", "google", "gemini-2.5-flash")
LLAMA = _model("Llama 3.2 3B", "ollama", "llama3.2:3b")

CASES = [
    (GPT, "I'm ChatGPT, a model made by OpenAI.", True),
    (GPT, "As GPT 4o Mini, I can help with that.", True),
    (GPT, "I am gpt_4o-MINI.", True),
    (CLAUDE, "I'm Claude, an AI assistant by Anthropic.", True),
    (GEMINI, "I am Gemini, trained by Google DeepMind.", True),
    (LLAMA, "I'm Llama, developed by Meta AI.", True),
    (LLAMA, "As llama3.2, here is the answer.", True),
    # Another model's names, or ordinary words, are not a leak.
    (GPT, "Claude and Gemini are other assistants.", False),
    (CLAUDE, "ChatGPT is made by OpenAI.", False),
    (LLAMA, "A meta-analysis of twelve studies found no effect.", False),
    (GPT, "Photosynthesis turns light into chemical energy.", False),
    (GEMINI, "Twins are born under the sign of Gemini?", True),  # its own name, whatever sense
    (GPT, "The chatgpt-like interface", True),
    (GPT, "", False),
]


@pytest.mark.parametrize(
    ("model", "answer", "leaks"), CASES, ids=[f"c{i:02d}" for i in range(len(CASES))]
)
def test_an_answer_naming_its_own_model_or_vendor_gives_it_away(
    model: ModelEntry, answer: str, leaks: bool
) -> None:
    assert names_itself(answer, model) is leaks


def test_the_names_come_from_the_roster_and_the_family() -> None:
    terms = identity_terms(LLAMA)

    assert {"llama 3 2 3b", "llama3 2 3b", "llama3 2", "llama", "meta ai"} <= set(terms)
    assert "anthropic" in identity_terms(CLAUDE) and "openai" in identity_terms(GPT)
