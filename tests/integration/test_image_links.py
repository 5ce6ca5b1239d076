"""``GET /_arena/images/{sha256}``: a prompt's image served to the session that sent it, only
through a signed link that has not expired; every other asking reads as the same 404."""

from __future__ import annotations

import base64
import io
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from PIL import Image
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.media_links import image_link, image_link_key
from arena_api.routes._request import opened_services
from tests.integration.arena_harness import SECRET, Arena, serve_arena

SESSION = "anon_images_1"


def _png() -> bytes:
    picture = Image.new("RGB", (64, 48), (200, 40, 90))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
async def played(db: AsyncEngine, database_url: str, tmp_path: Path) -> AsyncIterator[Arena]:
    """A server on which ``SESSION`` played one round with a PNG attached."""
    async with serve_arena(db, database_url, tmp_path) as arena:
        response, _ = await arena.chat(
            sessionId=SESSION,
            prompt="What is in this picture?",
            images=[{"data": base64.b64encode(_png()).decode(), "mediaType": "image/png"}],
        )
        assert response.status_code == 200, response.text
        yield arena


async def _stored(arena: Arena) -> tuple[str, bytes]:
    row = (await arena.rows("SELECT sha256, data FROM images"))[0]
    return row.sha256, bytes(row.data)


def _link(arena: Arena, sha256: str, session: str) -> str:
    services = opened_services(arena.app)
    assert services is not None and services.image_links is not None
    return services.image_links.link(sha256, session)


async def test_a_signed_link_serves_the_stored_bytes_with_safe_headers(played: Arena) -> None:
    sha256, data = await _stored(played)

    response = await played.client.get(_link(played, sha256, SESSION))

    assert response.status_code == 200
    assert response.content == data
    assert response.headers["content-type"] == "image/png"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"].startswith("default-src 'none'")
    cache = response.headers["cache-control"]
    assert cache.startswith("private, max-age=") and int(cache.split("=")[1].split(",")[0]) > 0


def _forged(link: str) -> str:
    head, signature = link.rsplit("sig=", 1)
    return head + "sig=" + ("A" if signature[0] != "A" else "B") + signature[1:]


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda a, sha: _link(a, sha, "anon_someone_else"), id="another-session"),
        pytest.param(lambda a, sha: _forged(_link(a, sha, SESSION)), id="bad-signature"),
        pytest.param(
            lambda a, sha: image_link(
                image_link_key(SECRET.encode()), sha, SESSION, int(time.time()) - 5
            ),
            id="expired",
        ),
        pytest.param(
            lambda a, sha: _link(a, sha, SESSION).replace("&sig=", "&e=1&sig=", 1),
            id="tampered-expiry",
        ),
        pytest.param(lambda a, sha: _link(a, sha, SESSION).split("?")[0], id="no-signature"),
        pytest.param(lambda a, sha: _link(a, "0" * 64, SESSION), id="no-such-image"),
    ],
)
async def test_any_other_link_is_the_same_json_404(played: Arena, make: object) -> None:
    sha256, _ = await _stored(played)
    assert callable(make)

    response = await played.client.get(make(played, sha256))

    assert response.status_code == 404
    assert response.json()["code"] == "image_not_found"
    assert not response.headers["content-type"].startswith("image/")


async def test_a_link_for_a_session_that_played_no_image_serves_nothing(
    played: Arena,
) -> None:
    """The session of a text round owns no image, even with a valid signature."""
    sha256, _ = await _stored(played)
    text_round, _ = await played.chat(sessionId="anon_text_only")
    assert text_round.status_code == 200

    response = await played.client.get(_link(played, sha256, "anon_text_only"))

    assert response.status_code == 404
    assert isinstance(response, httpx.Response)
