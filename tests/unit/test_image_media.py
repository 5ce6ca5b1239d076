"""What an image is and whether the arena takes it (``arena_api.core.media``), and the Pillow codec
that re-encodes what it takes without metadata (``arena_api.media.codec``)."""

from __future__ import annotations

import base64
import functools
import io
import struct
import zlib

import pytest
from PIL import Image, PngImagePlugin

from arena_api.core.media import (
    ImageError,
    ImageLimits,
    check_count,
    check_size,
    decode_base64,
    parse_data_url,
    sniff,
)
from arena_api.media.codec import PillowCodec

LIMITS = ImageLimits()
CODEC = PillowCodec(LIMITS)
SECRET = "SECRET-PAYLOAD-41.40338N"
_GPS_IFD = 0x8825
_ORIENTATION = 0x0112


def _rgb(
    size: tuple[int, int] = (16, 12), colour: tuple[int, int, int] = (200, 40, 90)
) -> Image.Image:
    image = Image.new("RGB", size, colour)
    image.putpixel((0, 0), (0, 0, 0))
    return image


def _encoded(image: Image.Image, fmt: str, **params: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **params)
    return out.getvalue()


def _exif_with_gps(orientation: int | None = None) -> Image.Exif:
    exif = Image.Exif()
    exif[0x010E] = SECRET  # ImageDescription
    exif[0x010F] = "SpyCam"  # Make
    gps = exif.get_ifd(_GPS_IFD)
    gps[1] = "N"
    gps[2] = (41.0, 24.0, 12.2)
    gps[3] = "E"
    gps[4] = (2.0, 10.0, 26.5)
    if orientation is not None:
        exif[_ORIENTATION] = orientation
    return exif


def _png_chunks(data: bytes) -> list[bytes]:
    chunks, offset = [], 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        chunks.append(data[offset + 4 : offset + 8])
        offset += 12 + length
    return chunks


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@functools.cache
def _png_bomb(side: int = 20_000) -> bytes:
    """A valid 1-bit PNG of ``side`` x ``side`` white pixels: 400 megapixels in a few tens of KB."""
    row = b"\x00" + b"\xff" * ((side + 7) // 8)
    packer = zlib.compressobj(9)
    idat = b"".join(packer.compress(row * 1000) for _ in range(side // 1000)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", idat)
        + _chunk(b"IEND", b"")
    )


def _refusal(data: bytes, codec: PillowCodec = CODEC) -> ImageError:
    with pytest.raises(ImageError) as caught:
        codec.sanitize(data, "images[0]")
    return caught.value


# -- sniffing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "media_type"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_sniff_reads_the_type_from_the_bytes(fmt: str, media_type: str) -> None:
    assert sniff(_encoded(_rgb(), fmt)) == media_type


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b'<svg xmlns="http://www.w3.org/2000/svg"/>', id="svg"),
        pytest.param(b"<!DOCTYPE html><html></html>", id="html"),
        pytest.param(b"%PDF-1.7\n", id="pdf"),
        pytest.param(b"\x00\x00\x00\x18ftypheic", id="heic"),
        pytest.param(b"RIFF\x00\x00\x00\x00WAVEfmt ", id="riff-wave"),
        pytest.param(b"BM" + b"\x00" * 60, id="bmp"),
        pytest.param(b"\x89PNG\r\n", id="short-png-magic"),
    ],
)
def test_sniff_knows_nothing_but_the_four_image_types(data: bytes) -> None:
    assert sniff(data) is None


# -- base64 and data URLs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(base64.b64encode(b"\xfb\xff\xfe image").decode(), id="standard"),
        pytest.param(base64.urlsafe_b64encode(b"\xfb\xff\xfe image").decode(), id="url-safe"),
        pytest.param(base64.b64encode(b"\xfb\xff\xfe image").decode().rstrip("="), id="no-padding"),
        pytest.param(base64.encodebytes(b"\xfb\xff\xfe image").decode(), id="line-breaks"),
    ],
)
def test_base64_is_read_in_every_common_spelling(text: str) -> None:
    assert decode_base64(text, LIMITS, "images[0]") == b"\xfb\xff\xfe image"


def test_a_long_base64_ending_in_a_newline_is_read() -> None:
    """A whitespace only past the first few KB (a trailing newline) is ignored too."""
    data = bytes(range(256)) * 40

    decoded = decode_base64(base64.b64encode(data).decode() + "\n", LIMITS, "images[0]")

    assert decoded == data


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("not base64 at all!", id="punctuation"),
        pytest.param("QUJD$", id="dollar"),
        pytest.param("QUJDR", id="one-char-too-many"),
        pytest.param("QUJDé", id="non-ascii"),
        pytest.param("", id="empty"),
        pytest.param("====", id="only-padding"),
    ],
)
def test_text_that_is_not_base64_is_unreadable(text: str) -> None:
    with pytest.raises(ImageError) as caught:
        decode_base64(text, LIMITS, "images[2]")

    assert (caught.value.code, caught.value.status, caught.value.field) == (
        "image_unreadable",
        400,
        "images[2]",
    )


def test_oversize_base64_is_refused_before_it_is_decoded() -> None:
    limits = ImageLimits(max_bytes=1024)

    with pytest.raises(ImageError) as caught:
        decode_base64("!" * 4000, limits, "images[0]")  # not base64 either: never decoded

    assert (caught.value.code, caught.value.status) == ("image_too_large", 413)


def test_a_data_url_gives_its_bytes_and_declared_type() -> None:
    png = _encoded(_rgb(), "PNG")

    image = parse_data_url(
        "data:image/png;base64," + base64.b64encode(png).decode(), LIMITS, "images[1]"
    )

    assert image is not None
    assert (image.data, image.declared_type, image.field) == (png, "image/png", "images[1]")


@pytest.mark.parametrize(
    "url", ["https://example.com/a.png", "http://x/y", "file:///etc/passwd", "ftp://a/b"]
)
def test_a_url_of_another_scheme_is_no_data_url(url: str) -> None:
    assert parse_data_url(url, LIMITS, "images[0]") is None


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("data:image/png,%89PNG", id="percent-encoded"),
        pytest.param("data:image/png;base64", id="no-comma"),
        pytest.param("data:image/png;base64,@@@", id="bad-base64"),
    ],
)
def test_a_data_url_that_is_not_base64_is_unreadable(url: str) -> None:
    with pytest.raises(ImageError) as caught:
        parse_data_url(url, LIMITS, "images[0]")

    assert caught.value.code == "image_unreadable"


# -- counts and sizes ----------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 4])
def test_up_to_the_limit_of_images_is_taken(count: int) -> None:
    check_count(count, ImageLimits(max_images=4))


def test_one_image_over_the_limit_is_too_many() -> None:
    with pytest.raises(ImageError) as caught:
        check_count(5, ImageLimits(max_images=4))

    assert (caught.value.code, caught.value.status) == ("too_many_images", 413)


def test_any_image_where_images_are_off_is_not_supported() -> None:
    with pytest.raises(ImageError) as caught:
        check_count(1, ImageLimits(max_images=0))

    assert (caught.value.code, caught.value.status) == ("images_not_supported", 400)


def test_an_image_at_the_byte_limit_is_taken_and_one_byte_more_is_too_large() -> None:
    limits = ImageLimits(max_bytes=2048)
    check_size(2048, limits, "images[0]")

    with pytest.raises(ImageError) as caught:
        check_size(2049, limits, "images[0]")

    assert (caught.value.code, caught.value.status) == ("image_too_large", 413)


# -- the codec -----------------------------------------------------------------------------------


def test_a_jpeg_loses_its_exif_with_the_gps_position() -> None:
    sent = _encoded(_rgb(), "JPEG", exif=_exif_with_gps(), comment=SECRET.encode())
    assert SECRET.encode() in sent and b"Exif" in sent

    kept = CODEC.sanitize(sent, "images[0]")

    stored = Image.open(io.BytesIO(kept.data))
    assert dict(stored.getexif()) == {} and stored.getexif().get_ifd(_GPS_IFD) == {}
    assert b"Exif" not in kept.data and SECRET.encode() not in kept.data
    assert "comment" not in stored.info and "exif" not in stored.info
    assert (kept.media_type, kept.width, kept.height) == ("image/jpeg", 16, 12)


def test_a_jpeg_turned_by_its_exif_is_stored_upright_without_the_tag() -> None:
    sent = _encoded(_rgb((16, 12)), "JPEG", exif=_exif_with_gps(orientation=6))

    kept = CODEC.sanitize(sent, "images[0]")

    assert (kept.width, kept.height) == (12, 16)
    assert _ORIENTATION not in Image.open(io.BytesIO(kept.data)).getexif()
    assert SECRET.encode() not in kept.data


def test_png_text_chunks_exif_and_a_trailing_payload_go() -> None:
    text = PngImagePlugin.PngInfo()
    text.add_text("Comment", SECRET)
    text.add_text("Author", SECRET, zip=True)
    text.add_itxt("Description", SECRET, lang="en")
    sent = _encoded(_rgb(), "PNG", pnginfo=text, exif=_exif_with_gps()) + b"<script>x</script>"
    assert {b"tEXt", b"zTXt", b"iTXt", b"eXIf"} <= set(_png_chunks(sent.split(b"<script>")[0]))

    kept = CODEC.sanitize(sent, "images[0]")

    assert set(_png_chunks(kept.data)) == {b"IHDR", b"IDAT", b"IEND"}
    assert SECRET.encode() not in kept.data and b"<script>" not in kept.data
    assert Image.open(io.BytesIO(kept.data)).tobytes() == _rgb().tobytes()


def test_a_png_without_metadata_is_stored_as_sent_when_pillow_wrote_it() -> None:
    """Pillow's own default PNG encoding is the codec's: re-encoding it changes no byte."""
    sent = _encoded(_rgb(), "PNG")

    assert CODEC.sanitize(sent, "images[0]").data == sent


def test_the_same_picture_always_gives_the_same_bytes() -> None:
    sent = _encoded(_rgb(), "JPEG", exif=_exif_with_gps())

    assert CODEC.sanitize(sent, "a").data == CODEC.sanitize(sent, "b").data


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(
            b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
            id="svg",
        ),
        pytest.param(b"<!doctype html><script>alert(1)</script>", id="html"),
        pytest.param(b"%PDF-1.4\n1 0 obj<<>>endobj\n", id="pdf"),
        pytest.param(b"GIF8", id="half-a-gif-header"),
    ],
)
def test_anything_but_the_four_image_types_is_unsupported(data: bytes) -> None:
    error = _refusal(data)

    assert (error.code, error.status) == ("image_type_unsupported", 400)


def test_an_svg_is_named_in_the_refusal() -> None:
    error = _refusal(b'<svg xmlns="http://www.w3.org/2000/svg"/>')

    assert "SVG" in str(error)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_encoded(_rgb((64, 64)), "PNG")[:-40], id="truncated-png"),
        pytest.param(_encoded(_rgb((64, 64)), "JPEG")[:200], id="truncated-jpeg"),
        pytest.param(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, id="png-magic-then-zeros"),
        pytest.param(b"\xff\xd8\xff" + b"garbage" * 20, id="jpeg-magic-then-garbage"),
        pytest.param(b"RIFF\x10\x00\x00\x00WEBPVP8 \x00\x00", id="empty-webp"),
    ],
)
def test_bytes_that_do_not_decode_are_unreadable(data: bytes) -> None:
    error = _refusal(data)

    assert (error.code, error.status) == ("image_unreadable", 400)


def test_a_decompression_bomb_is_refused_by_its_header() -> None:
    """20000 x 20000 pixels in a tiny file: refused before a pixel is decoded."""
    bomb = _png_bomb()
    assert len(bomb) < 200_000

    error = _refusal(bomb)

    assert (error.code, error.status) == ("image_too_many_pixels", 413)


def test_an_animation_counts_the_pixels_of_every_frame() -> None:
    frames = [_rgb((10, 10), (i * 60, 0, 0)) for i in range(4)]
    sent = _encoded(frames[0], "GIF", save_all=True, append_images=frames[1:])
    codec = PillowCodec(ImageLimits(max_pixels=399))

    error = _refusal(sent, codec)

    assert (error.code, error.status) == ("image_too_many_pixels", 413)


def test_an_animated_gif_keeps_its_frames_and_timing_but_not_its_comment() -> None:
    frames = [_rgb((8, 8), (i * 80, 255 - i * 80, 0)) for i in range(3)]
    sent = _encoded(
        frames[0],
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=[100, 200, 300],
        loop=0,
        comment=SECRET.encode(),
    )

    kept = CODEC.sanitize(sent, "images[0]")

    stored = Image.open(io.BytesIO(kept.data))
    count = int(getattr(stored, "n_frames", 1))
    durations = []
    for index in range(count):
        stored.seek(index)
        durations.append(stored.info["duration"])
    assert (kept.media_type, count, durations) == ("image/gif", 3, [100, 200, 300])
    assert stored.info["loop"] == 0 and SECRET.encode() not in kept.data


@pytest.mark.parametrize(
    "lossless", [pytest.param(True, id="lossless"), pytest.param(False, id="lossy")]
)
def test_a_webp_loses_its_exif_and_xmp(lossless: bool) -> None:
    sent = _encoded(_rgb(), "WEBP", exif=_exif_with_gps(), xmp=SECRET.encode(), lossless=lossless)
    assert SECRET.encode() in sent

    kept = CODEC.sanitize(sent, "images[0]")

    assert SECRET.encode() not in kept.data and b"EXIF" not in kept.data
    assert (kept.media_type, kept.width, kept.height) == ("image/webp", 16, 12)


def test_an_image_over_the_byte_limit_is_too_large() -> None:
    sent = _encoded(Image.effect_noise((64, 64), 100).convert("RGB"), "PNG")
    codec = PillowCodec(ImageLimits(max_bytes=len(sent) - 1))

    error = _refusal(sent, codec)

    assert (error.code, error.status) == ("image_too_large", 413)
