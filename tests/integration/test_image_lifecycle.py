"""A prompt's images live and die with the rest of the data: text retention and a forgotten
session take a round's images with its text (an image another turn shows stays), a backup
restores them byte for byte, and the export counts them in every row and, asked to, writes them
as files named per round."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import subprocess
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pyarrow.parquet as pq
from PIL import Image
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.forget import forget_session
from arena_api.db.media import DetachedImages
from arena_api.db.retention import clear_old_text
from tests.integration.arena_harness import Arena, serve_arena
from tests.support import run_cli

TOKEN = "export-token-0123456789abcdef"


def _png(color: tuple[int, int, int]) -> dict[str, str]:
    """An image as the native API takes it: a small square of ``color``."""
    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), color).save(buffer, "PNG")
    return {"data": base64.b64encode(buffer.getvalue()).decode(), "mediaType": "image/png"}


RED, BLUE = _png((200, 0, 0)), _png((0, 0, 200))


def _dsn(url: str) -> str:
    return "postgresql://" + url.partition("://")[2]


@contextlib.asynccontextmanager
async def _connection(url: str) -> AsyncIterator[asyncpg.Connection]:
    conn = await asyncpg.connect(_dsn(url))
    try:
        yield conn
    finally:
        await conn.close()


async def _round(
    arena: Arena, session: str, *images: dict[str, str], vote: bool = False
) -> dict[str, Any]:
    """A finished round of ``session`` whose prompt has ``images`` (voted on if ``vote``)."""
    response, frames = await arena.chat(
        prompt=f"What is in the picture, {session} {len(images)}?",
        sessionId=session,
        images=list(images),
    )
    assert response.status_code == 200, response.text
    assert frames[-1][0] == "matchup_done", frames[-1]
    started = frames[0][1]
    if vote:
        assert (await arena.vote(started)).status_code == 200
    return started


async def _shown(arena: Arena, started: dict[str, Any]) -> list[str]:
    """The SHA-256s of the images the round's turn shows, in order."""
    rows = await arena.rows(
        "SELECT ti.sha256 FROM turn_images ti JOIN turns t ON t.id = ti.turn_id "
        "WHERE t.matchup_id = :m ORDER BY ti.position",
        m=started["matchupId"],
    )
    return [r.sha256 for r in rows]


async def _stored(arena: Arena) -> dict[str, bytes]:
    return {r.sha256: r.data for r in await arena.rows("SELECT sha256, data FROM images")}


async def _age(url: str, started: dict[str, Any], days: int) -> None:
    """The round, its turn and answers as if played ``days`` days ago."""
    async with _connection(url) as conn:
        for table, column in (
            ("matchups", "id"),
            ("turns", "matchup_id"),
            ("responses", "matchup_id"),
        ):
            await conn.execute(
                f"UPDATE {table} SET created_at = created_at - make_interval(days => $2) "
                f"WHERE {column} = $1::uuid",
                started["matchupId"],
                days,
            )


# -- text retention and forgetting ----------------------------------------------------------------


async def test_clearing_old_text_takes_its_images_and_deletes_those_no_turn_shows(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        old = await _round(arena, "someone", RED, BLUE)
        new = await _round(arena, "someone", BLUE)
        await _age(database_url, old, days=20)
        red, blue = await _shown(arena, old)
        async with _connection(database_url) as conn:
            cleared = await clear_old_text(conn, timedelta(days=10))
            again = await clear_old_text(conn, timedelta(days=10))
        old_turn = (
            await arena.rows(
                "SELECT t.prompt, m.image_count FROM turns t JOIN matchups m ON m.id = "
                "t.matchup_id WHERE m.id = :m",
                m=old["matchupId"],
            )
        )[0]

        assert cleared is not None and cleared.images == DetachedImages(links=2, deleted=1)
        assert "2 images of turns (1 deleted" in cleared.describe()
        assert await _shown(arena, old) == [] and await _shown(arena, new) == [blue]
        assert set(await _stored(arena)) == {blue} and red != blue
        assert (old_turn.prompt, old_turn.image_count) == ("", 2)  # the count stays
        assert again is not None and again.images == DetachedImages()


async def test_a_turn_with_images_and_no_text_left_still_has_its_images_cleared(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """A prompt already empty (cleared before images existed, or sent as images alone) is
    still picked up for its images."""
    async with serve_arena(db, database_url, tmp_path) as arena:
        old = await _round(arena, "someone", RED)
        await _age(database_url, old, days=20)
        async with _connection(database_url) as conn:
            await conn.execute(
                "UPDATE turns SET prompt = '' WHERE matchup_id = $1::uuid", old["matchupId"]
            )
            cleared = await clear_old_text(conn, timedelta(days=10))

        assert cleared is not None and cleared.turns == 1
        assert cleared.images == DetachedImages(links=1, deleted=1)
        assert await _stored(arena) == {}


async def test_forgetting_a_session_removes_its_images_and_keeps_one_another_session_shows(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        mine = await _round(arena, "forget-me", RED, BLUE, vote=True)
        theirs = await _round(arena, "someone-else", BLUE)
        red, blue = await _shown(arena, mine)
        async with _connection(database_url) as conn:
            forgotten = await forget_session(conn, "forget-me")

        assert forgotten.text.images == DetachedImages(links=2, deleted=1)
        assert await _shown(arena, mine) == [] and await _shown(arena, theirs) == [blue]
        assert set(await _stored(arena)) == {blue} and red != blue


async def test_forget_session_reports_the_images_it_removed(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        await _round(arena, "forget-me", RED, vote=True)

    result = run_cli(
        ("db", "forget-session", "forget-me"),
        {"DATABASE_URL": database_url, "ARENA_ALLOW_DEV_SECRET": "1"},
    )

    assert result.returncode == 0, result.stderr
    assert "1 images of turns (1 deleted, shown nowhere else)" in result.stdout


# -- backup and restore ---------------------------------------------------------------------------

_IMAGES = "SELECT sha256, media_type, width, height, size, data, created_at FROM images ORDER BY 1"
_LINKS = "SELECT turn_id, position, sha256 FROM turn_images ORDER BY 1, 2"
_STORAGE = (
    "SELECT attstorage::text FROM pg_attribute "
    "WHERE attrelid = 'images'::regclass AND attname = 'data'"
)


async def _images_and_links(url: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], str]:
    async with _connection(url) as conn:
        images = [tuple(r) for r in await conn.fetch(_IMAGES)]
        links = [tuple(r) for r in await conn.fetch(_LINKS)]
        storage = await conn.fetchval(_STORAGE)
    return images, links, storage


async def test_a_restored_backup_holds_the_images_byte_for_byte(
    db: AsyncEngine, database_url: str, tmp_path: Path, fresh_database: Callable[[], str]
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        await _round(arena, "someone", RED, BLUE, vote=True)
        await _round(arena, "someone-else", BLUE)
    dump, copy = tmp_path / "arena.dump", fresh_database()
    env = {"ARENA_MOCK_PROVIDER": "1", "ARENA_ALLOW_DEV_SECRET": "1"}
    backed_up = run_cli(("db", "backup", str(dump)), {**env, "DATABASE_URL": database_url})
    assert backed_up.returncode == 0, backed_up.stderr

    restored = run_cli(("db", "restore", str(dump)), {**env, "DATABASE_URL": copy})

    assert restored.returncode == 0, restored.stderr
    original = await _images_and_links(database_url)
    images, links, storage = await _images_and_links(copy)
    assert (images, links, storage) == original
    assert len(images) == 2 and len(links) == 3
    assert all(hashlib.sha256(row[5]).hexdigest() == row[0] for row in images)
    assert storage == "e"  # still not compressed a second time


# -- export ---------------------------------------------------------------------------------------


def _export(tmp_path: Path, database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "DATABASE_URL": database_url,
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_DATA_DIR": str(tmp_path / "data"),
    }
    return run_cli(("export", *args), env)  # type: ignore[no-any-return]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_the_export_counts_each_rounds_images_and_writes_them_once_when_asked(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_API_TOKENS=TOKEN) as arena:
        arena.client.headers["authorization"] = f"Bearer {TOKEN}"
        both = await _round(arena, "someone", RED, BLUE, vote=True)
        await _round(arena, "someone-else", BLUE, vote=True)
        await _round(arena, "someone", vote=True)
        red, blue = await _shown(arena, both)
        stored = await _stored(arena)
        over_http = await arena.client.get("/api/arena/export")
    out, plain = tmp_path / "out" / "votes.jsonl", tmp_path / "plain" / "votes.jsonl"
    out.parent.mkdir()
    plain.parent.mkdir()

    with_images = _export(tmp_path, database_url, "--include-images", "-o", str(out))
    again = _export(tmp_path, database_url, "--include-images", "-o", str(out))
    without = _export(tmp_path, database_url, "-o", str(plain))

    assert with_images.returncode == 0, with_images.stderr
    assert f"2 new image files written to {out.parent / 'images'}" in with_images.stdout
    assert "0 new image files written" in again.stdout  # each file is written once
    rows = _lines(out)
    assert [r["image_count"] for r in rows] == [2, 1, 0]
    assert [r["images"] for r in rows] == [[red, blue], [blue], []]
    files = {p.name: p.read_bytes() for p in (out.parent / "images").iterdir()}
    assert files == {f"{red}.png": stored[red], f"{blue}.png": stored[blue]}
    assert without.returncode == 0, without.stderr
    assert [(r["image_count"], "images" in r) for r in _lines(plain)] == [
        (2, False),
        (1, False),
        (0, False),
    ]
    assert not (plain.parent / "images").exists()
    http_rows = [json.loads(line) for line in over_http.text.splitlines()]
    assert [r["image_count"] for r in http_rows] == [2, 1, 0]


async def test_a_parquet_export_names_the_images_too(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        started = await _round(arena, "someone", RED, BLUE, vote=True)
        shown = await _shown(arena, started)
    out = tmp_path / "votes.parquet"

    result = _export(
        tmp_path, database_url, "--format", "parquet", "--include-images", "-o", str(out)
    )

    assert result.returncode == 0, result.stderr
    table = pq.read_table(out).to_pylist()
    assert [(r["image_count"], r["images"]) for r in table] == [(2, shown)]
    assert sorted(p.name for p in (tmp_path / "images").iterdir()) == sorted(
        f"{s}.png" for s in shown
    )


def test_include_images_needs_an_output_file(tmp_path: Path, database_url: str) -> None:
    result = _export(tmp_path, database_url, "--include-images", "-o", "-")

    assert result.returncode != 0
    assert "name one with -o" in result.stderr
