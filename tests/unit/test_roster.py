from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
import yaml

from arena_api.roster import PROVIDERS, Provider, Roster, RosterError, load_roster, roster_of
from arena_api.settings import ROSTER_PROVIDERS, load_settings
from tests.support import ROOT


def test_shipped_example_roster_is_valid() -> None:
    roster = load_roster(ROOT / "models.yaml")

    assert len(roster.models) >= 2
    assert all(m.provider == "mock" for m in roster.models)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("models: [", "not valid YAML", id="not-yaml"),
        pytest.param("models: []", "models", id="empty"),
        pytest.param(
            "models:\n  - {display_name: A, provider: acme, provider_model_id: a}",
            "models.0.provider",
            id="unknown-provider",
        ),
        pytest.param(
            "models:\n  - {display_name: A, provider: mock, provider_model_id: a}\n"
            "  - {display_name: B, provider: mock, provider_model_id: a}",
            "appears twice",
            id="duplicate-pair",
        ),
        pytest.param(
            "models:\n  - {display_name: A, provider: mock, provider_model_id: a, colour: red}",
            "colour",
            id="unknown-field",
        ),
        pytest.param(
            "models:\n  - {display_name: A, provider: mock, provider_model_id: a}\n"
            "judge: {display_name: J, provider: mock, provider_model_id: j, "
            "prompt: 'Which is better, {answer_a} or {answer_b}?'}",
            "judge: Value error, the judge prompt lacks {conversation}, {prompt}",
            id="judge-prompt-without-placeholders",
        ),
        pytest.param(
            "models:\n  - {display_name: A, provider: mock, provider_model_id: a, status: gone}",
            "models.0.status",
            id="unknown-status",
        ),
        pytest.param(
            "models:\n  - {display_name: A, provider: mock, provider_model_id: a, "
            "enabled: false, status: active}",
            "enabled: false contradicts status: active",
            id="enabled-contradicts-status",
        ),
        pytest.param(
            "models:\n  - {display_name: A, provider: mock, provider_model_id: a, "
            "enabled: true, status: paused}",
            "enabled: true contradicts status: paused",
            id="enabled-contradicts-paused",
        ),
        pytest.param(
            "models:\n  - {display_name: A, provider: mock, provider_model_id: a, enabled: 3}",
            "enabled must be true or false",
            id="enabled-not-boolean",
        ),
        pytest.param(
            "models:\n  - {display_name: A, provider: mock, provider_model_id: a}\n"
            "judge: {display_name: J, provider: mock, provider_model_id: j, swap: maybe}",
            "judge.swap",
            id="judge-swap-not-boolean",
        ),
    ],
)
def test_invalid_roster_is_one_clear_line(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(text)

    with pytest.raises(RosterError) as caught:
        load_roster(path)

    assert expected in str(caught.value)
    assert str(path) in str(caught.value)


def test_missing_roster_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(RosterError, match="cannot read"):
        load_roster(tmp_path / "absent.yaml")


def test_the_judge_page_example_and_the_shipped_judge_load() -> None:
    page = (ROOT / "docs" / "judge.md").read_text(encoding="utf-8")
    example = page.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = ROOT / "models.yaml"

    documented = load_roster_text(example)
    shipped = load_roster(path).judge

    assert documented.judge is not None and documented.judge.swap is True
    assert shipped is not None and shipped.provider == "mock"


def load_roster_text(text: str) -> Roster:
    return Roster.model_validate(yaml.safe_load(text))


def test_the_environment_roster_replaces_the_file_and_has_no_judge() -> None:
    settings = load_settings({"ARENA_MODELS": "openai:gpt-4o-mini,openai:gpt-4.1-mini=GPT 4.1"})

    roster = roster_of(settings)

    assert [(m.provider, m.provider_model_id, m.display_name) for m in roster.models] == [
        ("openai", "gpt-4o-mini", "gpt-4o-mini"),
        ("openai", "gpt-4.1-mini", "GPT 4.1"),
    ]
    assert roster.judge is None
    assert settings.roster_source == "ARENA_MODELS"


def test_a_model_is_active_unless_the_file_gives_its_status(tmp_path: Path) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(
        "models:\n"
        "  - {display_name: A, provider: mock, provider_model_id: a}\n"
        "  - {display_name: B, provider: mock, provider_model_id: b, status: paused}\n"
        "  - {display_name: C, provider: mock, provider_model_id: c, status: archived}\n"
    )

    roster = load_roster(path)

    assert [m.status for m in roster.models] == ["active", "paused", "archived"]


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ("enabled: false", "paused"),
        ("enabled: true", "active"),
        ("enabled: false, status: paused", "paused"),
        # enabled is status == active, so an archived model is not enabled either
        ("enabled: false, status: archived", "archived"),
    ],
)
def test_the_deprecated_enabled_still_reads_with_a_warning(
    tmp_path: Path, fields: str, status: str
) -> None:
    path = tmp_path / "models.yaml"
    path.write_text(
        "models:\n"
        "  - {display_name: A, provider: mock, provider_model_id: a}\n"
        f"  - {{display_name: B, provider: mock, provider_model_id: b, {fields}}}\n"
    )

    with pytest.warns(FutureWarning, match=r"enabled is deprecated.*used by B\)"):
        roster = load_roster(path)

    assert [m.status for m in roster.models] == ["active", status]


def test_a_paused_model_may_share_an_active_ones_display_name() -> None:
    """Only active models are drawn and revealed by name in new rounds."""
    roster = Roster.model_validate(
        {
            "models": [
                {"display_name": "A", "provider": "mock", "provider_model_id": "a"},
                {
                    "display_name": "A",
                    "provider": "mock",
                    "provider_model_id": "a-old",
                    "status": "archived",
                },
            ]
        }
    )

    assert [m.status for m in roster.models] == ["active", "archived"]


def test_without_arena_models_the_roster_is_the_file() -> None:
    settings = load_settings({"ARENA_MODELS_FILE": str(ROOT / "models.yaml")})

    assert roster_of(settings) == load_roster(ROOT / "models.yaml")


def test_an_environment_roster_with_a_name_twice_says_how_to_tell_them_apart() -> None:
    settings = load_settings({"ARENA_MODELS": "openai:llama3,ollama:llama3"})

    with pytest.raises(RosterError) as caught:
        roster_of(settings)

    assert str(caught.value).startswith("ARENA_MODELS does not make a roster: two active")
    assert "=Display Name" in str(caught.value)


def test_the_roster_knows_the_providers_the_settings_name() -> None:
    assert set(get_args(Provider)) == set(PROVIDERS) == set(ROSTER_PROVIDERS)
