"""``arena``: serve the product and operate its database.

Every command reads the environment through ``arena_api.settings``; a bad value ends the command
with one line naming the variable (exit status 2), never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar, cast

import asyncpg
import click
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.errors import ArenaError, RoundConfigError
from arena_api.core.lifecycle import MODEL_STATUSES, ModelStatus
from arena_api.core.plans import resolve_default_model
from arena_api.db.engine import DatabaseUnavailable, create_engine, embedded_postgres
from arena_api.db.migrations import upgrade
from arena_api.db.read_model import Recount, rebuild
from arena_api.db.repository import (
    ModelStatusError,
    SeedResult,
    list_enabled_models,
    list_models,
    seed_roster,
    set_model_status,
)
from arena_api.keys import export_salt, secret_from_file, token_secret
from arena_api.roster import RosterError, roster_of
from arena_api.settings import (
    Settings,
    SettingsError,
    load_settings,
    settings_env_example,
    settings_markdown,
)
from arena_api.suites import load_suites

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

    from arena_api.core.scrub import Scrubber
    from arena_api.services.interop import ImportReport

__all__ = ["main"]

T = TypeVar("T")


def _fail(message: str, status: int = 2) -> None:
    click.echo(f"arena: {message}", err=True)
    raise SystemExit(status)


def _settings(*, serving: bool = False) -> Settings:
    """The environment's settings; a bad value ends the command with one line.

    Args:
        serving: the command signs vote tokens (``arena serve``, ``arena suite run``): its
            secret is found now (``arena_api.keys``), and the rules of a serving process apply.
    """
    try:
        if serving:
            _secret_from_file()
        settings = load_settings()
        if serving:
            settings.check_serving()
            token_secret(settings)
    except SettingsError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"the token secret cannot be read or created: {exc}", 1)
    return settings


def _secret_from_file() -> None:
    """With ``MATCHUP_TOKEN_SECRET_FILE`` and no ``MATCHUP_TOKEN_SECRET``: put the file's secret
    (created when absent) in this process's environment, where the production rules see it and
    the server and the rating process inherit it."""
    path = os.environ.get("MATCHUP_TOKEN_SECRET_FILE")
    if path and not os.environ.get("MATCHUP_TOKEN_SECRET"):
        os.environ["MATCHUP_TOKEN_SECRET"] = secret_from_file(Path(path))


@contextlib.contextmanager
def _database(settings: Settings) -> Iterator[str]:
    """The URL of the product's database, starting the embedded server when none is configured."""
    with _database_server(settings) as (url, _pgdata):
        yield url


@contextlib.contextmanager
def _database_server(settings: Settings) -> Iterator[tuple[str, Path | None]]:
    """The database's URL, and the data directory of the embedded server when this command
    started (or attached to) one."""
    if settings.database_url is not None:
        yield settings.database_url, None
        return
    try:
        with embedded_postgres(settings.data_dir) as pg:
            yield pg.url, pg.pgdata
    except DatabaseUnavailable as exc:
        _fail(str(exc), 1)


async def _prepare(url: str, settings: Settings, *, seed: bool) -> SeedResult | None:
    engine = create_engine(url)
    try:
        await upgrade(engine)
        if not seed:
            return None
        result = await seed_roster(engine, roster_of(settings))
        if settings.default_model is not None:
            # Checked here too: a bad value stops `arena serve` with one line, not a worker crash.
            resolve_default_model(settings.default_model, await list_enabled_models(engine))
        return result
    finally:
        await engine.dispose()


def _run_prepare(url: str, settings: Settings, *, seed: bool) -> SeedResult | None:
    try:
        return asyncio.run(_prepare(url, settings, seed=seed))
    except (RosterError, RoundConfigError) as exc:
        _fail(str(exc))
    except (OSError, ConnectionError) as exc:
        _fail(f"the database at DATABASE_URL is unreachable: {exc}", 1)
    return None


@click.group()
def cli() -> None:
    """Arena: a self-hosted, blind, side-by-side LLM arena."""


@cli.command()
@click.option("--dev", is_flag=True, help="Reflex dev mode: hot reload, Vite on its own port.")
def serve(dev: bool) -> None:
    """Migrate, seed the roster, build the UI if stale, then serve UI and API on PORT."""
    settings = _settings(serving=True)
    _claim_port(settings.host, settings.port)
    with _database_server(settings) as (url, pgdata):
        seeded = _run_prepare(url, settings, seed=True)
        if seeded is not None:
            click.echo(
                f"arena: roster {settings.roster_source}: {seeded.inserted} new, "
                f"{seeded.updated} kept, {seeded.archived} archived"
            )
        from arena_app.build import ensure_frontend, reflex_env

        env = reflex_env(dict(os.environ, DATABASE_URL=url))
        if dev:
            command = [sys.executable, "-m", "reflex", "run", "--env", "dev"]
            raise SystemExit(
                _run_dev([*command, "--backend-port", str(settings.port)], env, settings)
            )
        try:
            built = ensure_frontend()
        except RuntimeError as exc:
            _fail(str(exc), 1)
        if built is not None:
            click.echo(f"arena: built the UI in {built:.1f}s")
        from arena_api.language import prepare_model

        # The server maps the language model from this cache instead of loading it.
        prepare_model()
        # Become the server (same PID, so the embedded database still counts this process as
        # its holder): nothing imported for the work above stays resident beside it.
        command = [sys.executable, "-m", "arena_app.server"]
        if pgdata is not None:
            command += ["--embedded-pgdata", str(pgdata)]
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, command, env)


def _claim_port(host: str, port: int) -> None:
    """Stop at once when ``port`` is taken. The server binds with ``SO_REUSEPORT``, so a second
    ``arena serve`` on a busy port would otherwise start, share it with the first, and answer
    every other request from another database with another token secret."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is no owner
        try:
            probe.bind((host, port))
        except OSError as exc:
            _fail(
                f"port {port} is in use ({exc.strerror}): is another arena serving there? "
                "Stop it, or set PORT",
                1,
            )


def _run_dev(command: list[str], env: dict[str, str], settings: Settings) -> int:
    """Reflex's dev server (and the rating process, as ``arena_app.server`` runs it) until it
    exits; SIGINT/SIGTERM stop it, and a stop we asked for exits 0."""
    from arena_app.server import rating_worker

    os.environ.update(env)
    worker, stop_alerts = (
        rating_worker(settings) if settings.rating_worker == "embedded" else (None, None)
    )
    child = subprocess.Popen(command, env=env, start_new_session=True)
    stopping = threading.Event()

    def stop(_signum: int, _frame: object) -> None:
        stopping.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if worker is not None:
        worker.start()
    try:
        status = child.wait()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        if worker is not None:
            worker.stop()
        if stop_alerts is not None:
            stop_alerts()
    return 0 if stopping.is_set() else status


@cli.group()
def db() -> None:
    """Operate the database (the embedded one when DATABASE_URL is unset)."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply every pending migration."""
    settings = _settings()
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
    click.echo("arena: database is at the newest migration")


@db.command("seed")
@click.option(
    "--file",
    "path",
    type=click.Path(path_type=Path),
    default=None,
    help="Roster file (default: ARENA_MODELS_FILE).",
)
def db_seed(path: Path | None) -> None:
    """Load the model roster from YAML into `models` (idempotent)."""
    settings = _settings()
    if path is not None:
        settings = dataclasses.replace(settings, models_file=path, models=())
    with _database(settings) as url:
        result = _run_prepare(url, settings, seed=True)
    assert result is not None
    click.echo(
        f"arena: roster {settings.roster_source}: {result.inserted} new, {result.updated} kept, "
        f"{result.archived} archived"
    )


@db.command("rebuild")
def db_rebuild() -> None:
    """Recount every summary table from the votes, answers and rounds, in one transaction."""
    settings = _settings()
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        try:
            recounts = asyncio.run(_rebuild(url))
        except (OSError, ConnectionError) as exc:
            _fail(f"the database at DATABASE_URL is unreachable: {exc}", 1)
    for recount in recounts:
        click.echo(f"arena: {recount.function}() recounted {', '.join(recount.summaries)}")
    click.echo(f"arena: {sum(len(r.summaries) for r in recounts)} summary tables rebuilt")


async def _rebuild(url: str) -> tuple[Recount, ...]:
    conn = await asyncpg.connect("postgresql://" + url.partition("://")[2])
    try:
        async with conn.transaction():
            return await rebuild(conn)
    finally:
        await conn.close()


class _Bar:
    """A progress bar on standard error, drawn from the first report, when the total is known;
    standard output keeps only the command's result."""

    def __init__(self, label: str) -> None:
        self._label = label
        self._stack = contextlib.ExitStack()
        self._bar: ProgressBar[int] | None = None

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = self._stack.enter_context(
                click.progressbar(length=max(total, 1), label=self._label, file=sys.stderr)
            )
        self._bar.update(done - self._bar.pos)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


@db.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def db_backup(file: Path) -> None:
    """Dump the whole database into FILE (pg_dump's custom format), with a progress bar."""
    from arena_api.db.backup import BackupError, backup

    settings = _settings()
    with _database(settings) as url, _Bar("arena: backing up") as bar:
        try:
            result = asyncio.run(backup(url, file, progress=bar))
        except BackupError as exc:
            _fail(str(exc), 1)
    click.echo(
        f"arena: backed up the database to {result.path} "
        f"({_size(result.bytes)} in {result.seconds:.1f}s)"
    )


@db.command("restore")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace what the database holds.")
def db_restore(file: Path, force: bool) -> None:
    """Restore a backup (`arena db backup`) into an empty database, then migrate it to the
    newest schema; --force replaces a database that holds data."""
    from alembic.util.exc import CommandError

    from arena_api.db.backup import BackupError, restore

    settings = _settings()
    with _database(settings) as url:
        with _Bar("arena: restoring") as bar:
            try:
                result = asyncio.run(restore(url, file, force=force, progress=bar))
            except BackupError as exc:
                _fail(str(exc), 1)
        try:
            _run_prepare(url, settings, seed=False)
        except CommandError as exc:
            _fail(f"restored, but the dump's schema cannot be migrated by this version: {exc}", 1)
    replaced = f"; replaced {result.dropped} objects that were there" if result.dropped else ""
    click.echo(
        f"arena: restored {file} ({result.entries} entries in {result.seconds:.1f}s){replaced}"
    )


@db.command("forget-session")
@click.argument("session_id")
def db_forget_session(session_id: str) -> None:
    """Delete a voter's prompts and answers and anonymise their votes (SESSION_ID: the
    `sessionId` their client sent)."""
    from arena_api.db.forget import forget_session

    settings = _settings()
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        forgotten = asyncio.run(_with_connection(url, lambda c: forget_session(c, session_id)))
    if not forgotten.found:
        click.echo(
            f"arena: nothing to forget: no vote, round or conversation has session {session_id!r}"
        )
        return
    click.echo(
        f"arena: forgot session {session_id!r}: {forgotten.votes:,} votes and "
        f"{forgotten.conversations:,} conversations now carry a new anonymous session id; "
        f"text cleared in {forgotten.rounds:,} rounds ({forgotten.text.describe()}); "
        f"{forgotten.chat_links:,} chat links removed"
    )


@db.command("prune-text")
@click.option(
    "--days",
    type=click.IntRange(min=1),
    default=None,
    help="Clear text older than this many days.  [default: ARENA_TEXT_RETENTION_DAYS]",
)
def db_prune_text(days: int | None) -> None:
    """Clear prompt and answer text older than N days (votes, ratings and summaries stay)."""
    from datetime import timedelta

    from arena_api.db.retention import clear_old_text

    settings = _settings()
    days = days or settings.text_retention_days
    if not days:
        click.echo(
            "arena: text retention is off (ARENA_TEXT_RETENTION_DAYS=0): nothing cleared; "
            "pass --days N to clear text older than N days"
        )
        return
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        cleared = asyncio.run(
            _with_connection(url, lambda c: clear_old_text(c, timedelta(days=days)))
        )
    if cleared is None:
        _fail("another process is clearing old text right now; try again later", 1)
        return
    click.echo(f"arena: cleared text older than {days} days: {cleared.describe()}")


async def _with_connection(url: str, action: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
    try:
        conn = await asyncpg.connect("postgresql://" + url.partition("://")[2])
    except (OSError, ConnectionError) as exc:
        _fail(f"the database at DATABASE_URL is unreachable: {exc}", 1)
        raise
    try:
        return await action(conn)
    finally:
        await conn.close()


@db.command("seed-demo")
@click.option(
    "--votes",
    type=click.IntRange(min=1),
    default=20_000,
    show_default=True,
    help="Votes to generate (skips included).",
)
@click.option(
    "--models",
    type=click.IntRange(2, 128),
    default=None,
    help="Models taking part; demo models are added when fewer are enabled. "
    "[default: the enabled roster]",
)
@click.option(
    "--days",
    type=click.IntRange(min=1),
    default=30,
    show_default=True,
    help="Days of history, ending now.",
)
@click.option(
    "--seed",
    type=int,
    default=20261130,
    show_default=True,
    help="Random seed: the same seed gives the same arena.",
)
@click.option("--force", is_flag=True, help="Seed even if the database holds non-demo votes.")
def db_seed_demo(votes: int, models: int | None, days: int, seed: int, force: bool) -> None:
    """Replace the demo history with a generated one (votes, answers, sessions, bots)."""
    from arena_api.db.demo import DemoError, DemoOptions, seed_demo

    settings = _settings()
    options = DemoOptions(votes=votes, models=models, days=days, seed=seed, force=force)
    with _database(settings) as url:
        _run_prepare(url, settings, seed=True)
        dsn = "postgresql://" + url.partition("://")[2]
        with click.progressbar(length=votes, label="arena: writing demo rounds") as bar:
            try:
                result = asyncio.run(seed_demo(dsn, options, progress=bar.update))
            except DemoError as exc:
                _fail(str(exc), 1)
    if result.models_added:
        click.echo(
            f"arena: added demo models {', '.join(result.models_added)} (provider mock); "
            "`arena serve` disables models the roster file does not list"
        )
    bots = ", ".join(f"{sid} ({kind})" for sid, kind in sorted(result.bot_sessions.items()))
    click.echo(
        f"arena: {result.votes} demo votes on {result.matchups} matchups, "
        f"{result.conversations} conversations, {result.sessions} sessions, "
        f"{len(result.models)} models, in {result.seconds:.1f}s"
        + (
            f" (replaced {result.replaced_matchups} earlier demo matchups)"
            if result.replaced_matchups
            else ""
        )
    )
    if bots:
        click.echo(f"arena: bot-like sessions for the anomaly screen: {bots}")
    if result.history_refits:
        click.echo(
            f"arena: rating history of {result.history_refits} refits over {days} days "
            "(the current ratings come from `arena rate` or `arena serve`)"
        )


@cli.group()
def models() -> None:
    """The models and their status: active (matched), paused or archived (never matched, their
    history kept on the board)."""


async def _with_engine(url: str, action: Callable[[AsyncEngine], Awaitable[T]]) -> T:
    engine = create_engine(url)
    try:
        return await action(engine)
    finally:
        await engine.dispose()


@models.command("list")
def models_list() -> None:
    """Every model with its status, active ones first."""
    settings = _settings()
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        listed = asyncio.run(_with_engine(url, list_models))
    for m in listed:
        model = m.model
        click.echo(
            f"{m.status:<8}  {model.id}  {model.provider}:{model.provider_model_id}  "
            f"{model.display_name}"
        )


@models.command("set-status")
@click.argument("name")
@click.argument("status", type=click.Choice(MODEL_STATUSES))
def models_set_status(name: str, status: ModelStatus) -> None:
    """Make one model (NAME: its id, display name or provider:provider_model_id) active, paused
    or archived; a running server follows within seconds. For a model the roster file lists,
    the file's status comes back at the next start: change the file to keep it."""
    settings = _settings()
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        try:
            changed, before = asyncio.run(
                _with_engine(url, lambda e: set_model_status(e, name, status))
            )
        except ModelStatusError as exc:
            _fail(str(exc))
            return
    model = changed.model
    click.echo(f"arena: {model.display_name} ({model.id}): {before} -> {changed.status}")


@cli.command("rate")
@click.option("--loop", is_flag=True, help="Refit every RATING_REFIT_INTERVAL_S until stopped.")
@click.option("--style", is_flag=True, help="Also run the style-controlled pass.")
@click.option("--no-anomaly-filter", is_flag=True, help="Keep every session's votes.")
@click.option(
    "--no-identity-filter", is_flag=True, help="Keep votes whose answers named themselves."
)
@click.option("--no-duplicate-cap", is_flag=True, help="Keep every vote of an over-asked prompt.")
@click.option("--validate", is_flag=True, help="Check the intervals with a bootstrap.")
@click.option("--resamples", type=click.IntRange(min=2), default=200, show_default=True)
@click.option("--seed", type=int, default=None, help="Seed of the bootstrap.")
def rate(
    loop: bool,
    style: bool,
    no_anomaly_filter: bool,
    no_identity_filter: bool,
    no_duplicate_cap: bool,
    validate: bool,
    resamples: int,
    seed: int | None,
) -> None:
    """Fit the ratings from the recorded votes (the embedded database when DATABASE_URL is
    unset); the same as `python -m arena_rating`."""
    from arena_rating import main as rate_main

    settings = _settings()
    argv = ["--loop" if loop else "--once", "--resamples", str(resamples)]
    flags = (
        ("--style", style),
        ("--no-anomaly-filter", no_anomaly_filter),
        ("--no-identity-filter", no_identity_filter),
        ("--no-duplicate-cap", no_duplicate_cap),
        ("--validate", validate),
    )
    argv += [flag for flag, on in flags if on]
    if seed is not None:
        argv += ["--seed", str(seed)]
    with _database(settings) as url:
        status = rate_main(argv, environ={**os.environ, "DATABASE_URL": url})
    raise SystemExit(status)


@cli.command("build-ui")
def build_ui() -> None:
    """Build the UI's static frontend when its sources changed (needs bun; the container image
    runs it in its build stage, so the running server never does)."""
    from arena_app.build import ensure_frontend

    try:
        built = ensure_frontend()
    except RuntimeError as exc:
        _fail(str(exc), 1)
    click.echo(
        "arena: the UI was up to date" if built is None else f"arena: built the UI in {built:.1f}s"
    )


@cli.command("settings")
@click.option("--markdown", is_flag=True, help="Print the README's table of variables.")
@click.option("--env-example", is_flag=True, help="Print .env.example: every variable.")
def show_settings(markdown: bool, env_example: bool) -> None:
    """Validate the environment and print the effective settings."""
    if markdown:
        click.echo(settings_markdown(), nl=False)
        return
    if env_example:
        click.echo(settings_env_example(), nl=False)
        return
    settings = _settings()
    for name, value in settings.__dict__.items():
        if name != "sources":
            click.echo(f"{name} = {value!r}")


@db.command("backfill-categories")
@click.option("--batch", type=click.IntRange(min=1), default=5_000, show_default=True)
def db_backfill_categories(batch: int) -> None:
    """Classify the stored rounds that have no categories yet (categories, language, key)."""
    settings = _settings()
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        done = asyncio.run(_backfill(url, batch))
    click.echo(f"arena: {done:,} rounds classified")


async def _backfill(url: str, batch: int) -> int:
    from arena_api.db.categories import backfill_categories, unclassified_rounds
    from arena_api.db.repository import create_pool
    from arena_api.language import detect_language

    pool = await create_pool(url, max_size=2)
    try:
        total = await unclassified_rounds(pool)
        with click.progressbar(length=total, label="classifying rounds", show_pos=True) as bar:
            return await backfill_categories(
                pool, detect_language, batch=batch, progress=bar.update
            )
    finally:
        await pool.close()


def _instant(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        _fail(f"--{name} must be an ISO 8601 date or instant, e.g. 2026-11-01 or 2026-11-01T09:00Z")
        raise
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@cli.command("export")
@click.option("--since", default=None, help="Votes cast at or after (ISO 8601; UTC if no zone).")
@click.option("--until", default=None, help="Votes cast before (ISO 8601; UTC if no zone).")
@click.option(
    "--format",
    "kind",
    type=click.Choice(["jsonl", "parquet", "lmarena"]),
    default="jsonl",
    show_default=True,
    help="lmarena: LMArena/FastChat battle records (JSON Lines) for their notebooks.",
)
@click.option(
    "--include-text", is_flag=True, help="Add the prompts and the answers (scrubbed, see below)."
)
@click.option(
    "--scrub/--no-scrub",
    default=True,
    show_default=True,
    help="With --include-text: replace emails, phone numbers, IP addresses, card numbers and "
    "secrets by [EMAIL], [PHONE], [IP], [CARD], [SECRET] (--no-scrub: the text as written).",
)
@click.option(
    "--include-images",
    is_flag=True,
    help="Name each round's images (SHA-256) and write them as files images/<sha256>.<ext> "
    "beside the output file (every row carries image_count either way).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, allow_dash=True),
    default=None,
    help="The file to write, or - for standard output (default: votes.jsonl or votes.parquet).",
)
def export_votes(
    since: str | None,
    until: str | None,
    kind: str,
    include_text: bool,
    scrub: bool,
    include_images: bool,
    output: str | None,
) -> None:
    """Open vote data: one row per vote (models, outcome, mode, method, categories, style
    features, timings, anonymised session), streamed to a file or standard output with a
    progress bar (on standard error when the votes go to standard output). Prompts and answers
    only with --include-text, scrubbed unless --no-scrub; the closing lines count what was
    replaced, per kind. With --include-images, the images of the rounds exported go beside the
    output file, in images/."""
    start, end = _instant(since, "since"), _instant(until, "until")
    # `-o -` is standard output, as for most tools (`-o ./-` still names a file).
    default = "battles.jsonl" if kind == "lmarena" else f"votes.{kind}"
    path = None if output == "-" else Path(output or default)
    to_stdout = path is None
    if to_stdout and kind == "parquet" and sys.stdout.isatty():
        _fail("--format parquet writes binary data: send standard output to a file or a pipe")
    if include_images and kind == "lmarena":
        _fail("--include-images: LMArena battle records have no images (use jsonl or parquet)")
    if include_images and path is None:
        _fail("--include-images writes the images beside the output file: name one with -o")
    images_dir = path.parent / "images" if include_images and path is not None else None
    settings = _settings()
    try:
        salt = export_salt(settings)
    except SettingsError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"the token secret cannot be read or created: {exc}", 1)
    from arena_api.core.scrub import Scrubber  # libphonenumber's rules: only when exporting

    scrubber = Scrubber() if include_text and scrub else None
    images = 0
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        try:
            if kind == "lmarena":
                written = asyncio.run(
                    _export_lmarena(url, salt, path, start, end, include_text, scrubber)
                )
            else:
                written, images = asyncio.run(
                    _export(
                        url,
                        salt,
                        path,
                        start,
                        end,
                        include_text,
                        scrubber,
                        kind == "parquet",
                        images_dir,
                    )
                )
        except ArenaError as exc:
            _fail(exc.message)
            return
        except BrokenPipeError:
            # The reader went away (`arena export -o - | head`): no traceback, and no second
            # error when Python flushes standard output on the way out.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(1) from None
    where = "standard output" if path is None else str(path)
    noun = "battles (skips have no LMArena form)" if kind == "lmarena" else "votes"
    click.echo(f"arena: {written:,} {noun} written to {where}", err=to_stdout)
    if images_dir is not None:
        click.echo(f"arena: {images:,} new image files written to {images_dir}")
    if scrubber is not None:
        click.echo(f"arena: scrubbed: {scrubber.summary()}", err=to_stdout)
    elif include_text:
        click.echo("arena: prompts and answers as written (--no-scrub)", err=to_stdout)


async def _export(
    url: str,
    salt: bytes,
    path: Path | None,
    since: datetime | None,
    until: datetime | None,
    include_text: bool,
    scrubber: Scrubber | None,
    parquet: bool,
    images_dir: Path | None = None,
) -> tuple[int, int]:
    """The votes written, and the image files written into ``images_dir`` (if given)."""
    from arena_api.db.export import PostgresVoteRows
    from arena_api.db.media import PostgresImages
    from arena_api.db.repository import create_pool
    from arena_api.services.export import ImageFiles, VoteExport

    to_stdout = path is None  # then only the votes go there; the messages go to stderr
    pool = await create_pool(url, max_size=2)
    try:
        export = VoteExport(PostgresVoteRows(pool, salt))
        images = None if images_dir is None else ImageFiles(PostgresImages(pool), images_dir)
        total = await export.count(since, until)
        with click.progressbar(
            length=total,
            label="exporting votes",
            show_pos=True,
            file=sys.stderr if to_stdout else None,
        ) as bar:
            written = await export.write(
                sys.stdout.buffer if path is None else path,
                since=since,
                until=until,
                include_text=include_text,
                scrubber=scrubber,
                parquet=parquet,
                progress=bar.update,
                images=images,
            )
        if to_stdout:
            sys.stdout.buffer.flush()
        return written, 0 if images is None else images.written
    finally:
        await pool.close()


class _CountingReader(io.RawIOBase):
    """A binary file that counts the bytes read from it (the import's progress)."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read(len(buffer))
        buffer[: len(data)] = data
        self.count += len(data)
        return len(data)


@cli.command("import")
@click.option(
    "--from",
    "source",
    type=click.Choice(["lmarena", "openwebui", "omniarena"]),
    required=True,
    help="The other arena: lmarena (FastChat battle records, JSON or JSON Lines), openwebui "
    "(the JSON of Open WebUI's Evaluations > Export), omniarena (its PostgreSQL, by URL).",
)
@click.argument("location", metavar="FILE|DATABASE_URL")
@click.option("--dry-run", is_flag=True, help="Read and check everything, write nothing.")
@click.option("--no-rate", is_flag=True, help="Skip the rating pass after the import.")
def import_votes(source: str, location: str, dry_run: bool, no_rate: bool) -> None:
    """Import another arena's votes: from FILE (or - for standard input), or for omniarena
    from its DATABASE_URL. Each record becomes a round here, with its source and id, so a
    second import of the same data adds nothing. Models the arena does not know are created
    archived (on the board, never matched). Bad records are listed with their line, item or id
    and skipped; a batch is written whole or not at all. Exit status 1 when any record was
    bad."""
    settings = _settings()
    skipped = ""
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        if source == "omniarena":
            report = _import_seed(url, location, dry_run)
        else:
            report, skipped = _import_file(url, source, location, dry_run, settings)
        if not dry_run and report.imported and not no_rate:
            from arena_rating import main as rate_main

            click.echo("arena: rating the votes", err=True)
            rate_main(["--once"], environ={**os.environ, "DATABASE_URL": url})
    _report_import(report, source)
    if skipped:
        click.echo(skipped)
    if report.bad:
        raise SystemExit(1)


def _import_file(
    url: str, source: str, location: str, dry_run: bool, settings: Settings
) -> tuple[ImportReport, str]:
    """Import a file of battles or feedback; the report and a line on what was skipped."""
    from arena_api.core.reasons import VoteReasons
    from arena_api.interop.lmarena import read_battles
    from arena_api.interop.openwebui import OpenWebUIFeedback

    file = cast(BinaryIO, click.File("rb").convert(location, None, click.get_current_context()))
    size = os.fstat(file.fileno()).st_size if file.seekable() else 0
    counting = _CountingReader(file)
    text = io.TextIOWrapper(io.BufferedReader(counting), encoding="utf-8", errors="strict")
    feedback = OpenWebUIFeedback(VoteReasons(settings.vote_reasons).adopt)
    records = feedback.read(text) if source == "openwebui" else read_battles(text)
    with click.progressbar(
        length=max(size, 1),
        hidden=not size,  # standard input has no length to show progress against
        label="reading" if dry_run else "importing",
        file=sys.stderr,
    ) as bar:

        def progress(_records: int) -> None:
            bar.update(counting.count - bar.pos)

        try:
            report = asyncio.run(_import(url, records, dry_run, progress))
        except UnicodeDecodeError as exc:
            _fail(f"{location}: not UTF-8 text ({exc.reason} at byte {exc.start})", 1)
    skipped = ""
    if feedback.skipped:
        skipped = (
            f"arena: {feedback.skipped:,} ratings skipped: they compare no models "
            "(a thumbs on a single answer) or give no thumbs"
        )
    return report, skipped


def _import_seed(url: str, seed_url: str, dry_run: bool) -> ImportReport:
    """Copy the seed system's database at ``seed_url`` (a PostgreSQL URL)."""
    import asyncpg

    from arena_api.interop.omniarena import SeedSchemaError

    try:
        return asyncio.run(_copy_seed(url, seed_url, dry_run))
    except SeedSchemaError as exc:
        _fail(f"{_redacted(seed_url)}: {exc}")
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as exc:
        _fail(f"cannot read the OmniArena database at {_redacted(seed_url)}: {exc}")
    raise AssertionError("unreachable")


def _redacted(url: str) -> str:
    """A database URL fit for a message: its password replaced by ``***``."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


async def _copy_seed(url: str, seed_url: str, dry_run: bool) -> ImportReport:
    import asyncpg

    from arena_api.db.omniarena import PostgresSeedImport, SeedDatabase
    from arena_api.db.repository import create_pool
    from arena_api.services.interop import SeedImport

    conn = await asyncpg.connect(seed_url, timeout=10)
    pool = await create_pool(url, max_size=2)
    try:
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            copy = SeedImport(SeedDatabase(conn), PostgresSeedImport(pool))
            total = await copy.count()
            with click.progressbar(
                length=max(total, 1),
                label="reading" if dry_run else "importing",
                file=sys.stderr,
            ) as bar:
                return await copy.run(dry_run=dry_run, progress=bar.update)
    finally:
        await pool.close()
        await conn.close()


async def _import(
    url: str, records: Iterator[Any], dry_run: bool, progress: Callable[[int], None]
) -> ImportReport:
    from arena_api.db.battles import PostgresBattles
    from arena_api.db.repository import create_pool
    from arena_api.services.interop import BattleImport

    pool = await create_pool(url, max_size=2)
    try:
        return await BattleImport(PostgresBattles(pool)).run(
            records, dry_run=dry_run, progress=progress
        )
    finally:
        await pool.close()


def _report_import(report: ImportReport, source: str) -> None:
    verb = "would import" if report.dry_run else "imported"
    records = "conversations" if source == "omniarena" else "records"
    methods = ", ".join(f"{n:,} {m}" for m, n in sorted(report.by_method.items()))
    click.echo(
        f"arena: {report.read:,} {source} {records} read: {report.imported:,} {verb}"
        + (f" ({methods})" if methods else "")
        + f", {report.duplicates:,} already imported, {report.bad:,} bad"
    )
    if report.unknown_models:
        names = ", ".join(sorted(report.unknown_models))
        state = "would be created archived" if report.dry_run else "created archived"
        click.echo(f"arena: {len(report.unknown_models)} unknown models {state}: {names}")
    for problem in report.problems:
        click.echo(f"  bad {records[:-1]}, {problem}", err=True)
    if report.bad > len(report.problems):
        click.echo(f"  ... and {report.bad - len(report.problems):,} more bad {records}", err=True)


async def _export_lmarena(
    url: str,
    salt: bytes,
    path: Path | None,
    since: datetime | None,
    until: datetime | None,
    include_text: bool,
    scrubber: Scrubber | None,
) -> int:
    from arena_api.db.battles import PostgresBattles
    from arena_api.db.repository import create_pool
    from arena_api.services.interop import LMArenaExport

    pool = await create_pool(url, max_size=2)
    try:
        export = LMArenaExport(PostgresBattles(pool, salt))
        total = await export.count(since, until)
        with (
            click.progressbar(
                length=total, label="exporting battles", show_pos=True, file=sys.stderr
            ) as bar,
            contextlib.nullcontext(sys.stdout.buffer) if path is None else path.open("wb") as out,
        ):
            written = await export.write(
                out,
                since=since,
                until=until,
                include_text=include_text,
                scrub=scrubber.text if scrubber else None,
                progress=bar.update,
            )
            out.flush()
        return written
    finally:
        await pool.close()


@cli.group()
def suite() -> None:
    """Eval suites (ARENA_SUITES_DIR): list them, run one."""


@suite.command("list")
def suite_list() -> None:
    """The suites that load, and the files that do not."""
    loaded = load_suites(_settings().suites_dir)
    for item in sorted(loaded.suites.values(), key=lambda s: s.name):
        pair = f" (pair: {' vs '.join(item.models)})" if item.models else ""
        click.echo(f"{item.name}: {len(item.prompts)} prompts{pair}  {item.description}".rstrip())
    for error in loaded.errors:
        click.echo(f"not loaded: {error}", err=True)
    if not loaded.suites and not loaded.errors:
        click.echo(f"no suites in {_settings().suites_dir}")


async def _run_suite(settings: Settings, name: str) -> tuple[str, str]:
    from arena_api.bootstrap import bootstrap  # the whole server's wiring: only when running

    async with bootstrap(settings, serving=False) as services:
        run_id = await services.suites.create(name)
        total = len(services.suites.list_prompts(name))
        with click.progressbar(length=total, label=f"suite {name}", show_pos=True) as bar:

            def advance(done: int, _total: int) -> None:
                bar.update(done - bar.pos)

            await services.suites.run(run_id, advance)
        view = await services.suites.get(run_id)
    lines = [f"run {view.run_id}: {view.status}, {view.completed} of {view.total} judged"]
    lines += [f"  {t.model}: {t.wins} won, {t.losses} lost, {t.ties} tied" for t in view.tally]
    if view.unparseable or view.failed:
        lines.append(f"  {view.unparseable} unreadable verdicts, {view.failed} failed prompts")
    if view.cost_usd is not None:
        lines.append(f"  cost ${view.cost_usd:.6f}")
    return view.status, "\n".join(lines)


@suite.command("run")
@click.argument("name")
def suite_run(name: str) -> None:
    """Run suite NAME here and now: each prompt a headless round, judged; a progress bar."""
    settings = _settings(serving=True)
    with _database(settings) as url:
        _run_prepare(url, settings, seed=True)
        try:
            status, report = asyncio.run(
                _run_suite(dataclasses.replace(settings, database_url=url), name)
            )
        except ArenaError as exc:
            _fail(exc.message)
            return
    click.echo(report)
    if status != "done":
        sys.exit(1)


@cli.group()
def judge() -> None:
    """The roster's judge: check it against people."""


@judge.command("backfill")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    required=True,
    help="Ask about at most this many rounds, newest first.",
)
@click.option("--category", default=None, help="Only rounds in this slice of prompts.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation after the estimate.")
def judge_backfill(limit: int, category: str | None, yes: bool) -> None:
    """Ask the judge about rounds people voted on and it has not read (people's votes stay).

    The rounds are blind ones with a person's vote (not a skip) and their text; each verdict is
    stored beside the vote, never as one, and counts in GET /api/arena/analytics/judge-agreement.
    The cost is estimated first; exit status 1 when the judge kept failing."""
    from arena_api.core.boards import check_category

    try:
        check_category(category)
    except ArenaError as exc:
        _fail(exc.message)
    settings = _settings(serving=True)
    with _database(settings) as url:
        _run_prepare(url, settings, seed=False)
        try:
            stopped = asyncio.run(
                _judge_backfill(
                    dataclasses.replace(settings, database_url=url), limit, category, yes
                )
            )
        except ArenaError as exc:
            _fail(exc.message)
            return
    if stopped:
        sys.exit(1)


async def _judge_backfill(settings: Settings, limit: int, category: str | None, yes: bool) -> bool:
    """Plan, confirm and run a backfill; True when the judge kept failing."""
    from arena_api.bootstrap import bootstrap  # the whole server's wiring: only when running

    async with bootstrap(settings, serving=False) as services:
        plan = await services.judge_backfill.plan(limit, category)
        where = f" in {category}" if category else ""
        if not plan.matchup_ids:
            click.echo(f"arena: no round{where} with a person's vote is waiting for the judge")
            return False
        cost = "no price in the roster" if plan.cost_usd is None else f"${plan.cost_usd:.4f}"
        output = (
            f"{plan.output_per_reading:.0f} per reading as {plan.judge} wrote before"
            if plan.measured
            else f"{plan.output_per_reading:.0f} per reading, a guess before its first verdict"
        )
        click.echo(
            f"{plan.judge} will read {len(plan.matchup_ids):,} rounds{where}, newest first:\n"
            f"  about {plan.input_tokens:,} input tokens (from the stored prompts and answers)\n"
            f"  about {plan.output_tokens:,} output tokens ({output})\n"
            f"  estimated cost: {cost}"
        )
        if not yes and not await asyncio.to_thread(click.confirm, "Ask the judge?"):
            click.echo("arena: nothing asked")
            return False
        with click.progressbar(
            length=len(plan.matchup_ids), label="asking the judge", show_pos=True
        ) as bar:
            report = await services.judge_backfill.run(plan, bar.update)
        agreement = await services.reads.judge_agreement(category)
    outcomes = ", ".join(f"{outcome} {n:,}" for outcome, n in sorted(report.outcomes.items()))
    spent = "unknown (no price)" if report.cost_usd is None else f"${report.cost_usd:.4f}"
    click.echo(f"judged {report.judged:,} rounds ({outcomes}); cost {spent}")
    if report.vanished:
        click.echo(f"  {report.vanished:,} rounds were gone before their turn")
    if agreement.agreement is not None:
        kappa = "" if agreement.kappa is None else f", Cohen's kappa {agreement.kappa:.2f}"
        click.echo(
            f"judge vs people{where}: {agreement.n:,} rounds, agreement "
            f"{agreement.agreement:.0%}{kappa}"
        )
    if report.stopped is not None:
        click.echo(f"arena: stopped early: {report.stopped}", err=True)
        return True
    return False


def main() -> None:
    cli()
