"""Lexical metrics of an answer, stored beside it for style control and analytics.

Both functions are deterministic and need no tokenizer: ``estimate_tokens`` stands in when the
provider reports no output-token count, ``markdown_density`` measures how much formatting an
answer uses (a known confounder of human preference).
"""

from __future__ import annotations

import re

__all__ = ["estimate_tokens", "markdown_density"]

# -- token estimate ------------------------------------------------------------------------------

# Letters/digits of one word, a character of a script written without spaces (each is about one
# token in common tokenizers), or a single punctuation or symbol character.
_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_PIECE = re.compile(
    rf"(?P<unspaced>[{_UNSPACED}])|(?P<word>[^\W_{_UNSPACED}]+)|(?P<symbol>[^\w\s]|_)"
)
# A run of letters/digits longer than this counts as several words (identifiers, URLs, hashes).
_CHARS_PER_WORD = 10


def estimate_tokens(text: str) -> int:
    """Estimate the number of output tokens of ``text``, for providers that report none.

    The rule, after the usual "one token is about 0.75 words":

    * a word is a run of letters and digits; a run of ``n`` characters counts as
      ``ceil(n / 10)`` words, so ordinary words count once and long identifiers several times;
    * words contribute ``ceil(words / 0.75)`` tokens;
    * every punctuation or symbol character (``_`` included) is one token;
    * every CJK ideograph, kana or hangul syllable is one token.

    The estimate is 0 for empty or blank text, never negative, and never decreases when text is
    appended (a prefix never has more tokens than the whole).
    """
    words = symbols = 0
    for match in _PIECE.finditer(text):
        word = match.group("word")
        if word is not None:
            words += -(-len(word) // _CHARS_PER_WORD)
        else:
            symbols += 1
    # ceil(words * 4 / 3) in integers
    return (4 * words + 2) // 3 + symbols


# -- Markdown density ----------------------------------------------------------------------------

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_BLOCK_MARKERS = re.compile(
    r"""
    \ {0,3}\#{1,6}(?:\s|$)                 # heading
    | \s*(?:[-*+]|\d{1,9}[.)])\s+\S        # list item (bullet or ordered)
    | \ {0,3}>                             # block quote
    | \ {0,3}(?:[-*_])(?:\s*[-*_]){2,}\s*$ # thematic break
    | \s*\|                                # table row with a leading pipe
    """,
    re.VERBOSE,
)
# Spans are bounded so that a long line without closing markers costs linear, not quadratic, time.
_INLINE_MARKERS = re.compile(
    r"""
    `[^`]+`                                                 # inline code
    | \*\*\S(?:.{0,200}?\S)?\*\*                              # bold
    | __\S(?:.{0,200}?\S)?__                                  # bold
    | (?<![*\w])\*[^\s*](?:[^*]{0,200}?[^\s*])?\*(?![*\w])  # italics
    | (?<![_\w])_[^\s_](?:[^_]{0,200}?[^\s_])?_(?![_\w])    # italics
    | !?\[[^\]]{1,500}\]\([^)\s]{1,500}\)                   # link or image
    | \|.*\|                                                # table row between pipes
    """,
    re.VERBOSE,
)


def markdown_density(text: str) -> float:
    """The share of non-blank lines of ``text`` that carry Markdown, in [0, 1].

    Lines, not characters, are counted: a line carries Markdown when it is a heading, list item,
    block quote, thematic break, table row, code fence or a line inside a fenced code block, or
    when it contains inline code, bold or italic text or a link. Blank lines count neither way.
    Empty text and plain prose score 0.
    """
    marked = total = 0
    fence: str | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        total += 1
        opening = _FENCE.match(line)
        if fence is not None:
            # Inside a fenced block every line is code; a fence of the same kind closes it.
            marked += 1
            if opening is not None and opening.group(1)[0] == fence[0]:
                if len(opening.group(1)) >= len(fence):
                    fence = None
        elif opening is not None:
            marked += 1
            fence = opening.group(1)
        elif _BLOCK_MARKERS.match(line) or _INLINE_MARKERS.search(line):
            marked += 1
    return marked / total if total else 0.0
