"""Images in prompts: what a request carries, what is stored, what a provider is sent.

A request's images arrive as ``ImageInput`` (bytes, or a URL where the operator allows them),
are checked and re-encoded by an ``ImageCodec`` (the adapter in ``arena_api.media``) into a
``SanitizedImage`` — its type sniffed from the bytes, never a name; its pixels re-encoded so
no EXIF, XMP, comment or trailing payload survives — and stored content-addressed by the
SHA-256 of those bytes. A round's images reach a provider as ``ChatImage`` on the user
message they belong to.

Every refusal is an ``ImageError`` with a stable code, raised before anything is stored:

=========================  ======  =========================================================
code                       status  when
=========================  ======  =========================================================
``too_many_images``        413     more than ``ARENA_MAX_IMAGES`` on one message
``image_too_large``        413     one image over ``ARENA_MAX_IMAGE_BYTES`` (decoded)
``image_too_many_pixels``  413     width x height over the pixel limit (a decompression bomb)
``image_type_unsupported`` 400     not PNG, JPEG, GIF or WebP by its bytes (SVG, HTML, PDF...)
``image_unreadable``       400     the bytes do not decode (truncated, corrupt, bad base64)
``image_urls_disabled``    400     an image by URL while ``ARENA_ALLOW_IMAGE_URLS`` is off
``image_url_refused``      400     a URL that is not http(s), or resolves to a private,
                                   loopback or link-local address
``image_fetch_failed``     400     the URL could not be fetched (status, timeout, size)
``images_not_supported``   400     images where the arena takes none (``ARENA_MAX_IMAGES=0``)
=========================  ======  =========================================================
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Literal, Protocol

from arena_api.core.errors import ArenaError

__all__ = [
    "IMAGE_MEDIA_TYPES",
    "ChatImage",
    "ImageCodec",
    "ImageError",
    "ImageInput",
    "ImageLimits",
    "ImageRef",
    "SanitizedImage",
    "check_count",
    "check_size",
    "decode_base64",
    "not_a_vision_model",
    "parse_data_url",
    "refusal_kind",
    "sniff",
    "too_few_vision_models",
    "unsupported",
]

ImageMediaType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]

#: The types the arena takes, by their file extension (for exports and served files).
IMAGE_MEDIA_TYPES: dict[str, str] = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
}


class ImageError(ArenaError):
    """An image the arena refuses; ``field`` names where the request carried it."""

    status = 400
    code = "image_unreadable"

    def __init__(
        self, message: str, *, code: str, status: int = 400, field: str = "images"
    ) -> None:
        super().__init__(message, status=status, code=code, details={field: [message]})
        self.field = field


@dataclass(frozen=True)
class ImageLimits:
    """``ARENA_MAX_IMAGES``, ``ARENA_MAX_IMAGE_BYTES``, ``ARENA_MAX_IMAGE_PIXELS``."""

    max_images: int = 4
    max_bytes: int = 10 * 1024 * 1024
    max_pixels: int = 40_000_000
    allow_urls: bool = False


@dataclass(frozen=True)
class ImageInput:
    """One image as a request carried it: its bytes, or a URL to fetch (never both).

    ``field`` is where the request held it (``images[1]``, ``messages[3].content[2]``), to name
    it in an error; ``declared_type`` what the client said it is (only ever a hint).
    """

    field: str
    data: bytes | None = None
    url: str | None = None
    declared_type: str | None = None


@dataclass(frozen=True)
class SanitizedImage:
    """An image that passed every check: its re-encoded bytes and what they are."""

    data: bytes
    media_type: str
    width: int
    height: int
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())


@dataclass(frozen=True)
class ImageRef:
    """A stored image as a turn refers to it (no bytes)."""

    sha256: str
    media_type: str
    width: int
    height: int
    size: int


@dataclass(frozen=True)
class ChatImage:
    """An image of a user message, as a provider sends it."""

    ref: ImageRef
    data: bytes = b""

    @classmethod
    def of(cls, image: SanitizedImage) -> ChatImage:
        ref = ImageRef(image.sha256, image.media_type, image.width, image.height, len(image.data))
        return cls(ref, image.data)

    @property
    def media_type(self) -> str:
        return self.ref.media_type

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.ref.media_type};base64,{self.base64()}"


class ImageCodec(Protocol):
    """Checks and re-encodes one image (CPU-bound: called off the event loop)."""

    def sanitize(self, data: bytes, field: str) -> SanitizedImage:
        """The image's pixels re-encoded without metadata.

        Raises:
            ImageError: any of the module's codes but those about counts and URLs.
        """
        ...


# -- what the bytes are -------------------------------------------------------------------------

_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
)


def sniff(data: bytes) -> str | None:
    """The image type ``data`` holds by its leading bytes, or ``None`` when it is none the arena
    takes (a name or a declared type is never asked)."""
    for magic, offset, media_type in _SIGNATURES:
        if data[offset : offset + len(magic)] == magic:
            return media_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def refusal_kind(data: bytes) -> str:
    """What a refused file seems to be, for the message (``SVG``, ``HTML``, ``PDF``...)."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if b"<svg" in head or (head.startswith(b"<?xml") and b"svg" in data[:4096].lower()):
        return "an SVG image (it can carry scripts)"
    if head.startswith((b"<!doctype html", b"<html", b"<script")):
        return "an HTML document"
    if head.startswith(b"%pdf"):
        return "a PDF document"
    if head[4:8] == b"ftyp":
        return "an HEIC/AVIF or video file"
    return "not a PNG, JPEG, GIF or WebP image"


def unsupported(data: bytes, field: str) -> ImageError:
    return ImageError(
        f"{field}: {refusal_kind(data)}; the arena takes PNG, JPEG, GIF and WebP",
        code="image_type_unsupported",
        field=field,
    )


def check_count(count: int, limits: ImageLimits, field: str = "images") -> None:
    """Raises:
    ImageError: 400 ``images_not_supported`` when images are off, 413 ``too_many_images``.
    """
    if count and limits.max_images == 0:
        raise ImageError(
            "This arena takes no images (ARENA_MAX_IMAGES=0)",
            code="images_not_supported",
            field=field,
        )
    if count > limits.max_images:
        raise ImageError(
            f"{count} images: at most {limits.max_images} per message",
            code="too_many_images",
            status=413,
            field=field,
        )


def check_size(size: int, limits: ImageLimits, field: str) -> None:
    """Raises:
    ImageError: 413 ``image_too_large``.
    """
    if size > limits.max_bytes:
        raise ImageError(
            f"{field}: {size} bytes, over the limit of {limits.max_bytes}",
            code="image_too_large",
            status=413,
            field=field,
        )


def decode_base64(text: str, limits: ImageLimits, field: str) -> bytes:
    """The bytes of a base64 string (standard or URL-safe alphabet, padding optional).

    Raises:
        ImageError: 413 ``image_too_large`` (checked on the text's length first, so an oversize
            upload is never decoded), 400 ``image_unreadable`` for text that is not base64.
    """
    # Line breaks anywhere (MIME wraps at 76, a shell adds one at the end); split() scans in C.
    compact = "".join(text.split())
    check_size(len(compact) * 3 // 4 - 2, limits, field)
    try:
        data = base64.b64decode(
            compact.replace("-", "+").replace("_", "/") + "=" * (-len(compact) % 4),
            validate=True,
        )
    except ValueError:
        raise ImageError(
            f"{field}: not valid base64", code="image_unreadable", field=field
        ) from None
    check_size(len(data), limits, field)
    if not data:
        raise ImageError(f"{field}: the image is empty", code="image_unreadable", field=field)
    return data


def parse_data_url(url: str, limits: ImageLimits, field: str) -> ImageInput | None:
    """An ``ImageInput`` from a ``data:`` URL (``data:image/png;base64,...``); ``None`` for a URL of
    another scheme.

    Raises:
        ImageError: a data URL that is not base64, or what ``decode_base64`` raises.
    """
    if not url[:5].lower() == "data:":
        return None
    header, comma, payload = url[5:].partition(",")
    if not comma or not header.lower().endswith(";base64"):
        raise ImageError(
            f"{field}: a data URL must be base64 (data:image/png;base64,...)",
            code="image_unreadable",
            field=field,
        )
    declared = header[: -len(";base64")].split(";", 1)[0].strip().lower() or None
    return ImageInput(field, data=decode_base64(payload, limits, field), declared_type=declared)


# -- who may answer -----------------------------------------------------------------------------


def too_few_vision_models(count: int) -> ArenaError:
    """The 409 for a round with images when fewer than two playable models read images."""
    return ArenaError(
        f"This prompt has images and {count} of the playable models read images "
        "(`vision: true` in the roster); a round needs two",
        status=409,
        code="not_enough_vision_models",
    )


def not_a_vision_model(display_name: str, field: str = "models") -> ArenaError:
    """The 409 for a round with images that names (or defaults to) a model that reads none."""
    return ArenaError(
        f"{display_name} does not read images (`vision: true` in the roster); pick a model "
        "that does",
        status=409,
        code="model_not_vision",
        details={field: [f"{display_name} does not read images"]},
    )
