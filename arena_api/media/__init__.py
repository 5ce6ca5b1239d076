"""The media adapters of ``arena_api.core.media``: the Pillow codec that checks and re-encodes an
image, and the guarded fetch of an image by URL."""

from __future__ import annotations

from arena_api.core.media import ImageLimits, SanitizedImage

__all__ = ["LazyPillowCodec"]


class LazyPillowCodec:
    """``arena_api.media.codec.PillowCodec``, imported at the first image: a server whose
    prompts carry none never loads Pillow (about 9 MB of every worker)."""

    def __init__(self, limits: ImageLimits) -> None:
        self._limits = limits
        self._codec: object | None = None

    def sanitize(self, data: bytes, field: str) -> SanitizedImage:
        from arena_api.media.codec import PillowCodec

        if not isinstance(self._codec, PillowCodec):
            self._codec = PillowCodec(self._limits)
        return self._codec.sanitize(data, field)
