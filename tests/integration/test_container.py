"""The Dockerfile's lint and compose.yaml's shape. The image itself is built and run, compose's
shape included, by tests/integration/test_image.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

from tests.support import ROOT

VENV_BIN = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin"


def test_hadolint_passes_on_the_dockerfile() -> None:
    result = subprocess.run(
        [str(VENV_BIN / "hadolint"), "--no-color", "Dockerfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_runs_postgres_redis_app_replicas_behind_nginx_and_the_rating_loop() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]

    postgres, app, worker = services["postgres"], services["app"], services["worker"]
    redis, nginx = services["redis"], services["nginx"]
    assert postgres["healthcheck"]["test"] and redis["healthcheck"]["test"]
    assert any(v.split(":")[0] in compose["volumes"] for v in postgres["volumes"])
    assert app["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert app["depends_on"]["redis"]["condition"] == "service_healthy"
    assert app["environment"]["ARENA_RATING_WORKER"] == "off"
    assert app["environment"]["DATABASE_URL"].startswith("postgresql://")
    assert app["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert app["deploy"]["replicas"] >= 2 and "ports" not in app
    assert nginx["ports"] == ["${PORT:-3001}:80"]
    assert nginx["depends_on"]["app"]["condition"] == "service_healthy"
    site = nginx["volumes"][0].split(":")
    assert site[0] == "./deploy/nginx-cluster.conf" and site[1].startswith("/etc/nginx/conf.d/")
    assert "server app:3001" in (ROOT / "deploy" / "nginx-cluster.conf").read_text()
    assert app["build"] == "." and worker["image"] == app["image"]
    assert worker["command"] == ["arena", "rate", "--loop", "--style"]
    assert worker["environment"]["DATABASE_URL"] == app["environment"]["DATABASE_URL"]
    assert worker["depends_on"]["postgres"]["condition"] == "service_healthy"
    # It serves no HTTP, so the image's check of /health is off; and it keeps nothing on disk.
    assert worker["healthcheck"] == {"disable": True} and "volumes" not in worker
