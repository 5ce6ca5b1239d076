"""The head revision read without Alembic is Alembic's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from arena_api.db.migrations import alembic_config
from arena_api.db.revisions import head_revision


def test_the_head_is_alembics() -> None:
    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()


def _script(directory: Path, revision: str, down: str | None) -> None:
    down_text = "None" if down is None else f'"{down}"'
    directory.mkdir(exist_ok=True)
    (directory / f"{revision}.py").write_text(
        f'revision: str = "{revision}"\ndown_revision: str | None = {down_text}\n'
    )


def test_a_history_with_two_heads_is_refused(tmp_path: Path) -> None:
    for directory in (tmp_path / "one", tmp_path / "two"):
        _script(directory, "0001", None)
        _script(directory, "0002", "0001")
    assert head_revision(tmp_path / "one") == "0002"
    _script(tmp_path / "two", "0003", "0001")
    with pytest.raises(RuntimeError, match="2 heads"):
        head_revision(tmp_path / "two")


def test_an_empty_history_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="0 heads"):
        head_revision(tmp_path)
