"""API keys, tokens, passwords and private keys."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

from arena_api.core.scrub._base import Finding, lines_around, word_start

# The formats vendors print, each opening with a literal (see ``word_start``). Sources: the
# plugins of Yelp's detect-secrets and each vendor's documentation of its key format.
_VENDOR_TOKENS = tuple(
    re.compile(pattern)
    for pattern in (
        r"A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|IPA|NPA|NVA|PKA)[A-Z0-9]{16}\b",  # AWS key ids
        r"gh[pousr]_[A-Za-z0-9]{36,255}\b",  # GitHub
        r"github_pat_[A-Za-z0-9_]{22,255}\b",
        r"gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}",  # GitLab
        r"xox[abposre]-[A-Za-z0-9-]{10,}",  # Slack
        r"xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]+\b",
        r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+",
        r"[srp]k_(?:live|test)_[0-9A-Za-z]{16,}\b",  # Stripe
        r"whsec_[A-Za-z0-9]{24,}\b",
        r"AIza[0-9A-Za-z_-]{35}(?![\w-])",  # Google
        r"GOCSPX-[A-Za-z0-9_-]{28}(?![\w-])",
        r"ya29\.[0-9A-Za-z_-]{20,}",
        r"hf_[A-Za-z0-9]{30,}\b",  # Hugging Face
        r"npm_[A-Za-z0-9]{36}\b",
        r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![\w-])",  # SendGrid
        r"SK[0-9a-fA-F]{32}\b",  # Twilio
        r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",  # JSON Web Tokens
    )
)
# OpenAI, Anthropic, DeepSeek and the many OpenAI-compatible vendors: `sk-` and a long body
# with digits (`sk-learn-and-more-words` and `sk-xxxxxxxxxxxxxxxxxxxx` are not keys).
_SK = re.compile(r"sk-[A-Za-z0-9_-]{20,}")
# Formats whose literal sits inside: found there, then checked backwards.
_TELEGRAM = re.compile(r":AA[A-Za-z0-9_-]{33}(?![\w-])")  # <bot id>:AA<35>
_TELEGRAM_ID = re.compile(r"[0-9]{8,10}$")
_MAILCHIMP = re.compile(r"-us[0-9]{1,2}\b")  # <32 hex>-us<dc>
_MAILCHIMP_KEY = re.compile(r"[0-9a-f]{32}$")
_DISCORD = re.compile(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![\w-])")  # <id>.<6>.<27+>
_DISCORD_ID = re.compile(r"[MNO][A-Za-z0-9_-]{23,25}$")

_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
    r"(?:.*?-----END \1-----|[A-Za-z0-9+/=:,\s-]*)",
    re.DOTALL,
)
# scheme://user:password@host: the user and the password.
_URL_PASSWORD = re.compile(r"://([^\s:/?#@\[\]{}()\"'<>]*):([^\s/?#@\[\]{}\"'<>]+)@")
_AUTHORIZATION = re.compile(
    r"\b(?:Authorization|Proxy-Authorization)\s*[:=]\s*[\"']?(?:Bearer|Basic|Token|Bot)\s+"
    r"([A-Za-z0-9._~+/-]{8,}=*)|\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)",
    re.IGNORECASE,
)

# Lines that name a secret; only those are read for assignments, flags and sentences.
_SECRET_WORD = re.compile(r"key|token|secret|pass|pwd|credential")
_SECRET_NAME = (
    r"(?:api[_-]?key|apikey|secret(?:[_-]?key)?|client[_-]?secret|access[_-]?key(?:[_-]?id)?|"
    r"private[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|account[_-]?key|"
    r"(?:auth|access|refresh|bearer|session|id|bot|api|app|personal[_-]?access)[_-]?token|"
    r"token|password|passwd|pwd|passphrase|pass|credentials?|key)"
)
# `name = value`, `"name": "value"`, `NAME=value`, `name := value`, `name => value`, where the
# name ends in a secret's name (after `_`, `.`, `-` or a camelCase step).
_ASSIGNED = re.compile(
    r"(?<![\w-])[\"']?(?:[A-Za-z_][\w.-]*?(?:[_.-]|(?-i:(?<=[a-z])(?=[A-Z]))))?"
    + _SECRET_NAME
    + r"[\"']?\s*(?::=|=>|[:=])\s*"
    r"(?:([\"'`])([^\"'`\n]{6,200})\1|([^\s\"'`,;)}\]]{6,200}))",
    re.IGNORECASE,
)
_FLAG = re.compile(
    r"--(?:password|passwd|token|api-key|secret|auth-token)[= ]([^\s\"'`-][^\s\"'`]{5,200})",
    re.IGNORECASE,
)
# "my password is Tr0ub4dor&3": a quoted value, or a word with digits or symbols in it.
_SAID = re.compile(
    r"\b(?:password|passcode|passphrase)\s+(?:is|was)\s*:?\s*(?:([\"'`])([^\"'`\n]{4,100})\1|"
    r"([^\s\"'`]{6,100}?))(?=[\s,;)!?]|[.](?:\s|$)|$)",
    re.IGNORECASE,
)
_PLACEHOLDER_VALUE = re.compile(
    r"^(?:<[^>]*>|\$\{?[\w.-]+\}?|\{\{.*\}\}|%\(?\w*\)?s|\[[A-Z_]+\]|[x*.#_-]+|"
    r"(?:your|insert|enter|replace)[\w -]*|(?:my|the|an?|some)[-_ ][\w -]*|.*(?:\.\.\.|…).*|"
    r"changeme|password\d*|passwd|secret|token|api[_-]?key|none|null|nil|undefined|true|"
    r"false|todo|tbd|redacted|placeholder|example|dummy|test|xxx\w*|\*+\w*)$",
    re.IGNORECASE,
)
# A value that calls, formats or interpolates something is code, not a secret.
_REFERENCE = re.compile(r"\(|\$\{|\{\{|\{[\w.:]*\}|^\$[A-Za-z_]|^%|^<")
_PASSWORD_NAMES = ("password", "passwd", "pwd", "passphrase", "pass")


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_secret(value: str, *, password: bool) -> bool:
    """Whether an assigned value is a secret rather than a placeholder, reference or word."""
    value = value.strip()
    if _PLACEHOLDER_VALUE.match(value) or _REFERENCE.search(value):
        return False
    if password:
        # A password may be a word, but not a reference (`settings.db_password`, `DB_PASS`).
        if re.fullmatch(r"[A-Za-z_][\w.]*", value) and ("." in value or "_" in value):
            return False
        return len(value) >= 6
    if " " in value or len(value) < 16:
        return False
    has_digit = any(c.isdigit() for c in value)
    return has_digit and any(c.isalpha() for c in value) and _entropy(value) >= 3.0


# Every format above is a run of 16 characters or more of these: a text without one (most
# prompts) is spared the 20-odd scans.
_LONG_RUN = re.compile(r"[\w.:/+=-]{16}")


def _formats(text: str) -> Iterator[Finding]:
    if not _LONG_RUN.search(text):
        return
    for pattern in _VENDOR_TOKENS:
        for match in pattern.finditer(text):
            if word_start(text, match.start()):
                yield Finding("secret", match.start(), match.end())
    for match in _SK.finditer(text):
        key = match.group()
        if word_start(text, match.start()) and any(c.isdigit() for c in key):
            if _entropy(key) >= 3.0:
                yield Finding("secret", match.start(), match.end())
    for pattern, head in ((_TELEGRAM, _TELEGRAM_ID), (_MAILCHIMP, _MAILCHIMP_KEY)):
        for match in pattern.finditer(text):
            before = head.search(text, max(0, match.start() - 32), match.start())
            if before and word_start(text, before.start()):
                yield Finding("secret", before.start(), match.end())
    for match in _DISCORD.finditer(text):
        before = _DISCORD_ID.search(text, max(0, match.start() - 26), match.start())
        if before and word_start(text, before.start()):
            yield Finding("secret", before.start(), match.end())


def _structures(text: str) -> Iterator[Finding]:
    for match in _PRIVATE_KEY.finditer(text):
        yield Finding("secret", match.start(), match.end())
    for match in _URL_PASSWORD.finditer(text):
        if _looks_secret(match.group(2), password=True):
            yield Finding("secret", match.start(1 if match.group(1) else 2), match.end(2))
    lowered = text.lower()
    if "bearer" in lowered or "authorization" in lowered:
        for match in _AUTHORIZATION.finditer(text):
            group = 1 if match.group(1) else 2
            if not _PLACEHOLDER_VALUE.match(match.group(group)):
                yield Finding("secret", match.start(group), match.end(group))


def _named(text: str) -> Iterator[Finding]:
    lowered = text.lower()
    hits = [match.start() for match in _SECRET_WORD.finditer(lowered)]
    for start, end in lines_around(text, hits):
        for match in _ASSIGNED.finditer(text, start, end):
            group = 2 if match.group(2) is not None else 3
            name = lowered[match.start() : match.start(group)]
            password = any(word in name for word in _PASSWORD_NAMES)
            if _looks_secret(match.group(group), password=password):
                yield Finding("secret", match.start(group), match.end(group))
        for match in _FLAG.finditer(text, start, end):
            if _looks_secret(match.group(1), password=True):
                yield Finding("secret", match.start(1), match.end(1))
        for match in _SAID.finditer(text, start, end):
            group = 2 if match.group(2) else 3
            value = match.group(group)
            quoted_or_mixed = group == 2 or (
                any(c.isalpha() for c in value) and not value.isalpha()
            )
            if quoted_or_mixed and _looks_secret(value, password=True):
                yield Finding("secret", match.start(group), match.end(group))


def secrets(text: str) -> Iterator[Finding]:
    """Vendor token formats, private key blocks, passwords in URLs, ``Authorization``
    headers, and values given to a name that ends in key, token, secret or password."""
    yield from _formats(text)
    yield from _structures(text)
    yield from _named(text)
