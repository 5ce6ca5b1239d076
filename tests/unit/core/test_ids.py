from __future__ import annotations

import time
import uuid

from arena_api.core.ids import new_id


def test_new_ids_are_version_7_rfc_variant_and_unique() -> None:
    ids = [new_id() for _ in range(10_000)]

    assert all(i.version == 7 and i.variant == uuid.RFC_4122 for i in ids)
    assert len(set(ids)) == len(ids)


def test_new_ids_embed_the_current_millisecond_and_sort_by_time() -> None:
    before = time.time_ns() // 1_000_000
    first = new_id()
    time.sleep(0.002)
    second = new_id()
    after = time.time_ns() // 1_000_000

    assert before <= first.int >> 80 <= after
    assert first < second and first.bytes < second.bytes
