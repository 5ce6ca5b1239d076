"""The deployment's keys: the secret that signs vote tokens, and the salt of exported sessions.

One rule finds the token secret for every process that needs it: the server (``arena serve``
and each of its workers), ``arena suite run`` (its rounds are voted by the judge) and
``arena export`` (its session hashes are salted with a key derived from the secret unless
``ARENA_EXPORT_SALT`` is set). The first of:

1. ``MATCHUP_TOKEN_SECRET``;
2. the file ``MATCHUP_TOKEN_SECRET_FILE`` names (the container keeps one in its ``/data``
   volume), created with a random secret when absent;
3. on a development machine (``ARENA_ENV=development``), the development secret in
   ``<ARENA_DATA_DIR>/dev-token-secret``: made only where ``ARENA_ALLOW_DEV_SECRET=1`` allows it
   (``make run`` does), then found by every later command of that data dir, so an export from
   the command line names each session as ``GET /api/arena/export`` of the running server does.

Nothing else is guessed: in production, without 1 or 2, a command that needs the secret stops
with one line naming what to set. Every other command (``db``, ``rate``, ``settings``, ...)
never asks for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from arena_api.core.tokens import generate_dev_secret
from arena_api.settings import Settings, SettingsError

__all__ = ["DEV_SECRET_FILE", "export_salt", "secret_from_file", "token_secret", "uses_dev_secret"]

#: The development secret's file in ``ARENA_DATA_DIR``.
DEV_SECRET_FILE = "dev-token-secret"


def secret_from_file(path: Path) -> str:
    """The secret kept in ``path``, creating it (mode 600, 256 random bits) when absent.

    Replicas sharing the file's volume may start together: the secret is written to a file of
    this process's own and linked into place, which only one of them can do, so every one reads
    the same complete secret.

    Raises:
        OSError: the file cannot be read or created.
    """
    _keep(path, secrets.token_hex(32) + "\n")
    return path.read_text().strip()


def _keep(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless a file is there already; never a half-written file."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as out:
            out.write(text)
        with contextlib.suppress(FileExistsError):  # another process was first
            os.link(draft, path)
    finally:
        draft.unlink()


def token_secret(settings: Settings) -> bytes:
    """The key that signs vote tokens, found by the module's rule.

    Raises:
        SettingsError: no secret is set, and none may be made or found here (the message
            names what to set).
        OSError: ``MATCHUP_TOKEN_SECRET_FILE`` or the development secret cannot be read or
            created.
    """
    if settings.matchup_token_secret is not None:
        return settings.matchup_token_secret.reveal().encode()
    if settings.matchup_token_secret_file is not None:
        # Encoded as `arena serve` hands it to its workers: the file's text, as the variable.
        return secret_from_file(settings.matchup_token_secret_file).encode()
    if settings.env == "production":
        raise SettingsError(
            "MATCHUP_TOKEN_SECRET",
            "",
            "required when ARENA_ENV=production (or MATCHUP_TOKEN_SECRET_FILE, a file where "
            "`arena serve` keeps one)",
        )
    path = settings.data_dir / DEV_SECRET_FILE
    if not path.exists() and not settings.allow_dev_secret:
        raise SettingsError(
            "MATCHUP_TOKEN_SECRET",
            "",
            "required (at least 16 characters) unless ARENA_ALLOW_DEV_SECRET=1",
        )
    _keep(path, generate_dev_secret().hex())
    return bytes.fromhex(path.read_text().strip())


def uses_dev_secret(settings: Settings) -> bool:
    """Whether :func:`token_secret` gives the development secret (when it gives one at all):
    a server says so in its log at start."""
    return settings.matchup_token_secret is None and settings.matchup_token_secret_file is None


def export_salt(settings: Settings, secret: bytes | None = None) -> bytes:
    """``ARENA_EXPORT_SALT``, or one derived from the token secret (stable for the deployment,
    so one session keeps one name across exports, from the API and the command line alike).

    Args:
        settings: the deployment's settings.
        secret: the token secret, when the caller holds it already; otherwise it is found by
            the module's rule, and only when no salt is set.

    Raises:
        SettingsError: no salt is set and no token secret is found (the message names both).
        OSError: as :func:`token_secret`.
    """
    if settings.export_salt is not None:
        return settings.export_salt.reveal().encode()
    if secret is None:
        try:
            secret = token_secret(settings)
        except SettingsError as exc:
            raise SettingsError(
                exc.name,
                exc.value,
                f"{exc.allowed}; or set ARENA_EXPORT_SALT, the salt of the exported sessions",
            ) from None
    return hmac.new(secret, b"arena-export-salt", hashlib.sha256).digest()
