"""The backup module's pure parts: how a database URL reaches the PostgreSQL tools."""

from __future__ import annotations

import pytest

from arena_api.db.backup import _libpq


@pytest.mark.parametrize(
    ("url", "uri", "env"),
    [
        pytest.param(
            "postgresql://arena:s%40cret@db:5432/arena",
            "postgresql://arena@db:5432/arena",
            {"PGPASSWORD": "s@cret"},
            id="password-to-environment",
        ),
        pytest.param(
            "postgresql+asyncpg://arena@db/arena?ssl=require",
            "postgresql://arena@db/arena?sslmode=require",
            {},
            id="asyncpg-ssl",
        ),
        pytest.param(
            "postgresql://postgres:@/arena?host=/data/pgdata",
            "postgresql://postgres@/arena?host=%2Fdata%2Fpgdata",
            {},
            id="embedded-socket",
        ),
    ],
)
def test_a_url_reaches_the_tools_without_its_password(
    url: str, uri: str, env: dict[str, str]
) -> None:
    found_uri, found_env = _libpq(url)

    assert found_uri == uri
    assert {k: v for k, v in found_env.items() if k != "PGCONNECT_TIMEOUT"} == env
