"""The container image, without a container engine: no engine runs here and no base image can
be pulled, so the tests check what the Dockerfile and compose.yaml name, and run the runtime
stage's files, exactly as the Dockerfile lists them, with its environment and its command."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import yaml

from arena_api.settings import SETTINGS
from arena_app.build import ensure_frontend
from tests.support import ROOT, free_port, parse_sse

pytestmark = pytest.mark.slow

VENV_BIN = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin"


@dataclass
class Stage:
    name: str
    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for kw, args in self.instructions if kw == keyword]


def _stages() -> list[Stage]:
    """The Dockerfile's stages, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    stages: list[Stage] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            base, _, name = args.partition(" AS ")
            stages.append(Stage(name.strip(), base.strip()))
        elif stages:
            stages[-1].instructions.append((keyword, args.strip()))
    return stages


def _env(stage: Stage) -> dict[str, str]:
    env: dict[str, str] = {}
    for args in stage.all("ENV"):
        for pair in shlex.split(args):
            name, _, value = pair.partition("=")
            env[name] = value
    return env


def _runtime_copies(stage: Stage) -> list[tuple[list[str], str]]:
    """(sources in the build stage, destination) of the runtime stage's COPY --from=build."""
    copies = []
    for args in stage.all("COPY"):
        words = [w for w in shlex.split(args) if not w.startswith("--")]
        assert "--from=build" in args, f"the runtime stage copies only from the build: {args}"
        copies.append((words[:-1], words[-1]))
    return copies


def test_hadolint_passes_on_the_dockerfile() -> None:
    result = subprocess.run(
        [str(VENV_BIN / "hadolint"), "--no-color", "Dockerfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr


def test_the_dockerfile_names_only_what_exists_and_runs_the_product_as_a_user() -> None:
    build, runtime = _stages()

    assert (build.name, runtime.name) == ("build", "runtime")
    for args in build.all("COPY"):
        for source in shlex.split(args)[:-1]:
            assert (ROOT / source).exists(), f"COPY names {source}, which is not in the repo"
    assert "arena build-ui" in build.all("RUN")
    runtime_text = " ".join(args for _, args in runtime.instructions).lower()
    for tool in ("nodejs", "npm", "bun", "gcc", "build-essential", "apt-get install"):
        assert tool not in runtime_text, f"the runtime stage installs {tool}"
    user = runtime.all("USER")[-1]
    assert user not in ("root", "0") and user.isdigit()
    assert any("/health" in h for h in runtime.all("HEALTHCHECK"))
    assert runtime.all("EXPOSE") == ["3001"]
    env = _env(runtime)
    assert env["ARENA_ENV"] == "production" and env["PORT"] == "3001"
    assert "ARENA_MOCK_PROVIDER" not in env and "ARENA_ALLOW_DEV_SECRET" not in env
    assert {s.name for s in SETTINGS} >= set(env) - {"PATH", "PYTHONPATH", "PYTHONUNBUFFERED"}
    command = shlex.split(runtime.all("CMD")[-1].replace('"', "").strip("[]").replace(",", " "))
    assert command == ["arena", "serve"]
    assert 'arena = "arena_api.cli:main"' in (ROOT / "pyproject.toml").read_text()


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


# -- the runtime stage's files, run ---------------------------------------------------------------


@pytest.fixture
def runtime_app(tmp_path: Path) -> Path:
    """A folder laid out as the runtime stage's /app, from this checkout's files."""
    ensure_frontend()
    _, runtime = _stages()
    app = tmp_path / "app"
    for sources, destination in _runtime_copies(runtime):
        if destination == "/opt/venv":
            continue  # the dependencies: this checkout's virtualenv stands in
        for source in sources:
            relative = Path(source).relative_to("/app")
            target = app / Path(destination).relative_to("/app")
            if destination.endswith("/"):
                target = target / relative.name
            origin = ROOT / relative
            if origin.is_dir():
                shutil.copytree(origin, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, target)
    return app


def _serve(
    app: Path, data: Path, port: int, log: Path, *, without: str = "", **extra: str
) -> subprocess.Popen[bytes]:
    _, runtime = _stages()
    image_env = {k: v for k, v in _env(runtime).items() if k != without}
    env = {
        **{
            k: v.replace("/data", str(data)).replace("/app", str(app)) for k, v in image_env.items()
        },
        "PATH": str(VENV_BIN),  # no Node, no bun, no system tools
        "HOME": str(data.parent),
        "PORT": str(port),
        # Told to: the only models that answer without a network.
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_ALLOW_MOCK_IN_PRODUCTION": "1",
        "ARENA_MOCK_TOKENS_PER_SECOND": "0",
        **extra,
    }
    command = shlex.split(runtime.all("CMD")[-1].replace('"', "").strip("[]").replace(",", " "))
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(VENV_BIN / command[0]), *command[1:]],
            cwd=app,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def _healthy(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()[-3000:]
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"not healthy in time:\n{log.read_text()[-3000:]}")


def _round_and_vote(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as client:
        frames = parse_sse(client.post("/api/arena/chat", json={"prompt": "hello"}).text)
        assert [event for event, _ in frames][-1] == "matchup_done"
        started = frames[0][1]
        vote = client.post(
            "/api/arena/vote",
            json={
                "matchupId": started["matchupId"],
                "matchupToken": started["matchupToken"],
                "vote": "left",
            },
        )
        assert vote.status_code == 200, vote.text
        assert client.get("/").status_code == 200  # the built UI, served on the same port


def _votes(url: str) -> int:
    board = httpx.get(url + "/api/arena/leaderboard", timeout=10).json()
    return sum(m["wins"] + m["losses"] + m["ties"] + m["skips"] for m in board["models"]) // 2


def _stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=60)


def test_the_runtime_stage_serves_from_an_empty_volume_and_keeps_votes_across_restarts(
    runtime_app: Path, tmp_path: Path
) -> None:
    data, log, port = tmp_path / "data", tmp_path / "serve.log", free_port()
    data.mkdir()
    url = f"http://127.0.0.1:{port}"

    first = _serve(runtime_app, data, port, log)
    try:
        _healthy(first, url, log)
        _round_and_vote(url)
    finally:
        assert _stop(first) == 0
    secret = data / "matchup-token-secret"
    second = _serve(runtime_app, data, port, log)
    try:
        _healthy(second, url, log)
        kept = _votes(url)
    finally:
        assert _stop(second) == 0

    assert kept == 1
    assert re.fullmatch(r"[0-9a-f]{64}\n", secret.read_text())
    assert secret.stat().st_mode & 0o777 == 0o600
    assert not list(runtime_app.rglob("node_modules")), "the runtime stage carries no Node"


def test_the_runtime_stage_serves_an_empty_external_database(
    runtime_app: Path, tmp_path: Path, fresh_database: Callable[[], str]
) -> None:
    data, log, port = tmp_path / "data", tmp_path / "serve.log", free_port()
    data.mkdir()
    url = f"http://127.0.0.1:{port}"

    process = _serve(runtime_app, data, port, log, DATABASE_URL=fresh_database())
    try:
        _healthy(process, url, log)
        _round_and_vote(url)
    finally:
        assert _stop(process) == 0

    assert not (data / "postgres").exists() and not list(data.glob("pg*"))


def test_the_image_refuses_to_serve_without_a_secret_it_may_keep(
    runtime_app: Path, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    process = _serve(
        runtime_app, tmp_path / "data", free_port(), log, without="MATCHUP_TOKEN_SECRET_FILE"
    )

    assert process.wait(timeout=60) == 2
    assert (
        log.read_text()
        .strip()
        .splitlines()[-1]
        .startswith(
            "arena: invalid setting MATCHUP_TOKEN_SECRET='': required when ARENA_ENV=production"
        )
    )
