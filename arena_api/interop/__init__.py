"""Other arenas' data formats, read into and written from ours: one module per foreign format.

Every reader turns the other system's records into ``Battle`` values (``battles``): two named
models, a vote in our labels, who cast it and when, and the conversation where the source has
it. ``arena_api.services.imports`` writes them through one path, whatever the format.
"""
