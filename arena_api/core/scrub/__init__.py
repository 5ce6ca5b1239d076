"""Personal data and secrets out of text: each found span becomes a typed placeholder.

Five kinds, each with its placeholder: e-mail addresses ``[EMAIL]``, phone numbers ``[PHONE]``,
IP addresses, v4 and v6, ``[IP]``, payment card numbers ``[CARD]``, and API keys, tokens,
passwords and private keys ``[SECRET]``. ``scrub(text)`` returns the text and the count of each
kind; a ``Scrubber`` does the same for many texts and adds up the counts (an export's summary),
and scrubs a row's text fields or a conversation's messages. The labelled corpus
``tests/unit/core/scrub_corpus.jsonl`` holds the rules to a recall and a precision of at least
0.95 per kind; ``benchmarks/scrub.py`` prints the figures and the speed.

How each kind is found, and why that way:

- **Phone numbers**: Google's libphonenumber (``phonenumbers``, in its ``lite`` build: the same
  matcher without the geocoding data, 5 MB instead of 48) with ``Leniency.VALID``: a number
  counts only if it is a valid number of its region, which turns away dates, times, ranges,
  publication pages and most long numbers. Numbers written with ``+`` and a country code are
  found whatever the region; national forms are tried in ``DEFAULT_PHONE_REGIONS``. The
  matcher parses every digit group it meets (about 50 µs each, 100 ms per 2 KB table of
  numbers), so a cheap pattern first picks groups of 7 to 17 digits that are neither dates nor
  decimals nor order numbers, and the matcher reads only those.
- **IP addresses**: a pattern picks the candidates and Python's ``ipaddress`` decides (octets
  up to 255, no leading zeros, every IPv6 form). Left alone: loopback and unspecified addresses
  (``127.0.0.1``, ``::1``, ``0.0.0.0``), netmasks and networks without a prefix length, which
  name no host, and dotted numbers that read as versions or sections (``v10.0.0.1``,
  ``version 1.2.3.4``, ``==1.2.3.4``, ``1.2.3.4-beta``), or as a time or a slice for IPv6.
- **Card numbers**: 13 to 19 digits, whole or in the groups cards are printed in, that pass
  the Luhn check and start with an issuer's number (IIN) at a length that issuer uses (Visa,
  Mastercard, American Express, Discover, JCB, Diners, UnionPay, Maestro, Mir, RuPay): a long
  number that fails either is an id, a timestamp or a hash.
- **E-mail addresses**: ``local@domain.tld`` whose top-level domain is a country code, a known
  generic one or not Latin; ``user@host`` with no such ending, decorators, ``package@1.2.3``
  and matrix products (``q@k.T``) are not addresses.
- **Secrets**: the token formats vendors print (AWS, GitHub, GitLab, Slack, Stripe, OpenAI's
  and Anthropic's ``sk-``, Google, Hugging Face, npm, PyPI, SendGrid, Twilio, Telegram,
  Mailchimp, Discord), JSON Web Tokens, private key blocks, passwords in URLs
  (``scheme://user:password@``), ``Authorization`` headers, and values given to a name that
  ends in key, token, secret or password (``api_key = "..."``, ``"password": "..."``,
  ``DB_PASSWORD=...``) unless the value is a placeholder or a reference (``os.environ[...]``,
  ``${VAR}``, ``<your-key>``). Yelp's ``detect-secrets`` (1.5, its default plugins and
  filters) was measured on the same corpus and not taken: recall 0.74 and precision 0.76 on
  the secrets, at 4 to 11 s per 1,000 answers. It misses the newer formats (``sk-ant-``,
  ``hf_``, ``AIza``, fine-grained GitHub tokens), its entropy plugins flag the git, SHA-256 and
  MD5 hashes the corpus keeps as near-misses, it reports a secret's value per line rather than
  its place, and it brings ``requests`` along. The patterns here follow its plugins and the
  vendors' documented formats.

Every pattern opens with a literal or a digit and checks what comes before afterwards, so the
regex engine skips ahead instead of trying each position (``_base.word_start``): about 1 ms for
a 2 KB answer. Where two findings overlap, the kind earlier in ``KINDS`` wins: the password in
``postgres://app:pw@db.example.com`` is one secret, not an e-mail address. Placeholders are
never found again, so scrubbing scrubbed text changes nothing.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

from arena_api.core.scrub._base import Finding, Kind
from arena_api.core.scrub._contacts import emails, phones
from arena_api.core.scrub._numbers import cards, ipv4s, ipv6s
from arena_api.core.scrub._secrets import secrets

__all__ = [
    "DEFAULT_PHONE_REGIONS",
    "KINDS",
    "PLACEHOLDERS",
    "Finding",
    "Kind",
    "Scrubbed",
    "Scrubber",
    "describe_counts",
    "find",
    "scrub",
]

#: Every kind, most specific first: where findings overlap, the earlier kind wins.
KINDS: tuple[Kind, ...] = ("secret", "email", "card", "ip", "phone")

PLACEHOLDERS: Mapping[Kind, str] = {
    "secret": "[SECRET]",
    "email": "[EMAIL]",
    "card": "[CARD]",
    "ip": "[IP]",
    "phone": "[PHONE]",
}

#: Regions whose national phone formats are recognised (numbers with ``+`` are found anyway):
#: North America, the UK, Germany, France, India, Brazil and Australia.
DEFAULT_PHONE_REGIONS: tuple[str, ...] = ("US", "GB", "DE", "FR", "IN", "BR", "AU")

_NOUNS: Mapping[Kind, tuple[str, str]] = {
    "email": ("email", "emails"),
    "phone": ("phone number", "phone numbers"),
    "ip": ("IP address", "IP addresses"),
    "card": ("card number", "card numbers"),
    "secret": ("secret", "secrets"),
}
_SUMMARY_ORDER: tuple[Kind, ...] = ("email", "phone", "ip", "card", "secret")
_PLACEHOLDER = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS.values()))
_RANK = {kind: rank for rank, kind in enumerate(KINDS)}
# Distinct texts a Scrubber remembers (a few MB of answers at most).
_CACHED_TEXTS = 2048


@dataclass(frozen=True, slots=True)
class Scrubbed:
    """Scrubbed text and how many spans of each kind were replaced (kinds with none omitted)."""

    text: str
    counts: Mapping[Kind, int]


def describe_counts(counts: Mapping[Kind, int]) -> str:
    """The counts in words, every kind named: ``"2 emails, 1 phone number, 0 IP addresses, …"``."""
    return ", ".join(
        f"{counts.get(kind, 0):,} {_NOUNS[kind][counts.get(kind, 0) != 1]}"
        for kind in _SUMMARY_ORDER
    )


def find(text: str, *, phone_regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> list[Finding]:
    """Every span to scrub in ``text``, in order, none overlapping another.

    Args:
        text: any text.
        phone_regions: the regions (ISO 3166 codes) whose national phone formats count.
    """
    found = [
        *secrets(text),
        *emails(text),
        *cards(text),
        *ipv4s(text),
        *ipv6s(text),
        *phones(text, phone_regions),
    ]
    found.sort(key=lambda f: (_RANK[f.kind], f.start - f.end, f.start))
    # Placeholders already there go first, so that nothing touching one is found again.
    placeholders = [Finding("secret", m.start(), m.end()) for m in _PLACEHOLDER.finditer(text)]
    starts = [p.start for p in placeholders]
    kept = list(placeholders)
    for finding in found:
        # Kept spans never overlap, so only the neighbours where this one would go can.
        at = bisect.bisect_left(starts, finding.start)
        if (at and kept[at - 1].end > finding.start) or (
            at < len(kept) and kept[at].start < finding.end
        ):
            continue
        starts.insert(at, finding.start)
        kept.insert(at, finding)
    if not placeholders:
        return kept
    already = set(placeholders)
    return [finding for finding in kept if finding not in already]


def scrub(text: str, *, phone_regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> Scrubbed:
    """``text`` with every finding replaced by its kind's placeholder, and the counts."""
    findings = find(text, phone_regions=phone_regions)
    if not findings:
        return Scrubbed(text, {})
    pieces: list[str] = []
    last = 0
    for finding in findings:
        pieces += (text[last : finding.start], PLACEHOLDERS[finding.kind])
        last = finding.end
    pieces.append(text[last:])
    return Scrubbed("".join(pieces), dict(Counter(f.kind for f in findings)))


class Scrubber:
    """Scrubs many texts and adds up what it replaced (one export's summary).

    Args:
        phone_regions: the regions whose national phone formats count.
    """

    def __init__(self, phone_regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> None:
        self._counts: Counter[Kind] = Counter()
        # The same prompt comes back in many rows (a suite's prompts, greetings, a question put
        # to every pair of models): each distinct text is scrubbed once, and counted each time.
        self._scrub = functools.lru_cache(maxsize=_CACHED_TEXTS)(
            functools.partial(scrub, phone_regions=tuple(phone_regions))
        )

    @property
    def counts(self) -> dict[Kind, int]:
        """Spans replaced so far, every kind present (zero when none)."""
        return {kind: self._counts[kind] for kind in _SUMMARY_ORDER}

    @overload
    def text(self, text: str) -> str: ...

    @overload
    def text(self, text: None) -> None: ...

    def text(self, text: str | None) -> str | None:
        """``text`` scrubbed (``None`` stays ``None``: an answer that never came)."""
        if not text:
            return text
        scrubbed = self._scrub(text)
        self._counts.update(scrubbed.counts)
        return scrubbed.text

    def fields(self, row: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
        """``row`` with each of ``names`` it has scrubbed, in place, and returned."""
        for name in names:
            if name in row:
                row[name] = self.text(row[name])
        return row

    def messages(self, messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """A conversation (``{"role", "content"}`` mappings) with every text content scrubbed;
        other keys are kept as they are."""
        return [
            {**message, "content": self.text(message["content"])}
            if isinstance(message.get("content"), str)
            else dict(message)
            for message in messages
        ]

    def summary(self) -> str:
        """The counts in words (``describe_counts``): ``"3 emails, 0 phone numbers, …"``."""
        return describe_counts(self._counts)
