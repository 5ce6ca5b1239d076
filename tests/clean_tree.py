"""The test session leaves the git work tree as it found it: nothing a test, a frontend build or
a server started by the tests writes may show in ``git status`` (the tree's ``.gitignore``
covers what they may write: ``.web``, ``.states``, ``.arena/``, ``test-results/``, ...).

As a pytest plugin (listed in the top ``conftest.py``): ``git status`` is read when the session
starts, and again when it finishes, after every test and every fixture's teardown (servers
stopped, embedded databases shut down, the UI built), which is why this is a
``pytest_sessionfinish`` hook and not a test ordered last: a session fixture's teardown runs
after the last test. Every path that was clean at the start and is modified, new or deleted at
the end is listed in a section of its own; paths already changed at the start (a contributor's
own uncommitted edits) are not looked at. Outside a git checkout (an unpacked sdist, a
container's copy of the sources) the plugin does nothing.

Whether the list fails the run depends on the start. From a clean tree (a fresh clone, CI: the
case the project promises) it does. In a tree that was already dirty it is a warning: there
someone is working, and a file saved while the tests run cannot be told from one a test wrote.
``-p no:tests.clean_tree`` turns the check off.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

__all__ = ["git_changes", "new_changes"]

ROOT = Path(__file__).resolve().parents[1]

_START = pytest.StashKey[dict[str, str] | None]()
_CHANGED = pytest.StashKey[dict[str, str]]()
_STRICT = pytest.StashKey[bool]()


def git_changes(root: Path) -> dict[str, str] | None:
    """What ``git status`` reports in the work tree whose top is ``root``: path -> status code
    (``" M"``, ``"??"``, ...), untracked files one by one; ``None`` when ``root`` is not the top
    of a git work tree git will read (no git, no repository, another user's repository)."""
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root.resolve():
            return None
        status = subprocess.run(
            ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
            cwd=root,
            capture_output=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if status.returncode != 0:
        return None
    changes: dict[str, str] = {}
    entries = iter(status.stdout.split(b"\0"))
    for entry in entries:
        if not entry:
            continue
        code = entry[:2].decode()
        changes[os.fsdecode(entry[3:])] = code
        if "R" in code or "C" in code:
            next(entries, None)  # -z gives a rename's or copy's source as the next entry
    return changes


def new_changes(start: dict[str, str], end: dict[str, str]) -> dict[str, str]:
    """The paths changed at ``end`` that were clean at ``start``."""
    return {path: code for path, code in end.items() if path not in start}


def pytest_sessionstart(session: pytest.Session) -> None:
    if hasattr(session.config, "workerinput"):
        return  # a pytest-xdist worker: the controller checks once, after every worker ended
    session.config.stash[_START] = git_changes(ROOT)


@pytest.hookimpl(trylast=True)  # after the runner's own sessionfinish tears the fixtures down
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    start = session.config.stash.get(_START, None)
    if start is None or session.config.option.collectonly or not session.testscollected:
        return
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return
    changed = new_changes(start, git_changes(ROOT) or {})
    if not changed:
        return
    session.config.stash[_CHANGED] = changed
    session.config.stash[_STRICT] = strict = not start
    if strict and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    changed = terminalreporter.config.stash.get(_CHANGED, None)
    if not changed:
        return
    strict = terminalreporter.config.stash[_STRICT]
    title = "the tests left the git tree changed" if strict else "the git tree changed meanwhile"
    terminalreporter.section(title, sep="=", red=strict, yellow=not strict, bold=True)
    for path, code in sorted(changed.items()):
        terminalreporter.line(f"{code} {path}", red=strict, yellow=not strict)
    terminalreporter.line(
        "These paths were clean when the session started. Write under tmp_path, ignore what a "
        "tool must write in .gitignore, or commit a file in the form the tool writes it."
    )
    if not strict:
        terminalreporter.line(
            "Not failing: the tree was dirty already, so these may be edits saved during the "
            "run. From a clean tree (CI) they fail it."
        )
