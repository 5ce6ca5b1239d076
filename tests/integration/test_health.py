from __future__ import annotations

import httpx
import pytest

from arena_api.db.migrations import head_revision


async def test_health_reports_database_migration_and_version(api_url: str) -> None:
    async with httpx.AsyncClient(base_url=api_url) as client:
        response = await client.get("/health")

    body = response.json()
    assert response.status_code == 200
    assert body["status"] == "ok"
    assert body["database"] == "reachable"
    assert body["migration"] == {"current": head_revision(), "head": head_revision()}
    assert body["version"]


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
