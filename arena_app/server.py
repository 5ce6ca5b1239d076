"""Run the built UI and the API on one port, as Reflex's production server does, minus the rebuild.

``reflex run --env prod`` recompiles and rebuilds the frontend on every start. ``arena serve``
builds only when the sources changed (see ``arena_app.build``) and then starts this module:
granian serving ``arena_app.arena_app:app`` with the compiled frontend mounted last.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m arena_app.server")
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args(argv)

    root = Path(__file__).resolve().parents[1]
    os.chdir(root)
    sys.path.insert(0, str(root))
    os.environ["REFLEX_ENV_MODE"] = "prod"

    from reflex.utils import exec as reflex_exec
    from reflex_base.constants import LogLevel
    from reflex_base.environment import environment

    # The build (`arena build-ui`, or `arena serve` when the sources changed) compiled the app
    # and left what the backend needs in .web/backend: the workers skip compiling it again,
    # which would take seconds and need bun (the container image has none). The variable's
    # name is Reflex's own (an internal one, prefixed), so it is set through Reflex.
    environment.REFLEX_SKIP_COMPILE.set(True)
    # One worker process per server. Reflex starts 2 x cores + 1 when it sees Redis, but a
    # server's metrics, its rounds in flight and its supervised rating process belong to one
    # process; with REDIS_URL an arena scales out by replicas instead (each one process).
    os.environ.setdefault("GRANIAN_WORKERS", "1")

    reflex_exec.run_backend_prod(
        args.host, args.port, LogLevel(args.log_level), mount_frontend_compiled_app=True
    )


if __name__ == "__main__":
    main()
