from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arena_api.db.engine import to_async_url
from arena_api.settings import (
    SETTINGS,
    RosterEntry,
    Secret,
    SettingsError,
    load_settings,
    settings_env_example,
    settings_markdown,
)
from tests.support import ROOT


def test_defaults_match_the_seed_system() -> None:
    settings = load_settings({})

    assert (settings.port, settings.trigger, settings.exposure, settings.matchmaker) == (
        3001,
        "always",
        "blind",
        "smart",
    )
    assert (
        settings.join_window_ms,
        settings.join_max_pending,
        settings.join_max_queued_events,
    ) == (2000, 256, 4096)
    assert settings.database_url is None
    assert settings.harness_version == "v1"
    assert settings.full_refit_every == 12


@pytest.mark.parametrize(
    ("name", "value"),
    [
        pytest.param("PORT", "0", id="port-zero"),
        pytest.param("PORT", "70000", id="port-too-high"),
        pytest.param("PORT", "http", id="port-not-a-number"),
        pytest.param("DATABASE_URL", "mysql://x/y", id="database-url-wrong-scheme"),
        pytest.param("DATABASE_URL", "localhost:5432", id="database-url-no-scheme"),
        pytest.param("MATCHUP_TOKEN_SECRET", "short", id="secret-too-short"),
        pytest.param("HARNESS_VERSION", " ", id="harness-version-blank"),
        pytest.param("MATCHMAKER", "elo", id="matchmaker-unknown"),
        pytest.param("ARENA_TRIGGER", "sometimes", id="trigger-unknown"),
        pytest.param("ARENA_SAMPLE_RATE", "1.5", id="sample-rate-above-one"),
        pytest.param("ARENA_SAMPLE_RATE", "-0.1", id="sample-rate-negative"),
        pytest.param("ARENA_SAMPLE_RATE", "nan", id="sample-rate-nan"),
        pytest.param("ARENA_EXPOSURE", "open", id="exposure-unknown"),
        pytest.param("ARENA_JOIN_WINDOW_MS", "60001", id="join-window-too-long"),
        pytest.param("ARENA_JOIN_WINDOW_MS", "-1", id="join-window-negative"),
        pytest.param("ARENA_JOIN_MAX_PENDING", "0", id="join-pending-zero"),
        pytest.param("ARENA_JOIN_MAX_QUEUED_EVENTS", "15", id="join-queue-too-small"),
        pytest.param("ARENA_SLOT_TIMEOUT_S", "0", id="slot-timeout-zero"),
        pytest.param("ARENA_MOCK_PROVIDER", "maybe", id="mock-not-boolean"),
        pytest.param("ARENA_MOCK_TOKENS_PER_SECOND", "-5", id="mock-rate-negative"),
        pytest.param("ARENA_MOCK_TOKENS", "0", id="mock-tokens-zero"),
        pytest.param("OPENAI_BASE_URL", "api.openai.com", id="openai-url-no-scheme"),
        pytest.param("OLLAMA_BASE_URL", "ftp://x", id="ollama-url-wrong-scheme"),
        pytest.param("ARENA_RATING_WORKER", "sidecar", id="rating-worker-unknown"),
        pytest.param("RATING_REFIT_INTERVAL_S", "0", id="refit-interval-zero"),
        pytest.param("FULL_REFIT_EVERY", "-1", id="full-refit-negative"),
        pytest.param("RATING_RIDGE", "0", id="ridge-zero"),
        pytest.param("STYLE_RIDGE", "abc", id="style-ridge-not-a-number"),
        pytest.param("ANOMALY_ALPHA", "0.9", id="anomaly-alpha-too-high"),
        pytest.param("LOG_LEVEL", "verbose", id="log-level-unknown"),
        pytest.param("ARENA_DATA_DIR", " ", id="data-dir-blank"),
    ],
)
def test_bad_value_names_variable_value_and_range(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({name: value})

    message = str(caught.value)
    assert caught.value.name == name
    assert name in message and repr(value) in message
    assert caught.value.allowed in message
    assert "\n" not in message


def test_alias_of_refit_interval_is_accepted() -> None:
    settings = load_settings({"REFIT_INTERVAL_SECONDS": "60"})

    assert settings.rating_refit_interval_s == 60


def test_postgres_urls_users_write_map_to_the_async_driver() -> None:
    for url in ("postgres://u:p@h/db", "postgresql://u:p@h/db"):
        assert to_async_url(load_settings({"DATABASE_URL": url}).database_url or "") == (
            "postgresql+asyncpg://u:p@h/db"
        )


def test_secrets_never_show_in_repr() -> None:
    settings = load_settings({"MATCHUP_TOKEN_SECRET": "x" * 32, "OPENAI_API_KEY": "sk-secret"})

    assert "sk-secret" not in repr(settings) and "x" * 32 not in repr(settings)
    assert settings.openai_api_key == Secret("sk-secret")


_PRODUCTION = {"ARENA_ENV": "production", "MATCHUP_TOKEN_SECRET": "s" * 32}


@pytest.mark.parametrize(
    ("env", "named"),
    [
        pytest.param({"ARENA_ALLOW_DEV_SECRET": "1"}, "ARENA_ALLOW_DEV_SECRET", id="dev-secret"),
        pytest.param({"MATCHUP_TOKEN_SECRET": ""}, "MATCHUP_TOKEN_SECRET", id="no-secret"),
        pytest.param({"MATCHUP_TOKEN_SECRET": "s" * 20}, "MATCHUP_TOKEN_SECRET", id="short"),
        pytest.param({"ARENA_MOCK_PROVIDER": "1"}, "ARENA_MOCK_PROVIDER", id="mock"),
    ],
)
def test_production_refuses_what_only_a_development_machine_may_do(
    env: dict[str, str], named: str
) -> None:
    settings = load_settings({k: v for k, v in {**_PRODUCTION, **env}.items() if v})

    with pytest.raises(SettingsError) as caught:
        settings.check_serving()

    assert caught.value.name == named
    assert "ARENA_ENV=production" in str(caught.value) and "\n" not in str(caught.value)
    assert "s" * 20 not in str(caught.value)  # a secret never shows, even a short one


def test_production_serves_with_a_strong_secret_and_a_mock_it_was_told_to_allow() -> None:
    load_settings(_PRODUCTION).check_serving()
    load_settings(
        {**_PRODUCTION, "ARENA_MOCK_PROVIDER": "1", "ARENA_ALLOW_MOCK_IN_PRODUCTION": "1"}
    ).check_serving()


def test_a_demo_registers_the_mock_models_in_production_too() -> None:
    demo = load_settings({**_PRODUCTION, "ARENA_DEMO": "1"})

    demo.check_serving()

    assert demo.demo and demo.uses_mock_provider
    assert not load_settings(_PRODUCTION).uses_mock_provider


def test_arena_models_lists_provider_model_and_optional_display_names() -> None:
    raw = " openai:gpt-4o-mini , Gemini:gemini-2.0-flash=Gemini Flash,ollama:llama3.2:3b,"

    entries = load_settings({"ARENA_MODELS": raw}).models

    assert entries == (
        RosterEntry("openai", "gpt-4o-mini", "gpt-4o-mini"),
        RosterEntry("google", "gemini-2.0-flash", "Gemini Flash"),
        RosterEntry("ollama", "llama3.2:3b", "llama3.2:3b"),  # the model id keeps its colons
    )
    assert load_settings({}).models == ()


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("gpt-4o-mini", id="no-provider"),
        pytest.param("acme:model-x", id="unknown-provider"),
        pytest.param("openai:", id="no-model"),
        pytest.param("openai:gpt=" + "n" * 201, id="long-name"),
    ],
)
def test_a_malformed_arena_models_is_one_line_naming_the_form(raw: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings({"ARENA_MODELS": raw})

    assert caught.value.name == "ARENA_MODELS"
    assert "provider:provider_model_id[=Display Name]" in str(caught.value)


def test_arena_models_and_a_models_file_are_one_roster_too_many() -> None:
    with pytest.raises(SettingsError, match="together with ARENA_MODELS_FILE"):
        load_settings({"ARENA_MODELS": "openai:a,openai:b", "ARENA_MODELS_FILE": "m.yaml"})


def test_gemini_api_key_is_read_as_the_google_key() -> None:
    settings = load_settings({"GEMINI_API_KEY": "g-key"})

    assert settings.google_api_key == Secret("g-key")


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({"ARENA_TRIGGER": "manual"}, id="manual"),
        pytest.param({"ARENA_TRIGGER": "sampled", "ARENA_SAMPLE_RATE": "0.5"}, id="sampled"),
        pytest.param({"ARENA_EXPOSURE": "shadow"}, id="shadow"),
    ],
)
def test_default_model_is_required_when_rounds_can_be_single_or_shadow(
    env: dict[str, str],
) -> None:
    settings = load_settings({"ARENA_ALLOW_DEV_SECRET": "1", **env})

    with pytest.raises(SettingsError, match="ARENA_DEFAULT_MODEL"):
        settings.check_serving()


def test_every_setting_has_help_and_a_parsable_default() -> None:
    for setting in SETTINGS:
        assert setting.help.strip(), setting.name
        if setting.default is not None:
            setting.parse(setting.default)


def test_readme_table_is_generated_from_settings() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")

    assert settings_markdown() in readme, "run `arena settings --markdown` and paste it"


def test_env_example_is_generated_from_settings() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")

    assert example == settings_env_example(), "run `arena settings --env-example > .env.example`"
    for setting in SETTINGS:
        assert f"# {setting.name}=" in example


def test_cli_reports_a_bad_value_in_one_line_without_traceback() -> None:
    env = {**os.environ, "ARENA_SAMPLE_RATE": "2"}
    result = subprocess.run(
        [sys.executable, "-m", "arena_api", "settings"],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )

    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "arena: invalid setting ARENA_SAMPLE_RATE='2': must be a number in [0, 1]"
    ]


def test_a_production_server_refuses_to_start_on_a_development_secret_in_one_line() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if k != "MATCHUP_TOKEN_SECRET"},
        "ARENA_ENV": "production",
        "ARENA_ALLOW_DEV_SECRET": "1",
    }
    result = subprocess.run(
        [sys.executable, "-m", "arena_api", "serve"],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=60,
    )

    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "arena: invalid setting ARENA_ALLOW_DEV_SECRET='1': must not be set when "
        "ARENA_ENV=production"
    ]


def test_single_sign_on_needs_its_client_id_and_reads_its_lists() -> None:
    issuer = {"ARENA_OIDC_ISSUER": "https://id.example.com/"}
    with pytest.raises(SettingsError) as missing:
        load_settings(issuer)

    settings = load_settings(
        {
            **issuer,
            "ARENA_OIDC_CLIENT_ID": "arena",
            "ARENA_OIDC_ALLOWED_DOMAINS": "Example.com, example.org",
            "ARENA_OIDC_ADMIN_VALUES": "arena-admins ops",
        }
    )

    assert missing.value.name == "ARENA_OIDC_CLIENT_ID"
    assert settings.oidc_issuer == "https://id.example.com"
    assert settings.oidc_allowed_domains == ("example.com", "example.org")
    assert settings.oidc_admin_values == ("arena-admins", "ops")
    assert settings.oidc_scopes == ("openid", "email", "profile")
    assert settings.oidc_client_secret is None
