"""The command line: options, and the checks made before touching a database."""

from __future__ import annotations

import pytest

from arena_rating import EXIT_USAGE, build_parser, main


def test_once_is_the_default_and_every_option_parses() -> None:
    args = build_parser().parse_args(["--style", "--no-anomaly-filter", "--validate"])

    assert (args.loop, args.style, args.anomaly_filter, args.validate) == (
        False,
        True,
        False,
        True,
    )
    assert args.resamples == 200


def test_once_and_loop_exclude_each_other() -> None:
    with pytest.raises(SystemExit) as raised:
        build_parser().parse_args(["--once", "--loop"])

    assert raised.value.code == 2


def test_without_a_database_url_it_says_so_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["--once"], environ={})

    assert status == EXIT_USAGE
    assert capsys.readouterr().err.strip().splitlines() == [
        "arena_rating: DATABASE_URL is not set (`arena rate` runs this against the embedded "
        "database)"
    ]


def test_a_bad_setting_is_reported_before_anything_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main([], environ={"DATABASE_URL": "postgresql://x/y", "FULL_REFIT_EVERY": "x"})

    assert status == EXIT_USAGE
    assert "invalid setting FULL_REFIT_EVERY='x'" in capsys.readouterr().err
