"""IP addresses (v4 and v6) and payment card numbers."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from arena_api.core.scrub._base import Finding

# --- IP addresses -----------------------------------------------------------------------------

# Look-behinds sit after the first character, so that the engine can skip ahead to candidates.
_IPV4 = re.compile(r"[0-9](?<![\w.$][0-9])[0-9]{0,2}(?:\.[0-9]{1,3}){3}(?![\w+]|\.[0-9]|-[A-Za-z])")
_IPV6 = re.compile(
    r":(?:[0-9A-Fa-f]{0,4}:){1,6}(?:[0-9A-Fa-f]{1,4}|[0-9]{1,3}(?:\.[0-9]{1,3}){3})?"
    r"(?:%[\w.]+)?(?![\w:.-])"
)
_HEX_BEFORE = re.compile(r"[0-9A-Fa-f]{1,4}$")
_TIME = re.compile(r"[0-9]{1,2}(?::[0-9]{2}){1,3}")
# A dotted number right after one of these is a version, a section or a figure.
_VERSION_BEFORE = re.compile(
    r"(?:version_*|\b(?:v|ver|versions|bump|bumped|bumps|dependency|release|releases|build|"
    r"rev|revision|tag|firmware|bios|driver|kernel|python|node|nodejs|chrome|chromium|"
    r"firefox|safari|edge|windows|macos|ios|android|java|jdk|go|golang|rust|ubuntu|debian|"
    r"nginx|postgres|postgresql|mysql|redis|docker|helm|npm|pip|upgrade|upgraded|upgrading|"
    r"downgrade|update|updated|install|installed|section|sections|figure|fig|table|chapter|"
    r"step|item|clause|article|rule|paragraph|oid|semver)\.?"
    r"(?:\s+(?:to|is|was|from|of|number|no\.?))?|==|>=|<=|~=|!=|\^|~|§)"
    r"\s*[:=(]?\s*[\"']?$",
    re.IGNORECASE,
)
# 0.0.0.0/8 is "this network" (RFC 1122): never a host's address, often the start of a version.
_THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")


def _is_netmask(address: ipaddress.IPv4Address) -> bool:
    inverted = ~int(address) & 0xFFFFFFFF
    return int(address) >> 24 == 0xFF and inverted & (inverted + 1) == 0


def ipv4s(text: str) -> Iterator[Finding]:
    """Dotted quads ``ipaddress`` accepts, less what names no host (loopback, this network,
    netmasks, a network without its prefix length) and what reads as a version or a section."""
    for match in _IPV4.finditer(text):
        try:
            address = ipaddress.IPv4Address(match.group())
        except ValueError:
            continue
        if address.is_loopback or address in _THIS_NETWORK or _is_netmask(address):
            continue
        if match.group().endswith(".0") and not text.startswith("/", match.end()):
            continue  # a network without its prefix length names no host, a version no network
        if _VERSION_BEFORE.search(text, max(0, match.start() - 24), match.start()):
            continue
        yield Finding("ip", match.start(), match.end())


def ipv6s(text: str) -> Iterator[Finding]:
    """Colon-hex runs ``ipaddress`` accepts as IPv6, less loopback and unspecified, slices
    (``a[1::2]``) and names (``Face::Add``): an address has digits and three groups or a full
    group of four (``fe80::1``)."""
    if "::" not in text and text.count(":") < 7:
        return  # an address is compressed (`::`) or has all eight groups
    for match in _IPV6.finditer(text):
        before = _HEX_BEFORE.search(text, max(0, match.start() - 4), match.start())
        start = before.start() if before else match.start()
        if start and (text[start - 1].isalnum() or text[start - 1] in "_:."):
            continue
        candidate = text[start : match.end()].partition("%")[0]
        if _TIME.fullmatch(candidate):
            continue
        groups = [g for g in re.split(r"[:.]", candidate) if g]
        if not any(c.isdigit() for c in candidate) or (
            len(groups) < 3 and not any(len(g) == 4 for g in groups)
        ):
            continue
        try:
            address = ipaddress.IPv6Address(candidate)
        except ValueError:
            continue
        if address.is_loopback or address.is_unspecified:
            continue
        yield Finding("ip", start, match.end())


# --- payment card numbers ---------------------------------------------------------------------

# 13 digits or more in a run of digit groups; the card is its first groups, printed in one of
# the ways cards are printed.
_DIGIT_RUN = re.compile(
    r"[0-9](?<![\w+.,/#$€£¥-][0-9])(?:[ -]?[0-9]){12,}(?:[ -][0-9]+)*(?![\w]|[.,][0-9])"
)
_GROUPINGS = (
    (4, 4, 4, 4),
    (4, 6, 5),  # American Express
    (4, 6, 4),  # Diners Club
    (4, 4, 4, 4, 3),
    (4, 4, 4, 4, 2),
    (4, 4, 4, 4, 1),
    (4, 4, 4, 3),
    (4, 4, 4, 2),
    (4, 4, 4, 1),
)
# (first digits from, to, the lengths issued): Visa, Mastercard, American Express, Discover, JCB,
# Diners Club, UnionPay, Maestro, Mir and RuPay.
_IINS: tuple[tuple[int, int, frozenset[int]], ...] = (
    (4, 4, frozenset({13, 16, 19})),
    (51, 55, frozenset({16})),
    (2221, 2720, frozenset({16})),
    (34, 34, frozenset({15})),
    (37, 37, frozenset({15})),
    (6011, 6011, frozenset(range(16, 20))),
    (644, 649, frozenset(range(16, 20))),
    (65, 65, frozenset(range(16, 20))),
    (3528, 3589, frozenset(range(16, 20))),
    (300, 305, frozenset(range(14, 20))),
    (36, 36, frozenset(range(14, 20))),
    (38, 39, frozenset(range(14, 20))),
    (3095, 3095, frozenset(range(14, 20))),
    (62, 62, frozenset(range(16, 20))),
    (50, 50, frozenset(range(13, 20))),
    (56, 69, frozenset(range(13, 20))),
    (2200, 2204, frozenset(range(16, 20))),
    (60, 60, frozenset({16})),
    (81, 82, frozenset({16})),
)


def _luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _issued(digits: str) -> bool:
    return any(
        low <= int(digits[: len(str(low))]) <= high and len(digits) in lengths
        for low, high, lengths in _IINS
    )


def cards(text: str) -> Iterator[Finding]:
    """13 to 19 digits, whole or grouped as printed, passing Luhn and an issuer's IIN/length."""
    for match in _DIGIT_RUN.finditer(text):
        run = match.group()
        parts = re.split(r"([ -])", run)
        groups, separators = parts[::2], set(parts[1::2])
        candidates: list[tuple[str, int]] = []
        if len(groups) == 1:
            if len(run) <= 19:
                candidates.append((run, len(run)))
        elif len(separators) == 1:
            sizes = tuple(len(g) for g in groups)
            for grouping in _GROUPINGS:
                if sizes[: len(grouping)] == grouping:
                    taken = len(grouping)
                    candidates.append(("".join(groups[:taken]), sum(grouping) + taken - 1))
        for digits, length in candidates:
            if _luhn(digits) and _issued(digits):
                yield Finding("card", match.start(), match.start() + length)
                break
