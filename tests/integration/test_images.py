"""Prompts with images, end to end (issue #42): the native body's images reach the three vendors'
fakes in each vendor's own format, byte for byte the sanitized image the arena stored once under
its SHA-256; follow-ups carry the earlier turns' images; refusals store nothing; the vision
category gets a board of its own."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.roster import Roster, RosterModel, load_roster
from arena_rating import RatingSettings, RatingWorker
from tests.fakes import gemini_server, ollama_server, openai_server
from tests.fakes._recording import Recorder
from tests.integration.arena_harness import Arena, serve_arena
from tests.support import ServerThread, free_port

#: What each fake vendor's model is called in the roster, and its provider.
VENDORS = {
    "openai": ("Vision OpenAI", "openai", "vision-openai--ok"),
    "google": ("Vision Gemini", "google", "vision-gemini--ok"),
    "ollama": ("Vision Ollama", "ollama", "vision-ollama--ok"),
}
#: The rows a refused request must not leave.
STORED = ("conversations", "matchups", "turns", "responses", "images", "turn_images")


def _picture(colour: tuple[int, int, int], size: tuple[int, int] = (24, 16)) -> Image.Image:
    image = Image.new("RGB", size, colour)
    for x in range(size[0]):
        image.putpixel((x, x % size[1]), (255 - colour[0], x * 9 % 256, 40))
    return image


def _png(colour: tuple[int, int, int] = (20, 120, 220)) -> bytes:
    """A PNG as Pillow writes it by default: no metadata, so the arena stores it unchanged."""
    out = io.BytesIO()
    _picture(colour).save(out, "PNG")
    return out.getvalue()


def _jpeg_with_gps() -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "SpyCam"
    gps = exif.get_ifd(0x8825)
    gps[1], gps[2] = "N", (41.0, 24.0, 12.2)
    out = io.BytesIO()
    _picture((200, 60, 30)).save(out, "JPEG", exif=exif, quality=90)
    return out.getvalue()


def _body(data: bytes, media_type: str | None = None) -> dict[str, str]:
    body = {"data": base64.b64encode(data).decode()}
    if media_type:
        body["mediaType"] = media_type
    return body


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- the fake vendors ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Fakes:
    """The three fake vendors, running, and what each received."""

    urls: dict[str, str]
    recorders: dict[str, Recorder]

    def env(self, roster_file: Path) -> dict[str, str]:
        return {
            "ARENA_MODELS_FILE": str(roster_file),
            "ARENA_MOCK_PROVIDER": "0",
            "OPENAI_BASE_URL": f"{self.urls['openai']}/v1",
            "OPENAI_API_KEY": "sk-test",
            "GOOGLE_BASE_URL": self.urls["google"],
            "GOOGLE_API_KEY": "google-test-key",
            "OLLAMA_BASE_URL": self.urls["ollama"],
        }

    def images_received(self, vendor: str) -> list[list[tuple[str, list[bytes]]]]:
        """Each request ``vendor`` received, as its messages: (role, the images' bytes)."""
        return [_messages_of(vendor, r.json) for r in self.recorders[vendor].requests]


def _messages_of(vendor: str, body: dict[str, Any]) -> list[tuple[str, list[bytes]]]:
    """A vendor's request body as (role, images) per message, each image read in the vendor's
    own format: OpenAI's ``image_url`` data URL parts, Gemini's ``inline_data`` parts, Ollama's
    ``images`` list."""
    if vendor == "openai":
        messages = []
        for m in body["messages"]:
            parts = m["content"] if isinstance(m["content"], list) else []
            urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
            messages.append((m["role"], [_data_url_bytes(u) for u in urls]))
        return messages
    if vendor == "google":
        return [
            (
                c["role"],
                [
                    base64.b64decode(p["inline_data"]["data"])
                    for p in c["parts"]
                    if "inline_data" in p
                ],
            )
            for c in body["contents"]
        ]
    return [
        (m["role"], [base64.b64decode(i) for i in m.get("images", [])]) for m in body["messages"]
    ]


def _data_url_bytes(url: str) -> bytes:
    header, _, payload = url.partition(",")
    assert header in ("data:image/png;base64", "data:image/jpeg;base64"), header
    return base64.b64decode(payload)


@pytest.fixture(scope="module")
def _fakes() -> Iterator[Fakes]:
    apps = {
        "openai": openai_server.create_app,
        "google": gemini_server.create_app,
        "ollama": ollama_server.create_app,
    }
    recorders = {vendor: Recorder() for vendor in apps}
    with contextlib.ExitStack() as stack:
        urls = {
            vendor: stack.enter_context(ServerThread(create(recorders[vendor]), free_port())).url
            for vendor, create in apps.items()
        }
        yield Fakes(urls, recorders)


@pytest.fixture
def fakes(_fakes: Fakes) -> Fakes:
    """The fake vendors, their recorders emptied for this test."""
    for recorder in _fakes.recorders.values():
        recorder.clear()
    return _fakes


@contextlib.asynccontextmanager
async def _vision_arena(
    db: AsyncEngine, database_url: str, tmp_path: Path, fakes: Fakes
) -> AsyncIterator[tuple[Arena, dict[str, str]]]:
    """The arena over the three vendors' vision models; vendor -> its model's roster id."""
    roster_file = tmp_path / "vision.yaml"
    roster_file.write_text(
        "models:\n"
        + "".join(
            f"  - {{display_name: {name}, provider: {provider}, provider_model_id: {pmid}, "
            "vision: true}\n"
            for name, provider, pmid in VENDORS.values()
        )
    )
    async with serve_arena(
        db, database_url, tmp_path, roster=load_roster(roster_file), **fakes.env(roster_file)
    ) as arena:
        by_name = dict(await arena.rows("SELECT display_name, id::text FROM models"))
        yield arena, {vendor: by_name[name] for vendor, (name, _, _) in VENDORS.items()}


async def _named_round(
    arena: Arena, pair: tuple[str, str], images: list[dict[str, str]], **body: Any
) -> dict[str, Any]:
    response, frames = await arena.chat(
        prompt="What is in these pictures?", mode="named", models=list(pair), images=images, **body
    )
    assert response.status_code == 200, response.text
    assert frames[-1][0] == "matchup_done" and not [f for f in frames if f[0] == "slot_error"]
    return frames[0][1]


async def _stored_images(arena: Arena) -> dict[str, tuple[str, bytes]]:
    """sha256 -> (media type, bytes) of every stored image."""
    rows = await arena.rows("SELECT sha256, media_type, data FROM images")
    return {r.sha256: (r.media_type, bytes(r.data)) for r in rows}


async def _counts(arena: Arena) -> dict[str, int]:
    return {table: await arena.scalar(f"SELECT count(*) FROM {table}") for table in STORED}


# -- (a) each vendor receives the stored image in its own format ---------------------------------


async def test_each_vendor_receives_the_stored_sanitized_images_in_its_own_format(
    db: AsyncEngine, database_url: str, tmp_path: Path, fakes: Fakes
) -> None:
    png, jpeg = _png(), _jpeg_with_gps()
    images = [_body(png, "image/png"), _body(jpeg)]
    async with _vision_arena(db, database_url, tmp_path, fakes) as (arena, ids):
        await _named_round(arena, (ids["openai"], ids["google"]), images)
        await _named_round(arena, (ids["ollama"], ids["openai"]), images)

        stored = await _stored_images(arena)
        order = await arena.rows(
            "SELECT ti.sha256 FROM turn_images ti JOIN turns t ON t.id = ti.turn_id "
            "ORDER BY t.created_at, ti.position"
        )
        counts = await arena.rows("SELECT image_count, categories FROM matchups")

    png_sha, jpeg_sha = (r.sha256 for r in order[:2])
    assert [r.sha256 for r in order] == [png_sha, jpeg_sha] * 2
    assert stored[png_sha] == ("image/png", png)  # Pillow's own PNG: re-encoded to the same bytes
    assert stored[jpeg_sha][0] == "image/jpeg" and stored[jpeg_sha][1] != jpeg
    assert b"SpyCam" in jpeg and b"SpyCam" not in stored[jpeg_sha][1]
    assert all(c.image_count == 2 and "vision" in c.categories for c in counts)
    expected = [stored[png_sha][1], stored[jpeg_sha][1]]
    for vendor in VENDORS:
        received = fakes.images_received(vendor)
        assert received, f"{vendor} received no request"
        for messages in received:
            assert messages == [("user", expected)], vendor
    assert len(fakes.recorders["openai"].requests) == 2


async def test_the_vendors_are_told_each_images_type(
    db: AsyncEngine, database_url: str, tmp_path: Path, fakes: Fakes
) -> None:
    images = [_body(_png()), _body(_jpeg_with_gps(), "image/png")]  # the hint is only a hint
    async with _vision_arena(db, database_url, tmp_path, fakes) as (arena, ids):
        await _named_round(arena, (ids["openai"], ids["google"]), images)

    openai_parts = fakes.recorders["openai"].requests[0].json["messages"][-1]["content"]
    gemini_parts = fakes.recorders["google"].requests[0].json["contents"][-1]["parts"]
    assert openai_parts[0] == {"type": "text", "text": "What is in these pictures?"}
    assert [p["image_url"]["url"][:22] for p in openai_parts[1:]] == [
        "data:image/png;base64,",
        "data:image/jpeg;base64",
    ]
    assert [p["inline_data"]["mime_type"] for p in gemini_parts[1:]] == ["image/png", "image/jpeg"]


# -- (b) a follow-up carries the earlier turn's image -------------------------------------------


async def test_a_follow_up_sends_each_turns_images_on_its_own_message(
    db: AsyncEngine, database_url: str, tmp_path: Path, fakes: Fakes
) -> None:
    first_png, second_png = _png((10, 200, 10)), _png((250, 250, 0))
    async with _vision_arena(db, database_url, tmp_path, fakes) as (arena, ids):
        pair = (ids["google"], ids["ollama"])
        first = await _named_round(arena, pair, [_body(first_png)], sessionId="s1")
        assert (await arena.vote(first, "left")).status_code == 200
        for recorder in fakes.recorders.values():
            recorder.clear()

        second = await _named_round(
            arena,
            pair,
            [_body(second_png)],
            sessionId="s1",
            conversationId=first["conversationId"],
        )

        turns = await arena.rows(
            "SELECT t.turn_index, array_agg(ti.sha256 ORDER BY ti.position) AS shas "
            "FROM turns t JOIN turn_images ti ON ti.turn_id = t.id GROUP BY 1 ORDER BY 1"
        )

    assert second["conversationId"] == first["conversationId"]
    assert [(t.turn_index, t.shas) for t in turns] == [
        (0, [_sha(first_png)]),
        (1, [_sha(second_png)]),
    ]
    for vendor in ("google", "ollama"):
        (messages,) = fakes.images_received(vendor)
        roles = [role for role, _ in messages]
        assert roles in (["user", "model", "user"], ["user", "assistant", "user"]), vendor
        assert [images for _, images in messages] == [[first_png], [], [second_png]], vendor


# -- (c) who may answer --------------------------------------------------------------------------


def _roster(*models: tuple[str, str, bool]) -> Roster:
    return Roster(
        models=tuple(
            RosterModel(display_name=name, provider="mock", provider_model_id=pmid, vision=vision)
            for name, pmid, vision in models
        )
    )


async def test_a_round_with_images_needs_two_vision_models(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    roster = _roster(("Seeing", "mock-aurora", True), ("Blind", "mock-borealis", False))
    async with serve_arena(db, database_url, tmp_path, roster=roster) as arena:
        response, _ = await arena.chat(images=[_body(_png())])
        counts = await _counts(arena)

    assert response.status_code == 409
    assert response.json()["code"] == "not_enough_vision_models"
    assert counts == dict.fromkeys(STORED, 0)


async def test_a_named_round_with_images_refuses_a_model_that_reads_none(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        ids = dict(await arena.rows("SELECT display_name, id::text FROM models"))

        response, _ = await arena.chat(
            mode="named",
            models=[ids["Mock Aurora"], ids["Mock Borealis"]],
            images=[_body(_png())],
        )

        counts = await _counts(arena)

    assert response.status_code == 409
    assert response.json()["code"] == "model_not_vision"
    assert "Mock Borealis" in response.text
    assert counts == dict.fromkeys(STORED, 0)


async def test_a_round_with_images_is_answered_by_vision_models_only(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        for _ in range(4):
            response, frames = await arena.chat(images=[_body(_png())])
            assert response.status_code == 200 and frames[-1][0] == "matchup_done"

        played = await arena.rows(
            "SELECT DISTINCT s.display_name FROM matchups m "
            "JOIN models s ON s.id IN (m.slot_a_model_id, m.slot_b_model_id)"
        )

    assert {r.display_name for r in played} == {"Mock Aurora", "Mock Cirrus"}


# -- (d) refusals store nothing ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "images", "status", "code"),
    [
        pytest.param(
            {"ARENA_MAX_IMAGES": "1"},
            [_body(_png()), _body(_png((1, 2, 3)))],
            413,
            "too_many_images",
            id="too-many",
        ),
        pytest.param(
            {"ARENA_MAX_IMAGE_BYTES": "1024"},
            [_body(Image.effect_noise((64, 64), 90).convert("RGB").tobytes()[:2000])],
            413,
            "image_too_large",
            id="too-large",
        ),
        pytest.param(
            {},
            [_body(b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')],
            400,
            "image_type_unsupported",
            id="svg",
        ),
        pytest.param(
            {},
            [{"url": "http://example.com/cat.png"}],
            400,
            "image_urls_disabled",
            id="url",
        ),
        pytest.param({}, [{"data": "not base64!"}], 400, "image_unreadable", id="bad-base64"),
        pytest.param(
            {"ARENA_MAX_IMAGES": "0"}, [_body(_png())], 400, "images_not_supported", id="off"
        ),
        pytest.param(
            {},
            [_body(_png()), _body(_png()[:60])],
            400,
            "image_unreadable",
            id="second-truncated",
        ),
    ],
)
async def test_a_refused_image_refuses_the_round_and_stores_nothing(
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    env: dict[str, str],
    images: list[dict[str, str]],
    status: int,
    code: str,
) -> None:
    async with serve_arena(db, database_url, tmp_path, roster=None, **env) as arena:
        response, _ = await arena.chat(images=images)
        counts = await _counts(arena)

    assert response.status_code == status, response.text
    assert response.json()["code"] == code
    assert counts == dict.fromkeys(STORED, 0)


async def test_a_refusal_names_the_image_it_refused(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response, _ = await arena.chat(images=[_body(_png()), _body(b"%PDF-1.4\n")])

    assert response.status_code == 400
    assert list(response.json()["details"]) == ["images[1]"]


# -- (e) stored once -----------------------------------------------------------------------------


async def test_the_same_image_in_two_rounds_is_stored_once(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    png = _png()
    async with serve_arena(db, database_url, tmp_path) as arena:
        for _ in range(2):
            response, _ = await arena.chat(images=[_body(png)])
            assert response.status_code == 200

        images = await arena.rows("SELECT sha256, size FROM images")
        links = await arena.scalar(
            "SELECT count(*) FROM turn_images WHERE sha256 = :s", s=_sha(png)
        )

    assert [(r.sha256, r.size) for r in images] == [(_sha(png), len(png))]
    assert links == 2


# -- (f) the vision board ------------------------------------------------------------------------


async def test_votes_on_rounds_with_images_make_a_vision_board(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    votes = 6
    async with serve_arena(db, database_url, tmp_path) as arena:
        for number in range(votes):
            response, frames = await arena.chat(
                prompt=f"Describe picture {number}", images=[_body(_png((number, 0, 0)))]
            )
            assert response.status_code == 200
            assert (
                await arena.vote(frames[0][1], "left" if number % 3 else "both_good")
            ).status_code == 200
        text_only, frames = await arena.chat(prompt="Just words")
        assert (await arena.vote(frames[0][1], "left")).status_code == 200

        report = await RatingWorker(db, RatingSettings(category_min_votes=votes)).run_pass()
        board = await arena.client.get("/api/arena/leaderboard", params={"category": "vision"})

    assert report.status == "rated" and report.slices.get("vision") == votes
    assert board.status_code == 200
    view = board.json()
    assert view["category"] == "vision"
    rated = {m["displayName"]: m for m in view["models"] if m["rating"] is not None}
    assert set(rated) == {"Mock Aurora", "Mock Cirrus"}
    assert sum(m["wins"] + m["losses"] + m["ties"] for m in rated.values()) == 2 * votes
