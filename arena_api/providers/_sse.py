"""Server-Sent Events, read one line at a time (WHATWG rules): what the streaming vendors send."""

from __future__ import annotations

from arena_api.core.errors import ProviderTooLarge
from arena_api.providers._errors import TOO_LARGE

__all__ = ["MAX_EVENT_BYTES", "SSEDecoder"]

#: The most ``data`` one event may carry (its data lines together): a real event is a few hundred
#: bytes, and one beyond this ends the answer rather than growing a buffer.
MAX_EVENT_BYTES = 1 << 20


class SSEDecoder:
    """Collects the ``data`` fields of each event; comments and other fields are skipped."""

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._data: list[bytes] = []
        self._size = 0
        self._max_event_bytes = max_event_bytes

    def feed(self, line: bytes) -> bytes | None:
        """The event's data when ``line`` is the blank line that ends it, else ``None``.

        Raises:
            ProviderTooLarge: the event's data grew beyond ``max_event_bytes``.
        """
        if not line:
            data, self._data, self._size = self._data, [], 0
            return b"\n".join(data) if data else None
        if line.startswith(b":"):
            return None
        field, _, value = line.partition(b":")
        if field == b"data":
            value = value[1:] if value.startswith(b" ") else value
            self._size += len(value) + 1
            if self._size > self._max_event_bytes:
                raise ProviderTooLarge(TOO_LARGE)
            self._data.append(value)
        return None
