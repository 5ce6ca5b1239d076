"""A real ``arena serve`` for the Python client's tests, and a TCP relay that can cut a
connection mid-answer (a network drop, on real sockets)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from e2e.conftest import _serving
from tests.support import ProductProcess

#: The guarded arena's API token.
TOKEN = "client-test-token-of-enough-length"


@pytest.fixture(scope="session")
def client_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """The mock roster streaming for about half a second a round (time to stop or steer one)."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("client"),
        ARENA_MOCK_TOKENS_PER_SECOND="100",
        ARENA_MOCK_TOKENS="50",
    )


@pytest.fixture(scope="session")
def guarded_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """An arena that needs a token and takes two rounds or votes a second per client."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("guarded"),
        ARENA_API_TOKENS=TOKEN,
        ARENA_RATE_LIMIT="2/second",
    )


class DroppingRelay:
    """Forwards loopback TCP connections to ``target``; ``cut_after`` bytes of an answer, it
    closes both sides at once, as a dropped network would."""

    def __init__(self, target_port: int, cut_after: int | None = None, port: int = 0) -> None:
        self.target_port, self.cut_after = target_port, cut_after
        self.listener = socket.create_server(("127.0.0.1", port))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=self._pipe, args=(client, server, None), daemon=True).start()
            threading.Thread(
                target=self._pipe, args=(server, client, self.cut_after), daemon=True
            ).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, limit: int | None) -> None:
        sent = 0
        with contextlib.suppress(OSError):
            while chunk := source.recv(4096):
                if limit is not None and sent + len(chunk) > limit:
                    sink.sendall(chunk[: limit - sent])
                    self.cuts += 1
                    break
                sink.sendall(chunk)
                sent += len(chunk)
        for side in (source, sink):
            with contextlib.suppress(OSError):
                side.shutdown(socket.SHUT_RDWR)
            side.close()

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def relay_to(client_product: ProductProcess) -> Iterator[Callable[[int], DroppingRelay]]:
    relays: list[DroppingRelay] = []

    def make(cut_after: int) -> DroppingRelay:
        relays.append(DroppingRelay(client_product.port, cut_after))
        return relays[-1]

    yield make
    for relay in relays:
        relay.close()


def client_path() -> Path:
    return Path(__file__).resolve().parents[2] / "clients" / "python"
