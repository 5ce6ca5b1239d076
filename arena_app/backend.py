"""How the Reflex states reach the services, in-process and typed.

Nothing is built here: ``arena_app.arena_app`` creates the API app that Reflex mounts, and that
app's lifespan (``arena_api.app.services_lifespan``, run as a Reflex lifespan task) opens the
services with ``bootstrap``. A state reads them from the running app when an event needs them.
"""

from __future__ import annotations

from arena_api.core.media import ImageCodec
from arena_api.routes._request import opened_services
from arena_api.services.container import Services

__all__ = ["ServicesNotOpen", "image_codec", "services"]


class ServicesNotOpen(RuntimeError):
    """An event came before the app's lifespan opened the services (or after it closed them)."""


def services() -> Services:
    """The services the running app's lifespan opened.

    Raises:
        ServicesNotOpen: the lifespan has not opened them.
    """
    # The app module imports the pages and their states, so it is read when an event runs, not
    # when this module is imported.
    from arena_app.arena_app import api

    opened = opened_services(api)
    if opened is None:
        raise ServicesNotOpen("the services are not open: the app's lifespan has not started")
    return opened


def image_codec() -> ImageCodec:
    """The codec a round checks its images with (Pillow, under ``ARENA_MAX_IMAGE_*``), for the
    page to check an image as it is attached, and learn the name the round will store it by.

    Raises:
        ServicesNotOpen: the lifespan has not opened the services.
    """
    from arena_api.media.codec import PillowCodec

    return PillowCodec(services().settings.image_limits)
