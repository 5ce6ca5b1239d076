"""Domain errors. Each carries the HTTP status and machine-readable code it maps to.

ArenaError                      status, code, message
├── InvalidRequest              400 invalid_request (+ field details)
├── ConversationError           403/404/409 conversation_*
├── VoteError                   400/401/403/404/409 on POST /api/arena/vote
├── ModelNotMatched             409 model_paused, model_archived: a request named such a model
├── RoundConfigError            500 default_model_missing, shadow_challenger_missing, ...
│   └── NotEnoughModels         503 not_enough_models, no_models: the roster has too few
│       └── ModelsPaused        503 models_paused: the circuit breaker paused too many
└── NotFound                    404 not_found

ProviderError                   a model endpoint failed (a slot_error with ``code``, never a 5xx)
├── ProviderUnavailable         provider_unavailable: provider not configured / not registered
├── ProviderTimeout             provider_timeout: no token within the slot timeout
├── ProviderHTTPError           provider_unavailable (5xx) / provider_rejected (other non-2xx)
│   └── ProviderRateLimited     provider_rate_limited: ... 429
└── ProviderStreamError         provider_bad_response: the stream could not be parsed
    ├── ProviderUnreachable     provider_unreachable: no connection could be opened
    ├── ProviderReset           provider_reset: the connection was reset or dropped
    ├── ProviderTooLarge        provider_too_large: one event or line exceeded the cap
    ├── ProviderReportedError   provider_error: the stream carried the vendor's error object
    └── ProviderRefused         provider_refused: the vendor refused the prompt (safety block)

Every ``ProviderError`` carries a stable ``code`` (``core.slot_errors`` maps each to what a voter
reads) and, for a status the endpoint sent with ``Retry-After``, ``retry_after_s``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "ArenaError",
    "ConversationError",
    "InvalidRequest",
    "ModelNotMatched",
    "ModelsPaused",
    "NotEnoughModels",
    "SETUP_HINT",
    "NotFound",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderRateLimited",
    "ProviderRefused",
    "ProviderReportedError",
    "ProviderReset",
    "ProviderStreamError",
    "ProviderTimeout",
    "ProviderTooLarge",
    "ProviderUnavailable",
    "ProviderUnreachable",
    "RoundConfigError",
    "VoteError",
]


class ArenaError(Exception):
    """A failure the caller caused or must be told about, with its status and code."""

    status: int = 500
    code: str = "internal_error"
    #: Seconds a client should wait before trying again (the ``Retry-After`` header), if any.
    retry_after_s: int | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.details = details


class ShuttingDown(ArenaError):
    """The server is draining before it stops: it takes no new round."""

    status = 503
    code = "shutting_down"
    retry_after_s = 5


class StorageUnavailable(ArenaError):
    """The database cannot be reached (it restarts, or the network between is down)."""

    status = 503
    code = "database_unavailable"
    retry_after_s = 5

    def __init__(self, message: str = "The database is unavailable; try again shortly") -> None:
        super().__init__(message)


class InvalidRequest(ArenaError):
    status, code = 400, "invalid_request"


class NotFound(ArenaError):
    status, code = 404, "not_found"


class ConversationError(ArenaError):
    status, code = 409, "conversation_conflict"


class VoteError(ArenaError):
    status, code = 400, "invalid_vote"


class ModelNotMatched(ArenaError):
    """A round, a suite or an OpenAI client named a paused or archived model: it keeps its
    history on the board but takes no new round (409 ``model_paused`` or ``model_archived``;
    ``details[field]`` names it)."""

    status = 409

    def __init__(self, name: str, model_id: object, status: str, *, field: str = "models") -> None:
        if status == "archived":
            why = f"{name!r} is archived: it left the roster; its history stays on the board"
        else:
            why = f"{name!r} is paused: it keeps its place on the board"
        super().__init__(
            f"{why}, but it takes no new round. Pick an active model.",
            code=f"model_{status}",
            details={field: [f"{name!r} ({model_id}) is {status}"]},
        )


class RoundConfigError(ArenaError):
    status, code = 500, "round_config"


class ProviderError(Exception):
    """A model endpoint failed; the message is safe to show (it names no model).

    ``code`` is the stable, machine-readable reason a ``slot_error`` carries.
    """

    code: str = "provider_error"
    #: Seconds the endpoint asked to wait before another try (its ``Retry-After``), if any.
    retry_after_s: float | None = None


class ProviderUnavailable(ProviderError):
    code = "provider_unavailable"


class ProviderTimeout(ProviderError):
    code = "provider_timeout"


class ProviderHTTPError(ProviderError):
    def __init__(self, message: str, status: int, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s
        self.code = "provider_unavailable" if status >= 500 else "provider_rejected"


class ProviderRateLimited(ProviderHTTPError):
    def __init__(self, message: str, status: int, *, retry_after_s: float | None = None) -> None:
        super().__init__(message, status, retry_after_s=retry_after_s)
        self.code = "provider_rate_limited"


class ProviderStreamError(ProviderError):
    code = "provider_bad_response"


class ProviderUnreachable(ProviderStreamError):
    code = "provider_unreachable"


class ProviderReset(ProviderStreamError):
    code = "provider_reset"


class ProviderTooLarge(ProviderStreamError):
    code = "provider_too_large"


class ProviderReportedError(ProviderStreamError):
    code = "provider_error"


class ProviderRefused(ProviderStreamError):
    code = "provider_refused"


#: What an operator does about an arena with too few models it can use: said by the round that
#: cannot start, the arena page and the server's log, in the same words.
SETUP_HINT = (
    "Add models: mount a roster over /app/models.yaml (or point ARENA_MODELS_FILE at one), "
    "or set ARENA_MODELS=openai:gpt-4o-mini,openai:gpt-4.1-mini with the provider's key "
    "(OPENAI_API_KEY, GEMINI_API_KEY, OLLAMA_BASE_URL, ...); ARENA_DEMO=1 tries the arena with "
    "mock models. See docs/providers.md."
)


class NotEnoughModels(RoundConfigError):
    """Fewer models can answer than the round needs: a setup to finish, not a server fault,
    so 503 (an orchestrator's probe of ``/health`` still passes) with what to do.

    ``shortage`` says what is missing; the message adds ``SETUP_HINT``, what to do about it.
    """

    status, code = 503, "not_enough_models"

    def __init__(self, usable: int, needed: int = 2, *, code: str | None = None) -> None:
        counted = "no model" if usable == 0 else f"only {usable} model" + ("s" * (usable > 1))
        self.shortage = f"This arena has {counted} it can use; a round needs {needed}."
        super().__init__(f"{self.shortage} {SETUP_HINT}", code=code)
        self.usable = usable

    @classmethod
    def among(
        cls, usable: int, needed: int = 2, *, code: str | None = None
    ) -> NotEnoughModels | None:
        """The error for ``usable`` models, or ``None`` when there are enough for a round."""
        return cls(usable, needed, code=code) if usable < needed else None


class ModelsPaused(NotEnoughModels):
    """Enough models are set up, but the circuit breaker paused some after repeated failures
    and too few are left: a passing outage (503 ``models_paused``), tried again by itself."""

    code = "models_paused"

    def __init__(self, usable: int, paused: int, retry_in_s: float) -> None:
        super().__init__(usable)
        self.shortage = (
            f"{paused} of this arena's models are paused after failing repeatedly, and a round "
            f"needs 2 that can answer; they are tried again within {max(1, round(retry_in_s))} s."
        )
        ArenaError.__init__(self, self.shortage)
        self.retry_after_s = max(1, round(retry_in_s))
