"""Why a vote: the reason chips a voter may tick (``ARENA_VOTE_REASONS``), checked once.

A reason names the *dimension* on which the vote was decided ("the winner was more accurate"),
never a direction: the same ``accuracy`` goes with a vote for A and with one for B, and with a
tie or a both-bad vote it says what the two were judged on. Reasons are optional; a vote has
none, or a few of the configured ones, stored in the configured order
(``preferences.reasons``).

The operator's list is short lowercase slugs (``accuracy,helpfulness,style``), validated when
the settings are read (``parse_vote_reasons``): a slug, no duplicates, at most
``MAX_VOTE_REASONS``. ``VoteReasons`` is that list at run time: what clients render as chips
(``label``), what a vote's reasons are checked against (``check``: 400 ``invalid_reasons``),
and how another system's free-form reason is mapped onto ours (``adopt``, used by the imports
and the chat vote command).

Open WebUI's feedback carries one reason per rating, the keys of its rating form
(``accurate_information`` ... ``being_lazy``, ``other``; older versions stored the English
labels, "Accurate information"); ``adopt`` reads both forms.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena_api.core.errors import VoteError

__all__ = [
    "DEFAULT_VOTE_REASONS",
    "MAX_VOTE_REASONS",
    "REASON_SLUG",
    "VoteReasons",
    "parse_vote_reasons",
    "reason_key",
]

DEFAULT_VOTE_REASONS = ("accuracy", "helpfulness", "style", "safety", "speed")
#: A vote's chips must fit in one glance (and one row of a phone's vote bar, or two).
MAX_VOTE_REASONS = 12
#: A letter, then letters, digits, ``-`` or ``_``; 32 characters at most.
REASON_SLUG = re.compile(r"[a-z][a-z0-9_-]{0,31}")

#: Other systems' reasons (in ``reason_key`` form) that say the same as one of the default
#: reasons. A thumbs-down reason names what the losing answer lacked, which is what the winner
#: was better at: ``not_factually_correct`` is a vote decided on accuracy.
_SYNONYMS: Mapping[str, str] = {
    key: reason
    for reason, keys in {
        "accuracy": (
            "accurate_information",
            "not_factually_correct",
            "attention_to_detail",
            "accurate",
            "correct",
            "correctness",
            "factual",
            "factuality",
        ),
        "helpfulness": (
            "followed_instructions_perfectly",
            "didnt_fully_follow_instructions",
            "thorough_explanation",
            "not_helpful",
            "being_lazy",
            # Refusing a harmless request is unhelpful, not unsafe: the winner helped.
            "refused_when_it_shouldnt_have",
            "helpful",
            "instruction_following",
        ),
        "style": (
            "showcased_creativity",
            "positive_attitude",
            "dont_like_the_style",
            "too_verbose",
            "creativity",
            "verbosity",
            "tone",
            "formatting",
        ),
        "safety": ("safe", "unsafe", "harmful", "harmless"),
        "speed": ("fast", "faster", "slow", "too_slow", "latency"),
    }.items()
    for key in keys
}


def reason_key(text: str) -> str:
    """``text`` as a comparable key: lowercase ASCII words joined by ``_``, apostrophes
    dropped ("Don't like the style" and ``dont_like_the_style`` are both
    ``dont_like_the_style``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.split(r"[^a-z0-9]+", ascii_text.lower().replace("'", ""))
    return "_".join(word for word in words if word)


def parse_vote_reasons(raw: str) -> tuple[str, ...]:
    """``ARENA_VOTE_REASONS``: comma-separated slugs, in the order the chips are shown;
    blank: no reasons.

    Raises:
        ValueError: an entry is not a slug, is repeated, or there are more than
            ``MAX_VOTE_REASONS``.
    """
    reasons = tuple(part.strip() for part in raw.split(",") if part.strip())
    for reason in reasons:
        if not REASON_SLUG.fullmatch(reason):
            raise ValueError(f"{reason!r} is not a lowercase slug")
    repeated = sorted({r for r in reasons if reasons.count(r) > 1})
    if repeated:
        raise ValueError(f"{', '.join(repeated)} listed twice")
    if len(reasons) > MAX_VOTE_REASONS:
        raise ValueError(f"{len(reasons)} reasons, at most {MAX_VOTE_REASONS}")
    return reasons


@dataclass(frozen=True)
class VoteReasons:
    """The configured reasons, in the order the chips are shown.

    Args:
        slugs: valid slugs (``parse_vote_reasons`` checked them), no duplicates.
    """

    slugs: tuple[str, ...] = DEFAULT_VOTE_REASONS

    @staticmethod
    def label(slug: str) -> str:
        """What a chip says: ``helpfulness`` is "Helpfulness", ``follows-format`` "Follows
        format"."""
        return re.sub(r"[-_]+", " ", slug).capitalize()

    def check(self, given: Sequence[str]) -> tuple[str, ...]:
        """A vote's reasons as stored: ``given``, in the configured order.

        Raises:
            VoteError: 400 ``invalid_reasons``: a reason that is not configured, one given
                twice, or more reasons than are configured; ``details.reasons`` says which.
        """
        problems: list[str] = []
        unknown = [r for r in given if r not in self.slugs]
        if unknown:
            allowed = ", ".join(self.slugs) or "none are configured"
            problems += [f"unknown reason {r!r} (allowed: {allowed})" for r in unknown[:3]]
        repeated = sorted({r for r in given if given.count(r) > 1})
        if repeated:
            problems.append(f"given twice: {', '.join(repeated[:3])}")
        if len(given) > len(self.slugs):
            problems.append(f"{len(given)} reasons, at most {len(self.slugs)}")
        if problems:
            raise VoteError(
                "The vote's reasons are not this arena's",
                status=400,
                code="invalid_reasons",
                details={"reasons": problems},
            )
        chosen = set(given)
        return tuple(slug for slug in self.slugs if slug in chosen)

    def adopt(self, external: str) -> str | None:
        """One of our reasons for another system's reason text, or ``None`` to drop it.

        The text matches a configured reason by its slug or label in any spelling
        ("Accuracy", ``ACCURACY``, ``follows format`` for ``follows-format``), else through
        the synonyms of the default reasons (Open WebUI's rating reasons among them) when that
        default reason is configured. "Other", blank or unknown text is dropped.
        """
        key = reason_key(external)
        if not key:
            return None
        for slug in self.slugs:
            if reason_key(slug) == key:
                return slug
        synonym = _SYNONYMS.get(key)
        return synonym if synonym in self.slugs else None

    def adopt_all(self, external: Iterable[str]) -> tuple[str, ...]:
        """``adopt`` for each of ``external``, as a vote stores them: no duplicates, in the
        configured order, the dropped ones left out."""
        adopted = {self.adopt(text) for text in external}
        return tuple(slug for slug in self.slugs if slug in adopted)
