"""How ``make test`` spreads the suite over its pytest-xdist workers (``-n 2 --dist loadfile``).

Each test module stays in one worker, beside its module-scoped servers, as ``--dist loadfile``
does. The browser tests (``e2e/``) are one unit of work: they share the session's products
(``arena serve`` processes), which a second worker would start again, and two browsers driven
at once on two cores only slow each other down. That unit is put first and the image tests last
(``tests.image_build``), and the Makefile keeps this order (``--no-loadscope-reorder``): one
worker starts on the browser tests while the other goes through the rest, and the image tests
come when the image, built meanwhile, is ready.

In a run without ``--dist loadfile`` (a plain ``pytest``) this plugin does nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["BROWSER_UNIT", "pytest_collection_modifyitems", "pytest_xdist_make_scheduler"]

BROWSER_UNIT = "e2e/"


def _in_browser_unit(nodeid: str) -> bool:
    return nodeid.startswith(BROWSER_UNIT)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a worker of a parallel run: the browser tests first (the scheduler keeps the order)."""
    if getattr(config, "workerinput", None) is None:
        return
    items.sort(key=lambda item: not _in_browser_unit(item.nodeid))  # stable: the rest keep theirs


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with every browser test in one unit of work."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class BrowserTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return BROWSER_UNIT if _in_browser_unit(nodeid) else super()._split_scope(nodeid)

    return BrowserTogether(config, log)
