"""The records of a JSON array or of JSON Lines, read as a stream.

Exports of other arenas run to gigabytes (LMArena's battle files, an Open WebUI instance's
feedback with its chat snapshots): a file is read a chunk at a time and each record is decoded
on its own, so memory holds one chunk and one record, never the file. A record that does not
parse is reported with its place (``line N``, ``item N``) and the rest are still read (in JSON
Lines; a broken array cannot be read past the break).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO

__all__ = ["json_values"]

_CHUNK = 1 << 20


def json_values(stream: IO[str]) -> Iterator[tuple[str, object]]:
    """Each top-level value of a JSON array or of JSON Lines, with where it is: ``line N`` or
    ``item N``; a value that does not parse is yielded as a ``BadRecord``-to-be (``ValueError``)."""
    head = stream.read(_CHUNK)
    if head.lstrip().startswith("["):
        yield from _array_items(stream, head)
        return
    lines = (head + stream.readline()).splitlines(keepends=True)
    number = 0
    while lines:
        for line in lines:
            number += 1
            if line.strip():
                try:
                    yield f"line {number}", json.loads(line)
                except ValueError as exc:
                    yield f"line {number}", ValueError(f"not JSON ({exc.args[0]})")
        chunk = stream.read(_CHUNK)
        lines = (chunk + stream.readline()).splitlines(keepends=True) if chunk else []


def _array_items(stream: IO[str], buffer: str) -> Iterator[tuple[str, object]]:
    """The items of a JSON array read a chunk at a time (``raw_decode`` one item at a time)."""
    decoder = json.JSONDecoder()
    position = buffer.index("[") + 1
    index = 0
    finished = False
    while True:
        while position < len(buffer) and buffer[position] in " \t\r\n,":
            position += 1
        if position == len(buffer):
            buffer, position = stream.read(_CHUNK), 0
            if not buffer:
                break
            continue
        if buffer[position] == "]":
            finished = True
            break
        try:
            item, position = decoder.raw_decode(buffer, position)
        except ValueError as exc:
            # An item cut by the chunk's end, or one that is not JSON: read on to tell.
            more = stream.read(_CHUNK)
            if not more:
                yield f"item {index}", ValueError(f"not JSON ({exc.args[0]})")
                return
            buffer, position = buffer[position:] + more, 0
            continue
        yield f"item {index}", item
        index += 1
    if not finished:
        yield f"item {index}", ValueError("the JSON array is not closed")
