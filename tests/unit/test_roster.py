from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from arena_api.roster import Roster, RosterError, load_roster
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
