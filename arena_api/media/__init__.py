"""The media adapters of ``arena_api.core.media``: the Pillow codec that checks and re-encodes an
image, and the guarded fetch of an image by URL."""
