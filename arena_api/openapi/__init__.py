"""The OpenAPI 3.1 document of the HTTP API, served at ``GET /openapi.json``.

Built from the request, view, event and response models (``arena_api.core``), the schemas the
protocols parse their envelopes with (``arena_api.protocols``), plus models of the few bodies
built by hand with no model of their own (``_bodies``). ``_paths`` lists the operations
(``_open``, ``_rounds``, ``_reads``, made of ``_operation``'s parts); ``_streams`` holds the
schemas of one Server-Sent Event; ``_document`` puts it all together.
"""

from __future__ import annotations

from arena_api.openapi._document import OPENAPI_VERSION, build_document, document_bytes
from arena_api.openapi._operation import Operation
from arena_api.openapi._paths import OPERATIONS

__all__ = ["OPENAPI_VERSION", "OPERATIONS", "Operation", "build_document", "document_bytes"]
