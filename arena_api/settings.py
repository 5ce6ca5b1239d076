"""Every environment variable the product reads, typed, with its default and range, in one place.

``SETTINGS`` is the single declaration: ``load_settings`` parses the environment against it, the
README's table is generated from it (``arena settings --markdown``) and a test keeps the two equal.

A malformed or out-of-range value raises ``SettingsError``, whose message is one line naming the
variable, the value and what is allowed; the CLI prints exactly that line and exits 2.
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Any, Literal, get_args

from arena_api.core.media import ImageLimits
from arena_api.core.ratelimit import Limit, parse_limits
from arena_api.core.reasons import DEFAULT_VOTE_REASONS, MAX_VOTE_REASONS, parse_vote_reasons

__all__ = [
    "ROSTER_PROVIDERS",
    "Provider",
    "SETTINGS",
    "RosterEntry",
    "Secret",
    "Setting",
    "Settings",
    "SettingsError",
    "load_settings",
    "read_setting",
]


#: The shortest ``MATCHUP_TOKEN_SECRET`` a production server accepts (256 bits in hex).
PRODUCTION_SECRET_MIN = 32


class SettingsError(ValueError):
    """A variable holds a value outside what its setting allows."""

    def __init__(self, name: str, value: str, allowed: str) -> None:
        self.name, self.value, self.allowed = name, value, allowed
        super().__init__(f"invalid setting {name}={value!r}: {allowed}")


class Secret:
    """A string that never shows itself in a ``repr`` or a log line."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


Parser = Callable[[str], Any]


@dataclass(frozen=True)
class Setting:
    """One environment variable: its name, default (as written in the environment) and parser."""

    name: str
    default: str | None
    help: str
    parse: Parser
    allowed: str
    attr: str = ""
    aliases: tuple[str, ...] = ()
    group: str = "app"

    @property
    def field(self) -> str:
        return self.attr or self.name.lower().removeprefix("arena_")


class _Invalid(ValueError):
    pass


def _integer(lo: int, hi: int) -> tuple[Parser, str]:
    def parse(raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError as exc:
            raise _Invalid from exc
        if not lo <= value <= hi:
            raise _Invalid
        return value

    return parse, f"must be an integer in [{lo}, {hi}]"


def _number(lo: float, hi: float, *, open_low: bool = False) -> tuple[Parser, str]:
    def parse(raw: str) -> float:
        try:
            value = float(raw.strip())
        except ValueError as exc:
            raise _Invalid from exc
        if value != value or not (lo < value if open_low else lo <= value) or value > hi:
            raise _Invalid
        return value

    bracket = "(" if open_low else "["
    return parse, f"must be a number in {bracket}{lo:g}, {hi:g}]"


def _choice(*values: str) -> tuple[Parser, str]:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in values:
            raise _Invalid
        return value

    return parse, "must be one of " + " | ".join(values)


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _boolean() -> tuple[Parser, str]:
    def parse(raw: str) -> bool:
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise _Invalid

    return parse, "must be a boolean: 1/true/yes/on or 0/false/no/off"


def _text(*, min_len: int = 0, max_len: int = 10_000, required: bool = False) -> tuple[Parser, str]:
    def parse(raw: str) -> str | None:
        value = raw.strip()
        if not value and not required:
            return None
        if not min_len <= len(value) <= max_len:
            raise _Invalid
        return value

    allowed = "any text" if min_len == 0 else f"text of {min_len} to {max_len} characters"
    return parse, allowed


def _proxies() -> tuple[Parser, str]:
    """Which peers' ``X-Forwarded-*`` headers are believed: none, any, or these networks."""

    def parse(raw: str) -> tuple[IPv4Network | IPv6Network, ...] | Literal["*"]:
        value = raw.strip().lower()
        if value in _FALSE:
            return ()
        if value in _TRUE or value == "*":
            return "*"
        try:
            return tuple(ip_network(part.strip(), strict=False) for part in value.split(","))
        except ValueError as exc:
            raise _Invalid from exc

    return parse, "0 (no proxy), 1 (any peer), or comma-separated addresses or networks (CIDR)"


def _secret_list(*, min_len: int) -> tuple[Parser, str]:
    def parse(raw: str) -> tuple[Secret, ...]:
        tokens = tuple(part.strip() for part in raw.split(",") if part.strip())
        if any(len(token) < min_len for token in tokens):
            raise _Invalid
        return tuple(Secret(token) for token in tokens)

    return parse, f"empty, or comma-separated tokens of at least {min_len} characters"


def _words(*, lower: bool = False) -> tuple[Parser, str]:
    def parse(raw: str) -> tuple[str, ...]:
        words = (part.strip() for part in raw.replace(",", " ").split())
        return tuple(w.lower() if lower else w for w in words if w)

    return parse, "empty, or words separated by commas or spaces"


def _rate_limits() -> tuple[Parser, str]:
    def parse(raw: str) -> tuple[Limit, ...]:
        try:
            return parse_limits(raw)
        except ValueError as exc:
            raise _Invalid from exc

    return parse, "empty (no limit) or comma-separated N/unit, unit second|minute|hour|day"


def _secret(*, min_len: int = 1) -> tuple[Parser, str]:
    text, _ = _text(min_len=min_len)

    def parse(raw: str) -> Secret | None:
        value = text(raw)
        return None if value is None else Secret(value)

    return parse, f"a secret of at least {min_len} characters"


def _url(*schemes: str) -> tuple[Parser, str]:
    def parse(raw: str) -> str | None:
        value = raw.strip()
        if not value:
            return None
        scheme, sep, rest = value.partition("://")
        if not sep or scheme.lower() not in schemes or not rest:
            raise _Invalid
        return value.rstrip("/")

    return parse, "must be a URL starting with " + " or ".join(f"{s}://" for s in schemes)


def _origin(raw: str) -> str:
    """``scheme://host[:port]``, as a browser sends it in ``Origin`` (lower-cased, no path)."""
    scheme, sep, rest = raw.strip().partition("://")
    if not sep or scheme.lower() not in _HTTP or not rest or "/" in rest.rstrip("/"):
        raise _Invalid
    return f"{scheme.lower()}://{rest.rstrip('/').lower()}"


def _origins() -> tuple[Parser, str]:
    """Origins that browsers may let call the API: listed ones, or ``*`` for any."""

    def parse(raw: str) -> tuple[str, ...]:
        parts = [part.strip() for part in raw.split(",") if part.strip()]
        return tuple(part if part == "*" else _origin(part) for part in parts)

    return parse, "empty, or comma-separated origins (https://host[:port]); * for any origin"


def _frame_ancestors() -> tuple[Parser, str]:
    """Who may frame the pages: ``none``, ``self``, and listed origins."""

    def parse(raw: str) -> tuple[str, ...]:
        parts = [part.strip() for part in raw.replace(" ", ",").split(",") if part.strip()]
        if [p.lower() for p in parts] in ([], ["none"]):
            return ()
        return tuple("'self'" if p.lower() == "self" else _origin(p) for p in parts)

    return parse, "none, or comma-separated self and origins (https://host[:port])"


def _path() -> tuple[Parser, str]:
    def parse(raw: str) -> Path:
        if not raw.strip():
            raise _Invalid
        return Path(raw.strip()).expanduser()

    return parse, "must be a file system path"


#: What a roster may name as a model's provider (``arena_api.roster`` checks the files too).
Provider = Literal["google", "openai", "ollama", "vllm", "host-proxy", "mock"]
ROSTER_PROVIDERS: tuple[Provider, ...] = get_args(Provider)
#: Other names ``ARENA_MODELS`` takes for a provider.
_PROVIDER_ALIASES = {"gemini": "google"}


@dataclass(frozen=True)
class RosterEntry:
    """One model of ``ARENA_MODELS``."""

    provider: Provider
    provider_model_id: str
    display_name: str


def _roster_models() -> tuple[Parser, str]:
    """``provider:model[=Display Name]``, comma-separated; names default to the model id."""

    def parse(raw: str) -> tuple[RosterEntry, ...]:
        entries = []
        for part in (p.strip() for p in raw.split(",")):
            if not part:
                continue
            spec, _, name = part.partition("=")
            provider, sep, model = spec.strip().partition(":")
            provider = _PROVIDER_ALIASES.get(provider.strip().lower(), provider.strip().lower())
            model, name = model.strip(), name.strip() or model.strip()
            if not sep or provider not in ROSTER_PROVIDERS or not model or len(model) > 400:
                raise _Invalid
            if len(name) > 200:
                raise _Invalid
            entries.append(RosterEntry(provider, model, name))
        return tuple(entries)

    return parse, (
        "empty, or comma-separated provider:provider_model_id[=Display Name], provider one of "
        + " | ".join((*ROSTER_PROVIDERS, *_PROVIDER_ALIASES))
    )


def _example_prompts() -> tuple[Parser, str]:
    """``builtin``, ``off``, or the file to read them from (``arena_api.examples``)."""

    def parse(raw: str) -> Path | Literal["builtin", "off"]:
        value = raw.strip()
        if value.lower() in ("", "builtin"):
            return "builtin"
        if value.lower() == "off":
            return "off"
        return Path(value).expanduser()

    return parse, "builtin | off | the path of a file of prompts"


def _vote_reasons() -> tuple[Parser, str]:
    """``ARENA_VOTE_REASONS`` (``arena_api.core.reasons``)."""

    def parse(raw: str) -> tuple[str, ...]:
        try:
            return parse_vote_reasons(raw)
        except ValueError as exc:
            raise _Invalid from exc

    return parse, (
        "empty, or comma-separated lowercase slugs (a letter, then letters, digits, - or _; "
        f"32 characters at most), none twice, at most {MAX_VOTE_REASONS}"
    )


def _setting(
    name: str, default: str | None, help: str, kind: tuple[Parser, str], **extra: Any
) -> Setting:
    parse, allowed = kind
    return Setting(name, default, help, parse, allowed, **extra)


_HTTP = ("http", "https")
_PG = ("postgres", "postgresql", "postgresql+asyncpg")

SETTINGS: tuple[Setting, ...] = (
    # -- server ---------------------------------------------------------------------------------
    _setting(
        "PORT",
        "3001",
        "Port serving the UI, its event socket and the API.",
        _integer(1, 65535),
        attr="port",
    ),
    _setting(
        "ARENA_ENV",
        "development",
        "`production` refuses to serve with a development token secret, a short "
        "`MATCHUP_TOKEN_SECRET` or the mock provider (the container image sets it).",
        _choice("development", "production"),
        attr="env",
    ),
    _setting(
        "HOST",
        "0.0.0.0",
        "Address the server binds to.",
        _text(min_len=1, max_len=255, required=True),
        attr="host",
    ),
    _setting(
        "DATABASE_URL",
        None,
        "PostgreSQL URL (`postgres://`, `postgresql://` or `postgresql+asyncpg://`). "
        "Unset: an embedded PostgreSQL is started under `ARENA_DATA_DIR`.",
        _url(*_PG),
        attr="database_url",
    ),
    _setting(
        "REDIS_URL",
        None,
        "Redis URL (`redis://`, `rediss://` or `unix://`): run as one of several replicas "
        "behind a load balancer, sharing Reflex's state, slot joins, the control plane, live "
        "feeds and rate limits through Redis (needs `DATABASE_URL` and `MATCHUP_TOKEN_SECRET`). "
        "Unset: one process keeps them in memory.",
        _url("redis", "rediss", "unix"),
        attr="redis_url",
    ),
    _setting(
        "ARENA_CLUSTER_TIMEOUT_MS",
        "3000",
        "With `REDIS_URL`: how long a replica waits for another one to answer (a stop or steer "
        "for a round it runs) before it answers `cluster_timeout`.",
        _integer(100, 60_000),
        attr="cluster_timeout_ms",
    ),
    _setting(
        "ARENA_DATA_DIR", ".arena", "Folder for local state: the embedded database, tools.", _path()
    ),
    _setting(
        "ARENA_MODELS_FILE", "models.yaml", "YAML roster seeded into `models` at start.", _path()
    ),
    _setting(
        "ARENA_MODELS",
        "",
        "The roster without a file, for one-line starts: comma-separated "
        "`provider:provider_model_id`, each optionally `=Display Name` (e.g. "
        "`openai:gpt-4o-mini,openai:gpt-4.1-mini`); it replaces `ARENA_MODELS_FILE`'s roster, "
        "which may then not be set too. Providers: " + " | ".join(ROSTER_PROVIDERS) + ".",
        _roster_models(),
        attr="models",
    ),
    _setting(
        "ARENA_DEMO",
        "0",
        "A try-out with the mock models, allowed in production too: registers the mock provider "
        'and shows a "demo: mock models" banner on every page.',
        _boolean(),
        attr="demo",
    ),
    _setting(
        "ARENA_TRUST_PROXY",
        "0",
        "Believe `X-Forwarded-For`, `-Proto` and `-Host` from these peers (a reverse proxy): "
        "the client's address, https, and the host and port the browser used. `1` trusts any "
        "peer; only set it when nothing but the proxy can reach the port.",
        _proxies(),
        attr="trust_proxy",
    ),
    _setting(
        "ARENA_RATE_LIMIT",
        "",
        "Rounds, votes and judge requests per client (IP address; the forwarded one behind a "
        "trusted proxy), each in sliding windows, e.g. `30/minute` or `5/second,100/hour`; past "
        "a limit, 429 `rate_limited` with `Retry-After`. Empty: no limit.",
        _rate_limits(),
        attr="rate_limit",
    ),
    _setting(
        "ARENA_API_TOKENS",
        "",
        "Tokens the HTTP API requires (`/api/*`, `/v1/*`, `/models`, `/chat/completions`) as "
        "`Authorization: Bearer <token>` or `X-API-Token` (a WebSocket may pass `?api_token=`); "
        "an OpenAI client's API key is exactly this. Empty: the API is open.",
        _secret_list(min_len=16),
        attr="api_tokens",
    ),
    _setting(
        "ARENA_METRICS_TOKEN",
        None,
        "Bearer token `GET /metrics` requires (Prometheus' `authorization` credentials). "
        "Unset: `/metrics` is open, as for local use.",
        _secret(min_len=16),
        attr="metrics_token",
    ),
    _setting(
        "ARENA_PASSPHRASE",
        None,
        "Passphrase the browser UI asks for first (a login page; then a signed, HttpOnly session "
        "cookie). Also guards the event socket, the live feeds and cookie requests to the API "
        "(which then need the `X-CSRF-Token` header). Unset: the UI is open.",
        _secret(min_len=8),
        attr="passphrase",
    ),
    _setting(
        "ARENA_SESSION_TTL_S",
        "604800",
        "How long a browser stays signed in after entering the passphrase (7 days).",
        _integer(60, 31_536_000),
        attr="session_ttl_s",
    ),
    _setting(
        "ARENA_LOGIN_RATE_LIMIT",
        "5/minute,20/hour",
        "Wrong passphrases allowed per client address in sliding windows; past them the login "
        "answers 429 `rate_limited` with `Retry-After`.",
        _rate_limits(),
        attr="login_rate_limit",
    ),
    _setting(
        "ARENA_OIDC_ISSUER",
        None,
        "Sign-in with OpenID Connect: the provider's issuer URL (its "
        "`/.well-known/openid-configuration` is read at start). The login page then offers the "
        "provider (authorization code with PKCE); people become users with a role. Unset: no "
        "single sign-on.",
        _url(*_HTTP),
        attr="oidc_issuer",
    ),
    _setting(
        "ARENA_OIDC_NAME",
        None,
        "The provider's name on the login page's button (\"Sign in with …\"). Unset: the "
        "issuer's host name.",
        _text(max_len=60),
        attr="oidc_name",
    ),
    _setting(
        "ARENA_OIDC_CLIENT_ID",
        None,
        "The arena's client id at the provider (required with `ARENA_OIDC_ISSUER`). Register "
        "`<the arena's URL>/auth/oidc/callback` as its redirect URI.",
        _text(max_len=500),
        attr="oidc_client_id",
    ),
    _setting(
        "ARENA_OIDC_CLIENT_SECRET",
        None,
        "The client's secret (sent as HTTP Basic). Unset: a public client, PKCE alone.",
        _secret(),
        attr="oidc_client_secret",
    ),
    _setting(
        "ARENA_OIDC_SCOPES",
        "openid email profile",
        "Scopes asked for at sign-in (`openid` is always added).",
        _words(),
        attr="oidc_scopes",
    ),
    _setting(
        "ARENA_OIDC_ALLOWED_DOMAINS",
        "",
        "Email domains allowed to sign in (a verified email is required then). Empty: anyone "
        "the provider signs in.",
        _words(lower=True),
        attr="oidc_allowed_domains",
    ),
    _setting(
        "ARENA_OIDC_ROLE_CLAIM",
        None,
        "The claim (ID token or userinfo; a dotted path like `realm_access.roles` reaches into "
        "objects) whose values give the role at each sign-in. Unset: a user keeps the role the "
        "arena holds for them (`voter` at first).",
        _text(max_len=200),
        attr="oidc_role_claim",
    ),
    _setting(
        "ARENA_OIDC_ANONYMOUS",
        "0",
        "With single sign-on: people may also play and vote without signing in, as anonymous "
        "voters (the admin console, review queues and API tokens still need a sign-in).",
        _boolean(),
        attr="oidc_anonymous",
    ),
    _setting(
        "ARENA_USER_VOTE_CAP",
        "0",
        "The most votes one signed-in person may cast in a day (rolling 24 hours); past it a "
        "vote is 429 `user_vote_cap` with `Retry-After`. 0: no cap.",
        _integer(0, 1_000_000),
        attr="user_vote_cap",
    ),
    _setting(
        "ARENA_OIDC_ADMIN_VALUES",
        "",
        "Values of the role claim that make a user an `admin`.",
        _words(),
        attr="oidc_admin_values",
    ),
    _setting(
        "ARENA_OIDC_REVIEWER_VALUES",
        "",
        "Values of the role claim that make a user a `reviewer` (when not an admin); any other "
        "user is a `voter`.",
        _words(),
        attr="oidc_reviewer_values",
    ),
    _setting(
        "ARENA_SHUTDOWN_GRACE_S",
        "20",
        "On SIGTERM: how long rounds in flight may finish (new ones get 503 `shutting_down`) "
        "before the rest are stopped, what they produced kept.",
        _number(0, 3600),
        attr="shutdown_grace_s",
    ),
    _setting(
        "ARENA_MAX_BODY_BYTES",
        "1048576",
        "Largest request body accepted; larger ones are refused with 413 `too_large`.",
        _integer(1024, 64 * 1024 * 1024),
    ),
    _setting(
        "ARENA_MAX_IMAGES",
        "4",
        "Images a person may attach to one prompt (paste, drag, pick, or any protocol's image "
        "parts); only models with `vision: true` answer them. 0 takes no images.",
        _integer(0, 16),
    ),
    _setting(
        "ARENA_MAX_IMAGE_BYTES",
        "10485760",
        "Largest image accepted (its decoded bytes); larger ones are refused with 413 "
        "`image_too_large`. Requests with images may be this much larger than "
        "`ARENA_MAX_BODY_BYTES` per image.",
        _integer(1024, 50 * 1024 * 1024),
    ),
    _setting(
        "ARENA_MAX_IMAGE_PIXELS",
        "40000000",
        "Largest image in pixels (width x height, all frames of an animation together), checked "
        "before decoding: a decompression bomb is refused with 413 `image_too_many_pixels`.",
        _integer(1, 500_000_000),
    ),
    _setting(
        "ARENA_ALLOW_IMAGE_URLS",
        "0",
        "Accept images by `http(s)` URL and fetch them (never from private, loopback or "
        "link-local addresses). Off: only images sent as bytes (base64, data URLs).",
        _boolean(),
    ),
    _setting(
        "ARENA_CORS_ORIGINS",
        "",
        "Origins whose pages may call the API from a browser, with its cookies and credentials "
        "(CORS). `*` lets any origin read without credentials (to embed the leaderboard). "
        "Empty: the UI's own origin only.",
        _origins(),
        aliases=("WEB_ORIGIN",),
    ),
    _setting(
        "ARENA_FRAME_ANCESTORS",
        "none",
        "Who may show the pages in a frame (`frame-ancestors`): `none`, or `self` and origins "
        "that embed the arena.",
        _frame_ancestors(),
    ),
    _setting(
        "LOG_LEVEL",
        "INFO",
        "Log level of the server and the rating process.",
        _choice("debug", "info", "warning", "error"),
        attr="log_level",
    ),
    _setting("LOG_FORMAT", "text", "Log line format.", _choice("text", "json"), attr="log_format"),
    # -- arena ----------------------------------------------------------------------------------
    _setting(
        "MATCHUP_TOKEN_SECRET",
        None,
        "HMAC secret that signs vote tokens (`arena serve`, `arena suite run`) and, unless "
        "`ARENA_EXPORT_SALT` is set, salts the session hashes of exports. Unset: "
        "`MATCHUP_TOKEN_SECRET_FILE`, else on a development machine the development secret "
        "(see `ARENA_ALLOW_DEV_SECRET`).",
        _secret(min_len=16),
        attr="matchup_token_secret",
        group="arena",
    ),
    _setting(
        "MATCHUP_TOKEN_SECRET_FILE",
        None,
        "File holding the token secret when `MATCHUP_TOKEN_SECRET` is unset; the commands "
        "that need the secret create it with a random 64-hex-digit secret (mode 600) when "
        "absent. The container image keeps it in its data volume.",
        _path(),
        attr="matchup_token_secret_file",
        group="arena",
    ),
    _setting(
        "ARENA_ALLOW_DEV_SECRET",
        "0",
        "Let a development machine generate a token secret when `MATCHUP_TOKEN_SECRET` is "
        "unset (`make run` does). It is kept in `<ARENA_DATA_DIR>/dev-token-secret`, which "
        "every later command of that data dir uses, with or without this variable; a warning "
        "is logged. Never in production.",
        _boolean(),
        group="arena",
    ),
    _setting(
        "HARNESS_VERSION",
        "v1",
        "Prompt/orchestration version stored on every matchup.",
        _text(min_len=1, max_len=64, required=True),
        attr="harness_version",
        group="arena",
    ),
    _setting(
        "MATCHMAKER",
        "smart",
        "Pair selection: `smart` (records that stray from the ratings, unplayed pairs, the "
        "top's uncertain order, more games for the top places; docs/rating.md) or `random` "
        "(uniform).",
        _choice("smart", "random"),
        attr="matchmaker",
        group="arena",
    ),
    _setting(
        "ARENA_TRIGGER",
        "always",
        "When the arena engages: every request, on opt-in, or sampled.",
        _choice("always", "manual", "sampled"),
        group="arena",
    ),
    _setting(
        "ARENA_SAMPLE_RATE",
        "0",
        "Engagement probability when `ARENA_TRIGGER=sampled`.",
        _number(0, 1),
        group="arena",
    ),
    _setting(
        "ARENA_EXPOSURE",
        "blind",
        "`blind`: both answers streamed and votable; `shadow`: "
        "only the incumbent streamed, challenger logged.",
        _choice("blind", "shadow"),
        group="arena",
    ),
    _setting(
        "ARENA_DEFAULT_MODEL",
        None,
        "Model for single rounds and shadow incumbent: UUID, "
        "provider model id, display name or `provider:provider_model_id`.",
        _text(min_len=1, max_len=512),
        group="arena",
    ),
    _setting(
        "ARENA_JUDGE_TIMEOUT_S",
        "120",
        "How long the judge model (`judge:` in the roster) may take to give a verdict.",
        _number(1, 3600),
        attr="judge_timeout_s",
        group="arena",
    ),
    _setting(
        "ARENA_AUTOJUDGE_RATE",
        "6",
        "With `ARENA_EXPOSURE=shadow` and a judge in the roster: shadow matchups the judge votes "
        "on in the background, per minute (oldest first, resumed after a restart). 0: never.",
        _number(0, 600),
        attr="autojudge_rate",
        group="arena",
    ),
    _setting(
        "ARENA_SUITES_DIR",
        "suites",
        "Folder of eval suites (`*.yaml`), loaded at start; a broken file is reported and skipped.",
        _path(),
        attr="suites_dir",
        group="arena",
    ),
    _setting(
        "ARENA_EXAMPLE_PROMPTS",
        "builtin",
        "Example prompts the arena page offers before a first round (a visit shows four, drawn "
        "at random from a longer list): `builtin` (a coding, a writing, a reasoning and a fun "
        "one), `off`, or a file read at start, either a YAML list of strings (`.yaml`, `.yml`, "
        "`.json`; a prompt may span lines) or text with one prompt a line (blank lines and "
        "`#` comments skipped). A file that cannot be read or holds a bad entry is logged at "
        "start and the built-in examples are shown.",
        _example_prompts(),
        attr="example_prompts",
        group="arena",
    ),
    _setting(
        "ARENA_EXPORT_SALT",
        None,
        "Salt of the session hashes in vote exports (`arena export`, `GET /api/arena/export`). "
        "Unset: derived from the token secret, so a session keeps one name across exports "
        "(production: `arena export` needs this, `MATCHUP_TOKEN_SECRET` or its file).",
        _secret(min_len=16),
        attr="export_salt",
        group="arena",
    ),
    _setting(
        "ARENA_JOIN_WINDOW_MS",
        "2000",
        "How long the first of two sibling requests waits for its pair; 0 disables slot join.",
        _integer(0, 60_000),
        group="arena",
    ),
    _setting(
        "ARENA_JOIN_MAX_PENDING",
        "256",
        "Unpaired join scopes held at once; more are refused with `join_unavailable`.",
        _integer(1, 100_000),
        group="arena",
    ),
    _setting(
        "ARENA_JOIN_MAX_QUEUED_EVENTS",
        "4096",
        "Event backlog per joined connection before that slot fails.",
        _integer(16, 1_000_000),
        group="arena",
    ),
    _setting(
        "ARENA_OPENAI_MODELS",
        "arena",
        "What `GET /v1/models` lists for OpenAI clients (Open WebUI): `arena`, the blind arena "
        "models (duel, Arena A and B for the compare view, single); `roster`, the named models "
        "(each answers alone, unpaired and unvoted); `both`.",
        _choice("arena", "roster", "both"),
        attr="openai_models",
        group="arena",
    ),
    _setting(
        "ARENA_CHAT_ID_HEADER",
        "X-OpenWebUI-Chat-Id",
        "Request header naming an external chat (Open WebUI's, with "
        "`ENABLE_FORWARD_USER_INFO_HEADERS=true`): pairs compare columns, takes votes, continues.",
        _text(min_len=1, max_len=100, required=True),
        attr="chat_id_header",
        group="arena",
    ),
    _setting(
        "ARENA_USER_ID_HEADER",
        "X-OpenWebUI-User-Id",
        "Request header naming an external chat's user; its digest is the anonymous session of "
        "that user's rounds and votes.",
        _text(min_len=1, max_len=100, required=True),
        attr="user_id_header",
        group="arena",
    ),
    _setting(
        "ARENA_SLOT_TIMEOUT_S",
        "60",
        "Seconds a slot may wait for its next token before it fails with `slot_error`.",
        _number(0.1, 3600),
        group="arena",
    ),
    _setting(
        "ARENA_PROVIDER_RETRIES",
        "2",
        "Retries of a model call that failed before its first token (429, 5xx, a refused or "
        "reset connection), with jittered backoff that honours `Retry-After`, within the "
        "slot's timeout; never once a token was shown.",
        _integer(0, 10),
        group="arena",
    ),
    _setting(
        "ARENA_BREAKER_FAILURES",
        "5",
        "A model that failed this many of its last `ARENA_BREAKER_WINDOW` rounds is paused "
        "from matchmaking (a circuit breaker).",
        _integer(1, 1000),
        group="arena",
    ),
    _setting(
        "ARENA_BREAKER_WINDOW",
        "10",
        "How many of a model's last rounds the circuit breaker counts.",
        _integer(1, 1000),
        group="arena",
    ),
    _setting(
        "ARENA_BREAKER_COOLDOWN_S",
        "60",
        "How long a paused model sits out before one round tries it again (resumed if it answers).",
        _number(1, 86400),
        group="arena",
    ),
    _setting(
        "ARENA_ALERT_WEBHOOK_URL",
        None,
        "Where to POST alerts as JSON (with a Slack-compatible `text`): a model paused or "
        "resumed, the rating process failing twice in a row, the database lost or back.",
        _url(*_HTTP),
        attr="alert_webhook_url",
        group="arena",
    ),
    _setting(
        "ARENA_TEXT_RETENTION_DAYS",
        "0",
        "Clear prompt and answer text older than this many days (votes, ratings and summaries "
        "stay); 0 keeps it.",
        _integer(0, 36500),
        group="arena",
    ),
    _setting(
        "ARENA_VOTE_REASONS",
        ",".join(DEFAULT_VOTE_REASONS),
        "Reasons a voter may tick with a vote (chips under the vote buttons, `reasons` in "
        "`POST /api/arena/vote`), in the order shown; stored with the vote, exported, and "
        "counted per winning model on the insights page. Empty: no reasons are offered.",
        _vote_reasons(),
        attr="vote_reasons",
        group="arena",
    ),
    # -- providers ------------------------------------------------------------------------------
    _setting(
        "ARENA_MOCK_PROVIDER",
        "0",
        "Register the deterministic, network-free `mock` provider.",
        _boolean(),
        group="providers",
    ),
    _setting(
        "ARENA_ALLOW_MOCK_IN_PRODUCTION",
        "0",
        "Allow `ARENA_MOCK_PROVIDER=1` when `ARENA_ENV=production` (a demo deployment).",
        _boolean(),
        group="providers",
    ),
    _setting(
        "ARENA_MOCK_TOKENS_PER_SECOND",
        "50",
        "Mock streaming speed; 0 streams as fast as possible.",
        _number(0, 1_000_000),
        group="providers",
    ),
    _setting(
        "ARENA_MOCK_TOKENS",
        "60",
        "Tokens in a mock answer.",
        _integer(1, 100_000),
        group="providers",
    ),
    _setting(
        "OPENAI_API_KEY",
        None,
        "Key of the OpenAI-compatible provider.",
        _secret(),
        attr="openai_api_key",
        group="providers",
    ),
    _setting(
        "OPENAI_BASE_URL",
        None,
        "Base URL of the OpenAI-compatible provider, including `/v1` (default: OpenAI's).",
        _url(*_HTTP),
        attr="openai_base_url",
        group="providers",
    ),
    _setting(
        "VLLM_BASE_URL",
        None,
        "Base URL of a vLLM server, including `/v1` (OpenAI-compatible).",
        _url(*_HTTP),
        attr="vllm_base_url",
        group="providers",
    ),
    _setting(
        "VLLM_API_KEY",
        None,
        "Optional bearer token for vLLM.",
        _secret(),
        attr="vllm_api_key",
        group="providers",
    ),
    _setting(
        "OLLAMA_BASE_URL",
        "http://localhost:11434",
        "Ollama server (native `/api/chat`).",
        _url(*_HTTP),
        attr="ollama_base_url",
        group="providers",
    ),
    _setting(
        "GOOGLE_API_KEY",
        None,
        "Gemini API key.",
        _secret(),
        attr="google_api_key",
        aliases=("GEMINI_API_KEY",),
        group="providers",
    ),
    _setting(
        "GOOGLE_BASE_URL",
        "https://generativelanguage.googleapis.com",
        "Gemini API base URL.",
        _url(*_HTTP),
        attr="google_base_url",
        group="providers",
    ),
    _setting(
        "HOST_PROXY_URL",
        None,
        "Host-owned OpenAI-compatible proxy, including `/v1`; upstream keys stay with the host.",
        _url(*_HTTP),
        attr="host_proxy_url",
        group="providers",
    ),
    _setting(
        "HOST_PROXY_TOKEN",
        None,
        "Optional bearer token for the host proxy.",
        _secret(),
        attr="host_proxy_token",
        group="providers",
    ),
    # -- rating process -------------------------------------------------------------------------
    _setting(
        "ARENA_RATING_WORKER",
        "embedded",
        "`embedded`: `arena serve` supervises the rating "
        "process; `off`: it runs as its own service.",
        _choice("embedded", "off"),
        group="rating",
    ),
    _setting(
        "RATING_MIN_INTERVAL_S",
        "10",
        "Shortest time between two refits in `--loop` mode, in seconds: a refit starts this soon "
        "after new votes arrive, and none while nothing changed.",
        _number(0.1, 86_400),
        attr="rating_min_interval_s",
        group="rating",
    ),
    _setting(
        "RATING_REFIT_INTERVAL_S",
        "300",
        "Shortest time between two style-controlled passes in `--loop --style` mode, in seconds "
        "(each rides along with a refit once votes changed since the last).",
        _number(1, 86_400),
        attr="rating_refit_interval_s",
        aliases=("REFIT_INTERVAL_SECONDS",),
        group="rating",
    ),
    _setting(
        "ARENA_PROVISIONAL_VOTES",
        "30",
        "A model with fewer decided votes than this is marked provisional on the board "
        "and sorted below the settled ones.",
        _integer(1, 1_000_000),
        group="rating",
    ),
    _setting(
        "ARENA_PROVISIONAL_CI",
        "200",
        "A model whose 95% interval is wider than this many rating points is marked "
        "provisional on the board.",
        _number(1, 100_000),
        group="rating",
    ),
    _setting(
        "FULL_REFIT_EVERY",
        "12",
        "Warm refits between cold from-scratch fits; 0 never refits cold.",
        _integer(0, 100_000),
        attr="full_refit_every",
        group="rating",
    ),
    _setting(
        "RATING_RIDGE",
        "0.01",
        "Ridge-prior strength of the default fit (log-odds scale).",
        _number(0, 100, open_low=True),
        attr="rating_ridge",
        group="rating",
    ),
    _setting(
        "STYLE_RIDGE",
        "0.05",
        "Ridge-prior strength of the style-controlled fit.",
        _number(0, 100, open_low=True),
        attr="style_ridge",
        group="rating",
    ),
    _setting(
        "ANOMALY_ALPHA",
        "0.05",
        "Family-wise significance of the anomaly screen (Bonferroni over its three tests).",
        _number(0, 0.5, open_low=True),
        attr="anomaly_alpha",
        group="rating",
    ),
    _setting(
        "ANOMALY_MIN_GAP_S",
        "1.5",
        "Median seconds between a session's votes below which it is flagged as automated.",
        _number(0, 3600),
        attr="anomaly_min_gap_s",
        group="rating",
    ),
    _setting(
        "RATING_DUPLICATE_CAP",
        "0.001",
        "Share of people's votes one prompt may bring to the fit (normalised text); a prompt "
        "asked more often keeps a seeded random sample of that many votes. 0 turns the cap off.",
        _number(0, 1),
        attr="rating_duplicate_cap",
        group="rating",
    ),
    _setting(
        "RATING_DUPLICATE_MIN_VOTES",
        "20",
        "The duplicate cap never keeps fewer than this many votes of a prompt (a small arena's "
        "repeated prompts stay in).",
        _integer(1, 1_000_000_000),
        attr="rating_duplicate_min_votes",
        group="rating",
    ),
    _setting(
        "RATING_CATEGORY_MIN_VOTES",
        "200",
        "Votes a category or language needs before it gets a board of its own (`?category=`); "
        "0 fits none.",
        _integer(0, 1_000_000_000),
        attr="rating_category_min_votes",
        group="rating",
    ),
)


@dataclass(frozen=True)
class Settings:
    """The parsed environment. Build it with ``load_settings``."""

    env: str
    port: int
    host: str
    database_url: str | None
    redis_url: str | None
    cluster_timeout_ms: int
    data_dir: Path
    models_file: Path
    models: tuple[RosterEntry, ...]
    demo: bool
    trust_proxy: tuple[IPv4Network | IPv6Network, ...] | Literal["*"]
    rate_limit: tuple[Limit, ...]
    api_tokens: tuple[Secret, ...]
    metrics_token: Secret | None
    passphrase: Secret | None
    session_ttl_s: int
    login_rate_limit: tuple[Limit, ...]
    oidc_issuer: str | None
    oidc_name: str | None
    oidc_client_id: str | None
    oidc_client_secret: Secret | None
    oidc_scopes: tuple[str, ...]
    oidc_allowed_domains: tuple[str, ...]
    oidc_role_claim: str | None
    oidc_admin_values: tuple[str, ...]
    oidc_anonymous: bool
    user_vote_cap: int
    oidc_reviewer_values: tuple[str, ...]
    shutdown_grace_s: float
    max_body_bytes: int
    max_images: int
    max_image_bytes: int
    max_image_pixels: int
    allow_image_urls: bool
    cors_origins: tuple[str, ...]
    frame_ancestors: tuple[str, ...]
    log_level: str
    log_format: str
    matchup_token_secret: Secret | None
    matchup_token_secret_file: Path | None
    allow_dev_secret: bool
    harness_version: str
    matchmaker: str
    trigger: str
    sample_rate: float
    exposure: str
    default_model: str | None
    judge_timeout_s: float
    autojudge_rate: float
    suites_dir: Path
    example_prompts: Path | Literal["builtin", "off"]
    export_salt: Secret | None
    join_window_ms: int
    join_max_pending: int
    join_max_queued_events: int
    openai_models: str
    chat_id_header: str
    user_id_header: str
    slot_timeout_s: float
    provider_retries: int
    breaker_failures: int
    breaker_window: int
    breaker_cooldown_s: float
    provisional_votes: int
    provisional_ci: float
    alert_webhook_url: str | None
    text_retention_days: int
    vote_reasons: tuple[str, ...]
    mock_provider: bool
    allow_mock_in_production: bool
    mock_tokens_per_second: float
    mock_tokens: int
    openai_api_key: Secret | None
    openai_base_url: str | None
    vllm_base_url: str | None
    vllm_api_key: Secret | None
    ollama_base_url: str | None
    google_api_key: Secret | None
    google_base_url: str | None
    host_proxy_url: str | None
    host_proxy_token: Secret | None
    rating_worker: str
    rating_min_interval_s: float
    rating_refit_interval_s: float
    full_refit_every: int
    rating_ridge: float
    style_ridge: float
    anomaly_alpha: float
    anomaly_min_gap_s: float
    rating_duplicate_cap: float
    rating_duplicate_min_votes: int
    rating_category_min_votes: int
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    def check_serving(self) -> None:
        """Cross-variable rules that only matter to a serving process.

        Raises:
            SettingsError: a combination of values cannot serve.
        """
        if self.env == "production":
            self._check_production()
        if self.redis_url is not None:
            self._check_cluster()
        # Whether a token secret is found (or may be made) is `arena_api.keys.token_secret`'s
        # rule, which reads the data dir; the serving commands ask it before they start.
        needs_default = self.trigger != "always" or self.exposure == "shadow"
        if needs_default and self.default_model is None:
            reason = (
                f"ARENA_TRIGGER={self.trigger}"
                if self.trigger != "always"
                else "ARENA_EXPOSURE=shadow"
            )
            raise SettingsError("ARENA_DEFAULT_MODEL", "", f"required when {reason}")
        if self.breaker_failures > self.breaker_window:
            raise SettingsError(
                "ARENA_BREAKER_FAILURES",
                str(self.breaker_failures),
                f"at most ARENA_BREAKER_WINDOW ({self.breaker_window})",
            )

    def _check_cluster(self) -> None:
        """Replicas share one database and sign with one key, or votes fail on the others."""
        because = "when REDIS_URL is set (every replica must share it)"
        if self.database_url is None:
            raise SettingsError("DATABASE_URL", "", f"required {because}")
        if self.matchup_token_secret is None:
            raise SettingsError("MATCHUP_TOKEN_SECRET", "", f"required {because}")

    def _check_production(self) -> None:
        """What a development machine may do and a production server must not."""
        because = "when ARENA_ENV=production"
        if self.allow_dev_secret:
            raise SettingsError("ARENA_ALLOW_DEV_SECRET", "1", f"must not be set {because}")
        secret = self.matchup_token_secret
        if secret is None or len(secret.reveal()) < PRODUCTION_SECRET_MIN:
            raise SettingsError(
                "MATCHUP_TOKEN_SECRET",
                "" if secret is None else "<hidden>",
                f"required {because}, at least {PRODUCTION_SECRET_MIN} characters "
                "(e.g. `openssl rand -hex 32`)",
            )
        if self.mock_provider and not (self.allow_mock_in_production or self.demo):
            raise SettingsError(
                "ARENA_MOCK_PROVIDER",
                "1",
                f"must not be set {because} unless ARENA_DEMO=1 (a try-out with mock models)",
            )

    @property
    def image_limits(self) -> ImageLimits:
        """What images a prompt may carry (``arena_api.core.media``)."""
        return ImageLimits(
            max_images=self.max_images,
            max_bytes=self.max_image_bytes,
            max_pixels=self.max_image_pixels,
            allow_urls=self.allow_image_urls,
        )

    @property
    def max_round_body_bytes(self) -> int:
        """Largest body of a request that starts a round: ``max_body_bytes`` plus room for its
        images as base64 (4 characters per 3 bytes)."""
        return self.max_body_bytes + self.max_images * (self.max_image_bytes * 4 // 3 + 64)

    @property
    def uses_mock_provider(self) -> bool:
        """Whether the mock provider is registered: asked for, or a demo."""
        return self.mock_provider or self.demo

    @property
    def roster_source(self) -> str:
        """Where the roster comes from, as an operator would name it."""
        return "ARENA_MODELS" if self.models else str(self.models_file)


def _name_in(setting: Setting, env: Mapping[str, str]) -> str | None:
    """The name (or alias) under which ``env`` sets the variable, if it does."""
    return next((n for n in (setting.name, *setting.aliases) if n in env), None)


def setting_named(name: str) -> Setting:
    """The declared variable ``name``."""
    return next(s for s in SETTINGS if s.name == name)


def read_setting(setting: Setting, env: Mapping[str, str]) -> Any:
    """One variable's parsed value from ``env`` (its aliases honoured), or ``None`` if unset
    with no default.

    Raises:
        SettingsError: the value is malformed or out of range.
    """
    name = _name_in(setting, env) or setting.name
    raw = env.get(name, setting.default)
    if raw is None:
        return None
    try:
        return setting.parse(raw)
    except _Invalid:
        raise SettingsError(name, raw, setting.allowed) from None


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Parse the environment (``os.environ`` by default) against ``SETTINGS``.

    Raises:
        SettingsError: the first variable whose value is malformed or out of range.
    """
    env = os.environ if environ is None else environ
    values = {setting.field: read_setting(setting, env) for setting in SETTINGS}
    sources = {s.name: "env" if _name_in(s, env) else "default" for s in SETTINGS}
    if values["models"] and sources["ARENA_MODELS_FILE"] == "env":
        raise SettingsError(
            "ARENA_MODELS",
            env["ARENA_MODELS"],
            "must not be set together with ARENA_MODELS_FILE: the roster comes from one of them",
        )
    if values["oidc_issuer"] and not values["oidc_client_id"]:
        raise SettingsError(
            "ARENA_OIDC_CLIENT_ID", "", "must be set with ARENA_OIDC_ISSUER: the arena's client id"
        )
    return Settings(**values, sources=sources)


_GROUP_TITLES = {
    "app": "The server",
    "arena": "The arena",
    "providers": "Model providers",
    "rating": "The rating process",
}


def settings_env_example() -> str:
    """``.env.example``: every variable, commented out at its default, under its meaning."""
    lines = [
        "# Every environment variable Arena reads, at its default (generated from",
        "# arena_api/settings.py by `arena settings --env-example`; a test keeps them equal).",
        "# Copy to .env and uncomment what you change. Unset variables with no default stay unset.",
    ]
    group = None
    for s in SETTINGS:
        if s.group != group:
            group = s.group
            lines += ["", f"# == {_GROUP_TITLES.get(group, group)} =="]
        text = re.sub(r"`([^`]*)`", r"\1", s.help)
        lines.append("")
        lines += [f"# {line}" for line in textwrap.wrap(text, 96)]
        lines.append(f"# Allowed: {s.allowed}")
        if s.aliases:
            lines.append(f"# Also read as: {', '.join(s.aliases)}")
        lines.append(f"# {s.name}={s.default if s.default is not None else ''}")
    return "\n".join(lines) + "\n"


def settings_markdown() -> str:
    """The README's table of environment variables, generated from ``SETTINGS``."""
    lines = ["| Variable | Default | Allowed | Purpose |", "|---|---|---|---|"]
    for s in SETTINGS:
        default = "—" if s.default is None else f"`{s.default}`"
        names = " / ".join(f"`{n}`" for n in (s.name, *s.aliases))
        cells = (names, default, s.allowed, s.help)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"
