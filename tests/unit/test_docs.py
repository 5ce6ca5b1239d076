"""The operator documentation stays true: its rosters load, its table is the settings'."""

from __future__ import annotations

import re
from pathlib import Path

from arena_api.roster import load_roster
from arena_api.settings import settings_markdown
from tests.support import ROOT

DOCS = ROOT / "docs"


def test_every_roster_example_in_the_providers_page_loads(tmp_path: Path) -> None:
    page = (DOCS / "providers.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", page, flags=re.S)
    providers = set()
    for index, block in enumerate(blocks):
        file = tmp_path / f"roster-{index}.yaml"
        file.write_text(block)
        roster = load_roster(file)
        assert len(roster.models) >= 2
        providers |= {m.provider for m in roster.models}

    assert providers == {"openai", "google", "ollama", "vllm", "host-proxy", "mock"}


def test_the_configuration_page_is_the_generated_table() -> None:
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")

    assert settings_markdown() in page, "run `arena settings --markdown` into docs/configuration.md"


def test_the_readme_links_every_page_of_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")

    for page in sorted(DOCS.glob("*.md")):
        assert f"docs/{page.name}" in readme, f"the README does not link docs/{page.name}"
