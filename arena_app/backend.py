"""The process's API app and its services, as the Reflex states reach them (in-process)."""

from __future__ import annotations

from arena_api.app import Services, create_api

__all__ = ["api", "services"]

api = create_api()


def services() -> Services:
    """The services opened by the Reflex lifespan (see ``arena_app.arena_app``)."""
    return api.state.services  # type: ignore[no-any-return]
