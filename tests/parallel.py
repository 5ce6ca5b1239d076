"""How ``make test`` spreads the suite over its pytest-xdist workers (``-n 2 --dist loadfile``).

Each test module stays in one worker, beside its module-scoped servers, as ``--dist loadfile``
does. The browser tests (``e2e/``) are one unit of work: they share the session's products
(``arena serve`` processes), which a second worker would start again, and two browsers driven
at once on two cores only slow each other down.

The order, which the Makefile keeps (``--no-loadscope-reorder``), is set by what a run on a
fresh clone waits for: the image, whose cold build (``tests.image_build``) takes most of a core
for several minutes. The image tests go first, so one worker takes them and waits, idle, for
the build while the other starts on the browser tests; the build and those tests then share the
two cores, and the rest of the suite follows on both workers.

In a run without ``--dist loadfile`` (a plain ``pytest``) this plugin does nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["BROWSER_UNIT", "pytest_collection_modifyitems", "pytest_xdist_make_scheduler"]

BROWSER_UNIT = "e2e/"


def _in_browser_unit(nodeid: str) -> bool:
    return nodeid.startswith(BROWSER_UNIT)


@pytest.hookimpl(trylast=True)  # after tests.image_build put the image tests last
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a worker of a parallel run: the image tests first, then the browser tests (the
    scheduler keeps this order), then the rest in collection order."""
    if getattr(config, "workerinput", None) is None:
        return
    items.sort(key=_order)  # stable: each kind keeps its order


def _order(item: pytest.Item) -> int:
    if item.get_closest_marker("image"):
        return 0
    return 1 if _in_browser_unit(item.nodeid) else 2


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with every browser test in one unit of work."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class BrowserTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return BROWSER_UNIT if _in_browser_unit(nodeid) else super()._split_scope(nodeid)

    return BrowserTogether(config, log)
