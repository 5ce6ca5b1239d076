"""Image prompts: upload-to-first-token of a round with a 2 MB photo against a text round.

One ``arena serve`` (embedded PostgreSQL, rating process off) relays a fake OpenAI-compatible
vendor on a loopback port (``benchmarks/_vendor.py``) through two ``vision: true`` models. Rounds
run one at a time over fresh connections, alternating: a text prompt, then the same prompt with a
distinct 2 MB JPEG (noise, so it compresses no further) as base64 in the native body. The time
runs from the request's first byte to the first token event, so the image's figure holds its
upload, decoding, the check and re-encoding without metadata, its storage, and its base64 on the
way to both vendors' requests; the overhead is the difference of the two medians.

A second table measures where the image's time goes in-process, and the storage choice: the
image written to PostgreSQL (``bytea``, what the arena does) against a file under a data
directory written and fsynced (the alternative), for the same bytes.

Usage: python benchmarks/images.py [--rounds 30] [--megabytes 2]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena_api.core.media import ImageLimits  # noqa: E402
from arena_api.db.engine import embedded_postgres  # noqa: E402
from arena_api.db.repository import create_pool  # noqa: E402
from arena_api.media.codec import PillowCodec  # noqa: E402
from benchmarks.arena_stream import SECRET, stream_once  # noqa: E402
from benchmarks.relay_http import process  # noqa: E402
from tests.support import free_port  # noqa: E402

PROMPT = "What is in this picture? Describe it in one paragraph."
ROSTER = """models:
  - {display_name: Vendor A, provider: openai, provider_model_id: vendor-a, vision: true}
  - {display_name: Vendor B, provider: openai, provider_model_id: vendor-b, vision: true}
"""


def photo(megabytes: float, seed: int) -> bytes:
    """A JPEG of about ``megabytes`` MB: noise at quality 90 (about 0.9 bytes a pixel)."""
    pixels = int(megabytes * 1_000_000 / 0.9)
    width = int((pixels * 4 / 3) ** 0.5)
    height = pixels // width
    noise = np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def _median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def _p90_ms(values: list[float]) -> float:
    return sorted(values)[int(0.9 * (len(values) - 1))] * 1000


async def rounds(url: str, images: list[bytes]) -> tuple[list[float], list[float]]:
    """Text and image rounds in turn: each one's time to its first token (seconds)."""
    host, port = url.removeprefix("http://").split(":")
    text: list[float] = []
    with_image: list[float] = []
    for index, image in enumerate(images):
        plain = {"prompt": f"{PROMPT} ({index})", "sessionId": "bench-images"}
        attached = {**plain, "images": [{"data": base64.b64encode(image).decode()}]}
        for body, into in ((plain, text), (attached, with_image)):
            stats = await stream_once(host, int(port), "/api/arena/chat", json.dumps(body).encode())
            first = min(arrivals[0] for arrivals in stats.arrivals.values() if arrivals)
            into.append(first - stats.t0)
    return text, with_image


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())


async def storage(database_url: str, images: list[bytes], directory: Path) -> dict[str, float]:
    """Median seconds to keep one image: PostgreSQL ``bytea`` against a fsynced file."""
    pool = await create_pool(database_url)
    figures: dict[str, list[float]] = {"postgres": [], "file": []}
    try:
        async with pool.acquire() as conn:
            await conn.execute(
                "CREATE TEMP TABLE bench_images (sha256 text PRIMARY KEY, data bytea)"
            )
            for image in images:
                digest = hashlib.sha256(image).hexdigest()
                start = time.perf_counter()
                await conn.execute("INSERT INTO bench_images VALUES ($1, $2)", digest, image)
                figures["postgres"].append(time.perf_counter() - start)
                start = time.perf_counter()
                _write_file(directory / digest[:2] / digest, image)
                figures["file"].append(time.perf_counter() - start)
    finally:
        await pool.close()
    return {name: statistics.median(values) for name, values in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--megabytes", type=float, default=2.0)
    args = parser.parse_args()
    images = [photo(args.megabytes, seed) for seed in range(args.rounds + 3)]
    size = statistics.mean(len(i) for i in images) / 1e6
    vendor_port = free_port()
    vendor = [sys.executable, "-m", "benchmarks._vendor", "--port", str(vendor_port)]
    vendor += ["--rate", "20", "--tokens", "10"]
    with tempfile.TemporaryDirectory() as tmp, embedded_postgres(Path(tmp) / "pg") as pg:
        roster = Path(tmp) / "models.yaml"
        roster.write_text(ROSTER)
        port = free_port()
        env = {
            "DATABASE_URL": pg.url,
            "MATCHUP_TOKEN_SECRET": SECRET,
            "ARENA_DATA_DIR": tmp,
            "ARENA_RATING_WORKER": "off",
            "ARENA_MODELS_FILE": str(roster),
            "OPENAI_BASE_URL": f"http://127.0.0.1:{vendor_port}/v1",
            "OPENAI_API_KEY": "sk-bench",
            "PORT": str(port),
            "LOG_LEVEL": "warning",
        }
        url = f"http://127.0.0.1:{port}"
        with (
            process(vendor, {}, None),
            process(
                [sys.executable, "-m", "arena_api", "serve"], env, url + "/health", timeout=300
            ),
        ):
            asyncio.run(rounds(url, images[:3]))  # warm up
            text, with_image = asyncio.run(rounds(url, images[3:]))
        files = Path(tmp) / "files"
        files.mkdir()
        stored = asyncio.run(storage(pg.url, images, files))
    codec = PillowCodec(ImageLimits())
    sanitize = []
    for image in images[:10]:
        start = time.perf_counter()
        codec.sanitize(image, "images[0]")
        sanitize.append(time.perf_counter() - start)

    print(f"upload to first token, {args.rounds} rounds each, one at a time ({size:.2f} MB JPEG)")
    print(f"  {'':<26}{'p50':>10}{'p90':>10}")
    for name, values in (("text round", text), ("round with the image", with_image)):
        print(f"  {name:<26}{_median_ms(values):>8.1f}ms{_p90_ms(values):>8.1f}ms")
    added = _median_ms(with_image) - _median_ms(text)
    print(f"  added by the image at p50: {added:+.1f} ms")
    print(
        f"  ratio image/text at p50: {statistics.median(with_image) / statistics.median(text):.2f}x"
    )
    print("\nwhere it goes, in-process (median per image)")
    print(f"  check and re-encode (Pillow)   {statistics.median(sanitize) * 1000:>8.1f} ms")
    print(f"  stored in PostgreSQL (bytea)   {stored['postgres'] * 1000:>8.1f} ms")
    print(f"  stored as a fsynced file       {stored['file'] * 1000:>8.1f} ms")
    print(f"  ratio PostgreSQL/file: {stored['postgres'] / stored['file']:.2f}x")


if __name__ == "__main__":
    main()
