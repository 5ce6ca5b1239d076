"""Check an image and re-encode its pixels without metadata (Pillow).

What is kept is the picture: pixels, size, mode, a palette's transparency, an animation's frames
and timing. What goes is everything else a file can carry: EXIF (with GPS and camera serials),
XMP, IPTC, ICC profiles, comments, text chunks, thumbnails, and any payload after the image's
end. A JPEG is turned upright by its EXIF orientation first (the orientation tag goes with the
rest) and re-encoded with its own quantisation tables where it needs no turning; PNG, GIF and
lossless WebP are re-encoded losslessly. The same input always gives the same bytes, so the same
picture attached twice is stored once.

Refusals (``arena_api.core.media``): the type is sniffed from the bytes before Pillow sees them,
and Pillow is only ever asked for that one format; the pixel count (all frames together) is
checked from the header before anything is decoded; a file that does not decode to its end
(truncated, corrupt) is ``image_unreadable``.
"""

from __future__ import annotations

import io
import warnings

from PIL import Image, ImageOps, UnidentifiedImageError

from arena_api.core.media import (
    ImageError,
    ImageLimits,
    SanitizedImage,
    check_size,
    sniff,
    unsupported,
)

__all__ = ["PillowCodec"]

_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WEBP"}
#: What of ``Image.info`` survives: what the pixels need to look the same.
_KEPT_INFO = ("transparency", "duration", "loop", "background")
_ORIENTATION = 0x0112

# The pixel limit is ours (``ImageLimits.max_pixels``), checked before decoding; Pillow's own
# warning/error at about 89 megapixels would otherwise fire first with its own wording.
Image.MAX_IMAGE_PIXELS = None


class PillowCodec:
    """``arena_api.core.media.ImageCodec`` with Pillow."""

    def __init__(self, limits: ImageLimits) -> None:
        self._limits = limits

    def sanitize(self, data: bytes, field: str) -> SanitizedImage:
        check_size(len(data), self._limits, field)
        media_type = sniff(data)
        if media_type is None:
            raise unsupported(data, field)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", Image.DecompressionBombWarning)
                with Image.open(io.BytesIO(data), formats=[_FORMATS[media_type]]) as image:
                    self._check_pixels(image, field)
                    return self._reencode(image, media_type, data)
        except ImageError:
            raise
        except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError) as exc:
            # Pillow's truncated, corrupt and malformed files (SyntaxError: a bad header).
            raise ImageError(
                f"{field}: the image could not be read ({_reason(exc)})",
                code="image_unreadable",
                field=field,
            ) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise self._bomb(field) from None

    def _check_pixels(self, image: Image.Image, field: str) -> None:
        width, height = image.size
        frames = getattr(image, "n_frames", 1)
        if width <= 0 or height <= 0:
            raise ImageError(
                f"{field}: the image has no pixels", code="image_unreadable", field=field
            )
        if width * height * frames > self._limits.max_pixels:
            shape = f"{width}x{height}" + (f" x {frames} frames" if frames > 1 else "")
            raise self._bomb(field, shape)

    def _bomb(self, field: str, shape: str = "too many") -> ImageError:
        return ImageError(
            f"{field}: {shape} pixels, over the limit of {self._limits.max_pixels}",
            code="image_too_many_pixels",
            status=413,
            field=field,
        )

    def _reencode(self, image: Image.Image, media_type: str, data: bytes) -> SanitizedImage:
        out = io.BytesIO()
        if media_type == "image/jpeg":
            image.load()
            orientation = image.getexif().get(_ORIENTATION, 1)
            if orientation not in (1, None):
                upright = ImageOps.exif_transpose(image)
                upright.info = {}
                upright.save(out, "JPEG", quality=92, optimize=False)
            else:
                image.info = {}
                image.save(out, "JPEG", quality="keep", optimize=False)
            width, height = image.size if orientation in (1, None) else upright.size
            return SanitizedImage(out.getvalue(), media_type, width, height)
        animated = getattr(image, "is_animated", False)
        image.load()
        image.info = {k: v for k, v in image.info.items() if k in _KEPT_INFO}
        if media_type == "image/png":
            image.save(out, "PNG", save_all=animated, compress_level=6)
        elif media_type == "image/gif":
            image.save(out, "GIF", save_all=animated)
        else:
            lossless = _webp_lossless(data)
            image.save(out, "WEBP", save_all=animated, lossless=lossless, quality=90, method=4)
        width, height = image.size
        return SanitizedImage(out.getvalue(), media_type, width, height)


def _webp_lossless(data: bytes) -> bool:
    """Whether a WebP file's (first) picture is lossless (``VP8L``) rather than lossy (``VP8 ``):
    the RIFF chunks are walked, into an animation's first frame."""
    offset, end = 12, min(len(data), 8 + int.from_bytes(data[4:8], "little"))
    while offset + 8 <= end:
        fourcc = data[offset : offset + 4]
        size = int.from_bytes(data[offset + 4 : offset + 8], "little")
        if fourcc in (b"VP8L", b"VP8 "):
            return fourcc == b"VP8L"
        if fourcc == b"ANMF":  # a frame: 16 bytes of its header, then its own chunks
            offset += 8 + 16
            end = min(end, offset + size - 16)
            continue
        offset += 8 + size + (size & 1)
    return False


def _reason(exc: BaseException) -> str:
    if isinstance(exc, UnidentifiedImageError):
        return "not a valid image"
    text = str(exc).strip() or type(exc).__name__
    return text[:200]
