"""Signed links to a stored image: unguessable, bound to one arena session, and short-lived.

A link is ``/_arena/images/<sha256>?s=<session>&e=<expiry>&sig=<signature>``: ``expiry`` is
unix seconds and ``signature`` the unpadded base64url HMAC-SHA256 of ``sha256|session|expiry``
under a key derived from the server's secret (so a link's signature is never a valid vote token
signature, nor the other way round). The image's SHA-256 alone is not enough to fetch it: the
page that played the round holds the only links, and each names the session whose turns show
the image, which the server checks again against the stored rounds.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from urllib.parse import quote

__all__ = [
    "IMAGE_LINK_PATH",
    "image_link",
    "image_link_key",
    "image_signature",
    "is_image_sha256",
    "is_valid_image_signature",
]

#: Where a stored image is served (the route ``arena_api.routes.images``).
IMAGE_LINK_PATH = "/_arena/images/{sha256}"

_SHA256 = re.compile(r"[0-9a-f]{64}")
# A session id is the page's own uuid hex or an API client's string; a link never needs more.
_MAX_SESSION_CHARS = 256
_MAX_SIGNATURE_CHARS = 64


def image_link_key(secret: bytes) -> bytes:
    """The key that signs image links, derived from the server's secret."""
    return hmac.new(secret, b"arena-image-link", hashlib.sha256).digest()


def is_image_sha256(value: str) -> bool:
    """Whether ``value`` is a stored image's name: 64 lowercase hex digits."""
    return _SHA256.fullmatch(value) is not None


def image_signature(key: bytes, sha256: str, session_id: str, expires: int) -> str:
    """The signature of one link (``key`` from :func:`image_link_key`)."""
    message = f"{sha256}|{session_id}|{expires}".encode()
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def image_link(key: bytes, sha256: str, session_id: str, expires: int) -> str:
    """The path and query of a signed link to the image ``sha256`` for ``session_id``."""
    signature = image_signature(key, sha256, session_id, expires)
    return (
        IMAGE_LINK_PATH.format(sha256=sha256)
        + f"?s={quote(session_id, safe='')}&e={expires}&sig={signature}"
    )


def is_valid_image_signature(
    key: bytes, sha256: str, session_id: str, expires: str, signature: str, now: float
) -> bool:
    """Whether a link's parts are well formed, signed by ``key`` and not past their expiry.

    Every part arrives as text from a query string; anything malformed is simply not valid
    (a caller answers it as it answers a wrong signature, never saying which part failed).
    """
    if not is_image_sha256(sha256) or not 0 < len(session_id) <= _MAX_SESSION_CHARS:
        return False
    if not expires.isdigit() or len(expires) > 12 or len(signature) > _MAX_SIGNATURE_CHARS:
        return False
    expected = image_signature(key, sha256, session_id, int(expires))
    if not hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace")):
        return False
    return int(expires) > now
