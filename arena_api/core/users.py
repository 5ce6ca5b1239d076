"""People who sign in, their roles, and what the audit log records of them. Pure values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["ROLES", "AuditEntry", "Role", "User"]

Role = Literal["admin", "reviewer", "voter"]
#: The roles, most powerful first: an admin runs the arena, a reviewer works review queues, a
#: voter votes.
ROLES: tuple[Role, ...] = ("admin", "reviewer", "voter")


@dataclass(frozen=True)
class User:
    id: str
    email: str | None
    name: str | None
    role: Role

    @property
    def label(self) -> str:
        """How the audit log and the page name them: the email, else the name, else the id."""
        return self.email or self.name or self.id


@dataclass(frozen=True)
class AuditEntry:
    """One line of the audit log: who (a user, or ``actor`` alone for the CLI), did what, to
    what, and the state it changed."""

    actor_id: str | None
    actor: str
    action: str
    target: str | None = None
    before: Mapping[str, Any] | None = None
    after: Mapping[str, Any] | None = None
