"""How the UI sets the setup hint: what an operator types, as code."""

from __future__ import annotations

from arena_api.core.errors import SETUP_HINT
from arena_app.formatting import code_spans


def test_the_setup_hint_sets_variables_values_paths_and_docs_as_code() -> None:
    text = code_spans(SETUP_HINT)

    for typed in (
        "`/app/models.yaml`",
        "`ARENA_MODELS_FILE`",
        "`ARENA_MODELS=openai:gpt-4o-mini,openai:gpt-4.1-mini`",
        "`OPENAI_API_KEY`",
        "`ARENA_DEMO=1`",
        "`docs/providers.md`",
    ):
        assert typed in text
    assert text.replace("`", "") == SETUP_HINT  # the same words, only marked up


def test_plain_words_stay_plain() -> None:
    assert code_spans("Add models: see the docs. A round needs 2.") == (
        "Add models: see the docs. A round needs 2."
    )
