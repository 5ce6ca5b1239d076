"""Every operation of the HTTP API, in the document's order."""

from __future__ import annotations

from arena_api.openapi._admin import ADMIN_OPERATIONS
from arena_api.openapi._open import OPEN_OPERATIONS
from arena_api.openapi._operation import Operation
from arena_api.openapi._reads import READ_OPERATIONS
from arena_api.openapi._rounds import ROUND_OPERATIONS
from arena_api.openapi._suites import SUITE_OPERATIONS

__all__ = ["OPERATIONS"]

OPERATIONS: tuple[Operation, ...] = (
    *OPEN_OPERATIONS,
    *ROUND_OPERATIONS,
    *READ_OPERATIONS,
    *SUITE_OPERATIONS,
    *ADMIN_OPERATIONS,
)
