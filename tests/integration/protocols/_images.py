"""Images for the ingress tests: a small PNG the mock vision models describe, and a hostile file."""

from __future__ import annotations

import base64
import io
import random

from PIL import Image

__all__ = ["SEEN", "SVG", "b64", "data_url", "png"]

#: How the mock vision models start describing one 64x48 PNG.
SEEN = "I see 1 image: 1. PNG 64x48"
#: An SVG (it can carry scripts), sent as if it were a PNG.
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>'


def png(size: tuple[int, int] = (64, 48), *, noise: bool = False) -> bytes:
    """A PNG of ``size``; with ``noise``, incompressible pixels (a large file)."""
    if noise:
        pixels = random.Random(7).randbytes(size[0] * size[1] * 3)
        picture = Image.frombytes("RGB", size, pixels)
    else:
        picture = Image.new("RGB", size, (200, 40, 90))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def data_url(data: bytes, media_type: str = "image/png") -> str:
    return f"data:{media_type};base64,{b64(data)}"
