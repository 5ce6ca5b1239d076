"""Helpers the tests and benchmarks share: free ports, settings for a test database, a server in a
thread, the product in a child process, the browser to drive."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import httpx
import socketio
import uvicorn

from arena_api.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")

# Debian's chromium (never a downloaded browser), headless in a container.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, even inside a running event loop."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def run_cli(
    args: tuple[str, ...], env: dict[str, str], *, text: bool = True, timeout: float = 120
) -> Any:
    """``arena ARGS`` in a child process from the project folder, with ``env`` over this
    process's environment minus every ``ARENA_*`` and ``MATCHUP_*`` variable."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "MATCHUP_"))}
    return subprocess.run(
        [sys.executable, "-m", "arena_api", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=text,
        timeout=timeout,
        check=False,
    )


def npm_ci(folder: Path) -> Path:
    """``folder`` with the packages its ``package-lock.json`` locks installed: ``npm ci`` when
    ``node_modules`` is missing or was installed from another lock (a stamp of the lock's
    SHA-256 says which)."""
    stamp = folder / "node_modules" / ".arena-lock-sha256"
    lock = hashlib.sha256((folder / "package-lock.json").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().strip() != lock:
        npm = shutil.which("npm")
        assert npm is not None, f"npm is needed to install {folder} (node is installed)"
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
            check=True,
            timeout=600,
        )
        stamp.write_text(lock)
    return folder


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_settings(database_url: str, **overrides: str) -> Settings:
    env = {
        "DATABASE_URL": database_url,
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_MODELS_FILE": str(ROOT / "models.yaml"),
        **overrides,
    }
    return load_settings(env)


class ServerThread:
    """A real uvicorn server on a loopback port, in a thread of the test process."""

    def __init__(self, app: object, port: int) -> None:
        # proxy_headers off: the product's server (granian) believes no forwarded header of
        # its own; only ARENA_TRUST_PROXY does, and the tests must see that alone.
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            lifespan="on",
            proxy_headers=False,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"http://127.0.0.1:{port}"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


class ProductProcess:
    """``arena serve`` (prod, single port) as a child process, stopped with SIGTERM."""

    def __init__(self, env: dict[str, str], port: int, log: Path) -> None:
        self.env, self.port, self.log = env, port, log
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 600) -> ProductProcess:
        env = {**os.environ, **self.env, "PORT": str(self.port)}
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "arena_api", "serve"],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"arena serve exited:\n{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"arena serve never became healthy:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


class RedisServer:
    """Debian's ``redis-server`` on a free loopback port, keeping nothing on disk."""

    BINARY = "/usr/bin/redis-server"

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> RedisServer:
        args = [self.BINARY, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--save", "", "--appendonly", "no", "--dir", str(self.folder)]
        with (self.folder / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock,
            ):
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return self
            time.sleep(0.05)
        self.__exit__()
        raise RuntimeError("redis-server did not start")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)


class NginxServer:
    """Debian's ``nginx`` on a free loopback port with one ``server`` block (a file under
    ``deploy/``), its own prefix folder, and ``reload`` for a changed block."""

    BINARY = "/usr/sbin/nginx"

    def __init__(self, folder: Path, server: str) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        for temp in ("client", "proxy", "fastcgi", "uwsgi", "scgi"):
            (folder / temp).mkdir(parents=True, exist_ok=True)
        self._write(server)

    def _write(self, server: str) -> None:
        server = server.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        user = "user root;" if os.geteuid() == 0 else ""
        folder = self.folder
        (folder / "nginx.conf").write_text(
            f"""{user}
worker_processes 1;
worker_shutdown_timeout 1s;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/client;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
{server}
}}
"""
        )

    def __enter__(self) -> NginxServer:
        conf = str(self.folder / "nginx.conf")
        self.process = subprocess.Popen(
            [self.BINARY, "-p", str(self.folder), "-c", conf, "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(f"nginx never proxied /health:\n{self.errors()}")
            time.sleep(0.2)

    def reload(self, server: str) -> None:
        """Serve ``server`` from now on; connections of the old block close within 1 s."""
        assert self.process is not None
        self._write(server)
        self.process.send_signal(signal.SIGHUP)

    def errors(self) -> str:
        log = self.folder / "error.log"
        return log.read_text() if log.exists() else ""

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def parse_sse(raw: str) -> list[tuple[str, dict[str, Any]]]:
    """Native SSE frames as (event name, JSON data); comments (pings) skipped."""
    frames = []
    for block in raw.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if name and data:
            frames.append((name, json.loads("\n".join(data))))
    return frames


class EventSocket:
    """A bare Socket.IO client on the page's event socket (``/_event``), linked to a session
    token as a page's is; it keeps the new tokens the server hands it (a duplicated tab's)."""

    def __init__(self, product: ProductProcess, token: str) -> None:
        self.url = f"{product.url}?token={token}"
        self.client = socketio.AsyncClient(reconnection=False)
        self.new_tokens: list[str] = []
        self.client.on("new_token", self.new_tokens.append, namespace="/_event")

    async def __aenter__(self) -> EventSocket:
        await self.client.connect(
            self.url,
            socketio_path="/_event",
            namespaces=["/_event"],
            transports=["websocket"],
            wait_timeout=10,
        )
        await asyncio.sleep(0.2)  # a new token comes with the connect; its handler runs apart
        return self

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            await self.client.disconnect()


async def reconnect_early(old: ProductProcess, new: ProductProcess, token: str) -> list[str]:
    """A page's socket reconnects (to ``new``) while its old one (to ``old``) is still open, and
    the old one closes half a second later, as a moved socket's does: the new tokens the new
    socket was handed (none: it kept its session)."""
    async with EventSocket(old, token):
        arriving = asyncio.create_task(EventSocket(new, token).__aenter__())
        await asyncio.sleep(0.5)
    arrived = await arriving
    await arrived.__aexit__()
    return arrived.new_tokens


async def open_twice(first: ProductProcess, second: ProductProcess, token: str) -> list[str]:
    """Two tabs with one token, both open (a duplicated tab): the new tokens the second got."""
    async with EventSocket(first, token) as one, EventSocket(second, token) as twin:
        assert one.new_tokens == []
    return twin.new_tokens
