"""What the serving worker leaves unimported until a request needs it: each of these is memory
every worker would hold for a feature many arenas never use (issue #39)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Top-level packages and who loads them when.
LAZY = {
    "PIL": "the first image (LazyPillowCodec, the UI's thumbnail)",
    "phonenumbers": "an export that scrubs text",
    "authlib": "OpenID Connect sign-in, when ARENA_OIDC_ISSUER is set",
    "joserfc": "OpenID Connect sign-in, when ARENA_OIDC_ISSUER is set",
    "alembic": "migrations, which `arena serve` runs before the server starts",
    "mako": "migrations (Alembic's templates)",
    "pyarrow": "a Parquet export",
    "scipy": "the rating process, never the server",
}


def test_the_worker_imports_no_heavy_module_before_it_is_used() -> None:
    probe = (
        "import json, sys\n"
        "import arena_app.arena_app\n"
        "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    packages = set(json.loads(loaded.stdout.splitlines()[-1]))

    assert {name: why for name, why in LAZY.items() if name in packages} == {}
