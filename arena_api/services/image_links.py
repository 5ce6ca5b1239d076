"""Serving a round's images to the page that played it: signed links, and opening them.

``ImageLinks.link`` signs a link to one stored image for one arena session
(``arena_api.core.media_links``); ``ImageLinks.open`` gives the image back for a link only when
its signature holds, it has not expired, and a turn of that session shows the image. Every
refusal is the same ``ImageNotFound`` (404 ``image_not_found``): a wrong signature, an expired
link, another session's image and an image that does not exist read alike, so a link tells a
stranger nothing.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from arena_api.core.errors import NotFound
from arena_api.core.media import ImageRef
from arena_api.core.media_links import image_link, image_link_key, is_valid_image_signature

__all__ = ["DEFAULT_LINK_TTL_S", "ImageLinks", "ImageNotFound", "SessionImage"]

#: How long a link works: long enough for a conversation to stay open on a page.
DEFAULT_LINK_TTL_S = 6 * 3600

#: The image ``sha256`` with its bytes when a turn of the session ``session_id`` shows it
#: (``arena_api.db.media.PostgresImages.of_session``), else ``None``.
SessionImage = Callable[[str, str], Awaitable[tuple[ImageRef, bytes] | None]]


class ImageNotFound(NotFound):
    """No image for this link (whatever the reason: the answer never says which)."""

    code = "image_not_found"

    def __init__(self) -> None:
        super().__init__("No such image")


class ImageLinks:
    """Signs and opens image links with one secret.

    Args:
        secret: the server's secret (``MATCHUP_TOKEN_SECRET``); the links' key is derived
            from it.
        find: reads a session's image (``SessionImage``).
        ttl_s: how long a link works.
        clock: unix time in seconds; injected for tests.
    """

    def __init__(
        self,
        secret: bytes,
        find: SessionImage,
        *,
        ttl_s: int = DEFAULT_LINK_TTL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._key = image_link_key(secret)
        self._find = find
        self.ttl_s = ttl_s
        self._clock = clock

    def __repr__(self) -> str:
        return f"ImageLinks(ttl_s={self.ttl_s})"

    def link(self, sha256: str, session_id: str) -> str:
        """A signed link (path and query) to the image ``sha256`` for ``session_id``.

        Its expiry is rounded up to the next hour, so the same image shown again within the
        hour gets the same link and the browser's cache serves it.
        """
        expires = (int(self._clock()) // 3600 + 1) * 3600 + self.ttl_s
        return image_link(self._key, sha256, session_id, expires)

    async def open(
        self, sha256: str, session_id: str, expires: str, signature: str
    ) -> tuple[ImageRef, bytes, int]:
        """The image a link names, its bytes, and the seconds the link has left.

        Raises:
            ImageNotFound: the link is malformed, forged or expired, or no turn of the session
                shows the image.
        """
        now = self._clock()
        if not is_valid_image_signature(self._key, sha256, session_id, expires, signature, now):
            raise ImageNotFound()
        found = await self._find(sha256, session_id)
        if found is None:
            raise ImageNotFound()
        ref, data = found
        return ref, data, max(0, int(expires) - int(now))
