"""The images of a round: read from a request, checked, re-encoded; loaded back for follow-ups.

``ImageIntake.read`` turns a request's images (base64, data URLs, fetched URLs) into
``ChatImage``s that passed every check of ``arena_api.core.media``, before anything of the round
is stored: one bad image refuses the request with its own code and nothing is kept. The codec's
work (decoding and re-encoding pixels) runs in a worker thread, off the event loop.
``with_bytes`` gives the earlier turns' images their bytes back before a follow-up is sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from arena_api.core.media import (
    ChatImage,
    ImageCodec,
    ImageError,
    ImageLimits,
    SanitizedImage,
    check_count,
    decode_base64,
    parse_data_url,
)
from arena_api.core.models import ChatMessage
from arena_api.core.ports import ImageFetcher, ImageReads
from arena_api.core.requests import ChatRequest, ImageBody

__all__ = ["ImageIntake", "has_images"]


def has_images(messages: Sequence[ChatMessage]) -> bool:
    return any(m.images for m in messages)


class ImageIntake:
    def __init__(
        self,
        limits: ImageLimits,
        codec: ImageCodec,
        store: ImageReads,
        fetcher: ImageFetcher | None = None,
    ) -> None:
        self.limits = limits
        self._codec = codec
        self._store = store
        self._fetcher = fetcher

    async def read(self, request: ChatRequest) -> tuple[ChatImage, ...]:
        """The request's images, checked and re-encoded, in order.

        Raises:
            ImageError: the first image refused (``arena_api.core.media`` lists the codes).
        """
        fields = request.image_fields or tuple(f"images[{i}]" for i in range(len(request.images)))
        return await self.read_bodies(request.images, fields)

    async def read_bodies(
        self, bodies: Sequence[ImageBody], fields: Sequence[str]
    ) -> tuple[ChatImage, ...]:
        """``read`` of the images of one message, each named by its field in an error."""
        if not bodies:
            return ()
        check_count(len(bodies), self.limits, fields[0].rsplit("[", 1)[0] or "images")
        pairs = zip(bodies, fields, strict=True)
        raw = [await self._bytes(body, field) for body, field in pairs]
        sanitized = await asyncio.to_thread(self._sanitize_all, raw, fields)
        return tuple(ChatImage.of(image) for image in sanitized)

    def _sanitize_all(self, raw: list[bytes], fields: Sequence[str]) -> list[SanitizedImage]:
        return [self._codec.sanitize(data, field) for data, field in zip(raw, fields, strict=True)]

    async def _bytes(self, body: ImageBody, field: str) -> bytes:
        if body.data is not None:
            return decode_base64(body.data, self.limits, field)
        assert body.url is not None  # ImageBody holds one of the two
        inline = parse_data_url(body.url, self.limits, field)
        if inline is not None:
            assert inline.data is not None
            return inline.data
        if not self.limits.allow_urls or self._fetcher is None:
            raise ImageError(
                f"{field}: images by URL are turned off here (ARENA_ALLOW_IMAGE_URLS=0); send "
                "the bytes (base64 or a data: URL)",
                code="image_urls_disabled",
                field=field,
            )
        return await self._fetcher.fetch(body.url, field)

    async def with_bytes(self, messages: Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
        """``messages`` with every image's bytes loaded (earlier turns' images are stored by
        reference only). An image deleted meanwhile (text retention) is left out."""
        missing = [i.ref for m in messages for i in m.images if not i.data]
        if not missing:
            return tuple(messages)
        found = await self._store.load(missing)
        return tuple(
            m
            if not m.images
            else ChatMessage(
                m.role,
                m.content,
                tuple(
                    i if i.data else ChatImage(i.ref, found[i.ref.sha256])
                    for i in m.images
                    if i.data or i.ref.sha256 in found
                ),
            )
            for m in messages
        )
