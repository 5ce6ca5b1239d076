"""Pydantic models of the bodies that have no model where they are built, for the OpenAPI
document only.

Most bodies have their model next to the code that parses or builds them: the commands, views
and events in ``arena_api.core``, the error body and ``/health`` in ``arena_api.core.responses``,
the foreign request envelopes, the ``chat.completion`` and the stream error in
``arena_api.protocols``. What is left here is built by hand elsewhere: the passphrase login
(``arena_api.routes.login``), the model list (``arena_api.routes.models``), and the OpenAI chunk
the framings write per token (``arena_api.protocols.openai_sse``, ``openai_text``), where a model
would cost every token. Nothing serialises through them: the schemathesis test checks that the
server's answers still fit them.

A field typed ``X | SkipJsonSchema[None] = None`` is one the server omits, never sends as
``null``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

from arena_api.core.events import MatchupStarted
from arena_api.core.models import Slot

__all__ = [
    "AddModelRequest",
    "CreateQueueRequest",
    "NextItem",
    "QueueAgreementView",
    "QueueCreated",
    "QueueDetail",
    "QueueList",
    "VerdictRecorded",
    "VerdictRequest",
    "AuditPage",
    "EditModelRequest",
    "ModelAdded",
    "ModelEdited",
    "ModelProbe",
    "RosterList",
    "SettingsList",
    "ChatCompletionChunk",
    "CreateTokenRequest",
    "CreatedToken",
    "RoleChanged",
    "SetRoleRequest",
    "TokenChanged",
    "TokenList",
    "UserList",
    "LoginForm",
    "LoginRequest",
    "Me",
    "MeUser",
    "ModelList",
    "ModelObject",
    "SignedIn",
]


class _Camel(BaseModel):
    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)


class _Snake(BaseModel):
    model_config = ConfigDict(frozen=True)


# -- the passphrase login (``ARENA_PASSPHRASE``) ----------------------------------------------


class LoginRequest(_Snake):
    """``POST /login`` from a script."""

    passphrase: str


class LoginForm(_Snake):
    """``POST /login`` from the login page."""

    passphrase: str
    next: str | SkipJsonSchema[None] = Field(
        default=None, description="Where to go after signing in: a path on this site."
    )


class SignedIn(_Camel):
    """A session opened; its cookies are set. Unsafe requests that ride the session send
    ``csrf_token`` as ``X-CSRF-Token``."""

    ok: Literal[True]
    csrf_token: str
    expires_at: str = Field(description="ISO 8601, UTC.")


class MeUser(_Snake):
    """A person signed in with OpenID Connect."""

    id: str
    email: str | None
    name: str | None
    role: Literal["admin", "reviewer", "voter"]


class Me(_Camel):
    """``GET /api/me``: whether a browser session is live, and whose."""

    signed_in: bool = Field(description="A session cookie is live (false for a token).")
    user: MeUser | None = Field(
        description="The signed-in user; null for a passphrase session or a token."
    )


# -- users, tokens and the audit log (``arena_api.routes.admin``) -------------------------------


class MemberView(_Camel):
    id: str
    email: str | None
    name: str | None
    role: Literal["admin", "reviewer", "voter"]
    first_seen_at: str
    last_seen_at: str


class UserList(_Camel):
    users: list[MemberView]


class SetRoleRequest(_Snake):
    role: Literal["admin", "reviewer", "voter"]


class RoleChanged(_Camel):
    user: MeUser
    role_before: Literal["admin", "reviewer", "voter"]


Scope = Literal["read", "vote", "admin"]


class TokenView(_Camel):
    """An API token, never its value."""

    id: str
    owner: str
    name: str
    hint: str = Field(description="The token's first ten characters.")
    scopes: list[Scope]
    created_at: str
    last_used_at: str | None
    revoked_at: str | None


class TokenList(_Camel):
    tokens: list[TokenView]


class TokenChanged(_Camel):
    token: TokenView


class CreateTokenRequest(_Snake):
    name: str = Field(min_length=1, max_length=100)
    scopes: list[Scope] = Field(
        default=["read", "vote"],
        min_length=1,
        description="read: safe methods; vote: all but the admin routes; admin: everything "
        "(admins only).",
    )


class CreatedToken(_Camel):
    token: str = Field(description="The token, shown this once: only its SHA-256 is kept.")
    info: TokenView


ModelStatusName = Literal["active", "paused", "archived"]


class RosterModelView(_Camel):
    id: str
    display_name: str
    provider: str
    provider_model_id: str
    status: ModelStatusName
    source: Literal["file", "console", "import"] = Field(
        description="file: the roster file seeds it at every start; console: added here, kept "
        "by a seed; import: known from imported votes."
    )
    prices: list[float] | None = Field(description="[input, output] US dollars per million tokens.")


class RosterList(_Camel):
    models: list[RosterModelView]
    providers: list[str] = Field(description="The providers this server has configured.")


class AddModelRequest(_Camel):
    display_name: str = Field(min_length=1, max_length=100)
    provider: str = Field(min_length=1, max_length=40)
    provider_model_id: str = Field(min_length=1, max_length=200)
    prices: list[float] | SkipJsonSchema[None] = Field(
        default=None, min_length=2, max_length=2, description="[input, output], 0 or more."
    )
    status: ModelStatusName = "active"


class EditModelRequest(_Camel):
    display_name: str | SkipJsonSchema[None] = Field(default=None, min_length=1, max_length=100)
    prices: list[float] | None = Field(
        default=None, min_length=2, max_length=2, description="null clears them."
    )
    status: ModelStatusName | SkipJsonSchema[None] = None


class ModelAdded(_Camel):
    model: RosterModelView


class ModelEdited(_Camel):
    model: RosterModelView
    before: RosterModelView


class ModelProbe(_Camel):
    ok: bool
    first_token_ms: int | None
    total_ms: int
    text: str = Field(description="The first tokens (up to 200 characters).")
    error_code: str | None = Field(description="A slot error's code: provider_timeout, ...")
    error: str | None


class RoundsSource(_Camel):
    category: str | SkipJsonSchema[None] = None
    models: list[str] | SkipJsonSchema[None] = Field(
        default=None, min_length=2, max_length=2, description="Both slots among these two."
    )
    since: str | SkipJsonSchema[None] = None
    until: str | SkipJsonSchema[None] = None
    limit: int = Field(default=50, ge=1, le=1000)


class QueueSource(_Camel):
    suite_run: str | SkipJsonSchema[None] = Field(
        default=None, description="A suite run's id: its rounds with both answers."
    )
    rounds: RoundsSource | SkipJsonSchema[None] = Field(
        default=None, description="Stored rounds, newest first."
    )
    prompts: list[str] | SkipJsonSchema[None] = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Prompts to play now as blind rounds, in the background (`pending` counts "
        "down); a round that fails is left out.",
    )
    models: list[str] | SkipJsonSchema[None] = Field(
        default=None,
        min_length=2,
        max_length=2,
        description="With prompts: the two models that answer them (else drawn per prompt).",
    )


class CreateQueueRequest(_Snake):
    name: str = Field(min_length=1, max_length=100)
    k: int = Field(default=2, ge=1, le=20, description="Reviews each item needs.")
    reviewers: list[str] = Field(description="User ids of reviewers or admins, at least k.")
    source: QueueSource


class QueueCreated(_Snake):
    id: str


class QueueView(_Camel):
    id: str
    name: str
    k: int
    items: int
    complete: int = Field(description="Items with k reviews.")
    pending: int = Field(description="Rounds still being played for it (from prompts).")
    yours: int = Field(description="Items you reviewed or passed.")
    created_at: str


class QueueList(_Camel):
    queues: list[QueueView]


class ReviewerProgressView(_Camel):
    user_id: str
    reviewer: str
    verdicts: int
    skips: int


class QueueDetail(_Camel):
    queue: QueueView
    reviewers: list[ReviewerProgressView]


class ShareView(_Snake):
    agreed: int
    of: int
    rate: float | None


class ReviewerAgreementView(_Camel):
    user_id: str
    reviewer: str
    verdicts: int
    with_majority: ShareView
    with_judge: ShareView
    with_people: ShareView


class SplitView(_Camel):
    item_id: str
    position: int
    agreement: float = Field(description="The share of reviewer pairs that agree.")
    votes: dict[str, int]


class QueueAgreementView(_Camel):
    queue: QueueView
    items: int = Field(description="Items with k reviews, the ones kappa counts.")
    kappa: float | None = Field(description="Fleiss' kappa over the four outcomes.")
    kappa_interval: list[float] | None = Field(description="95 %, resampling the items.")
    observed_agreement: float | None
    reviewers: list[ReviewerAgreementView]
    splits: list[SplitView]


class EarlierTurn(_Snake):
    prompt: str
    answer: str


class ReviewItemView(_Snake):
    id: str
    position: int
    history: list[EarlierTurn] = Field(
        description="The conversation before this round: each earlier prompt and the answer "
        "it went on from."
    )
    prompt: str
    answers: dict[str, str | None] = Field(description="A and B, never the models.")


class ReviewProgress(_Snake):
    done: int
    total: int


class NextItem(_Snake):
    item: ReviewItemView | None
    progress: ReviewProgress


class VerdictRequest(_Snake):
    vote: Literal["left", "right", "both_good", "both_bad", "skip"]
    reasons: list[str] | SkipJsonSchema[None] = None
    comment: str | SkipJsonSchema[None] = Field(default=None, max_length=2000)


class VerdictRecorded(_Snake):
    ok: Literal[True]


class SettingView(_Snake):
    name: str
    value: str = Field(description="As parsed; a secret shows only that it is set.")
    source: Literal["env", "default"]
    group: str
    secret: bool


class SettingsList(_Snake):
    settings: list[SettingView]


class AuditEntryView(_Camel):
    id: int
    at: str
    actor: str
    actor_id: str | None
    action: str = Field(
        description="sign_in, sign_in_refused, sign_out, user_role, token_create, "
        "token_revoke, model_add, model_edit"
    )
    target: str | None = Field(description="user:<id> or token:<id>.")
    target_label: str | None = Field(
        description="The target as people read it (an email, a token's name), while it exists."
    )
    before: dict[str, Any] | None
    after: dict[str, Any] | None


class AuditPage(_Camel):
    entries: list[AuditEntryView]
    before: int | None = Field(
        description="Pass as `before` for the next, older page; null on the last."
    )


# -- OpenAI's shapes -------------------------------------------------------------------------


class ModelObject(_Snake):
    """One entry of the model list (OpenAI's model object; ``name`` is Open WebUI's label)."""

    id: str
    object: Literal["model"]
    created: int = Field(description="The server's start time (the roster has none).")
    owned_by: str
    name: str
    description: str | SkipJsonSchema[None] = None


class ModelList(_Snake):
    object: Literal["list"]
    data: list[ModelObject]


class ChunkDelta(_Snake):
    role: Literal["assistant"] | SkipJsonSchema[None] = None
    content: str | SkipJsonSchema[None] = None


class ChunkChoice(_Snake):
    index: int = Field(description="0 for slot A, 1 for slot B.")
    delta: ChunkDelta
    finish_reason: Literal["stop"] | None


class SlotErrorNote(_Snake):
    slot: Slot
    message: str


class SteeredNote(_Snake):
    instruction: str


class ChatCompletionChunk(_Snake):
    """One ``chat.completion.chunk``; a matchup carries one choice per slot, in slot order."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    omni_arena: MatchupStarted | SkipJsonSchema[None] = Field(
        default=None, description="On the first chunk: the matchup (its started event)."
    )
    omni_arena_error: SlotErrorNote | SkipJsonSchema[None] = None
    omni_arena_steered: SteeredNote | SkipJsonSchema[None] = None
