"""What a prompt is about: the categories a leaderboard can be cut by, decided when it is stored.

Cheap, deterministic and offline: a handful of regular expressions over the prompt's text, the
turn index, and a token estimate. A prompt may have several categories (a coding question with
"answer in JSON" is ``coding`` and ``instruction_following``) or none.

==========================  =====================================================================
category                    when
==========================  =====================================================================
``coding``                  a code fence, a stack trace, several lines that read as code, or a
                            programming language or tool named with a programming verb
``math``                    a formula (numbers with operators, LaTeX, math symbols) or a
                            mathematical word (integral, equation, prove that, probability, ...)
``creative_writing``        a request to write a poem, story, song, script, joke, ... or to
                            role-play
``instruction_following``   an explicit constraint: a length (``in 50 words``, ``exactly three
                            sentences``), a format (``as JSON``, ``in a table``, ``bullet
                            points``), or a prohibition (``do not``, ``without using``)
``longer_query``            at least ``LONG_QUERY_TOKENS`` tokens (the arena's estimate)
``multi_turn``              a follow-up: the turn index is above 0
``vision``                  the round's conversation holds an image (``core.media``)
==========================  =====================================================================

The prompt's language is not decided here (it needs a model): ``arena_api.language`` does it.
``prompt_key`` is the normalised hash that finds the same prompt asked again.

A board can be cut by any of these *slices*: a category, or a language as ``language:<code>``
(``language:de``). ``slices`` lists a round's; ``check_slice`` validates one a reader asks for.
The database computes the same list in ``arena_prompt_slices``
(``arena_api/db/sql/arena_prompt_slices.v1.sql``).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence

from arena_api.core.response_metrics import estimate_tokens

__all__ = [
    "CATEGORIES",
    "LANGUAGE_PREFIX",
    "LONG_QUERY_TOKENS",
    "UNDETERMINED",
    "check_slice",
    "classify",
    "prompt_key",
    "slices",
]

CATEGORIES = (
    "coding",
    "math",
    "creative_writing",
    "instruction_following",
    "longer_query",
    "multi_turn",
    "vision",
)
LONG_QUERY_TOKENS = 500
LANGUAGE_PREFIX = "language:"
_SLICE = re.compile(rf"(?:{'|'.join(CATEGORIES)})|{LANGUAGE_PREFIX}[a-z]{{2,3}}")
#: The language of a prompt that cannot be told (BCP 47's "undetermined"): in no slice.
UNDETERMINED = "und"

_I = re.IGNORECASE
_FENCE = re.compile(r"```|~~~")
_TRACE = re.compile(
    r"Traceback \(most recent call last\)|^\s+at [\w.$]+\(.*\)$|Exception in thread|"
    r'File "[^"]+", line \d+|\bSegmentation fault\b|\bnull ?pointer\b|\bstack trace\b|'
    r"\b(?:TypeError|ValueError|KeyError|SyntaxError|NullPointerException|"
    r"IndexError|AttributeError|ReferenceError)\b",
    re.MULTILINE,
)
_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import |#include|function |const |let |var |"
    r"public |private |return |for \(|if \(|while \(|SELECT |INSERT |UPDATE |CREATE TABLE|"
    r"fn |func |package |using |\$ |>>> )|[;{}]\s*$|=>|console\.log|System\.out",
    re.MULTILINE,
)
_LANGUAGES = re.compile(
    r"\b(?:python|javascript|typescript|java|golang|rust|c\+\+|c#|ruby|php|kotlin|swift|"
    r"scala|haskell|sql|bash|shell script|powershell|regex|regular expression|html|css|"
    r"react|django|flask|node\.?js|docker|kubernetes|git|api|json schema|algorithm|"
    r"function|recursion|compiler|unit test)\b",
    _I,
)
_CODE_VERBS = re.compile(
    r"\b(?:write|implement|code|debug|fix|refactor|optimi[sz]e|compile|program|script|"
    r"parse|query|test|deploy|convert)\b",
    _I,
)
_FORMULA = re.compile(
    r"\d\s*[-+*/^×÷=<>]\s*\d|\\(?:frac|int|sum|sqrt|lim|cdot)|[∫∑√π∞≤≥≠∂]|\$[^$\n]+\$|"
    r"\b\d+\s*(?:%|percent) of \d",
)
_MATH_WORDS = re.compile(
    r"\b(?:integral|derivative|differentiate|integrate|equation|solve for|prove that|proof|"
    r"theorem|lemma|probability|expected value|variance|matrix|matrices|eigen\w*|vector|"
    r"polynomial|logarithm|factorial|prime numbers?|divisible|arithmetic|geometry|algebra|"
    r"calculus|trigonometry|sine|cosine|hypotenuse|fraction|percentage)\b",
    _I,
)
_CREATIVE = re.compile(
    r"\b(?:write|compose|create|draft|tell me|make up|come up with)\b[^.?!\n]{0,40}?\b"
    r"(?:poem|poetry|haiku|limerick|sonnet|story|stories|tale|fable|song|lyrics|rap|"
    r"screenplay|(?:movie|film|play) script|dialogue|novel|chapter|joke|riddle|"
    r"fan ?fiction)\b|"
    r"\b(?:role-?play|pretend (?:you are|to be)|imagine (?:you are|a world)|"
    r"once upon a time|short story|bedtime story)\b",
    _I,
)
_NUMBER = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred)"
_CONSTRAINT = re.compile(
    rf"\b(?:in|under|within|no more than|at most|at least|exactly|maximum of|max|fewer than|"
    rf"less than|up to)\s+{_NUMBER}\s+(?:words?|sentences?|paragraphs?|lines?|bullet points?|"
    rf"characters?|items?|points?|tokens?)\b|"
    r"\b(?:as|in|into|using|with) (?:a |an )?(?:json|yaml|xml|csv|markdown|table|bulleted "
    r"list|bullet points|numbered list|list of)\b|\bbullet points\b|"
    r"\b(?:do not|don't|never|avoid|without using|without mentioning|must not|must|only "
    r"(?:answer|respond|reply|use|output)|(?:answer|respond|reply) only|"
    r"start (?:each|every|your)|end (?:each|every|your)|"
    r"all (?:lowercase|uppercase|caps)|in (?:lowercase|uppercase))\b",
    _I,
)


def classify(prompt: str, *, turn_index: int = 0, images: int = 0) -> tuple[str, ...]:
    """The categories of a prompt, in ``CATEGORIES`` order (none: an everyday question);
    ``images``: how many images the round's conversation holds."""
    found: set[str] = set()
    code_lines = len(_CODE_LINE.findall(prompt))
    if (
        _FENCE.search(prompt)
        or _TRACE.search(prompt)
        or code_lines >= 2
        or (_LANGUAGES.search(prompt) and _CODE_VERBS.search(prompt))
    ):
        found.add("coding")
    if _FORMULA.search(prompt) or _MATH_WORDS.search(prompt):
        found.add("math")
    if _CREATIVE.search(prompt):
        found.add("creative_writing")
    if _CONSTRAINT.search(prompt):
        found.add("instruction_following")
    if estimate_tokens(prompt) >= LONG_QUERY_TOKENS:
        found.add("longer_query")
    if turn_index > 0:
        found.add("multi_turn")
    if images > 0:
        found.add("vision")
    return tuple(c for c in CATEGORIES if c in found)


_PUNCTUATION_EDGES = re.compile(r"^[\W_]+|[\W_]+$")
_SPACE = re.compile(r"\s+")


def prompt_key(prompt: str, images: Sequence[str] = ()) -> str:
    """A hash equal for the same prompt asked again: compatibility-normalised, case-folded,
    whitespace collapsed, punctuation at either end dropped; with the SHA-256s of its
    ``images``, in order ("What is this?" about another picture is another prompt)."""
    text = unicodedata.normalize("NFKC", prompt).casefold()
    text = _PUNCTUATION_EDGES.sub("", _SPACE.sub(" ", text).strip())
    if images:
        text += "\x00" + ",".join(images)
    return hashlib.sha256(text.encode()).hexdigest()


def slices(categories: tuple[str, ...] | list[str] | None, language: str | None) -> tuple[str, ...]:
    """A round's slices: its categories, then its language unless it is unknown or ``und``."""
    found = tuple(categories or ())
    if language and language != UNDETERMINED:
        found += (LANGUAGE_PREFIX + language,)
    return found


def check_slice(value: str) -> str | None:
    """``value`` if it names a slice (``coding``, ``language:en``, ...), else ``None``."""
    return value if _SLICE.fullmatch(value) else None
