"""The read model's SQL in one home: every trigger function, recount and trigger, versioned.

Each SQL object has one file per version, ``<name>.v<N>.sql``, numbered in the order of the
migrations that introduced them: a migration that changes an object executes the new version in
its ``upgrade()`` and the previous one in its ``downgrade()``. A function's file is one
``CREATE OR REPLACE FUNCTION`` statement (so a downgrade can put an older version back over a
newer one); a trigger's file holds the ``CREATE TRIGGER`` statements of that version. Never edit
a version a migration has executed: add the next one.

``arena_api.db.read_model`` lists which of these objects make up the summaries today.
"""

from __future__ import annotations

import re
from importlib import resources

__all__ = ["sql", "statements", "versions"]

_FILE = re.compile(r"^(?P<name>\w+)\.v(?P<version>[1-9][0-9]*)\.sql$")


def sql(name: str, version: int) -> str:
    """The text of version ``version`` of the SQL object ``name``.

    Raises:
        FileNotFoundError: no such object or version.
    """
    return resources.files(__name__).joinpath(f"{name}.v{version}.sql").read_text("utf-8")


def statements(name: str, version: int) -> tuple[str, ...]:
    """The statements of ``sql(name, version)``, one each, for drivers that prepare statements.

    A statement ends with ``;`` at the end of a line outside a dollar-quoted body.
    """
    found: list[str] = []
    lines: list[str] = []
    quoted = False
    for line in sql(name, version).splitlines():
        if not lines and (not line.strip() or line.lstrip().startswith("--")):
            continue
        lines.append(line)
        quoted ^= len(re.findall(r"\$\w*\$", line)) % 2 == 1
        if not quoted and line.rstrip().endswith(";"):
            found.append("\n".join(lines))
            lines = []
    if lines:
        found.append("\n".join(lines))
    return tuple(found)


def versions() -> dict[str, tuple[int, ...]]:
    """Every object with a file here and its versions, in order."""
    found: dict[str, list[int]] = {}
    for entry in resources.files(__name__).iterdir():
        match = _FILE.match(entry.name)
        if match:
            found.setdefault(match["name"], []).append(int(match["version"]))
    return {name: tuple(sorted(numbers)) for name, numbers in sorted(found.items())}
