"""Build the Reflex frontend only when its inputs changed.

The inputs are the UI sources (``arena_app/``), ``rxconfig.py``, ``assets/`` and the Reflex
version; their digest is stored beside the build. Node/bun are needed only here, never at run time.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

__all__ = [
    "ROOT",
    "build_frontend",
    "ensure_frontend",
    "frontend_digest",
    "is_frontend_fresh",
    "reflex_env",
]

ROOT = Path(__file__).resolve().parents[1]
_BUILD = ROOT / ".web" / "build" / "client"
_STAMP = ROOT / ".web" / "arena-build.digest"
#: Outside ``.web``, which a build may recreate.
_LOCK = ROOT / ".arena" / "frontend-build.lock"


def _inputs() -> list[Path]:
    files = [ROOT / "rxconfig.py"]
    for folder in (ROOT / "arena_app", ROOT / "assets"):
        files += sorted(
            p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
        )
    return files


def frontend_digest() -> str:
    digest = hashlib.sha256(f"reflex={version('reflex')}".encode())
    for path in _inputs():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def is_frontend_fresh() -> bool:
    return (
        (_BUILD / "index.html").is_file()
        and _STAMP.is_file()
        and _STAMP.read_text().strip() == frontend_digest()
    )


def reflex_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment Reflex needs here: bun from the project's tools folder, used as is."""
    env = dict(os.environ if base is None else base, REFLEX_USE_SYSTEM_BUN="1")
    tools = ROOT / ".arena" / "tools" / "node_modules" / ".bin"
    env["PATH"] = f"{tools}{os.pathsep}{env.get('PATH', '')}"
    return env


def build_frontend() -> float:
    """Compile the app and build the static frontend; returns the seconds it took.

    Raises:
        RuntimeError: the build failed; the message carries the tail of Reflex's output.
    """
    if not (ROOT / "rxconfig.py").is_file():
        # The package was imported from an installed copy (site-packages), not from the
        # project: Reflex would look for the app beside it. The image installs it editable.
        raise RuntimeError(
            f"the frontend is built from the project's folder, but arena_app was imported from "
            f"{ROOT}, which has no rxconfig.py: install the project in editable mode "
            "(`pip install -e .`) or run from its folder"
        )
    started = time.monotonic()
    env = reflex_env()
    env["REFLEX_ENV_MODE"] = "prod"
    result = subprocess.run(
        [sys.executable, "-m", "reflex", "export", "--frontend-only", "--no-zip", "--env", "prod"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0 or not (_BUILD / "index.html").is_file():
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"the frontend build failed:\n{tail}")
    _STAMP.write_text(frontend_digest())
    return time.monotonic() - started


def ensure_frontend() -> float | None:
    """Build when stale; returns the build's seconds, or ``None`` when the build was fresh.

    Two servers started at once from one folder (replicas on a shared volume, parallel test
    workers) would build into the same ``.web`` together: the second waits for the first's
    build (a lock on ``.arena/frontend-build.lock``), then finds it fresh.
    """
    if is_frontend_fresh():
        return None
    _LOCK.parent.mkdir(parents=True, exist_ok=True)
    with _LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return None if is_frontend_fresh() else build_frontend()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
