"""The package exports what we meant, and nothing is missing from it."""

from __future__ import annotations

import arena_rating

EXPECTED = {
    # errors
    "RatingError", "RatingInputError", "RatingFitError", "DatabaseError", "DatabaseUnreachable",
    "SchemaMissing",
    # scale
    "BASE", "INIT_RATING", "SCALE", "to_display", "to_display_stderr", "z_value",
    # model and fit
    "ETA_CEILING", "ETA_FLOOR", "Outcome", "PairCounts", "RaoKupperFit", "fit_rao_kupper",
    "pair_counts_from_votes",
    # intervals and components
    "BootstrapResult", "fisher_standard_errors", "multinomial_bootstrap", "width_ratios",
    "centre_within_components", "connected_components",
    # style
    "STYLE_FEATURES", "StyleFit", "StyleVotes", "fit_style",
    # anomaly screen
    "AnomalyReason", "ScreenResult", "SessionStats", "screen_sessions", "session_stats",
    # reports
    "RatingReport", "RatingRows", "StyleReport", "rate_pairs", "rate_style",
    # database
    "AggregatedVotes", "StyleRows", "read_pair_counts", "read_session_stats",
    "read_style_votes", "rating_lock", "write_ratings", "write_style",
    "create_rating_engine", "database_error", "describe_url",
    # process
    "PassReport", "RatingWorker", "RefitMode", "WorkerOptions", "refit_mode",
    "RatingSettings", "RatingSettingsError", "load_rating_settings",
    "WorkerSupervisor", "rating_worker_command",
    "EXIT_OK", "EXIT_DATABASE", "EXIT_USAGE", "EXIT_FIT", "build_parser", "main",
}  # fmt: skip


def test_the_export_list_is_what_we_meant() -> None:
    assert set(arena_rating.__all__) == EXPECTED


def test_every_exported_name_exists() -> None:
    missing = [name for name in arena_rating.__all__ if not hasattr(arena_rating, name)]

    assert not missing


def test_the_request_path_reads_ratings_on_the_rating_process_scale() -> None:
    """The matchmaker and the style read turn display points back into log-odds with the
    kernel's scale, the one the rating process writes with."""
    from arena_api.core import scale

    assert (arena_rating.SCALE, arena_rating.INIT_RATING) == (scale.SCALE, scale.INIT_RATING)
