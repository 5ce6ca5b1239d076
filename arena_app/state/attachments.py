"""The images attached to the next prompt: pasted, dropped or picked, shown as thumbnails.

The page hands every way of attaching to one upload (``rx.upload``, whose hidden file input the
paste script of ``assets/attach.js`` fills too), and ``AttachmentsState.add`` receives the
files. Each is checked at once with the codec the round uses (``backend.image_codec``), so a
file the arena refuses is named with the round's own message before anything is sent, and its
SHA-256 after cleaning is known: the name the round will store it under, which the signed links
to it need. The bytes stay in a backend var (never sent to the page), in a state of their own
so that they are read and written only when the attachments change, not with every event of
the arena; the page sees small thumbnails (at most ``THUMB_PX`` on a side) as data URLs.
"""

from __future__ import annotations

import asyncio
import base64
import io
import uuid
from dataclasses import dataclass
from typing import Any

import reflex as rx

from arena_api.core.media import ImageCodec, ImageError, SanitizedImage
from arena_app.backend import image_codec, services

__all__ = ["ACCEPT", "THUMB_PX", "Attachment", "AttachmentsState", "thumbnail"]

#: The longest side of a thumbnail, in pixels.
THUMB_PX = 160
#: What the file picker offers and the drop zone takes (react-dropzone's ``accept``).
ACCEPT: dict[str, list[str]] = {
    "image/png": [".png"],
    "image/jpeg": [".jpg", ".jpeg"],
    "image/gif": [".gif"],
    "image/webp": [".webp"],
}
_LABELS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP"}


@dataclass(frozen=True)
class Attachment:
    """One image waiting for the next prompt: the bytes as the person gave them, and what the
    round will store (its type and the SHA-256 of its cleaned bytes)."""

    id: str
    data: bytes
    media_type: str
    sha256: str

    def body(self) -> dict[str, str]:
        """The image as ``ChatRequest`` takes it."""
        return {"data": base64.b64encode(self.data).decode("ascii"), "mediaType": self.media_type}


def thumbnail(image: SanitizedImage) -> str:
    """A data URL of ``image`` at most ``THUMB_PX`` on a side (its first frame): PNG where it
    has transparency, JPEG otherwise, a few kilobytes either way."""
    from PIL import Image  # at the first image, as the API's codec (``LazyPillowCodec``)

    with Image.open(io.BytesIO(image.data)) as picture:
        picture.seek(0)
        small = picture.convert("RGBA")
    small.thumbnail((THUMB_PX, THUMB_PX))
    out = io.BytesIO()
    if small.getchannel("A").getextrema()[0] < 255:  # type: ignore[operator]
        small.save(out, "PNG", optimize=True)
        media_type = "image/png"
    else:
        small.convert("RGB").save(out, "JPEG", quality=80)
        media_type = "image/jpeg"
    return f"data:{media_type};base64,{base64.b64encode(out.getvalue()).decode('ascii')}"


def _check(data: bytes, codec: ImageCodec, field: str) -> tuple[SanitizedImage, str]:
    image = codec.sanitize(data, field)
    return image, thumbnail(image)


class AttachmentsState(rx.State):
    """The next prompt's images (see the module's docstring)."""

    #: What the page shows: ``{"id", "thumb": data URL, "label": "PNG 64x48"}``, in order.
    items: list[dict[str, str]] = []
    #: ``ARENA_MAX_IMAGES`` (0: the arena takes no images and offers no way to attach them).
    max_images: int = 0
    #: ``ARENA_MAX_IMAGE_BYTES``: larger files are refused by the drop zone before uploading.
    max_bytes: int = 0
    _files: list[Attachment] = []

    @rx.var
    def can_attach(self) -> bool:
        return len(self.items) < self.max_images

    def _load_limits(self) -> None:
        """The limits of the settings (when the page loads)."""
        limits = services().settings.image_limits
        if (limits.max_images, limits.max_bytes) != (self.max_images, self.max_bytes):
            self.max_images, self.max_bytes = limits.max_images, limits.max_bytes

    @rx.event
    async def add(self, files: list[rx.UploadFile]) -> Any:
        """Take the files pasted, dropped or picked: each checked as the round will check it;
        the first refusal (or one past ``ARENA_MAX_IMAGES``) is said in the arena's notice."""
        limits = services().settings.image_limits
        codec = image_codec()
        refusals: list[str] = []
        for file in files:
            name = file.name or "image"
            if len(self._files) >= limits.max_images:
                refusals.append(
                    f"{name}: at most {limits.max_images} images per prompt"
                    if limits.max_images
                    else "This arena takes no images"
                )
                break
            data = await file.read()
            try:
                image, thumb = await asyncio.to_thread(_check, data, codec, name)
            except ImageError as exc:
                refusals.append(exc.message)
                continue
            attachment = Attachment(uuid.uuid4().hex, data, image.media_type, image.sha256)
            self._files = [*self._files, attachment]
            label = f"{_LABELS[image.media_type]} {image.width}x{image.height}"
            self.items = [*self.items, {"id": attachment.id, "thumb": thumb, "label": label}]
        from arena_app.state.arena import ArenaState

        arena = await self.get_state(ArenaState)
        arena.notice = "; ".join(refusals)
        return None

    @rx.event
    def remove(self, attachment_id: str) -> None:
        self._files = [f for f in self._files if f.id != attachment_id]
        self.items = [i for i in self.items if i["id"] != attachment_id]

    def _taken(self) -> tuple[list[Attachment], list[dict[str, str]]]:
        """The attachments and their thumbnails, for a round about to start."""
        return list(self._files), list(self.items)

    def _restore(self, files: list[Attachment], items: list[dict[str, str]]) -> None:
        """Attach ``files`` again (shown as ``items``), in place of what is attached."""
        self._files, self.items = list(files), list(items)

    def _clear(self) -> None:
        if self._files or self.items:
            self._files, self.items = [], []
