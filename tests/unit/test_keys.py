"""One rule finds the token secret for the server, the suite runner and the export: the
variable, its file, else on a development machine the development secret `make run` made."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena_api.cli import _secret_from_file
from arena_api.keys import DEV_SECRET_FILE, export_salt, token_secret
from arena_api.settings import Settings, SettingsError, load_settings


def _settings(data: Path, **env: str) -> Settings:
    return load_settings({"ARENA_DATA_DIR": str(data), **env})


def test_the_variable_comes_first_and_nothing_is_written(tmp_path: Path) -> None:
    settings = _settings(tmp_path, MATCHUP_TOKEN_SECRET="s" * 16, ARENA_ALLOW_DEV_SECRET="1")

    secret = token_secret(settings)

    assert secret == b"s" * 16
    assert list(tmp_path.iterdir()) == []


def test_the_secret_file_holds_what_arena_serve_hands_its_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "volume" / "matchup-token-secret"
    settings = _settings(tmp_path, ARENA_ENV="production", MATCHUP_TOKEN_SECRET_FILE=str(path))

    secret = token_secret(settings)  # an export or a suite run before any server: made here

    monkeypatch.delenv("MATCHUP_TOKEN_SECRET", raising=False)
    monkeypatch.setenv("MATCHUP_TOKEN_SECRET_FILE", str(path))
    _secret_from_file()  # what `arena serve` puts in its workers' environment
    assert secret == os.environ["MATCHUP_TOKEN_SECRET"].encode() and len(secret) == 64
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_a_development_machine_makes_its_secret_only_when_allowed(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        token_secret(_settings(tmp_path))

    assert caught.value.name == "MATCHUP_TOKEN_SECRET"
    assert "unless ARENA_ALLOW_DEV_SECRET=1" in str(caught.value)
    assert not (tmp_path / DEV_SECRET_FILE).exists()


def test_every_later_command_finds_the_development_secret_make_run_made(tmp_path: Path) -> None:
    made = token_secret(_settings(tmp_path, ARENA_ALLOW_DEV_SECRET="1"))  # `make run`

    found = token_secret(_settings(tmp_path))  # `arena export` in another shell

    assert found == made and len(made) == 32
    assert os.stat(tmp_path / DEV_SECRET_FILE).st_mode & 0o777 == 0o600


def test_production_never_uses_a_development_secret(tmp_path: Path) -> None:
    token_secret(_settings(tmp_path, ARENA_ALLOW_DEV_SECRET="1"))

    with pytest.raises(SettingsError) as caught:
        token_secret(_settings(tmp_path, ARENA_ENV="production"))

    assert caught.value.name == "MATCHUP_TOKEN_SECRET"
    assert "ARENA_ENV=production" in str(caught.value)
    assert "MATCHUP_TOKEN_SECRET_FILE" in str(caught.value)


def test_the_export_salt_needs_no_secret_when_it_is_set(tmp_path: Path) -> None:
    settings = _settings(tmp_path, ARENA_ENV="production", ARENA_EXPORT_SALT="x" * 16)

    salt = export_salt(settings)

    assert salt == b"x" * 16


def test_the_export_salt_without_either_names_both_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        export_salt(_settings(tmp_path, ARENA_ENV="production"))

    message = str(caught.value)
    assert "MATCHUP_TOKEN_SECRET" in message and "ARENA_EXPORT_SALT" in message
    assert "\n" not in message


def test_the_salt_found_from_the_rule_is_the_servers(tmp_path: Path) -> None:
    token_secret(_settings(tmp_path, ARENA_ALLOW_DEV_SECRET="1"))
    server = _settings(tmp_path, ARENA_ALLOW_DEV_SECRET="1")
    command_line = _settings(tmp_path)

    assert export_salt(command_line) == export_salt(server, token_secret(server))
