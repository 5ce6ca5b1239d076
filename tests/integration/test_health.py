from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from arena_api.app import create_api
from arena_api.core.errors import SETUP_HINT
from arena_api.db.migrations import head_revision
from arena_api.roster import load_roster
from tests.fixtures import prepare_database
from tests.support import ROOT, ServerThread, free_port, make_settings


async def test_health_reports_database_migration_and_version(api_url: str) -> None:
    async with httpx.AsyncClient(base_url=api_url) as client:
        response = await client.get("/health")

    body = response.json()
    assert response.status_code == 200
    assert body["status"] == "ok"
    assert body["database"] == "reachable"
    assert body["migration"] == {"current": head_revision(), "head": head_revision()}
    assert body["version"]
    assert isinstance(body["models"]["usable"], int)  # how many models can answer
    assert body["models"]["paused"] == []


@pytest.fixture(scope="module")
def mock_roster_database(fresh_database: Callable[[], str]) -> str:
    """A database of its own holding the shipped roster: four models of the mock provider."""
    return prepare_database(fresh_database(), load_roster(ROOT / "models.yaml"))


@pytest.mark.parametrize(("mock", "usable"), [("1", 4), ("0", 0)])
async def test_health_counts_the_models_whose_provider_is_configured(
    mock_roster_database: str, mock: str, usable: int
) -> None:
    app = create_api(make_settings(mock_roster_database, ARENA_MOCK_PROVIDER=mock), standalone=True)
    with ServerThread(app, free_port()) as server:
        async with httpx.AsyncClient(base_url=server.url) as client:
            health = await client.get("/health")

    assert health.status_code == 200 and health.json()["models"]["usable"] == usable


async def test_a_round_without_usable_models_is_a_503_that_says_how_to_add_them(
    mock_roster_database: str,
) -> None:
    """The roster's models have no provider here: a setup to finish, not a fault to restart."""
    app = create_api(make_settings(mock_roster_database, ARENA_MOCK_PROVIDER="0"), standalone=True)
    with ServerThread(app, free_port()) as server:
        async with httpx.AsyncClient(base_url=server.url) as client:
            round_ = await client.post("/api/arena/chat", json={"prompt": "hello"})

    assert round_.status_code == 503
    assert round_.json()["code"] == "not_enough_models"
    assert SETUP_HINT in round_.json()["error"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        pytest.param("GET", "/api", id="api-root"),
        pytest.param("GET", "/api/arena/nothing", id="api-unknown"),
        pytest.param("GET", "/health/deep", id="health-sub"),
        pytest.param("GET", "/v1/engines", id="v1-unknown"),
        pytest.param("GET", "/models/x/y", id="models-sub"),
        pytest.param("GET", "/chat/completions/x", id="chat-completions-sub"),
        pytest.param("GET", "/completions", id="completions"),
        pytest.param("GET", "/embeddings", id="embeddings"),
        pytest.param("POST", "/api/nothing", id="post-api-unknown"),
    ],
)
async def test_unmatched_api_path_is_a_json_404(api_url: str, method: str, path: str) -> None:
    async with httpx.AsyncClient(base_url=api_url) as client:
        response = await client.request(method, path)

    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json()["code"] == "not_found"


async def test_wrong_method_on_a_route_is_a_json_405(api_url: str) -> None:
    async with httpx.AsyncClient(base_url=api_url) as client:
        response = await client.post("/health")

    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
