"""Open vote data: every vote as one row, for others to check the leaderboard.

One row per vote: its models, outcome, mode, method (a person or a judge), the reasons the
voter gave (``ARENA_VOTE_REASONS``; an empty list for none), the prompt's categories and
language, the two answers' style features and timings, and the voter's session as a salted hash
(the same session is one name throughout an export; nobody without the salt can tell whose it
was). Prompts and answers only when asked for (``include_text``), and then passed through a
``Scrubber`` (``arena_api.core.scrub``: e-mail addresses, phone numbers, IP addresses, card numbers
and secrets become typed placeholders) unless the caller passes none to have them as written; the
scrubber's counts are the export's summary. Each row says how many images its round's prompt
had (``image_count``); with the images (``arena export --include-images``) it names them by
SHA-256 (``images``), and ``ImageFiles`` writes each image once as a file
``images/<sha256>.<ext>`` beside the export.

JSON Lines (one object per line, ``arena export`` and ``GET /api/arena/export``) or Parquet
(``arena export --format parquet``, with the optional ``pyarrow``: ``pip install 'arena[export]'``).
Both stream: memory stays bounded by one batch, whatever the number of votes.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from arena_api.core.errors import ArenaError
from arena_api.core.media import IMAGE_MEDIA_TYPES, ImageRef

if TYPE_CHECKING:  # the scrubber's rules are loaded by an export that asks for them
    from arena_api.core.scrub import Scrubber

__all__ = ["ImageFiles", "ImageStream", "VoteExport", "VoteRows", "row_json"]


class VoteRows(Protocol):
    """Every vote as one flat row, in vote order (``arena_api.db.export.PostgresVoteRows``)."""

    def columns(self, *, include_text: bool, include_images: bool = False) -> tuple[str, ...]: ...

    async def count(self, since: datetime | None, until: datetime | None) -> int: ...

    def batches(
        self,
        since: datetime | None,
        until: datetime | None,
        *,
        include_text: bool,
        include_images: bool = False,
    ) -> AsyncGenerator[list[dict[str, Any]], None]: ...


class ImageStream(Protocol):
    """Stored images read one by one (``arena_api.db.media.PostgresImages``)."""

    def stream(self, sha256s: Sequence[str]) -> AsyncIterator[tuple[ImageRef, bytes]]: ...


class ImageFiles:
    """The images an export names, each written once as ``<folder>/<sha256>.<ext>``.

    A file already there is kept (its name is its content's hash), so exporting again into the
    same folder writes only the new images. Each file is written whole or not at all.
    """

    def __init__(self, store: ImageStream, folder: Path) -> None:
        self.folder = folder
        self._store = store
        self._seen: set[str] = set()
        #: image files written by this export
        self.written = 0

    async def add(self, rows: Sequence[dict[str, Any]]) -> None:
        """Write the images ``rows`` name (their ``images``) that are not written yet."""
        new = list(dict.fromkeys(s for row in rows for s in row["images"] or ()))
        new = [sha256 for sha256 in new if sha256 not in self._seen]
        if not new:
            return
        self._seen.update(new)
        await asyncio.to_thread(self.folder.mkdir, parents=True, exist_ok=True)
        async for ref, data in self._store.stream(new):
            if await asyncio.to_thread(self._write, ref, data):
                self.written += 1

    def _write(self, ref: ImageRef, data: bytes) -> bool:
        path = self.folder / f"{ref.sha256}.{IMAGE_MEDIA_TYPES[ref.media_type]}"
        if path.is_file():
            return False
        partial = path.with_name(f".{path.name}.partial")
        partial.write_bytes(data)
        partial.replace(path)
        return True


def _plain(value: object) -> object:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def row_json(row: dict[str, Any]) -> bytes:
    """One vote as a line of JSON Lines."""
    plain = {key: _plain(value) for key, value in row.items()}
    return json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


class VoteExport:
    def __init__(self, rows: VoteRows) -> None:
        self._rows = rows

    async def count(self, since: datetime | None, until: datetime | None) -> int:
        return await self._rows.count(since, until)

    async def batches(
        self,
        since: datetime | None,
        until: datetime | None,
        *,
        include_text: bool,
        scrubber: Scrubber | None,
        include_images: bool = False,
    ) -> AsyncIterator[list[dict[str, Any]]]:
        """The rows, a batch at a time, their text scrubbed by ``scrubber`` (``None``: raw).

        Every caller names its scrubber, so that no export carries raw text by omission.
        """
        text = self._text_columns() if include_text and scrubber else ()
        # Closed with this generator, so that a reader who stops early (a client that hangs up)
        # hands the database connection back at once, not when the garbage is collected.
        async with contextlib.aclosing(
            self._rows.batches(
                since, until, include_text=include_text, include_images=include_images
            )
        ) as batches:
            async for rows in batches:
                if scrubber and text:
                    # Pure CPU, about 1 ms per answer: off the event loop, so that a server
                    # exporting over HTTP keeps answering its other requests meanwhile.
                    rows = await asyncio.to_thread(_scrubbed, scrubber, rows, text)
                yield rows

    def _text_columns(self) -> tuple[str, ...]:
        plain = set(self._rows.columns(include_text=False))
        return tuple(c for c in self._rows.columns(include_text=True) if c not in plain)

    async def jsonl(
        self,
        since: datetime | None,
        until: datetime | None,
        *,
        include_text: bool,
        scrubber: Scrubber | None,
    ) -> AsyncIterator[bytes]:
        """The votes as JSON Lines, a batch of lines per chunk."""
        async for rows in self.batches(since, until, include_text=include_text, scrubber=scrubber):
            yield b"".join(row_json(row) for row in rows)

    async def write(
        self,
        target: Path | BinaryIO,
        *,
        since: datetime | None,
        until: datetime | None,
        include_text: bool,
        scrubber: Scrubber | None,
        parquet: bool,
        progress: Callable[[int], None] | None = None,
        images: ImageFiles | None = None,
    ) -> int:
        """Write the export to ``target``; the number of votes written.

        Args:
            target: a file to create, or a binary stream to write to and leave open (standard
                output: Parquet needs no seeking, so a pipe will do).
            since: votes cast at or after.
            until: votes cast before.
            include_text: add the prompts and the answers.
            scrubber: scrubs the prompts and answers and counts what it replaced (``None``:
                the text as written).
            parquet: Parquet instead of JSON Lines.
            progress: called with the number of votes of each batch written.
            images: name each round's images in its row (``images``) and write them as files
                there, batch by batch (``None``: rows carry only ``image_count``).

        Raises:
            ArenaError: Parquet without ``pyarrow`` installed.
        """
        with_images = images is not None
        columns = self._rows.columns(include_text=include_text, include_images=with_images)
        batches = self.batches(
            since, until, include_text=include_text, scrubber=scrubber, include_images=with_images
        )
        written = 0
        with contextlib.ExitStack() as stack:
            write: Callable[[list[dict[str, Any]]], object]
            if parquet:
                writer = _ParquetWriter(target, columns)
                stack.callback(writer.close)
                write = writer.write
            else:
                out = stack.enter_context(target.open("wb")) if isinstance(target, Path) else target
                write = functools.partial(_write_lines, out)
            async for rows in batches:
                if images is not None:
                    await images.add(rows)
                write(rows)
                written += len(rows)
                if progress:
                    progress(len(rows))
        return written


def _write_lines(out: BinaryIO, rows: list[dict[str, Any]]) -> None:
    out.write(b"".join(row_json(row) for row in rows))


def _scrubbed(
    scrubber: Scrubber, rows: list[dict[str, Any]], columns: tuple[str, ...]
) -> list[dict[str, Any]]:
    return [scrubber.fields(row, columns) for row in rows]


class _ParquetWriter:
    """Row groups of one batch each, through ``pyarrow`` (an optional dependency)."""

    def __init__(self, target: Path | BinaryIO, columns: tuple[str, ...]) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise ArenaError(
                "Parquet needs pyarrow: pip install 'arena[export]' (or use --format jsonl)",
                status=400,
                code="parquet_unavailable",
            ) from None
        self._pa = pa
        text, number, flag = pa.string(), pa.float64(), pa.bool_()
        integer = pa.int64()
        types: dict[str, Any] = {
            "voted_at": pa.timestamp("us", tz="UTC"),
            "categories": pa.list_(text),
            "reasons": pa.list_(text),
            "image_count": integer,
            "images": pa.list_(text),
            "a_output_tokens": integer,
            "b_output_tokens": integer,
            "a_markdown_density": number,
            "b_markdown_density": number,
            "a_ttft_ms": integer,
            "b_ttft_ms": integer,
            "a_duration_ms": integer,
            "b_duration_ms": integer,
            "a_failed": flag,
            "b_failed": flag,
        }
        self._columns = columns
        self._schema = pa.schema([(name, types.get(name, text)) for name in columns])
        where = str(target) if isinstance(target, Path) else target
        self._writer = pq.ParquetWriter(where, self._schema, compression="zstd")

    def write(self, rows: list[dict[str, Any]]) -> None:
        data = {
            name: [
                str(value) if isinstance(value, uuid.UUID) else value
                for value in (row[name] for row in rows)
            ]
            for name in self._columns
        }
        self._writer.write_table(self._pa.table(data, schema=self._schema))

    def close(self) -> None:
        self._writer.close()
