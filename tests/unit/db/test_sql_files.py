"""The read model's SQL lives once, in ``arena_api/db/sql/``; migrations name its versions."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena_api.db import sql as sql_files
from arena_api.db.read_model import FUNCTIONS, TRIGGERS
from tests.support import ROOT

_DEFINITION = re.compile(r"CREATE\s+(OR\s+REPLACE\s+)?(FUNCTION|TRIGGER)\s", re.I)
_MIGRATIONS = sorted((ROOT / "alembic" / "versions").glob("*.py"))


def test_no_function_or_trigger_is_defined_outside_the_sql_folder() -> None:
    home = ROOT / "arena_api" / "db" / "sql"
    sources = [
        path
        for folder in ("alembic", "arena_api", "arena_rating")
        for pattern in ("*.py", "*.sql")
        for path in (ROOT / folder).rglob(pattern)
        if home not in path.parents
    ]

    defining = [str(p.relative_to(ROOT)) for p in sources if _DEFINITION.search(p.read_text())]

    assert defining == []


def test_every_version_sequence_is_contiguous_from_one() -> None:
    versions = sql_files.versions()

    assert versions and all(v == tuple(range(1, len(v) + 1)) for v in versions.values())


def test_every_file_defines_the_object_it_is_named_after() -> None:
    for name, versions in sql_files.versions().items():
        for version in versions:
            for statement in sql_files.statements(name, version):
                assert re.match(
                    rf"CREATE (OR REPLACE FUNCTION (public\.)?{name}\(|TRIGGER {name}(_\w+)? )",
                    statement,
                ), (name, version)


def test_the_manifest_names_the_newest_version_of_each_object() -> None:
    versions = sql_files.versions()

    assert {f.name: f.version for f in FUNCTIONS} | {t.name: t.version for t in TRIGGERS} == {
        name: v[-1] for name, v in versions.items()
    }


class _Op:
    """Stands in for ``alembic.op``: records what is executed, ignores the rest."""

    def __init__(self) -> None:
        self.executed: list[str] = []

    def execute(self, statement: object) -> None:
        self.executed.append(str(statement))

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


def _migration(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_migration_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _loads(module: ModuleType, step: str) -> tuple[list[tuple[str, int]], list[str]]:
    """The (name, version) pairs ``module``'s ``step`` loads, and the statements it runs."""
    loaded: list[tuple[str, int]] = []

    def recording(load: Callable[[str, int], Any]) -> Callable[[str, int], Any]:
        def wrapped(name: str, version: int) -> Any:
            loaded.append((name, version))
            return load(name, version)

        return wrapped

    op = _Op()
    module.op = op
    for name in ("sql", "statements"):
        if hasattr(module, name):
            setattr(module, name, recording(getattr(sql_files, name)))
    getattr(module, step)()
    return loaded, op.executed


_USING = [p for p in _MIGRATIONS if "arena_api.db.sql" in p.read_text()]


def test_migrations_load_each_objects_versions_in_order() -> None:
    """Upgrading from the first revision to the last loads v1, v2, ... of every object, and
    nothing that has no file."""
    loaded: dict[str, list[int]] = {}
    for path in _USING:
        for name, version in dict.fromkeys(_loads(_migration(path), "upgrade")[0]):
            loaded.setdefault(name, []).append(version)

    assert {name: tuple(v) for name, v in loaded.items()} == sql_files.versions()


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in _USING])
def test_a_downgrade_puts_back_the_previous_version_or_drops_the_first(path: Path) -> None:
    upgraded, _ = _loads(_migration(path), "upgrade")
    downgraded, executed = _loads(_migration(path), "downgrade")

    for name, version in upgraded:
        if version > 1:
            assert (name, version - 1) in downgraded, (name, version)
        else:
            assert any(re.match(rf"DROP (FUNCTION|TRIGGER) {name}\b", s) for s in executed), name
