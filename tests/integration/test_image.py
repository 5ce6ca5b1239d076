"""The container image, built from the Dockerfile and run as a self-hoster runs it (podman here,
no Docker daemon): the README's `docker run` lines, a real roster against a fake OpenAI vendor
on the host's loopback, a stop in the middle of a round, a restart on the same volume, the
image's own health check, and compose's shape (two replicas on one PostgreSQL and one Redis,
and the rating worker).

The build starts in the background when these tests are collected and they run last
(``tests/image_build.py``), so the build's minutes overlap the rest of the suite.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
import yaml
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from tests.fakes._recording import Recorder
from tests.fakes.openai_server import create_app
from tests.image_build import IMAGE, BuildResult, Podman
from tests.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    RedisServer,
    ServerThread,
    free_port,
    parse_sse,
)

pytestmark = [pytest.mark.slow, pytest.mark.image]

#: The most the Dockerfile may add to its base: with the official slim base (about 125 MB) the
#: image stays within 450 MB.
ADDED_BUDGET_MB = 325
#: Cold start of a container: initdb of the embedded PostgreSQL, migrations, the server.
START_TIMEOUT_S = 240
#: The fake vendor's two models: a word every 50 ms, about 2.6 s an answer (`--prose`).
VENDOR_MODELS = ("gpt-one--prose", "gpt-two--prose")
VENDOR_KEY = "sk-test-image"


# -- containers -----------------------------------------------------------------------------------


@dataclass
class Container:
    """One container of the image, started detached, with a port the host reaches."""

    podman: Podman
    name: str
    port: int
    url: str = field(init=False)

    def __post_init__(self) -> None:
        self.url = f"http://127.0.0.1:{self.port}"

    def run(self, *args: str) -> Container:
        self.podman("run", "--detach", "--name", self.name, *args, timeout=300)
        return self

    def wait_healthy(self) -> dict[str, Any]:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.running:
                pytest.fail(f"{self.name} exited:\n{self.logs()}", pytrace=False)
            try:
                answer = httpx.get(f"{self.url}/health", timeout=3)
                if answer.status_code == 200:
                    return dict(answer.json())
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        pytest.fail(f"{self.name} never became healthy:\n{self.logs()}", pytrace=False)

    @property
    def running(self) -> bool:
        state = self.podman("inspect", "--format", "{{.State.Running}}", self.name, check=False)
        return state.stdout.strip() == "true"

    def inspect(self, template: str) -> str:
        return self.podman("inspect", "--format", template, self.name).stdout.strip()

    def python_rows(self, script: str) -> list[list[str]]:
        """What ``script`` prints, run by the container's Python, as the words of each line."""
        printed = self.podman("exec", self.name, "python", "-c", script).stdout
        return [line.split() for line in printed.splitlines() if line.strip()]

    def logs(self) -> str:
        result = self.podman("logs", self.name, check=False)
        return (result.stdout + result.stderr)[-4000:]

    def stop(self) -> int:
        """SIGTERM, as `docker stop` sends it; the exit code."""
        self.podman("stop", "--time", "40", self.name, timeout=90)
        return int(self.inspect("{{.State.ExitCode}}"))


class Containers:
    """Every container and volume a test module made, removed at its end."""

    def __init__(self, podman: Podman) -> None:
        self.podman = podman
        self.prefix = f"arena-test-{uuid.uuid4().hex[:8]}"
        self.made: list[Container] = []
        self.volumes: list[str] = []

    def new(self, role: str, port: int | None = None) -> Container:
        container = Container(self.podman, f"{self.prefix}-{role}", port or free_port())
        self.made.append(container)
        return container

    def volume(self, role: str) -> str:
        name = f"{self.prefix}-{role}"
        self.podman("volume", "create", name)
        self.volumes.append(name)
        return name

    def remove(self, *made: Container) -> None:
        """Remove ``made`` (every container when none is named) at once, with no grace: the
        tests are done with them. Then, for all of them, the volumes."""
        names = [container.name for container in made or self.made]
        self.podman("rm", "--force", "--ignore", "--time", "0", *names, check=False)
        if not made:
            self.podman("volume", "rm", "--force", *self.volumes, check=False)


@pytest.fixture(scope="module")
def containers(podman: Podman, arena_image: BuildResult) -> Iterator[Containers]:
    made = Containers(podman)
    yield made
    made.remove()


# -- a fake vendor and a roster -------------------------------------------------------------------


@pytest.fixture(scope="module")
def vendor() -> Iterator[str]:
    """A fake OpenAI on the host's loopback; containers on the host's network reach it."""
    port = free_port()
    with ServerThread(create_app(Recorder()), port):
        yield f"http://127.0.0.1:{port}/v1"


@pytest.fixture(scope="module")
def roster(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("roster") / "models.yaml"
    models = [
        {"display_name": f"Fake {model.split('--')[0]}", "provider": "openai"}
        | {"provider_model_id": model}
        for model in VENDOR_MODELS
    ]
    path.write_text(yaml.safe_dump({"models": models}))
    path.chmod(0o644)
    return path


def _round(url: str, prompt: str, session: str = "image-test") -> list[tuple[str, dict[str, Any]]]:
    with httpx.Client(base_url=url, timeout=60) as client:
        answer = client.post("/api/arena/chat", json={"prompt": prompt, "sessionId": session})
        assert answer.status_code == 200, answer.text
        return parse_sse(answer.text)


def _vote(url: str, started: dict[str, Any], vote: str = "left") -> httpx.Response:
    body = {"matchupId": started["matchupId"], "matchupToken": started["matchupToken"]}
    return httpx.post(f"{url}/api/arena/vote", json={**body, "vote": vote}, timeout=30)


def _both_slots_streamed(events: list[tuple[str, dict[str, Any]]]) -> None:
    names = [name for name, _ in events]
    assert names[0] == "matchup_started" and names[-1] == "matchup_done", names
    for slot in ("A", "B"):
        assert any(e == "token" and d["slot"] == slot for e, d in events), slot
        assert any(e == "slot_done" and d["slot"] == slot for e, d in events), slot


# -- the image ------------------------------------------------------------------------------------


def test_the_image_builds_within_its_size_budget(arena_image: BuildResult) -> None:
    mb = 1_000_000
    report = [
        f"image {arena_image.image}: {arena_image.size / mb:.0f} MB, built in "
        f"{arena_image.seconds:.0f} s on {arena_image.base} ({arena_image.base_size / mb:.0f} MB)",
        *(f"  {size / mb:8.1f} MB  {what[:110]}" for size, what in arena_image.layers),
    ]
    print("\n".join(report))

    assert arena_image.added / mb <= ADDED_BUDGET_MB, "\n".join(report)


def test_the_image_declares_no_volume_and_checks_its_health(
    podman: Podman, arena_image: BuildResult
) -> None:
    (image,) = json.loads(podman("image", "inspect", IMAGE).stdout)

    assert not image["Config"].get("Volumes"), "a VOLUME gives each container an anonymous one"
    assert "/health" in " ".join(image["Healthcheck"]["Test"])
    assert image["Config"]["User"] == "10001"


def test_the_runtime_carries_no_node_bun_compiler_or_installer(podman: Podman) -> None:
    found = podman(
        "run", "--rm", "--network=none", "--entrypoint", "sh", IMAGE, "-c",
        "for tool in node npm bun gcc cc strip; do command -v $tool; done; ls /opt/venv/bin",
    ).stdout.split()  # fmt: skip

    assert [path for path in found if "/" in path] == [], found
    assert not {"pip", "pip3"} & set(found), found


# -- the README's commands ------------------------------------------------------------------------


def _readme_runs() -> list[list[str]]:
    """The README's `docker run` commands, continuation lines joined, comments dropped."""
    text = (ROOT / "README.md").read_text()
    runs = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            command = line.split("#", 1)[0].strip()
            if command.startswith("docker run "):
                runs.append(shlex.split(command)[2:])
    return runs


def _as_podman(args: list[str], port: int, volume: str) -> list[str]:
    """A README `docker run`'s arguments for this host: its port, a volume of the test's, the
    image the test built."""
    out = []
    for arg in args[:-1]:
        arg = re.sub(r"^\d+:3001$", f"{port}:3001", arg)
        arg = re.sub(r"^arena-data:/data$", f"{volume}:/data", arg)
        out.append(arg)
    assert args[-1] == "arena", f"the README's image is `arena`: {args}"
    # Published ports through user-mode networking: podman's default bridge adds interfaces to
    # the host, and a browser test running beside this one fails its loads with
    # ERR_NETWORK_CHANGED.
    return ["--network=slirp4netns", *out, IMAGE]


@pytest.fixture(scope="module")
def readme_containers(containers: Containers) -> list[tuple[list[str], Container]]:
    """Every README `docker run`, started at once (each on a volume of its own)."""
    runs = _readme_runs()
    started = []
    for index, args in enumerate(runs):
        container = containers.new(f"readme{index}")
        volume = containers.volume(f"readme{index}")
        started.append((args, container.run(*_as_podman(args, container.port, volume))))
    return started


def test_the_readme_shows_a_bare_run_a_demo_and_a_roster_from_the_environment() -> None:
    runs = [" ".join(args) for args in _readme_runs()]

    assert any("ARENA_DEMO=1" in run for run in runs), runs
    assert any("ARENA_MODELS=" in run for run in runs), runs
    assert any("ARENA_DEMO" not in run and "ARENA_MODELS" not in run for run in runs), runs


def _page_says(url: str, text: str) -> bool:
    """Whether the page at ``url``, rendered in Debian's chromium, comes to show ``text``."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            page = browser.new_page()
            page.goto(url)
            page.get_by_text(text).first.wait_for(timeout=30_000)
            return True
        except PlaywrightTimeout:
            return False
        finally:
            browser.close()


def test_each_readme_run_starts_healthy_and_does_what_it_says(
    readme_containers: list[tuple[list[str], Container]],
) -> None:
    for args, container in readme_containers:
        health = container.wait_healthy()
        command = " ".join(args)
        if "ARENA_MODELS=" in command:
            listed = re.search(r"ARENA_MODELS=(\S+)", command)
            assert listed is not None
            assert health["models"]["usable"] == len(listed.group(1).split(",")), command
        elif "ARENA_DEMO=1" in command:
            assert health["models"]["usable"] == 4, command
            _both_slots_streamed(_round(container.url, "hello from the demo"))
            assert _page_says(container.url, "demo: mock models"), command
        else:  # the bare run: healthy, no models, and a round that says what to do
            assert health["models"]["usable"] == 0, command
            answer = httpx.post(
                f"{container.url}/api/arena/chat", json={"prompt": "hi"}, timeout=30
            )
            assert answer.status_code == 503, answer.text
            assert answer.json()["code"] == "not_enough_models"
            assert "ARENA_MODELS=" in answer.json()["error"]
            assert "docs/providers.md" in answer.json()["error"]
            assert _page_says(container.url, "This arena has no model it can use"), command


# -- a real roster, a round, a vote, a stop, a restart --------------------------------------------


@dataclass
class Served:
    container: Container
    volume: str
    voted: dict[str, Any] = field(default_factory=dict)
    stopped: dict[str, Any] = field(default_factory=dict)
    exit_code: int | None = None


@pytest.fixture(scope="module")
def served_launch(containers: Containers, vendor: str, roster: Path) -> Served:
    """The image on the host's network with a mounted roster of the fake vendor's models."""
    volume = containers.volume("served")
    container = containers.new("served")
    container.run(
        "--network=host",
        "--env", f"PORT={container.port}",
        "--env", f"OPENAI_API_KEY={VENDOR_KEY}",
        "--env", f"OPENAI_BASE_URL={vendor}",
        "--volume", f"{roster}:/app/models.yaml:ro",
        "--volume", f"{volume}:/data",
        IMAGE,
    )  # fmt: skip
    return Served(container, volume)


@pytest.fixture(scope="module")
def served(served_launch: Served) -> Served:
    served_launch.container.wait_healthy()
    return served_launch


def test_health_the_page_its_assets_and_the_event_socket_answer(served: Served) -> None:
    url = served.container.url

    health = httpx.get(f"{url}/health", timeout=10)
    page = httpx.get(f"{url}/", timeout=10)
    assets = sorted(set(re.findall(r'(?:src|href)="(/[^"/][^"]*)"', page.text)))
    fetched = {
        asset: httpx.get(f"{url}{asset}", timeout=10, follow_redirects=True).status_code
        for asset in assets
    }

    assert health.status_code == 200 and health.json()["models"]["usable"] == 2
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert any(asset.endswith(".js") for asset in assets), assets
    assert set(fetched.values()) == {200}, fetched

    async def opens() -> str:
        socket_url = f"ws://127.0.0.1:{served.container.port}/_event/?EIO=4&transport=websocket"
        async with websockets.connect(socket_url) as socket:
            return str(await asyncio.wait_for(socket.recv(), 10))

    assert asyncio.run(opens()).startswith("0{")  # engine.io's open packet


def test_a_round_streams_both_slots_and_its_vote_reveals_the_models(served: Served) -> None:
    events = _round(served.container.url, "Which is larger, 9.11 or 9.9?")
    started = events[0][1]

    reveal = _vote(served.container.url, started)

    _both_slots_streamed(events)
    assert reveal.status_code == 200, reveal.text
    names = {reveal.json()["models"][slot]["displayName"] for slot in ("A", "B")}
    assert names == {"Fake gpt-one", "Fake gpt-two"}
    served.voted = started


def test_every_process_in_the_container_runs_as_the_arena_user(served: Served) -> None:
    processes = served.container.python_rows(
        "import pathlib\n"
        "for p in pathlib.Path('/proc').glob('[0-9]*/status'):\n"
        "    f = dict(l.split(':', 1) for l in p.read_text().splitlines() if ':' in l)\n"
        "    print(f['Name'].strip(), f['Uid'].split()[0])",
    )

    assert {name for name, _ in processes} >= {"arena", "postgres"}, processes
    assert {uid for _, uid in processes} == {"10001"}, processes


def test_the_server_maps_the_language_model_from_the_volume_and_stays_small(
    served: Served,
) -> None:
    """The prompts of the rounds above were classified with the narrowed language model mapped
    from the data volume (written there once, on the first start), and the server's processes
    (granian's main process and its worker) hold the memory the README gives for an idle
    server."""
    rows = served.container.python_rows(
        "import pathlib\n"
        "for p in pathlib.Path('/proc').glob('[0-9]*'):\n"
        "    try:\n"
        "        status = dict(l.split(':', 1) for l in (p / 'status').read_text().splitlines())\n"
        "        maps = (p / 'maps').read_text()\n"
        "    except OSError:\n"
        "        continue\n"
        "    if status['Name'].strip() != 'arena':\n"
        "        continue\n"
        "    mapped = '/data/.cache/arena/language-model-' in maps\n"
        "    print(status['Name'].strip(), status['VmRSS'].split()[0], mapped)\n"
        "print('home-cache', pathlib.Path('/home/arena/.cache/arena').exists())",
    )

    assert ["home-cache", "False"] in rows, rows
    servers = [row for row in rows if row[0] == "arena"]
    assert len(servers) == 2, rows
    assert any(mapped == "True" for _, _, mapped in servers), servers
    assert sum(int(rss) for _, rss, _ in servers) < 250 * 1024, servers


def test_the_token_secret_it_generated_is_kept_in_the_volume_for_its_user_only(
    served: Served,
) -> None:
    mode = served.container.podman(
        "exec", served.container.name, "stat", "-c", "%a %U", "/data/matchup-token-secret"
    ).stdout.split()

    assert mode == ["600", "arena"]


def test_the_image_health_check_passes_inside_the_container(served: Served) -> None:
    result = served.container.podman("healthcheck", "run", served.container.name, check=False)

    assert result.returncode == 0, result.stdout + result.stderr


def test_sigterm_during_a_slow_round_exits_0_and_keeps_the_round(served: Served) -> None:
    url = served.container.url
    first_token = threading.Event()
    outcome: dict[str, Any] = {}

    def stream() -> None:
        raw = ""
        body = {"prompt": "Tell me a long story", "sessionId": "image-test"}
        with httpx.stream("POST", f"{url}/api/arena/chat", json=body, timeout=60) as answer:
            for chunk in answer.iter_text():
                raw += chunk
                if "event: token" in raw:
                    first_token.set()
        outcome["events"] = parse_sse(raw)

    reader = threading.Thread(target=stream)
    reader.start()
    assert first_token.wait(60), served.container.logs()

    served.exit_code = served.container.stop()
    reader.join(60)

    assert served.exit_code == 0, served.container.logs()
    _both_slots_streamed(outcome["events"])
    served.stopped = outcome["events"][0][1]


def test_a_new_container_on_the_same_volume_keeps_the_vote_and_the_round(
    served: Served, containers: Containers, vendor: str
) -> None:
    assert served.voted and served.stopped, "the earlier tests of this module did not run"
    models = ",".join(f"openai:{m}=Fake {m.split('--')[0]}" for m in VENDOR_MODELS)
    again = containers.new("again")
    again.run(
        "--network=host",
        "--env", f"PORT={again.port}",
        "--env", f"OPENAI_API_KEY={VENDOR_KEY}",
        "--env", f"OPENAI_BASE_URL={vendor}",
        "--env", f"ARENA_MODELS={models}",
        "--volume", f"{served.volume}:/data",
        IMAGE,
    )  # fmt: skip

    health = again.wait_healthy()
    voted = httpx.get(f"{again.url}/api/arena/matchups/{served.voted['matchupId']}", timeout=10)
    thread = httpx.get(
        f"{again.url}/api/arena/conversations/{served.stopped['conversationId']}",
        params={"sessionId": "image-test"},
        timeout=10,
    )

    assert health["models"]["usable"] == 2  # the same two models, now named by ARENA_MODELS
    assert voted.status_code == 200 and voted.json()["vote"] == "left"
    (turn,) = thread.json()["turns"]
    assert [answer["slot"] for answer in turn["answers"]] == ["A", "B"]
    assert all(answer["content"].startswith("word0 word1") for answer in turn["answers"])


# -- compose's shape: replicas on one PostgreSQL and one Redis, and the rating worker -------------


class TcpRelay:
    """127.0.0.1:PORT relayed to the embedded PostgreSQL's Unix socket, which a container
    cannot open (its folder belongs to root, mode 700)."""

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._pipes: set[asyncio.Task[None]] = set()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_unix_connection(self.socket_path)
        for pipe in (self._pipe(reader, up_writer), self._pipe(up_reader, writer)):
            task = asyncio.create_task(pipe)
            self._pipes.add(task)
            task.add_done_callback(self._pipes.discard)

    async def _close(self) -> None:
        self._server.close()
        for task in list(self._pipes):
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    def __enter__(self) -> TcpRelay:
        self._thread.start()
        start = asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self._server = asyncio.run_coroutine_threadsafe(start, self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


@pytest.fixture(scope="module")
def compose_database(fresh_database: Any) -> Iterator[str]:
    """A fresh database on the test server, as a TCP URL a container on the host's network
    can use."""
    url = fresh_database()
    head, _, query = url.partition("?")
    database = head.rsplit("/", 1)[1]
    socket_dir = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("host")
    if socket_dir is None or not socket_dir.startswith("/"):
        yield url  # already TCP (ARENA_TEST_DATABASE_URL)
        return
    (socket,) = (p for p in Path(socket_dir).glob(".s.PGSQL.*") if p.suffix != ".lock")
    with TcpRelay(str(socket)) as relay:
        yield f"postgresql://postgres@127.0.0.1:{relay.port}/{database}"


def _compose_run_args(
    service: dict[str, Any], env: dict[str, str], volumes: dict[str, str]
) -> list[str]:
    """`podman run` arguments for a compose service: its environment (``env`` overriding what
    names compose's own hosts), its volumes (named ones mapped to the test's), its health check."""
    args = ["--network=host"]
    for name, value in {**service.get("environment", {}), **env}.items():
        args += ["--env", f"{name}={value}"]
    for mount in service.get("volumes", []):
        name, _, target = mount.partition(":")
        args += ["--volume", f"{volumes[name]}:{target}"]
    check = service.get("healthcheck")
    if check is None:
        pass
    elif check.get("disable"):
        args.append("--no-healthcheck")
    else:
        test = check["test"]
        args += ["--health-cmd", json.dumps(test[1:]) if test[0] == "CMD" else test[1]]
    return args


@dataclass
class ComposeFleet:
    replicas: list[Container]
    worker: Container


@pytest.fixture(scope="module")
def compose_fleet(
    containers: Containers,
    compose_database: str,
    tmp_path_factory: pytest.TempPathFactory,
    vendor: str,
) -> Iterator[ComposeFleet]:
    """compose.yaml's app replicas and rating worker, on the test's PostgreSQL and Redis."""
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    app, worker = compose["services"]["app"], compose["services"]["worker"]
    with RedisServer(tmp_path_factory.mktemp("redis")) as redis:
        env = {  # what .env would give them, and the hosts compose names
            "DATABASE_URL": compose_database,
            "REDIS_URL": redis.url,
            "ARENA_MODELS": ",".join(f"openai:{m}" for m in VENDOR_MODELS),
            "OPENAI_API_KEY": VENDOR_KEY,
            "OPENAI_BASE_URL": vendor,
            "RATING_MIN_INTERVAL_S": "1",
        }
        volumes = {"app-data": containers.volume("app-data")}
        replicas = [containers.new(f"app{i}") for i in range(app["deploy"]["replicas"])]
        for replica in replicas:
            args = _compose_run_args(app, {**env, "PORT": str(replica.port)}, volumes)
            replica.run(*args, IMAGE)
        rater = containers.new("worker")
        rater.run(*_compose_run_args(worker, env, volumes), IMAGE, *worker["command"])
        yield ComposeFleet(replicas, rater)
        containers.remove(*replicas, rater)  # before their Redis and PostgreSQL go


@pytest.fixture(scope="module", autouse=True)
def _every_container_starts_at_once(
    readme_containers: list[tuple[list[str], Container]],
    served_launch: Served,
    compose_fleet: ComposeFleet,
) -> None:
    """Each container's first start (initdb, migrations, the server) takes a while: they all
    start together, before the module's first test, and each test waits for its own."""


def test_compose_replicas_share_one_arena_and_the_worker_rates_its_votes(
    compose_fleet: ComposeFleet,
) -> None:
    replicas, rater = compose_fleet.replicas, compose_fleet.worker
    for replica in replicas:
        replica.wait_healthy()

    events = _round(replicas[0].url, "Name three prime numbers")
    reveal = _vote(replicas[1].url, events[0][1], vote="right")
    board: dict[str, Any] = {}
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        board = httpx.get(f"{replicas[1].url}/api/arena/leaderboard", timeout=10).json()
        if all(row.get("rating") is not None for row in board["models"]):
            break
        time.sleep(1)
    healthy = [
        replica.podman("healthcheck", "run", replica.name, check=False).returncode
        for replica in replicas
    ]

    _both_slots_streamed(events)
    assert reveal.status_code == 200, reveal.text
    assert healthy == [0] * len(replicas)
    assert rater.running, rater.logs()
    assert rater.inspect("{{json .Mounts}}") in ("[]", "null"), "the worker got a volume"
    assert rater.inspect("{{json .Config.Healthcheck}}") in ("null", "{}") or "NONE" in (
        rater.inspect("{{json .Config.Healthcheck}}")
    ), "the worker inherits a health check it cannot pass"
    assert all(row.get("rating") is not None for row in board["models"]), (board, rater.logs())
