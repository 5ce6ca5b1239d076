"""Fetch an image by ``http(s)`` URL without letting the URL reach inside the network.

``GuardedFetcher`` is ``arena_api.core.ports.ImageFetcher`` (``ARENA_ALLOW_IMAGE_URLS=1``). A URL
someone else wrote is a request the server makes on their behalf (server-side request forgery),
so each hop is checked before a byte is sent:

- the scheme is ``http`` or ``https``;
- the host is resolved once, and *every* address it resolves to must be public: none private,
  loopback, link-local (the cloud metadata address 169.254.169.254), reserved, multicast or
  unspecified, nor an IPv6 address carrying such an IPv4 address (mapped, 6to4, NAT64);
- the connection goes to the address that was checked, never to a second lookup of the name, so
  a name that answers differently the next time (DNS rebinding) cannot swap it. The request keeps
  the name in its ``Host`` header and in TLS (SNI and the certificate's check);
- a redirect is followed by hand, at most ``max_redirects`` times, each target checked again;
- the body is read as a stream and dropped past ``ImageLimits.max_bytes``; the whole fetch, lookups
  and redirects included, has one deadline.

Refusals (``arena_api.core.media``): ``image_url_refused`` (scheme, address), ``image_too_large``
(413, the body's size), ``image_fetch_failed`` (no answer, a timeout, a status other than 2xx,
too many redirects, an encoded body).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
from collections.abc import Callable

import httpx

from arena_api.core.media import ImageError, ImageLimits, check_size

__all__ = ["Address", "GuardedFetcher", "is_public_address"]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def is_public_address(address: Address) -> bool:
    """Whether ``address`` is one the open internet routes to, and none of the kinds a fetch may
    never reach. An IPv6 address carrying an IPv4 one (mapped, 6to4, NAT64) is judged by the IPv4
    one, which is what it reaches; a Teredo tunnel is never public here."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.teredo is not None:
            return False
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public_address(embedded)
    return address.is_global and not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
    )


class GuardedFetcher:
    """``arena_api.core.ports.ImageFetcher`` that reaches public addresses only.

    Args:
        limits: ``max_bytes`` caps the body read.
        timeout_s: the deadline of one whole fetch (lookups, redirects and body).
        max_redirects: redirects followed before the fetch fails.
        allow_address: says yes to an address the guard would refuse (tests serve images on
            127.0.0.1); it is asked first, and a public address needs no yes.
        ssl_context: the certificates trusted for ``https`` (default: httpx's, certifi's).
    """

    def __init__(
        self,
        limits: ImageLimits,
        *,
        timeout_s: float = 10.0,
        max_redirects: int = 3,
        allow_address: Callable[[Address], bool] | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._limits = limits
        self._verify: ssl.SSLContext | bool = True if ssl_context is None else ssl_context
        self._timeout_s = timeout_s
        self._max_redirects = max_redirects
        self._allow_address = allow_address

    async def fetch(self, url: str, field: str) -> bytes:
        """The bytes at ``url``.

        Raises:
            ImageError: ``image_url_refused``, ``image_too_large``, ``image_fetch_failed``.
        """
        try:
            async with asyncio.timeout(self._timeout_s):
                return await self._follow(url, field)
        except TimeoutError:
            raise _failed(field, f"no answer within {self._timeout_s:g} s") from None

    async def _follow(self, url: str, field: str) -> bytes:
        try:
            current = httpx.URL(url)
        except (httpx.InvalidURL, TypeError, ValueError):
            raise _refused(field, "not a valid URL") from None
        # No proxy from the environment: the connection must go to the address checked here.
        async with httpx.AsyncClient(
            trust_env=False, follow_redirects=False, timeout=self._timeout_s, verify=self._verify
        ) as client:
            for _ in range(self._max_redirects + 1):
                address = await self._checked_address(current, field)
                answer = await self._get(client, current, address, field)
                if isinstance(answer, bytes):
                    return answer
                current = answer  # a redirect, checked again at the top
        raise _failed(field, f"more than {self._max_redirects} redirects")

    async def _checked_address(self, url: httpx.URL, field: str) -> Address:
        """The address to connect to for ``url``, after every address of its host passed."""
        if url.scheme not in ("http", "https"):
            raise _refused(field, "only http and https URLs are fetched")
        host = url.raw_host.decode("ascii")
        if not host:
            raise _refused(field, "the URL has no host")
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM
            )
        except (OSError, UnicodeError):
            raise _failed(field, f"the host {host} could not be resolved") from None
        addresses: list[Address] = []
        for *_, sockaddr in infos:
            # An IPv6 link-local address comes with its zone (fe80::1%eth0).
            address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
            if not self._is_allowed(address):
                raise _refused(field, f"{host} resolves to a non-public address")
            addresses.append(address)
        if not addresses:
            raise _failed(field, f"the host {host} could not be resolved")
        return addresses[0]

    def _is_allowed(self, address: Address) -> bool:
        if self._allow_address is not None and self._allow_address(address):
            return True
        return is_public_address(address)

    async def _get(
        self, client: httpx.AsyncClient, url: httpx.URL, address: Address, field: str
    ) -> bytes | httpx.URL:
        """The body at ``url`` fetched from ``address``, or the URL it redirects to."""
        host = url.raw_host.decode("ascii")
        pinned = url.copy_with(host=str(address))
        request = client.build_request(
            "GET",
            pinned,
            headers={"Host": url.netloc.decode("ascii"), "Accept-Encoding": "identity"},
            extensions={"sni_hostname": host},
        )
        try:
            response = await client.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise _failed(field, type(exc).__name__) from None
        try:
            if response.status_code in _REDIRECTS and "location" in response.headers:
                try:
                    return url.join(response.headers["location"])
                except (httpx.InvalidURL, ValueError):
                    raise _refused(field, "a redirect to an invalid URL") from None
            if not 200 <= response.status_code < 300:
                raise _failed(field, f"the server answered {response.status_code}")
            encoding = response.headers.get("content-encoding", "identity").strip().lower()
            if encoding not in ("", "identity"):
                raise _failed(field, f"an encoded body ({encoding[:40]})")
            declared = response.headers.get("content-length", "")
            if declared.isdigit():
                check_size(int(declared), self._limits, field)
            return await self._read(response, field)
        except httpx.HTTPError as exc:
            raise _failed(field, type(exc).__name__) from None
        finally:
            await response.aclose()

    async def _read(self, response: httpx.Response, field: str) -> bytes:
        body = bytearray()
        async for chunk in response.aiter_raw():
            body += chunk
            # Stops reading the moment the body is over the limit, whatever it declared.
            check_size(len(body), self._limits, field)
        return bytes(body)


def _refused(field: str, why: str) -> ImageError:
    return ImageError(f"{field}: {why}", code="image_url_refused", field=field)


def _failed(field: str, why: str) -> ImageError:
    return ImageError(
        f"{field}: the image could not be fetched ({why})", code="image_fetch_failed", field=field
    )
