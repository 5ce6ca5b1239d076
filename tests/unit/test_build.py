from __future__ import annotations

from pathlib import Path

import pytest

from arena_app import build


def test_building_from_an_installed_copy_says_how_to_install_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What broke the image's build stage: the package imported from site-packages, where no
    rxconfig.py lies beside it. The build stops with what to do, before Reflex runs."""
    monkeypatch.setattr(build, "ROOT", tmp_path / "site-packages")

    with pytest.raises(RuntimeError, match=r"no rxconfig\.py: install the project in editable"):
        build.build_frontend()


def test_the_checkout_is_the_project_folder() -> None:
    assert (build.ROOT / "rxconfig.py").is_file()
