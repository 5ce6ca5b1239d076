"""Server-Sent Events, read one line at a time (WHATWG rules): what the streaming vendors send."""

from __future__ import annotations

__all__ = ["SSEDecoder"]


class SSEDecoder:
    """Collects the ``data`` fields of each event; comments and other fields are skipped."""

    def __init__(self) -> None:
        self._data: list[bytes] = []

    def feed(self, line: bytes) -> bytes | None:
        """The event's data when ``line`` is the blank line that ends it, else ``None``."""
        if not line:
            data, self._data = self._data, []
            return b"\n".join(data) if data else None
        if line.startswith(b":"):
            return None
        field, _, value = line.partition(b":")
        if field == b"data":
            self._data.append(value[1:] if value.startswith(b" ") else value)
        return None
