"""Images on PostgreSQL (migration 0025): stored once by SHA-256, referenced by turns.

The bytes live in ``images`` (``bytea``, not compressed again); ``turn_images`` says which turn
shows which image, in order. A round's images go in within the transaction that creates the
round, so a round that fails to start leaves no image behind, and an image shared by many turns
is one row. An image no turn shows any more (its turns forgotten, its text cleared by retention)
is deleted by ``delete_unreferenced``, which those clean-ups call.

Why PostgreSQL and not files under the data directory: one store for replicas without a shared
volume, one backup, and one transaction with the round; ``benchmarks/images.py`` measures the
cost (a 2 MB image written and read back in a few milliseconds on the loopback).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass

import asyncpg

from arena_api.core.media import ChatImage, ImageRef
from arena_api.db.outages import raises_unavailable

__all__ = [
    "DetachedImages",
    "PostgresImages",
    "attach_images",
    "delete_unreferenced",
    "detach_images",
    "images_transaction",
    "turn_image_refs",
]

# Taking the row lock of an image that exists (DO UPDATE) keeps a concurrent clean-up from
# deleting it between this insert and the link that references it.
_INSERT_IMAGES = """
INSERT INTO images (sha256, media_type, width, height, size, data)
SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::bytea[])
ON CONFLICT (sha256) DO UPDATE SET sha256 = EXCLUDED.sha256
"""
_LINK = """
INSERT INTO turn_images (turn_id, position, sha256)
SELECT $1, ordinality - 1, sha256 FROM unnest($2::text[]) WITH ORDINALITY AS u(sha256, ordinality)
"""
_REFS = """
SELECT t.matchup_id, i.sha256, i.media_type, i.width, i.height, i.size
  FROM turn_images ti
  JOIN turns t ON t.id = ti.turn_id
  JOIN images i ON i.sha256 = ti.sha256
 WHERE t.matchup_id = ANY($1::uuid[])
 ORDER BY t.matchup_id, ti.position
"""
_UNREFERENCED = """
DELETE FROM images i
 WHERE ($1::text[] IS NULL OR i.sha256 = ANY($1::text[]))
   AND NOT EXISTS (SELECT 1 FROM turn_images ti WHERE ti.sha256 = i.sha256)
"""
_DETACH = "DELETE FROM turn_images WHERE turn_id = ANY($1::uuid[]) RETURNING sha256"


@dataclass(frozen=True)
class DetachedImages:
    """What taking turns' images away changed."""

    #: images taken off the turns (one per turn and position)
    links: int = 0
    #: stored images deleted, as no turn showed them any more
    deleted: int = 0

    def __add__(self, other: DetachedImages) -> DetachedImages:
        return DetachedImages(self.links + other.links, self.deleted + other.deleted)


def images_transaction(
    conn: asyncpg.Connection, images: Sequence[ChatImage]
) -> contextlib.AbstractAsyncContextManager[object]:
    """A transaction when a round has images (its statements must commit together); none for a
    round of text, which is one statement."""
    return conn.transaction() if images else contextlib.nullcontext()


async def attach_images(
    conn: asyncpg.Connection, turn_id: uuid.UUID, images: Sequence[ChatImage]
) -> None:
    """Store ``images`` (each once) and show them on the turn ``turn_id``, in order."""
    unique = {i.ref.sha256: i for i in images}.values()
    await conn.execute(
        _INSERT_IMAGES,
        [i.ref.sha256 for i in unique],
        [i.ref.media_type for i in unique],
        [i.ref.width for i in unique],
        [i.ref.height for i in unique],
        [i.ref.size for i in unique],
        [i.data for i in unique],
    )
    await conn.execute(_LINK, turn_id, [i.ref.sha256 for i in images])


async def turn_image_refs(
    conn: asyncpg.Connection, matchup_ids: Iterable[uuid.UUID]
) -> dict[uuid.UUID, tuple[ImageRef, ...]]:
    """The images of each of these rounds' turns, in order (rounds without any are left out)."""
    found: dict[uuid.UUID, list[ImageRef]] = {}
    for row in await conn.fetch(_REFS, list(matchup_ids)):
        found.setdefault(row["matchup_id"], []).append(
            ImageRef(row["sha256"], row["media_type"], row["width"], row["height"], row["size"])
        )
    return {matchup_id: tuple(refs) for matchup_id, refs in found.items()}


async def delete_unreferenced(conn: asyncpg.Connection, among: Iterable[str] | None = None) -> int:
    """Delete the images no turn shows (only those of ``among``'s SHA-256s, when given); how
    many went."""
    status = await conn.execute(_UNREFERENCED, None if among is None else list(among))
    return int(status.rsplit(" ", 1)[-1])


async def detach_images(conn: asyncpg.Connection, turn_ids: Sequence[uuid.UUID]) -> DetachedImages:
    """Take the images off the turns ``turn_ids`` and delete those no other turn shows.

    Call it inside the transaction that clears the turns' text (text retention, a forgotten
    session), so that the text and the images go together.
    """
    if not turn_ids:
        return DetachedImages()
    rows = await conn.fetch(_DETACH, list(turn_ids))
    gone = {r["sha256"] for r in rows}
    return DetachedImages(len(rows), await delete_unreferenced(conn, gone) if gone else 0)


_IMAGE = "SELECT sha256, media_type, width, height, size, data FROM images WHERE sha256 = $1"

_SESSION_IMAGE = """
SELECT i.sha256, i.media_type, i.width, i.height, i.size, i.data
  FROM images i
 WHERE i.sha256 = $1
   AND EXISTS (SELECT 1
                 FROM turn_images ti
                 JOIN turns t ON t.id = ti.turn_id
                 JOIN conversations c ON c.id = t.conversation_id
                WHERE ti.sha256 = i.sha256 AND c.anonymous_session_id = $2)
"""


@raises_unavailable
class PostgresImages:
    """Reading stored images back: for a provider (a follow-up's earlier images), for the page."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def load(self, refs: Iterable[ImageRef]) -> dict[str, bytes]:
        """The bytes of each image by its SHA-256 (an image deleted meanwhile is left out)."""
        wanted = list({r.sha256 for r in refs})
        if not wanted:
            return {}
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT sha256, data FROM images WHERE sha256 = ANY($1::text[])", wanted
            )
        return {row["sha256"]: row["data"] for row in rows}

    async def of_round(self, matchup_id: uuid.UUID) -> tuple[ImageRef, ...]:
        """The images of the round ``matchup_id``'s prompt, in order (none once its text was
        cleared)."""
        async with self._pool.acquire() as conn:
            found = await turn_image_refs(conn, [matchup_id])
        return found.get(matchup_id, ())

    async def get(self, sha256: str) -> tuple[ImageRef, bytes] | None:
        """One image and its bytes, or ``None``."""
        async with self._pool.acquire() as conn:
            return _image(await conn.fetchrow(_IMAGE, sha256))

    async def of_session(self, sha256: str, session_id: str) -> tuple[ImageRef, bytes] | None:
        """The image ``sha256`` and its bytes when a turn of the arena session ``session_id``
        shows it (the conversation's ``anonymous_session_id``), else ``None``: what a signed
        image link may open (``arena_api.services.image_links``)."""
        async with self._pool.acquire() as conn:
            return _image(await conn.fetchrow(_SESSION_IMAGE, sha256, session_id))

    async def stream(self, sha256s: Sequence[str]) -> AsyncIterator[tuple[ImageRef, bytes]]:
        """The images of ``sha256s`` one by one (an export's ``--include-images``)."""
        for sha256 in sha256s:
            found = await self.get(sha256)
            if found is not None:
                yield found


def _image(row: asyncpg.Record | None) -> tuple[ImageRef, bytes] | None:
    if row is None:
        return None
    ref = ImageRef(row["sha256"], row["media_type"], row["width"], row["height"], row["size"])
    return ref, row["data"]
