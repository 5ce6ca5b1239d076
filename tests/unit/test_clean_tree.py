"""Using the project leaves its git tree clean: the files Reflex rewrites on a frontend build are
committed in the form it writes them, and the session check (``tests/clean_tree.py``) sees what
a run changed, and only that."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from reflex.utils import frontend_skeleton
from reflex_base.constants import GitIgnore

from tests.clean_tree import git_changes, new_changes
from tests.support import ROOT


def test_reflex_finds_every_line_it_wants_in_the_gitignore_and_rewrites_it_as_it_is(
    tmp_path: Path,
) -> None:
    """A build that initialises ``.web`` runs Reflex's ``initialize_gitignore``, which puts in
    front whatever of its entries is not a line of the file (in a random order): all are."""
    copy = tmp_path / ".gitignore"
    shutil.copyfile(ROOT / ".gitignore", copy)

    frontend_skeleton.initialize_gitignore(copy, GitIgnore.DEFAULTS)

    assert copy.read_bytes() == (ROOT / ".gitignore").read_bytes()


def test_the_locked_package_json_is_in_the_form_reflex_writes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each build copies ``.web/package.json``, rendered by Reflex from the locked one, back over
    ``reflex.lock/package.json``: byte for byte the same, or the tree changes. (Adding a frontend
    package lets bun rewrite it in its own format: commit what the next build writes.)"""
    monkeypatch.chdir(ROOT)  # Reflex reads reflex.lock/ from the working directory
    locked = (ROOT / "reflex.lock" / "package.json").read_text()

    rendered = frontend_skeleton._compile_package_json()

    assert rendered == locked, "commit reflex.lock/package.json as a build writes it"
    assert json.loads(rendered) == json.loads(locked)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def test_the_session_check_sees_only_what_changed_since_it_started(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for name in ("kept.txt", "edited.txt", "moved.txt", "mine.txt"):
        (repo / name).write_text(name)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "start")
    (repo / "mine.txt").write_text("a contributor's own edit")
    start = git_changes(repo)
    assert start is not None

    (repo / "mine.txt").write_text("edited again during the run")
    (repo / "edited.txt").write_text("rewritten by a build")
    (repo / "new dir").mkdir()
    (repo / "new dir" / "left.txt").write_text("a file a test left")
    _git(repo, "mv", "moved.txt", "renamed.txt")
    end = git_changes(repo)

    assert end is not None
    assert new_changes(start, end) == {
        "edited.txt": " M",
        "new dir/left.txt": "??",
        "renamed.txt": "R ",
    }


def test_the_session_check_stands_aside_outside_a_git_checkout(tmp_path: Path) -> None:
    assert git_changes(tmp_path) is None
