"""The guarded fetch of an image by URL (``arena_api.media.fetch``), against a real HTTP server on
127.0.0.1: loopback is refused unless a test allows it, and so are private, link-local and
non-http URLs, redirects into them, oversize bodies, timeouts and failed statuses."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from arena_api.core.media import ImageError, ImageLimits
from arena_api.media.fetch import Address, GuardedFetcher, is_public_address
from tests.support import ServerThread, free_port

LIMITS = ImageLimits(max_bytes=4096, allow_urls=True)
PICTURE = b"\x89PNG\r\n\x1a\n" + b"p" * 100
LOOPBACK = ipaddress.ip_address("127.0.0.1")


def _only_loopback(address: Address) -> bool:
    return address == LOOPBACK


async def _picture(request: Request) -> Response:
    return Response(PICTURE, media_type="image/png")


async def _host(request: Request) -> Response:
    return Response(request.headers["host"].encode())


async def _redirect(request: Request) -> Response:
    return RedirectResponse(request.query_params["to"], status_code=302)


async def _hops(request: Request) -> Response:
    left = int(request.path_params["left"])
    return RedirectResponse("/picture.png" if left == 0 else f"/hops/{left - 1}")


async def _endless(request: Request) -> Response:
    async def chunks() -> AsyncIterator[bytes]:
        while True:
            yield b"x" * 1024
            await asyncio.sleep(0)

    return StreamingResponse(chunks(), media_type="image/png")


async def _declared_large(request: Request) -> Response:
    return Response(b"x" * 10_000, media_type="image/png")


async def _slow(request: Request) -> Response:
    await asyncio.sleep(5)
    return Response(PICTURE)


async def _gzipped(request: Request) -> Response:
    return Response(b"\x1f\x8b", headers={"content-encoding": "gzip"})


def _app() -> Starlette:
    return Starlette(
        routes=[
            Route("/picture.png", _picture),
            Route("/host", _host),
            Route("/redirect", _redirect),
            Route("/hops/{left}", _hops),
            Route("/endless", _endless),
            Route("/large", _declared_large),
            Route("/slow", _slow),
            Route("/gzipped", _gzipped),
        ]
    )


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with ServerThread(_app(), free_port()) as running:
        yield running.url


@pytest.fixture
def fetcher() -> GuardedFetcher:
    """A fetcher that may reach 127.0.0.1 (the test server) and nothing else non-public."""
    return GuardedFetcher(LIMITS, timeout_s=2.0, allow_address=_only_loopback)


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for the DNS name ``name``: (certificate, key) files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / f"{name}.pem", folder / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """An https server on 127.0.0.1 whose certificate names ``localhost``: (port, its cert)."""
    cert_file, key_file = _certificate(tmp_path_factory.mktemp("tls"), "localhost")
    port = free_port()
    config = uvicorn.Config(
        _app(),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ssl_certfile=str(cert_file),
        ssl_keyfile=str(key_file),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the TLS server did not start"
        time.sleep(0.02)
    yield str(port), cert_file
    server.should_exit = True
    thread.join(timeout=10)


async def _refusal(fetcher: GuardedFetcher, url: str) -> ImageError:
    with pytest.raises(ImageError) as caught:
        await fetcher.fetch(url, "images[0]")
    return caught.value


async def test_a_public_fetcher_refuses_the_loopback_server(server: str) -> None:
    error = await _refusal(GuardedFetcher(LIMITS), f"{server}/picture.png")

    assert (error.code, error.status, error.field) == ("image_url_refused", 400, "images[0]")


async def test_an_allowed_address_is_fetched(server: str, fetcher: GuardedFetcher) -> None:
    data = await fetcher.fetch(f"{server}/picture.png", "images[0]")

    assert data == PICTURE


async def test_the_request_keeps_the_host_name_while_connecting_to_the_checked_address(
    server: str,
) -> None:
    """``localhost`` is resolved and checked once; the server still reads the name in ``Host``."""
    port = server.rsplit(":", 1)[1]
    asked: list[Address] = []

    def allow(address: Address) -> bool:
        asked.append(address)
        return address.is_loopback

    data = await GuardedFetcher(LIMITS, allow_address=allow).fetch(
        f"http://localhost:{port}/host", "images[0]"
    )

    assert data == f"localhost:{port}".encode()
    assert asked and all(a.is_loopback for a in asked)


async def test_a_name_that_resolves_to_loopback_is_refused(server: str) -> None:
    port = server.rsplit(":", 1)[1]

    error = await _refusal(GuardedFetcher(LIMITS), f"http://localhost:{port}/picture.png")

    assert (error.code, error.status) == ("image_url_refused", 400)


async def test_https_checks_the_certificate_against_the_name_while_connecting_to_the_address(
    tls_server: tuple[str, Path],
) -> None:
    """The connection goes to the checked 127.0.0.1, and TLS still names ``localhost`` (SNI and
    the certificate's check), as does the ``Host`` header."""
    port, cert_file = tls_server
    trusted = ssl.create_default_context(cafile=str(cert_file))
    fetcher = GuardedFetcher(LIMITS, allow_address=_only_loopback, ssl_context=trusted)

    data = await fetcher.fetch(f"https://localhost:{port}/host", "images[0]")

    assert data == f"localhost:{port}".encode()


async def test_https_to_a_name_the_certificate_does_not_hold_fails_the_fetch(
    tls_server: tuple[str, Path],
) -> None:
    """A trusted certificate for ``localhost`` does not pass for ``127.0.0.1``."""
    port, cert_file = tls_server
    trusted = ssl.create_default_context(cafile=str(cert_file))
    fetcher = GuardedFetcher(LIMITS, allow_address=_only_loopback, ssl_context=trusted)

    error = await _refusal(fetcher, f"https://127.0.0.1:{port}/host")

    assert (error.code, error.status) == ("image_fetch_failed", 400)


async def test_https_to_an_untrusted_certificate_fails_the_fetch(
    tls_server: tuple[str, Path],
) -> None:
    port, _ = tls_server

    error = await _refusal(
        GuardedFetcher(LIMITS, allow_address=_only_loopback), f"https://localhost:{port}/host"
    )

    assert error.code == "image_fetch_failed"


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("http://10.0.0.1/a.png", id="private"),
        pytest.param("http://169.254.169.254/latest/meta-data/", id="cloud-metadata"),
        pytest.param("http://[::1]/a.png", id="ipv6-loopback"),
        pytest.param("http://[::ffff:10.0.0.1]/a.png", id="ipv4-mapped-private"),
        pytest.param("http://127.0.0.2/a.png", id="other-loopback"),
        pytest.param("http://0.0.0.0/a.png", id="unspecified"),
        pytest.param("file:///etc/passwd", id="file"),
        pytest.param("ftp://example.com/a.png", id="ftp"),
        pytest.param("gopher://example.com/", id="gopher"),
        pytest.param("http:///a.png", id="no-host"),
    ],
)
async def test_a_url_that_may_not_be_reached_is_refused(fetcher: GuardedFetcher, url: str) -> None:
    error = await _refusal(fetcher, url)

    assert (error.code, error.status) == ("image_url_refused", 400)


@pytest.mark.parametrize(
    "target",
    [
        pytest.param("http://127.0.0.2/a.png", id="loopback"),
        pytest.param("http://169.254.169.254/latest/meta-data/", id="cloud-metadata"),
        pytest.param("http://10.1.2.3/a.png", id="private"),
        pytest.param("file:///etc/passwd", id="file"),
    ],
)
async def test_a_redirect_into_a_refused_target_is_refused(
    server: str, fetcher: GuardedFetcher, target: str
) -> None:
    error = await _refusal(fetcher, f"{server}/redirect?to={target}")

    assert (error.code, error.status) == ("image_url_refused", 400)


async def test_redirects_are_followed_up_to_the_limit(server: str, fetcher: GuardedFetcher) -> None:
    data = await fetcher.fetch(f"{server}/hops/2", "images[0]")

    assert data == PICTURE


async def test_one_redirect_too_many_fails_the_fetch(server: str, fetcher: GuardedFetcher) -> None:
    error = await _refusal(fetcher, f"{server}/hops/3")

    assert (error.code, error.status) == ("image_fetch_failed", 400)


@pytest.mark.parametrize("path", [pytest.param("/endless", id="streamed"), "/large"])
async def test_a_body_over_the_limit_is_refused_without_reading_it_all(
    server: str, fetcher: GuardedFetcher, path: str
) -> None:
    error = await _refusal(fetcher, f"{server}{path}")

    assert (error.code, error.status) == ("image_too_large", 413)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/nothing-here.png", id="404"),
        pytest.param("/gzipped", id="encoded-body"),
    ],
)
async def test_a_failed_answer_fails_the_fetch(
    server: str, fetcher: GuardedFetcher, path: str
) -> None:
    error = await _refusal(fetcher, f"{server}{path}")

    assert (error.code, error.status) == ("image_fetch_failed", 400)


async def test_a_slow_server_fails_the_fetch_at_the_deadline(server: str) -> None:
    fetcher = GuardedFetcher(LIMITS, timeout_s=0.3, allow_address=_only_loopback)

    error = await _refusal(fetcher, f"{server}/slow")

    assert (error.code, error.status) == ("image_fetch_failed", 400)


async def test_an_unresolvable_host_fails_the_fetch(fetcher: GuardedFetcher) -> None:
    error = await _refusal(fetcher, "http://no-such-host.invalid/a.png")

    assert error.code == "image_fetch_failed"


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2001:4860:4860::8888", True),
        ("127.0.0.1", False),
        ("10.0.0.1", False),
        ("172.16.5.4", False),
        ("192.168.1.1", False),
        ("100.64.0.1", False),  # shared address space (carrier-grade NAT)
        ("169.254.169.254", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("255.255.255.255", False),
        ("::1", False),
        ("::", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("ff02::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:8.8.8.8", True),
        ("2002:a00:1::", False),  # 6to4 of 10.0.0.1
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 of 169.254.169.254
        ("64:ff9b::808:808", True),  # NAT64 of 8.8.8.8
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo
    ],
)
def test_only_public_addresses_are_public(address: str, public: bool) -> None:
    assert is_public_address(ipaddress.ip_address(address)) is public
