"""The settings in force, as the admin console and ``GET /api/admin/settings`` show them: every
variable with the value this server parsed, where it came from (the environment or the
default), and no secret's value (a secret shows only whether it is set)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from ipaddress import IPv4Network, IPv6Network
from pathlib import Path
from typing import Any

from arena_api.settings import SETTINGS, Secret, Settings

__all__ = ["SettingInForce", "settings_in_force"]

#: What stands for a secret that is set.
MASK = "•••••• (set)"


@dataclass(frozen=True)
class SettingInForce:
    name: str
    value: str
    source: str  # "env" or "default"
    group: str
    secret: bool


def _shown(value: Any) -> tuple[str, bool]:
    """The value as text, and whether it was a secret."""
    if isinstance(value, Secret):
        return MASK, True
    if isinstance(value, tuple | list):
        if any(isinstance(v, Secret) for v in value):
            return (f"{len(value)} set" if value else "none"), True
        return ", ".join(_shown(v)[0] for v in value), False
    if value is None:
        return "", False
    if isinstance(value, bool):
        return ("on" if value else "off"), False
    if isinstance(value, Path | IPv4Network | IPv6Network | Decimal | Enum):
        return str(value), False
    if isinstance(value, int | float | str):
        return str(value), False
    return str(value), False


def settings_in_force(settings: Settings) -> list[SettingInForce]:
    rows = []
    for setting in SETTINGS:
        value, secret = _shown(getattr(settings, setting.field, None))
        if "://" in value and "@" in value.partition("://")[2]:  # a URL carrying a password
            scheme, _, rest = value.partition("://")
            value, secret = f"{scheme}://••••••@{rest.rpartition('@')[2]}", True
        rows.append(
            SettingInForce(
                setting.name,
                value,
                settings.sources.get(setting.name, "default"),
                setting.group,
                secret,
            )
        )
    return rows
