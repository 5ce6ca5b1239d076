"""The dependency rules of DESIGN.md and STYLE.md §2, checked on the import statements."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

STDLIB = sys.stdlib_module_names

#: The shared kernel: the core modules the rating process imports besides the schema. ``core``
#: is pure, so each of them is too; the test below keeps their own imports inside the kernel.
KERNEL = (
    "arena_api.core.boards",
    "arena_api.core.lifecycle",
    "arena_api.core.populations",
    "arena_api.core.scale",
    "arena_api.core.sides",
    "arena_api.core.style_features",
)
# What the kernel itself builds on (the Board's checks).
KERNEL_DEPENDENCIES = ("arena_api.core.categories", "arena_api.core.errors")

# package -> top-level imports it may use besides the standard library
RULES: dict[str, tuple[str, ...]] = {
    # typing_extensions (pydantic's own dependency): its TypedDict, which pydantic needs on 3.11.
    # phonenumbers: libphonenumber's rules, pure text like the scrubber that uses them.
    "arena_api/core": ("pydantic", "typing_extensions", "phonenumbers", "arena_api.core"),
    "arena_api/protocols": (
        "pydantic",
        "typing_extensions",
        "arena_api.core",
        "arena_api.protocols",
    ),
    "arena_api/providers": (
        "aiohttp",
        "arena_api.core",
        "arena_api.providers",
        "arena_api.settings",
    ),
    # Thin endpoints: no SQL, no driver; what they need of the database is a service's port.
    "arena_api/routes": (
        "starlette",
        "sse_starlette",
        "arena_api.core",
        "arena_api.services",
        "arena_api.protocols",
        "arena_api.routes",
        "arena_api.openapi",
    ),
    # The use cases reach the database, providers and Redis through ports (``core.ports``, the
    # container's): no SQL, no driver, no HTTP client or framework, no adapter package.
    "arena_api/services": (
        "pydantic",
        "arena_api.core",
        "arena_api.services",
        "arena_api.settings",
        "arena_api.suites",
        "arena_api.metrics",
        "arena_api.interop",  # other systems' formats, pure like the core
        "pyarrow",  # the export's Parquet writer (a file format, optional)
    ),
    # Other systems' formats: records in, records out; reading their databases is db/'s.
    "arena_api/interop": ("arena_api.core", "arena_api.interop"),
    # The OpenAPI document is built from the core's models and the protocols' registry alone.
    "arena_api/openapi": (
        "pydantic",
        "pydantic_core",
        "arena_api.core",
        "arena_api.protocols",
        "arena_api.openapi",
    ),
    # The rating process reads the schema, the shared kernel and the one declaration of every
    # variable; nothing else of arena_api.
    "arena_rating": (
        "numpy",
        "scipy",
        "sqlalchemy",
        "arena_rating",
        "arena_api.db.tables",
        "arena_api.settings",
        *KERNEL,
    ),
    # The schema names the kernel's labels in its constraints; nothing else of arena_api.
    "arena_api/db/tables.py": ("sqlalchemy", *KERNEL),
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _allowed(name: str, prefixes: tuple[str, ...]) -> bool:
    top = name.split(".")[0]
    if top in STDLIB or top == "__future__":
        return True
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _sources(package: str) -> list[Path]:
    """The modules of a package, or the one module ``package`` names."""
    where = ROOT / package
    return [where] if where.is_file() else sorted(where.rglob("*.py"))


@pytest.mark.parametrize("package", list(RULES))
def test_package_imports_only_what_its_layer_may(package: str) -> None:
    offending = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in _sources(package)
        for name in _imports(path)
        if not _allowed(name, RULES[package])
    }

    assert not offending, sorted(offending)


@pytest.mark.parametrize("module", KERNEL)
def test_the_shared_kernel_imports_only_the_kernel(module: str) -> None:
    """What the rating process imports of ``arena_api.core`` pulls in nothing else of it."""
    path = ROOT / (module.replace(".", "/") + ".py")

    offending = {
        name
        for name in _imports(path)
        if not _allowed(name, ("pydantic", *KERNEL, *KERNEL_DEPENDENCIES))
    }

    assert not offending, sorted(offending)


def test_only_the_service_layer_is_reached_from_the_ui() -> None:
    offending = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "arena_app").rglob("*.py"))
        if path.name not in {"backend.py", "arena_app.py", "server.py", "build.py"}
        for name in _imports(path)
        if name.startswith("arena_api.")
        and not name.startswith(("arena_api.services", "arena_api.core"))
    }

    assert not offending, sorted(offending)
