"""A real API server per test, over a clean database with the shipped mock roster seeded."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.applications import Starlette

from arena_api.app import create_api
from arena_api.db.repository import seed_roster
from arena_api.roster import Roster, RosterModel, load_roster
from arena_api.routes._request import opened_services
from arena_api.services import ArenaService
from tests.support import ROOT, ServerThread, free_port, make_settings, parse_sse

SECRET = "test-secret-of-sufficient-length"


@dataclass
class Arena:
    client: httpx.AsyncClient
    engine: AsyncEngine
    url: str
    app: Starlette

    @property
    def service(self) -> ArenaService:
        """The server's ArenaService (for white-box checks such as leak counts)."""
        services = opened_services(self.app)
        assert services is not None, "the server's lifespan has not opened its services"
        return services.arena

    async def chat(self, **body: Any) -> tuple[httpx.Response, list[tuple[str, dict[str, Any]]]]:
        body.setdefault("prompt", "Explain JWTs in simple terms")
        response = await self.client.post("/api/arena/chat", json=body)
        frames = parse_sse(response.text) if response.status_code == 200 else []
        return response, frames

    async def vote(self, started: dict[str, Any], vote: str = "left") -> httpx.Response:
        return await self.client.post(
            "/api/arena/vote",
            json={
                "matchupId": started["matchupId"],
                "matchupToken": started["matchupToken"],
                "vote": vote,
            },
        )

    async def scalar(self, sql: str, **params: Any) -> Any:
        async with self.engine.connect() as conn:
            return (await conn.execute(text(sql), params)).scalar()

    async def rows(self, sql: str, **params: Any) -> list[Any]:
        async with self.engine.connect() as conn:
            return list((await conn.execute(text(sql), params)).all())


@contextlib.asynccontextmanager
async def serve_arena(
    engine: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    *,
    roster: Roster | None = None,
    **env: str,
) -> AsyncIterator[Arena]:
    """Seed ``roster`` (default: models.yaml) and serve the API with ``env`` over the defaults."""
    await seed_roster(engine, roster or load_roster(ROOT / "models.yaml"))
    defaults = {
        "MATCHUP_TOKEN_SECRET": SECRET,
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_MOCK_TOKENS_PER_SECOND": "0",
        "ARENA_MOCK_TOKENS": "8",
    }
    settings = make_settings(database_url, **{**defaults, **env})
    app = create_api(settings, standalone=True)
    with ServerThread(app, free_port()) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
            yield Arena(client, engine, server.url, app)


def roster_of(*entries: tuple[str, str, str]) -> Roster:
    """A roster of (display name, provider, provider model id) triples."""
    return Roster(
        models=tuple(
            RosterModel(display_name=name, provider=provider, provider_model_id=pmid)  # type: ignore[arg-type]
            for name, provider, pmid in entries
        )
    )


def new_id() -> str:
    return str(uuid.uuid4())
