"""Time-ordered identifiers (UUID version 7, RFC 9562) for every row the request path inserts.

Random (v4) keys scatter each insert across every B-tree page of a large table; v7 keys grow
with time, so new rows land on the rightmost index pages and the working set stays small however
many votes are stored. They are still UUIDs: the columns and the API are unchanged.
"""

from __future__ import annotations

import os
import time
import uuid

__all__ = ["new_id"]


def new_id() -> uuid.UUID:
    """A UUIDv7: 48-bit Unix milliseconds, version and variant bits, 74 random bits."""
    millis = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")  # 80 bits, 74 used
    value = (millis & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76  # version
    value |= ((rand >> 68) & 0xFFF) << 64  # rand_a, 12 bits
    value |= 0b10 << 62  # variant
    value |= rand & ((1 << 62) - 1)  # rand_b, 62 bits
    return uuid.UUID(int=value)
