"""The commands a round and a vote start from, validated once for every caller (HTTP and UI)."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

from arena_api.core.errors import InvalidRequest
from arena_api.core.models import ChatMessage
from arena_api.core.records import Vote

__all__ = [
    "MAX_IMAGES_SENT",
    "MAX_PROMPT_CHARS",
    "ChatCall",
    "ChatRequest",
    "EarlierImage",
    "ImageBody",
    "JudgeRequest",
    "VoteRequest",
    "parse_command",
    "stream_false_refused",
]

MAX_PROMPT_CHARS = 20_000


class _Command(BaseModel):
    # Unknown members are ignored, so a client may send fields of its own.
    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        alias_generator=to_camel,
        populate_by_name=True,
    )


CommandT = TypeVar("CommandT", bound=_Command)


#: How many images a body may hold before it is not read at all; ``ARENA_MAX_IMAGES`` (at most
#: 16) is checked after it, with its own 413 ``too_many_images``.
MAX_IMAGES_SENT = 64


class ImageBody(_Command):
    """An image of the prompt: its bytes as base64 in ``data`` (with ``mediaType``, a hint: the
    type is read from the bytes), or a ``url``: a ``data:`` URL, or ``http(s)`` where the
    operator allows fetching (``ARENA_ALLOW_IMAGE_URLS``)."""

    data: str | None = Field(default=None, min_length=1)
    media_type: str | None = Field(default=None, max_length=200)
    url: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _one_source(self) -> ImageBody:
        if (self.data is None) == (self.url is None):
            raise ValueError("give either data (base64) or url")
        return self


ModelId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class ChatRequest(_Command):
    """``POST /api/arena/chat``'s own body (the other protocols' bodies are mapped onto it)."""

    #: The prompt's images (``arena_api.core.media``), checked by the round before it starts.
    #: (Declared before ``prompt``, whose check reads them.)
    images: tuple[ImageBody, ...] = Field(default=(), max_length=MAX_IMAGES_SENT)
    #: The question (1 to 20,000 characters); with images it may be empty (an image alone asks
    #: "what is this?").
    prompt: str = Field(max_length=MAX_PROMPT_CHARS)
    session_id: str | None = Field(default=None, min_length=1, max_length=200)
    conversation_id: uuid.UUID | None = None
    arena: bool | None = None
    join_key: str | None = Field(default=None, min_length=1, max_length=200)
    #: The one slot this request streams of the matchup it shares with its sibling (the
    #: ``joinKey``'s other request): a client that sends one request per model names which.
    #: Without it the first of the two streams A and the second B.
    slot: Literal["A", "B"] | None = None
    #: ``named``: a side-by-side round of the two ``models`` (roster ids), named from the start.
    mode: Literal["blind", "named"] = "blind"
    models: tuple[ModelId, ModelId] | None = Field(default=None, validate_default=True)
    #: Where another protocol's body held each image (``messages[2].content[1]``), to name it
    #: in an error; the native body's are ``images[i]``. Set by the ingress parsers, not part of
    #: the native body's schema.
    image_fields: SkipJsonSchema[tuple[str, ...]] = Field(default=(), exclude=True)

    @field_validator("prompt", mode="before")
    @classmethod
    def _trim(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("prompt")
    @classmethod
    def _something_asked(cls, value: str, info: ValidationInfo) -> str:
        if not value and not info.data.get("images"):
            raise ValueError("must not be empty (unless the prompt carries images)")
        return value

    @field_validator("prompt", "session_id")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        # PostgreSQL's text cannot hold NUL (JSON's "\u0000"); pydantic refuses lone surrogates.
        if value is not None and "\x00" in value:
            raise ValueError("must not contain NUL characters")
        return value

    @model_validator(mode="after")
    def _a_field_per_image(self) -> ChatRequest:
        if self.image_fields and len(self.image_fields) != len(self.images):
            raise ValueError("image_fields must name every image, or none")
        return self

    @field_validator("slot")
    @classmethod
    def _slot_of_a_join(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("join_key") is None:
            raise ValueError("a slot is named only with a joinKey")
        return value

    @field_validator("models")
    @classmethod
    def _two_for_named(
        cls, value: tuple[str, str] | None, info: ValidationInfo
    ) -> tuple[str, str] | None:
        named = info.data.get("mode") == "named"
        if named and value is None:
            raise ValueError("mode 'named' needs the two models' ids")
        if not named and value is not None:
            raise ValueError("models are picked only in mode 'named'")
        if value is not None and value[0] == value[1]:
            raise ValueError("the two models must differ")
        return value


class VoteRequest(_Command):
    matchup_id: uuid.UUID
    matchup_token: str = Field(min_length=1, max_length=4096)
    vote: Vote
    #: Why (``ARENA_VOTE_REASONS``; optional, additive to the seed system's body). Checked
    #: against the configured reasons by the vote (400 ``invalid_reasons``), not here.
    reasons: tuple[Annotated[str, StringConstraints(max_length=64)], ...] = Field(
        default=(), max_length=64
    )


class JudgeRequest(_Command):
    """``POST /api/arena/matchups/{id}/judge``: the matchup's vote token, as a vote carries."""

    matchup_token: str = Field(min_length=1, max_length=4096)


def stream_false_refused() -> InvalidRequest:
    """The 400 for ``stream: false`` on a round: there is no buffered completion to return."""
    return InvalidRequest(
        "stream: false is not supported: a matchup is two live streams with no buffered "
        "completion to return; omit stream or set it to true",
        details={"stream": ["must be true or omitted"]},
    )


def parse_command(model: type[CommandT], data: Mapping[str, Any] | Any) -> CommandT:
    """Validate ``data`` into ``model``.

    Raises:
        InvalidRequest: with ``details`` mapping each offending field (wire name) to messages.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        details: dict[str, list[str]] = {}
        for error in exc.errors():
            field = ".".join(str(p) for p in error["loc"]) or "body"
            details.setdefault(field, []).append(error["msg"])
        raise InvalidRequest("Invalid request", details=details) from None


@dataclass(frozen=True)
class EarlierImage:
    """An image of an earlier user message of a chat-completions body: ``message`` is that
    message's place in ``ChatCall.history``, ``field`` where the body held the image."""

    message: int
    body: ImageBody
    field: str


@dataclass(frozen=True)
class ChatCall:
    """An OpenAI chat-completions request as the arena's chat front reads it.

    ``prompt`` is the newest user message's text (validated only when a round is started from
    it: a helper task's prompt may be long), ``images`` its images (unchecked: the round reads
    them) and ``image_fields`` where the body held each; ``history`` the text of the messages
    before it, and ``earlier_images`` the images of its user messages: an arena conversation
    shows the models its stored turns' images, never the client's copy; a single model's chat
    (no stored conversation) is sent these.
    ``chat_id`` and ``user_id`` come from the headers Open WebUI forwards.
    """

    model: str | None
    prompt: str
    prompt_field: str
    history: tuple[ChatMessage, ...]
    stream: bool
    chat_id: str | None = None
    user_id: str | None = None
    images: tuple[ImageBody, ...] = ()
    image_fields: tuple[str, ...] = ()
    earlier_images: tuple[EarlierImage, ...] = ()

    @property
    def digest(self) -> str:
        """A SHA-256 of the whole transcript: the same for the copies of one message that a
        compare view sends once per column, different for every later message (or the same
        text with other images)."""
        turns: list[list[str]] = [[m.role, m.content] for m in self.history]
        turns.append(["user", self.prompt])
        if self.images:  # a text-only transcript keeps the digest it always had
            turns.append([_image_digest(image) for image in self.images])
        return hashlib.sha256(json.dumps(turns).encode()).hexdigest()


def _image_digest(image: ImageBody) -> str:
    source = image.data if image.data is not None else image.url or ""
    return hashlib.sha256(source.encode()).hexdigest()
