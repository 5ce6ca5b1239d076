"""E-mail addresses and phone numbers."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import phonenumbers

from arena_api.core.scrub._base import Finding, lines_around

# --- e-mail addresses -------------------------------------------------------------------------

_EMAIL = re.compile(
    r"(?<![\w.+-])"
    r"[\w+-]+(?:[.'][\w+-]+)*"  # the local part (letters of any script: addresses may be Unicode)
    r"@((?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+([^\W\d_]{2,63}))"
    r"(?![\w@(-]|\.[^\W_])"
)
_GENERIC_TLDS = frozenset(
    """com net org edu gov mil int info biz name pro mobi aero asia cat coop jobs museum post tel
    travel app dev page tech online site website xyz email cloud company shop store blog news
    media live life world today group team global systems solutions services digital network
    agency studio design works tools space club art link host codes software academy center
    consulting support community foundation institute international university school health
    legal finance money bank insurance capital ventures partners holdings enterprises business
    marketing social photo photography games fun love family mail chat zone one plus work
    careers education training science engineering energy law""".split()
)


def emails(text: str) -> Iterator[Finding]:
    """``local@domain.tld`` whose TLD is a country code (two letters), a generic one we know or
    not Latin; mixed-case TLDs (``q@k.mT``) and calls (``q@k.to(device)``) are code."""
    if "@" not in text:
        return
    for start, end in lines_around(text, [m.start() for m in re.finditer("@", text)]):
        for match in _EMAIL.finditer(text, start, end):
            tld = match.group(2)
            if tld.isascii() and (
                not (tld.islower() or tld.isupper())
                or (len(tld) > 2 and tld.lower() not in _GENERIC_TLDS)
            ):
                continue
            yield Finding("email", match.start(), match.end())


# --- phone numbers ----------------------------------------------------------------------------

# Seven digits or more, grouped as people group phone numbers; the look-behind sits after the
# first digit so that the engine can skip ahead to digits.
_CANDIDATE = re.compile(r"[0-9](?<![\w.][0-9])(?:[ \t.()/-]{0,3}[0-9]){6,16}")
# Dates are never phone numbers: turned away before the matcher parses them.
_DATE = re.compile(
    r"[0-9]{4}[-/.][0-9]{1,2}[-/.][0-9]{1,2}|[0-9]{1,2}[-/.][0-9]{1,2}[-/.](?:[0-9]{2}){1,2}"
)
_EXTENSION = re.compile(r"\s*(?:ext\.?|extension|x)\s*[0-9]{1,6}", re.IGNORECASE)
# An order, invoice or ticket number is not a phone number, whatever its digits.
_NUMBERED_THING = re.compile(
    r"(?:#|\b(?:order|invoice|ticket|tracking|ref|reference|serial|sku|isbn|issn|case|id|"
    r"transaction|txn|receipt|confirmation|booking|policy|claim|patent|part|model|barcode|"
    r"upc|ean|gtin|imei)(?:\s*(?:no\.?|nr\.?|number|num|id|#))?(?:\s+(?:is|was))?)"
    r"\s*[:#]?\s*$",
    re.IGNORECASE,
)
# What the matcher may accept (German numbers, above all, come in many lengths) but nobody
# writes as a phone number: a decimal number, a dotted quad (a netmask), twelve or more digits
# with no country code and no grouping (a timestamp, an id), a list of six or more small numbers.
_NOT_PHONE = re.compile(
    r"[0-9]+[.,][0-9]+|[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9]{12,}|[0-9]{1,2}(?:[ ,]+[0-9]{1,2}){5,}"
)


def _not_a_number_edge(char: str) -> bool:
    """A letter (a code: ``abc8005001234``) or a currency or percent sign (an amount)."""
    return bool(char) and (char.isalpha() or char in "$€£¥%")


def phones(text: str, regions: Sequence[str]) -> Iterator[Finding]:
    """Numbers libphonenumber's matcher accepts as valid (``Leniency.VALID``) in one of
    ``regions``; it parses only around the candidates a cheap pattern picks."""
    leniency = phonenumbers.Leniency.VALID
    seen: set[tuple[int, int]] = set()
    for match in _CANDIDATE.finditer(text):
        start = match.start()
        if start and text[start - 1] in "+(":
            start -= 1
        candidate = text[start : match.end()]
        if (
            _DATE.fullmatch(candidate)
            or _NOT_PHONE.fullmatch(candidate)
            or _NUMBERED_THING.search(text, max(0, start - 30), start)
        ):
            continue
        # The matcher reads the characters around its match (a letter or a currency sign there
        # makes it no phone number) with a Unicode lookup that costs 35 µs a character: the
        # same check is done here, and the matcher reads only the candidate, with its
        # extension or the time that follows a date.
        end = match.end()
        if _not_a_number_edge(text[start - 1 : start]) or _not_a_number_edge(text[end : end + 1]):
            continue
        extension = _EXTENSION.match(text, end)
        if extension:
            end = extension.end()
        elif text.startswith(":", end):
            end += 3
        window_start, window = start, text[start:end]
        # A number with its country code reads the same in every region.
        for region in regions[:1] if candidate.startswith("+") else regions:
            for found in phonenumbers.PhoneNumberMatcher(window, region, leniency=leniency):
                span = (window_start + found.start, window_start + found.end)
                if (
                    span in seen
                    or sum(c.isdigit() for c in found.raw_string) < 7
                    or _NOT_PHONE.fullmatch(found.raw_string)
                ):
                    continue
                seen.add(span)
                yield Finding("phone", *span)
