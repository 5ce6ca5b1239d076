r"""The demo-data seeder: a plausible voting history, generated from known latent strengths.

``seed_demo`` writes the request-path tables (``conversations``, ``turns``, ``matchups``,
``responses``, ``preferences``) and the board's past (``model_rating_history``), never the current
ratings: the rating process rates the demo like any other history, so the leaderboard it
produces can be checked against the truth.

What is generated
-----------------
Each model gets a *persona* from its name (the seed system's conventions, matched on whole
segments of ``display_name`` and ``provider_model_id``): ``lite``/``mini``/``nano``/``small``/
``tiny``/``8b``/``haiku`` read as the fast, terse, weak tier; ``pro``/``ultra``/``opus``/``max``/
``large``/``70b``/``thinking`` as the slow, long-winded, strong flagship; a version number as
recency (newer is stronger, an older one pads its answers); anything else as the middle of the
roster, ranked by position. Each answer gets a token count, Markdown density, TTFT and stream
duration drawn around its model's persona, and each vote is drawn from the Rao-Kupper model the
rating process fits, with style confounding:

.. math::

    d = r_a - r_b + \beta_{pos} + \beta_{tok} \Delta_{tok} + \beta_{md} \Delta_{md}
        + \beta_{ttft} \Delta_{ttft} + \beta_{dur} \Delta_{dur},\quad
    P(A) = \sigma(d - \eta),\ P(B) = \sigma(-d - \eta),\ P(\text{tie}) = 1 - P(A) - P(B),

(deltas slot A minus slot B; ``STYLE_EFFECTS`` per readable unit), plus skips, a few failed
slots (the other side usually wins), unvoted rounds and follow-up turns after decisive votes.
Votes come in many small anonymous sessions (8 rounds on average, at most 15) over
``days`` days, rising toward the present with a daily rhythm, plus a few bot-like sessions the
anomaly screen should exclude: always-left clickers, vote-stuffers pushing one model, and
sub-second clickers.

How it is written
-----------------
The history is generated with NumPy from ``seed`` (the same seed gives the same arena, relative
to the time it runs), copied in PostgreSQL's binary COPY format into a temporary staging table,
and expanded into the five tables by ``INSERT ... SELECT`` in chunks, all in one transaction:
a failed run leaves nothing behind. For the load the counting triggers are disabled
(``arena_api.db.read_model.rebuild`` recounts every summary once at the end) and the five tables'
foreign keys are dropped and re-added, which validates every row in one join per key instead of
one lookup per row and needs only table ownership, not a superuser. Both lock the five tables
until the commit (about a minute for a million votes): run it while the server is idle. Demo
rows carry ``harness_version = 'demo'`` and session ids starting ``demo-``; a new run first
deletes the previous demo rows. A database that holds votes of another harness is refused
unless forced, and those votes are kept when it is.

The rating history
------------------
A live arena's history is one refit after another as the votes came in; the demo's is made the
same way. At ``HISTORY_REFITS`` evenly spaced instants (hourly for a short history), the last one
now, the votes cast so far are counted per pair and fitted by the rating process's own default
pipeline (``arena_rating.rate_pairs``: the Rao-Kupper fit, components, Fisher intervals, the
display scale) with its ridge (``RATING_RIDGE``), and the rows are stored as people's board at
that instant. Like the rating process, the fit leaves out skips and the bot-like sessions (the
anomaly screen's work; the generator knows them). It keeps the greetings' votes beyond the
duplicate-prompt cap, a hash-chosen share that is blind to the outcome (about 3 % of the votes),
so the last point agrees with the rating process's fit within a small fraction of their
intervals, and is that fit when the cap is off (``arena rate --no-duplicate-cap``). Without
other votes in the database the demo's history replaces any there was; beside other votes
(``force``) none is written, since a fit of the demo's votes alone was never the board.

Demo models: when fewer than ``models`` models are enabled, ``Demo …`` models (provider
``mock``) are added, enabled, so that the leaderboard shows them and, with the mock provider on,
matchmaking may draw them too. ``arena serve`` syncs the roster from the roster file and archives
models that the file does not list (they stay on the board with their votes, never matched), so
list them there to keep them playing after a restart.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg
import numpy as np
from numpy.typing import NDArray

from arena_api.core.categories import classify, prompt_key
from arena_api.core.cost import estimate_prompt_tokens
from arena_api.core.ids import new_id
from arena_api.core.models import ChatMessage
from arena_api.core.populations import HUMAN
from arena_api.core.records import VOTES
from arena_api.core.style_features import POSITION, STYLE_UNITS
from arena_api.db.read_model import rebuild
from arena_api.db.votes import insert_votes_from
from arena_api.language import detect_language
from arena_rating import (
    PairCounts,
    RatingRows,
    RatingSettingsError,
    load_rating_settings,
    rate_pairs,
)

__all__ = [
    "DEMO_HARNESS",
    "DEMO_MODELS",
    "HISTORY_REFITS",
    "STYLE_EFFECTS",
    "DemoError",
    "DemoOptions",
    "DemoResult",
    "Persona",
    "persona_for",
    "seed_demo",
]

#: The ``harness_version`` of every demo matchup (written as a literal in the statements below).
DEMO_HARNESS = "demo"
#: Models added when the enabled roster is smaller than ``--models``: (display name, id).
DEMO_MODELS: tuple[tuple[str, str], ...] = (
    ("Demo Atlas 3 Pro", "demo-atlas-3-pro"),
    ("Demo Atlas 3 Flash", "demo-atlas-3-flash"),
    ("Demo Atlas 2.5 Pro", "demo-atlas-2.5-pro"),
    ("Demo Atlas 3 Lite", "demo-atlas-3-lite"),
    ("Demo Helix 70B", "demo-helix-70b"),
    ("Demo Helix 8B", "demo-helix-8b"),
    ("Demo Quill 2 Ultra", "demo-quill-2-ultra"),
    ("Demo Quill 2 Nano", "demo-quill-2-nano"),
    ("Demo Orbit 1.5", "demo-orbit-1.5"),
    ("Demo Orbit 1", "demo-orbit-1"),
    ("Demo Tern Thinking", "demo-tern-thinking"),
    ("Demo Tern Mini", "demo-tern-mini"),
)
#: The true style effects, in log-odds per readable unit of the slot A minus slot B delta:
#: the left slot's edge, per 100 output tokens, per 0.1 Markdown density, per 100 ms of TTFT and
#: per second of streaming. Verbose, formatted answers win more than their strength justifies.
STYLE_EFFECTS: dict[str, float] = {
    "position": 0.06,
    "verbosity": 0.12,
    "formatting": 0.10,
    "latency_ttft": -0.015,
    "latency_duration": -0.02,
}
#: Rao-Kupper tie threshold of the generating model (about one vote in five is a tie).
TIE_THRESHOLD = 0.45
SKIP_SHARE = 0.04
FAILED_SLOT_SHARE = 0.006
UNVOTED_SHARE = 0.03
FOLLOW_UP_SHARE = 0.3
MAX_MODELS = 128
#: The most refits the demo's rating history holds: hourly over a short history, evenly spaced
#: over a long one (every three hours over 30 days). A refit of 100 models takes about 15 ms.
HISTORY_REFITS = 240

_LITE = frozenset({"lite", "mini", "nano", "small", "tiny", "8b", "haiku"})
_FLAGSHIP = frozenset({"pro", "ultra", "opus", "max", "large", "70b", "thinking"})
_VERSION = re.compile(r"^v?(\d+(?:\.\d+)?)$")
_CLASSICS = (
    "Explain JWTs in simple terms",
    "Write a haiku about garbage collection",
    "What is the difference between a process and a thread?",
    "Summarise the causes of the French Revolution in five bullet points",
    "How do I reverse a linked list in Python?",
    "Draft a polite email declining a meeting",
    "Why is the sky blue?",
    "Compare PostgreSQL and SQLite for a small web app",
    "Give me a three-day itinerary for Lisbon",
    "What does a Bradley-Terry model estimate?",
    "Translate 'good morning, how are you?' into French and German",
    "Write a SQL query for the top five customers by revenue",
    "Explain backpropagation to a high-school student",
    "What are the trade-offs of microservices?",
    "Suggest names for a coffee shop run by robots",
    "How does HTTPS keep my password secret?",
    "Write a limerick about a forgetful cat",
    "What is a monad, briefly?",
    "Plan a weekly workout for a beginner",
    "Explain the CAP theorem with an example",
)
_TOPICS = (
    "DNS",
    "OAuth",
    "CRDTs",
    "Raft consensus",
    "B-trees",
    "bloom filters",
    "rate limiting",
    "WebSockets",
    "the GIL",
    "TLS certificates",
    "git rebase",
    "photosynthesis",
    "inflation",
    "black holes",
    "vaccines",
    "plate tectonics",
    "compound interest",
    "quantum entanglement",
    "the Roman republic",
    "index funds",
    "load balancers",
    "garbage collection",
    "hash maps",
    "containers",
    "message queues",
    "unit testing",
    "caching",
    "the immune system",
    "supply and demand",
    "the water cycle",
    "jet engines",
    "antibiotics",
    "the printing press",
    "machine translation",
    "solar panels",
    "credit scores",
    "sleep cycles",
    "tides",
    "electric cars",
    "the Silk Road",
)
_AUDIENCES = (
    "a five-year-old",
    "a new engineer",
    "my manager",
    "an expert",
    "my grandmother",
    "a teenager",
    "a product designer",
    "a history teacher",
    "a sceptical investor",
    "someone who has never used a computer",
)
_ASKS = (
    "Explain {t} to {a}",
    "What do people get wrong about {t}? Answer for {a}",
    "Give {a} three analogies for {t}",
    "Summarise {t} in exactly five bullet points for {a}",
)
_FORMS = ("haiku", "limerick", "short story", "sonnet", "song chorus")
_SUBJECTS = (
    "a lighthouse keeper",
    "Monday mornings",
    "a lost umbrella",
    "the first snow",
    "a robot learning to paint",
    "an old bookshop",
    "a city at night",
    "a stubborn goat",
    "the last train home",
    "a dragon who hates fire",
)
_TASKS = (
    "invert a binary tree",
    "parse a CSV file",
    "debounce a function",
    "merge two sorted arrays",
    "validate an email address",
    "retry an HTTP request",
    "compute a moving average",
    "deduplicate a list while keeping order",
)
_CODE_LANGUAGES = ("Python", "JavaScript", "Go", "Rust", "Java")
_ELSEWHERE = (
    "Wie funktioniert ein Verbrennungsmotor?",
    "Erkläre mir bitte die Relativitätstheorie in einfachen Worten",
    "Qu'est-ce que la photosynthèse et pourquoi est-elle importante ?",
    "Écris un petit poème sur la mer en hiver",
    "¿Cuál es la capital de Australia y por qué no es Sídney?",
    "Explícame cómo funciona una hipoteca a tipo variable",
    "Come si prepara un vero risotto alla milanese?",
    "Hoe werkt de Nederlandse belastingaangifte voor freelancers?",
    "如何在三个月内学会编程？",
    "日本の四季について簡単に教えてください",
)
_GREETINGS = ("hi", "hello", "Hello!")
#: Every prompt of a demo arena: a few thousand distinct questions (everyday, coding, maths,
#: creative, constrained, in ten languages) and greetings, so that the boards per category and
#: language fill and the duplicate-prompt cap has over-asked prompts to cap.
_PROMPTS = (
    *_CLASSICS,
    *(ask.format(t=t, a=a) for ask in _ASKS for t in _TOPICS for a in _AUDIENCES),
    *(f"Write a {form} about {subject}" for form in _FORMS for subject in _SUBJECTS),
    *(f"How do I {task} in {lang}?" for task in _TASKS for lang in _CODE_LANGUAGES),
    *(f"Write a {lang} function to {task}" for task in _TASKS for lang in _CODE_LANGUAGES),
    *(
        f"What is {x} * {y}, and how do I check it by hand?"
        for x in (12, 37, 64, 99, 123)
        for y in (7, 18, 45, 256)
    ),
    *(f"Solve for x: {a}x + {b} = {c}" for a in (2, 3, 5, 7) for b in (1, 4, 9) for c in (20, 50)),
    *_ELSEWHERE,
    *_GREETINGS,
)
#: Each round's prompt: the greetings are asked far more often than anything else (3 % of the
#: rounds between them), as in a public arena; the rest uniformly.
_GREETING_SHARE = 0.03
#: The staged vote is its index in ``VOTES``.
_LEFT, _RIGHT, _GOOD, _BAD, _SKIP = (
    VOTES.index(v) for v in ("left", "right", "both_good", "both_bad", "skip")
)
_PG_EPOCH_US = 946_684_800_000_000  # 2000-01-01 in Unix microseconds: binary timestamptz origin
_CHUNK = 100_000
_LOCK_CLASS = 1095913026  # the seeder's advisory lock: one seeding run at a time


def _draw_prompts(rng: np.random.Generator, n: int) -> NDArray[np.int16]:
    """Each round's prompt index: a greeting with probability ``_GREETING_SHARE``."""
    rest = len(_PROMPTS) - len(_GREETINGS)
    weights = np.full(len(_PROMPTS), (1 - _GREETING_SHARE) / rest)
    weights[rest:] = _GREETING_SHARE / len(_GREETINGS)
    return rng.choice(len(_PROMPTS), size=n, p=weights).astype(np.int16)


class DemoError(RuntimeError):
    """The seeder refused to run or was given impossible options."""


@dataclass(frozen=True)
class DemoOptions:
    """What to generate.

    Args:
        votes: stored votes (``preferences`` rows), skips included.
        models: models taking part; ``None`` means every enabled model (at least two).
        days: the history spans this many days up to now.
        seed: the random seed (same seed, same arena).
        force: seed even though the database holds votes that are not demo votes.
    """

    votes: int = 20_000
    models: int | None = None
    days: int = 30
    seed: int = 20261130
    force: bool = False

    def __post_init__(self) -> None:
        if self.votes < 1:
            raise DemoError("--votes must be at least 1")
        if self.models is not None and not 2 <= self.models <= MAX_MODELS:
            raise DemoError(f"--models must be between 2 and {MAX_MODELS}")
        if self.days < 1:
            raise DemoError("--days must be at least 1")


@dataclass(frozen=True)
class DemoResult:
    votes: int
    matchups: int
    conversations: int
    sessions: int
    bot_sessions: dict[str, str]
    models: tuple[str, ...]
    models_added: tuple[str, ...]
    replaced_matchups: int
    seconds: float
    #: Refits in the rating history written (0 beside other votes).
    history_refits: int = 0


@dataclass(frozen=True)
class Persona:
    """A model's latent strength (log-odds scale) and the centre of its answers' style."""

    strength: float
    output_tokens: float
    markdown_density: float
    ttft_ms: float
    tokens_per_second: float


def _segments(text: str) -> list[str]:
    return [s for s in re.split(r"[^a-z0-9.]+", text.lower()) if s]


def _version(segments: Sequence[str]) -> float | None:
    for segment in segments:
        match = _VERSION.match(segment)
        if match:
            return float(match.group(1))
    return None


def persona_for(names: Sequence[str]) -> list[Persona]:
    """Personas for a roster, from each model's name (``display_name provider_model_id``).

    Tier from the markers, recency from the version number relative to the roster's versions,
    and the declaration order among the middle tier.
    """
    parsed = [_segments(name) for name in names]
    versions = [_version(s) for s in parsed]
    known = [v for v in versions if v is not None]
    newest = max(known, default=0.0)
    spread = (newest - min(known, default=0.0)) or 1.0
    personas = []
    for position, (segments, version) in enumerate(zip(parsed, versions, strict=True)):
        words = set(segments)
        if words & _LITE:
            strength, tokens, markdown, ttft, speed = -0.75, 190.0, 0.08, 170.0, 150.0
        elif words & _FLAGSHIP:
            strength, tokens, markdown, ttft, speed = 0.7, 620.0, 0.24, 850.0, 45.0
        else:
            strength, tokens, markdown, ttft, speed = 0.0, 380.0, 0.16, 420.0, 85.0
            strength -= 0.12 * position / max(len(names) - 1, 1)
        if version is not None:
            age = (newest - version) / spread  # 0 for the newest, 1 for the oldest
            strength += 0.35 * (0.5 - age)
            tokens *= 1.0 + 0.45 * age  # older versions pad their answers
            markdown += 0.08 * age
        personas.append(Persona(strength, tokens, min(markdown, 0.6), ttft, speed))
    return personas


# -- generation (pure NumPy) ---------------------------------------------------------------------


@dataclass
class _History:
    """One row per matchup, in time order; every array has shape ``(n_matchups,)``."""

    session: NDArray[np.int32]
    conversation: NDArray[np.int64]  # index of the conversation's first matchup
    turn_index: NDArray[np.int32]
    parent: NDArray[np.int64]  # index of the previous turn's matchup, -1 at turn 0
    slot_a: NDArray[np.int16]
    slot_b: NDArray[np.int16]
    prompt: NDArray[np.int16]
    matchup_us: NDArray[np.int64]
    vote_us: NDArray[np.int64]
    vote: NDArray[np.int16]  # left, right, both_good, both_bad, skip = 0..4; -1 unvoted
    tokens: NDArray[np.int32]  # shape (n, 2): slot A, slot B
    markdown: NDArray[np.float64]
    ttft: NDArray[np.int32]  # -1 when the slot failed before its first token
    duration: NDArray[np.int32]
    failed: NDArray[np.bool_]
    honest: NDArray[np.bool_]  # not one of the bot-like sessions
    bot_sessions: dict[str, str]
    n_sessions: int


def _session_id(number: int) -> str:
    return f"demo-{number:06x}"


def _activity_times(
    rng: np.random.Generator, n: int, origin_us: int, span_us: int
) -> NDArray[np.int64]:
    """``n`` offsets in [0, span) from ``origin_us`` (Unix µs) whose density rises toward the
    present and follows a daily rhythm in UTC (busiest at 15:00, quietest at 03:00)."""
    out = np.empty(0, np.int64)
    while out.size < n:
        m = 2 * (n - out.size) + 16
        # Density proportional to (a + u) on [0, 1]: the inverse CDF of a linear ramp.
        a = 0.35
        ramp = (-a + np.sqrt(a * a + rng.random(m) * (1 + 2 * a))).clip(0, 1)
        t = (ramp * span_us).astype(np.int64)
        hour = ((origin_us + t) // 3_600_000_000) % 24
        keep = rng.random(m) < 0.55 + 0.45 * np.sin(2 * np.pi * (hour - 9) / 24)
        out = np.concatenate([out, t[keep]])
    return out[:n]


def _sessions(
    n_votes: int, n_unvoted: int, rng: np.random.Generator
) -> tuple[NDArray[np.int64], list[str]]:
    """Rounds per session and each session's kind: honest ones, then the bots."""
    bots: list[tuple[str, int]] = []
    if n_votes >= 2_000:  # about 1% of the votes, once there are enough to hide them in
        each = max(24, n_votes // 600)
        for kind, size in (
            ("always-left", each),
            ("vote-stuffing", 2 * each),
            ("sub-second", each),
        ):
            bots += [(kind, size), (kind, size)]
    honest = n_votes - sum(size for _, size in bots) + n_unvoted
    # 1 + Binomial(14, 1/2) rounds each (8 on average, never more than 15, so no honest session
    # is long enough for the screen's volume test), the last trimmed to hit the count exactly.
    sizes = 1 + rng.binomial(14, 0.5, size=honest // 8 + 16)
    while sizes.sum() < honest:
        sizes = np.concatenate([sizes, 1 + rng.binomial(14, 0.5, size=sizes.size)])
    cut = int(np.searchsorted(np.cumsum(sizes), honest))
    sizes = sizes[: cut + 1].copy()
    sizes[-1] -= int(sizes.sum()) - honest
    sizes = sizes[sizes > 0]
    kinds = ["honest"] * sizes.size + [kind for kind, _ in bots]
    return np.concatenate([sizes, np.array([s for _, s in bots], np.int64)]), kinds


def _generate(
    personas: Sequence[Persona], options: DemoOptions, now_us: int, rng: np.random.Generator
) -> _History:
    n_models = len(personas)
    span_us = options.days * 86_400 * 1_000_000
    n_unvoted = int(round(options.votes * UNVOTED_SHARE))
    sizes, kinds = _sessions(options.votes, n_unvoted, rng)
    n_sessions = sizes.size
    n = int(sizes.sum())
    session = np.repeat(np.arange(n_sessions, dtype=np.int32), sizes)
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    position = np.arange(n) - first[session]
    codes = {"honest": 0, "always-left": 1, "vote-stuffing": 2, "sub-second": 3}
    kind = np.array([codes[k] for k in kinds], np.int8)[session]
    honest = kind == 0

    # Pairs: uniform over unordered pairs, slots randomised; a stuffer's model is always in.
    a = rng.integers(0, n_models, size=n)
    favourite = rng.integers(0, n_models, size=n_sessions)
    stuffed = kind == 2
    a[stuffed] = favourite[session[stuffed]]
    b = (a + rng.integers(1, n_models, size=n)) % n_models
    swap = rng.random(n) < 0.5
    slot_a = np.where(swap, b, a).astype(np.int16)
    slot_b = np.where(swap, a, b).astype(np.int16)
    slots = np.stack([slot_a, slot_b], 1)

    # Answers: style drawn around each model's persona.
    def centre(attribute: str) -> NDArray[np.float64]:
        return np.array([getattr(x, attribute) for x in personas])[slots]

    tokens = np.maximum(1, np.rint(centre("output_tokens") * rng.lognormal(0, 0.45, (n, 2))))
    markdown = np.clip(centre("markdown_density") + rng.normal(0, 0.06, (n, 2)), 0.0, 1.0)
    ttft = np.rint(centre("ttft_ms") * rng.lognormal(0, 0.35, (n, 2)))
    stream = tokens / centre("tokens_per_second") * 1000.0 * rng.lognormal(0, 0.2, (n, 2))
    duration = ttft + np.rint(stream)
    failed = rng.random((n, 2)) < FAILED_SLOT_SHARE
    early = failed & (rng.random((n, 2)) < 0.5)  # failed before its first token
    tokens[failed] = np.rint(tokens[failed] * rng.random(int(failed.sum())) * 0.3)
    markdown[failed] = 0.0
    ttft[early] = -1
    duration[early] = rng.integers(5_000, 30_000, size=int(early.sum()))

    # Times. An honest round streams, is read, voted on, and the next starts after a pause;
    # bots vote at their own pace on rounds they opened in parallel.
    longest_us = duration.max(axis=1).astype(np.int64) * 1000
    read_us = (rng.lognormal(np.log(10.0), 0.5, n) * 1e6).astype(np.int64)
    pause_us = (rng.lognormal(np.log(15.0), 0.7, n) * 1e6).astype(np.int64)
    step_us = np.where(position > 0, pause_us, 0) + longest_us + read_us
    bot_gap_s = {1: (2.0, 6.0), 2: (3.0, 9.0), 3: (0.2, 0.9)}
    for code, (low, high) in bot_gap_s.items():
        mask = kind == code
        step_us[mask] = (rng.uniform(low, high, int(mask.sum())) * 1e6).astype(np.int64)
    offset = np.cumsum(step_us)
    offset -= offset[first][session] - step_us[first][session]
    start = _activity_times(rng, n_sessions, now_us - span_us, span_us)
    start = np.minimum(start, span_us - 1 - offset[first + sizes - 1])  # end before now
    vote_us = now_us - span_us + start[session] + offset
    matchup_us = vote_us - longest_us - read_us
    matchup_us[kind == 3] = vote_us[kind == 3] - longest_us[kind == 3] - 100_000

    # Votes: Rao-Kupper with style confounding, then skips, failed slots and the bots' rules.
    strength = np.array([x.strength for x in personas])
    shown_ttft = np.where(ttft >= 0, ttft, 0)
    # Each feature's slot A minus slot B delta, in its readable unit (``STYLE_UNITS``).
    measures = {
        "verbosity": tokens,
        "formatting": markdown,
        "latency_ttft": shown_ttft,
        "latency_duration": duration,
    }
    d = strength[slot_a] - strength[slot_b] + STYLE_EFFECTS[POSITION]
    for feature, measure in measures.items():
        delta = measure[:, 0] - measure[:, 1]
        d = d + STYLE_EFFECTS[feature] * delta / STYLE_UNITS[feature].amount
    p_a = 1.0 / (1.0 + np.exp(TIE_THRESHOLD - d))
    p_b = 1.0 / (1.0 + np.exp(TIE_THRESHOLD + d))
    u = rng.random(n)
    vote = np.where(u < p_a, _LEFT, np.where(u < p_a + p_b, _RIGHT, _GOOD)).astype(np.int16)
    quality = (strength[slot_a] + strength[slot_b]) / 2 + rng.normal(0, 0.5, n)
    vote[(vote == _GOOD) & (quality < 0)] = _BAD
    vote[rng.random(n) < SKIP_SHARE] = _SKIP
    only_a, only_b = failed[:, 1] & ~failed[:, 0], failed[:, 0] & ~failed[:, 1]
    vote[only_a] = np.where(rng.random(int(only_a.sum())) < 0.85, _LEFT, _SKIP)
    vote[only_b] = np.where(rng.random(int(only_b.sum())) < 0.85, _RIGHT, _SKIP)
    vote[failed[:, 0] & failed[:, 1]] = _BAD
    vote[kind == 1] = _LEFT
    vote[stuffed] = np.where(slot_a[stuffed] == favourite[session[stuffed]], _LEFT, _RIGHT)
    clicks = np.array([_LEFT, _RIGHT, _GOOD], np.int16)
    vote[kind == 3] = rng.choice(clicks, int((kind == 3).sum()))
    unvoted = rng.choice(np.flatnonzero(honest), size=n_unvoted, replace=False)
    vote[unvoted] = -1

    # Conversations: after a decisive vote an honest session may ask a follow-up in the same
    # conversation (the winning answer becomes the parent); otherwise it starts a new one.
    decisive = (vote == _LEFT) | (vote == _RIGHT)
    follow = np.zeros(n, dtype=bool)
    follow[1:] = (position[1:] > 0) & decisive[:-1] & (rng.random(n - 1) < FOLLOW_UP_SHARE)
    follow &= honest
    conversation = np.flatnonzero(~follow)[np.cumsum(~follow) - 1]
    parent = np.where(follow, np.arange(n) - 1, -1)

    # Store in the order the rounds started.
    order = np.argsort(matchup_us, kind="stable")
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    parent = parent[order]
    return _History(
        session=session[order],
        conversation=rank[conversation[order]],
        turn_index=(np.arange(n) - conversation)[order].astype(np.int32),
        parent=np.where(parent >= 0, rank[np.maximum(parent, 0)], -1),
        slot_a=slot_a[order],
        slot_b=slot_b[order],
        prompt=_draw_prompts(rng, n)[order],
        matchup_us=matchup_us[order],
        vote_us=vote_us[order],
        vote=vote[order],
        tokens=tokens[order].astype(np.int32),
        markdown=markdown[order],
        ttft=ttft[order].astype(np.int32),
        duration=duration[order].astype(np.int32),
        failed=failed[order],
        honest=honest[order],
        bot_sessions={_session_id(s): kinds[s] for s in range(n_sessions) if kinds[s] != "honest"},
        n_sessions=n_sessions,
    )


def _uuid7(unix_us: NDArray[np.int64], rng: np.random.Generator) -> NDArray[np.uint8]:
    """UUIDv7s (RFC 9562) for the given instants, shape ``(n, 16)``."""
    n = unix_us.size
    out = rng.integers(0, 256, size=(n, 16), dtype=np.uint8)
    millis = (unix_us // 1000).astype(">u8").view(np.uint8).reshape(n, 8)
    out[:, :6] = millis[:, 2:]
    out[:, 6] = (out[:, 6] & 0x0F) | 0x70
    out[:, 8] = (out[:, 8] & 0x3F) | 0x80
    return out


# -- the rating history ---------------------------------------------------------------------------

#: Each staged vote (by its index in ``VOTES``) as the fit counts it (``arena_rating.Outcome``):
#: slot A wins, slot B wins, a tie (both good or both bad); a skip is no comparison (-1).
_OUTCOMES = np.full(len(VOTES), -1, np.int64)
_OUTCOMES[[_LEFT, _RIGHT, _GOOD, _BAD]] = (0, 1, 2, 2)


@dataclass(frozen=True)
class _Refit:
    """The board fitted to the votes cast up to ``at_us`` (Unix µs)."""

    at_us: int
    rows: RatingRows


def _refit_instants(now_us: int, span_us: int) -> NDArray[np.int64]:
    """``HISTORY_REFITS`` instants (fewer when there are fewer hours) evenly spread over the
    span, the last one now."""
    refits = min(HISTORY_REFITS, max(span_us // 3_600_000_000, 1))
    return now_us - span_us + span_us * np.arange(1, refits + 1, dtype=np.int64) // refits


def _rating_history(
    h: _History,
    model_ids: Sequence[uuid.UUID],
    instants: NDArray[np.int64],
    *,
    l2_penalty: float,
) -> list[_Refit]:
    """The rating process's default fit of the votes cast up to each of ``instants``.

    Each refit counts the votes so far per canonical pair (lower model index first), as the
    rating process's tallies do, over the models with a comparison so far, and warm-starts from
    the previous refit when those models did not change (its optimum is unique either way).
    """
    n = len(model_ids)
    outcome = np.where(h.vote >= 0, _OUTCOMES[np.maximum(h.vote, 0)], -1)
    kept = h.honest & (outcome >= 0)
    at = h.vote_us[kept]
    order = np.argsort(at, kind="stable")
    at = at[order]
    a = h.slot_a[kept][order].astype(np.int64)
    b = h.slot_b[kept][order].astype(np.int64)
    outcome = outcome[kept][order]
    # Seen from the lower index: slot A's win is the lower model's when A is the lower one.
    lower_first = a < b
    side = np.where(outcome == 2, 2, np.where(lower_first, outcome, 1 - outcome))
    code = (np.minimum(a, b) * n + np.maximum(a, b)) * 3 + side
    counts = np.zeros((n * n, 3), np.int64)
    refits: list[_Refit] = []
    done = 0
    previous: tuple[tuple[int, ...], NDArray[np.float64]] | None = None
    for instant, end in zip(instants, np.searchsorted(at, instants, side="right"), strict=True):
        counts += np.bincount(code[done:end], minlength=n * n * 3).reshape(n * n, 3)
        done = int(end)
        keys = np.flatnonzero(counts.sum(axis=1))
        if keys.size == 0:
            continue
        lo, hi = np.divmod(keys, n)
        models, local = np.unique(np.concatenate([lo, hi]), return_inverse=True)
        pairs = local.reshape(2, -1).T.astype(np.intp)
        pair_counts = PairCounts(
            int(models.size), pairs, *(counts[keys, k].astype(np.float64) for k in range(3))
        )
        present = tuple(int(m) for m in models)
        warm = previous[1] if previous is not None and previous[0] == present else None
        report = rate_pairs(
            [model_ids[m] for m in present], pair_counts, l2_penalty=l2_penalty, initial=warm
        )
        previous = (present, report.fit.theta)
        refits.append(_Refit(int(instant), report.rows))
    return refits


async def _write_history(conn: asyncpg.Connection, refits: Sequence[_Refit]) -> None:
    """Store ``refits`` as people's board's history, in place of any there was."""
    await conn.execute("DELETE FROM model_rating_history")
    records = [
        (
            record["model_id"],
            record["rating"],
            record["stderr"],
            record["ci_lower"],
            record["ci_upper"],
            record["component_id"],
            record["games"],
            datetime.fromtimestamp(refit.at_us / 1_000_000, UTC),
            HUMAN,
        )
        for refit in refits
        for record in refit.rows.records()
    ]
    await conn.copy_records_to_table(
        "model_rating_history",
        records=records,
        columns=[
            "model_id",
            "rating",
            "rating_stderr",
            "ci_lower",
            "ci_upper",
            "component_id",
            "games",
            "computed_at",
            "population",
        ],
    )


# -- the staging table, in PostgreSQL's binary COPY format ----------------------------------------

_STAGE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    # (column, SQL type, NumPy big-endian type)
    ("i", "int4", ">i4"),
    ("session_no", "int4", ">i4"),
    ("conversation_id", "uuid", "16u1"),
    ("new_conversation", "bool", "u1"),
    ("turn_index", "int4", ">i4"),
    ("turn_id", "uuid", "16u1"),
    ("parent_response_id", "uuid", "16u1"),
    ("has_parent", "bool", "u1"),
    ("matchup_id", "uuid", "16u1"),
    ("prompt_no", "int2", ">i2"),
    ("slot_a", "int2", ">i2"),
    ("slot_b", "int2", ">i2"),
    ("matchup_at", "timestamptz", ">i8"),
    ("response_a_id", "uuid", "16u1"),
    ("response_b_id", "uuid", "16u1"),
    ("a_tokens", "int4", ">i4"),
    ("b_tokens", "int4", ">i4"),
    ("a_markdown", "float8", ">f8"),
    ("b_markdown", "float8", ">f8"),
    ("a_ttft", "int4", ">i4"),
    ("b_ttft", "int4", ">i4"),
    ("a_duration", "int4", ">i4"),
    ("b_duration", "int4", ">i4"),
    ("a_failed", "bool", "u1"),
    ("b_failed", "bool", "u1"),
    ("preference_id", "uuid", "16u1"),
    ("vote", "int2", ">i2"),
    ("vote_at", "timestamptz", ">i8"),
)
_SIZES = {"int2": 2, "int4": 4, "int8": 8, "float8": 8, "bool": 1, "uuid": 16, "timestamptz": 8}
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
_COPY_TRAILER = b"\xff\xff"


def _copy_dtype() -> np.dtype[np.void]:
    fields: list[tuple[str, str]] = [("_fields", ">i2")]
    for name, _, numpy_type in _STAGE_COLUMNS:
        fields += [(f"_len_{name}", ">i4"), (name, numpy_type)]
    return np.dtype(fields)


def _copy_payload(columns: dict[str, NDArray[np.generic]], n: int) -> bytes:
    """Rows in PostgreSQL's binary COPY format (header, fixed-width tuples, trailer)."""
    records = np.zeros(n, dtype=_copy_dtype())
    records["_fields"] = len(_STAGE_COLUMNS)
    for name, sql_type, _ in _STAGE_COLUMNS:
        records[f"_len_{name}"] = _SIZES[sql_type]
        records[name] = columns[name]
    return _COPY_HEADER + records.tobytes() + _COPY_TRAILER


def _stage_columns(h: _History, rng: np.random.Generator) -> dict[str, NDArray[np.generic]]:
    n = h.session.size
    to_pg = _PG_EPOCH_US
    matchup_ids = _uuid7(h.matchup_us, rng)
    response_at = h.matchup_us[:, None] + h.duration.astype(np.int64) * 1000
    response_ids = np.stack([_uuid7(response_at[:, 0], rng), _uuid7(response_at[:, 1], rng)], 1)
    conversation_ids = _uuid7(h.matchup_us, rng)
    parent_slot = np.where(h.vote[np.maximum(h.parent, 0)] == _RIGHT, 1, 0)
    parent_ids = response_ids[np.maximum(h.parent, 0), parent_slot]
    parent_ids[h.parent < 0] = 0
    return {
        "i": np.arange(n, dtype=np.int32),
        "session_no": h.session,
        "conversation_id": conversation_ids[h.conversation],
        "new_conversation": (h.turn_index == 0).astype(np.uint8),
        "turn_index": h.turn_index,
        "turn_id": _uuid7(h.matchup_us, rng),
        "parent_response_id": parent_ids,
        "has_parent": (h.parent >= 0).astype(np.uint8),
        "matchup_id": matchup_ids,
        "prompt_no": h.prompt,
        "slot_a": h.slot_a,
        "slot_b": h.slot_b,
        "matchup_at": h.matchup_us - to_pg,
        "response_a_id": response_ids[:, 0],
        "response_b_id": response_ids[:, 1],
        "a_tokens": h.tokens[:, 0],
        "b_tokens": h.tokens[:, 1],
        "a_markdown": h.markdown[:, 0],
        "b_markdown": h.markdown[:, 1],
        "a_ttft": h.ttft[:, 0],
        "b_ttft": h.ttft[:, 1],
        "a_duration": h.duration[:, 0],
        "b_duration": h.duration[:, 1],
        "a_failed": h.failed[:, 0].astype(np.uint8),
        "b_failed": h.failed[:, 1].astype(np.uint8),
        "preference_id": _uuid7(h.vote_us, rng),
        "vote": h.vote,
        "vote_at": h.vote_us - to_pg,
    }


_CREATE_STAGE = (
    "CREATE TEMP TABLE demo_stage ("
    + ", ".join(f"{name} {sql_type} NOT NULL" for name, sql_type, _ in _STAGE_COLUMNS)
    + ", PRIMARY KEY (i)) ON COMMIT DROP"
)

# A third of the decisive votes say why, in the default ``ARENA_VOTE_REASONS``: speed when the
# winner's answer took under 70 % of the other's time, style when it had clearly more Markdown,
# accuracy and helpfulness at steady rates. Derived from the staged row, never drawn, so the
# seeded history stays the same.
_DEMO_REASONS = f"""CASE WHEN s.vote IN ({_LEFT}, {_RIGHT}) AND s.i % 3 = 0
       THEN array_remove(ARRAY[
         CASE WHEN s.i % 2 = 0 THEN 'accuracy' END,
         CASE WHEN s.i % 5 < 2 THEN 'helpfulness' END,
         CASE WHEN s.vote = {_LEFT} AND s.a_markdown > s.b_markdown + 0.1
                OR s.vote = {_RIGHT} AND s.b_markdown > s.a_markdown + 0.1 THEN 'style' END,
         CASE WHEN s.vote = {_LEFT} AND s.a_duration < 0.7 * s.b_duration
                OR s.vote = {_RIGHT} AND s.b_duration < 0.7 * s.a_duration THEN 'speed' END],
         NULL)
       ELSE '{{}}'::text[] END"""

# $1, $2: the chunk's first and last row. demo_models and demo_prompts map the staged indices.
_EXPAND = (
    """
INSERT INTO conversations (id, anonymous_session_id, created_at)
SELECT conversation_id, 'demo-' || lpad(to_hex(session_no), 6, '0'), matchup_at
  FROM demo_stage WHERE i BETWEEN $1 AND $2 AND new_conversation
""",
    """
INSERT INTO matchups (id, prompt, model_a_id, model_b_id, slot_a_model_id, slot_b_model_id,
                      slot_a_provider_model_id, slot_b_provider_model_id, matchup_token_hash,
                      harness_version, mode, created_at, categories, language, prompt_key)
SELECT s.matchup_id, q.prompt,
       LEAST(a.id, b.id), GREATEST(a.id, b.id), a.id, b.id, a.pmid, b.pmid,
       repeat('0', 64), 'demo', 'blind', s.matchup_at,
       q.categories || CASE WHEN s.turn_index > 0 THEN '{multi_turn}'::text[]
                            ELSE '{}'::text[] END,
       q.language, q.prompt_key
  FROM demo_stage s
  JOIN demo_models a ON a.n = s.slot_a
  JOIN demo_models b ON b.n = s.slot_b
  JOIN demo_prompts q ON q.n = s.prompt_no
 WHERE s.i BETWEEN $1 AND $2
""",
    """
INSERT INTO responses (id, matchup_id, slot, model_id, content, latency_ms, ttft_ms,
                       stream_duration_ms, output_token_count, token_count_source,
                       markdown_density, model_version, error, created_at,
                       input_token_count, input_token_source, cost_usd)
SELECT r.id, s.matchup_id, r.slot, m.id,
       CASE WHEN r.failed THEN '' ELSE 'A demo answer of ' || r.tokens || ' tokens.' END,
       r.duration, NULLIF(r.ttft, -1), r.duration, r.tokens, 'estimated', r.markdown,
       'demo', CASE WHEN r.failed THEN 'The model did not answer in time' END,
       s.matchup_at + make_interval(secs => r.duration / 1000.0),
       t.input, 'estimated',
       round((t.input * p.input_price_per_mtok + r.tokens * p.output_price_per_mtok)
             / 1000000, 9)
  FROM demo_stage s
 CROSS JOIN LATERAL (VALUES
   ('A', s.response_a_id, s.slot_a, s.a_tokens, s.a_markdown, s.a_ttft, s.a_duration, s.a_failed),
   ('B', s.response_b_id, s.slot_b, s.b_tokens, s.b_markdown, s.b_ttft, s.b_duration, s.b_failed)
 ) AS r (slot, id, model, tokens, markdown, ttft, duration, failed)
  JOIN demo_models m ON m.n = r.model
  JOIN models p ON p.id = m.id
  JOIN demo_prompts q ON q.n = s.prompt_no
 CROSS JOIN LATERAL (SELECT CASE WHEN r.failed THEN 0 ELSE q.tokens END AS input) AS t
 WHERE s.i BETWEEN $1 AND $2
""",
    """
INSERT INTO turns (id, conversation_id, matchup_id, parent_response_id, turn_index, prompt,
                   created_at)
SELECT s.turn_id, s.conversation_id, s.matchup_id,
       CASE WHEN s.has_parent THEN s.parent_response_id END, s.turn_index, q.prompt,
       s.matchup_at
  FROM demo_stage s JOIN demo_prompts q ON q.n = s.prompt_no
 WHERE s.i BETWEEN $1 AND $2
""",
    insert_votes_from(
        f"""
SELECT s.preference_id, s.matchup_id, (ARRAY{list(VOTES)})[s.vote + 1], a.id, b.id,
       'demo-' || lpad(to_hex(s.session_no), 6, '0'), 'human', {_DEMO_REASONS}, s.vote_at
  FROM demo_stage s
  JOIN demo_models a ON a.n = s.slot_a
  JOIN demo_models b ON b.n = s.slot_b
 WHERE s.i BETWEEN $1 AND $2 AND s.vote >= 0
"""
    ),
)

_FOREIGN_VOTES = """
SELECT EXISTS (
  SELECT 1 FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   WHERE m.harness_version <> 'demo')
"""


async def _choose_models(
    conn: asyncpg.Connection, wanted: int | None
) -> tuple[list[asyncpg.Record], list[str]]:
    enabled = await conn.fetch(
        "SELECT id, display_name, provider_model_id FROM models WHERE enabled "
        "ORDER BY created_at, display_name"
    )
    target = wanted if wanted is not None else max(len(enabled), 2)
    added: list[str] = []
    if len(enabled) < target:
        taken = {r["provider_model_id"] for r in enabled}
        extra = [m for m in DEMO_MODELS if m[1] not in taken]
        extra += [(f"Demo Model {k}", f"demo-model-{k}") for k in range(1, MAX_MODELS + 1)]
        for name, pmid in extra[: target - len(enabled)]:
            await conn.execute(
                "INSERT INTO models (id, display_name, provider, provider_model_id, status) "
                "VALUES ($1, $2, 'mock', $3, 'active') "
                "ON CONFLICT (provider, provider_model_id) DO UPDATE SET status = 'active', "
                "display_name = EXCLUDED.display_name",
                new_id(),
                name,
                pmid,
            )
            added.append(name)
        enabled = await conn.fetch(
            "SELECT id, display_name, provider_model_id FROM models WHERE enabled "
            "ORDER BY created_at, display_name"
        )
    return list(enabled[:target]), added


async def _remove_previous_demo(conn: asyncpg.Connection) -> int:
    """Delete earlier demo rows (cheaply, with TRUNCATE, when nothing else is stored)."""
    demo = await conn.fetchval("SELECT count(*) FROM matchups WHERE harness_version = 'demo'")
    if not demo:
        return 0
    others = await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM matchups WHERE harness_version <> 'demo')"
    )
    if not others:
        # external_chats, the judge's verdicts and claims, suite results and turns' images only
        # ever point at real (non-demo) rounds, so they are empty here; vote_exclusions holds
        # demo votes, and a review queue's items (and their verdicts) may be demo rounds: they
        # go with them.
        await conn.execute(
            "TRUNCATE vote_exclusions, preferences, responses, turn_images, turns, external_chats, "
            "judge_verdicts, autojudge_claims, suite_results, review_verdicts, review_items, "
            "matchups, conversations"
        )
        return int(demo)
    await conn.execute(
        "DELETE FROM conversations WHERE id IN (SELECT t.conversation_id FROM turns t "
        "JOIN matchups m ON m.id = t.matchup_id WHERE m.harness_version = 'demo')"
    )
    await conn.execute("DELETE FROM matchups WHERE harness_version = 'demo'")
    return int(demo)


_LOADED_TABLES = ("conversations", "matchups", "responses", "turns", "preferences")
# The tables whose row triggers keep the summaries (recounted once after the load instead).
_COUNTED_TABLES = ("matchups", "preferences", "responses")


async def _drop_foreign_keys(conn: asyncpg.Connection) -> list[asyncpg.Record]:
    """Drop the loaded tables' foreign keys, returning their definitions.

    Checking a key row by row costs more than writing the row; re-adding the constraint after
    the load validates every row in one join instead. Needs only table ownership.
    """
    keys = await conn.fetch(
        "SELECT conrelid::regclass::text AS table_name, quote_ident(conname) AS name, "
        "pg_get_constraintdef(oid) AS definition FROM pg_constraint "
        "WHERE contype = 'f' AND conrelid = ANY($1::regclass[]) ORDER BY conrelid, conname",
        list(_LOADED_TABLES),
    )
    for key in keys:
        await conn.execute(f"ALTER TABLE {key['table_name']} DROP CONSTRAINT {key['name']}")
    return list(keys)


async def _restore_foreign_keys(conn: asyncpg.Connection, keys: Sequence[asyncpg.Record]) -> None:
    for key in keys:
        await conn.execute(
            f"ALTER TABLE {key['table_name']} ADD CONSTRAINT {key['name']} {key['definition']}"
        )


ProgressCallback = Callable[[int], None]


async def seed_demo(
    dsn: str, options: DemoOptions, *, progress: ProgressCallback | None = None
) -> DemoResult:
    """Replace the demo history with a freshly generated one, in one transaction.

    Args:
        dsn: an asyncpg DSN of a migrated database.
        options: what to generate.
        progress: called with the number of votes written since the previous call.

    Raises:
        DemoError: the database holds non-demo votes and ``options.force`` is false, or a
            rating variable (``RATING_RIDGE``) is malformed.
    """
    started = time.perf_counter()
    try:
        ridge = load_rating_settings().rating_ridge
    except RatingSettingsError as exc:
        raise DemoError(f"the rating history needs the rating settings: {exc}") from exc
    rng = np.random.default_rng(options.seed)
    conn = await asyncpg.connect(dsn)
    try:
        async with conn.transaction():
            await conn.execute(f"SELECT pg_advisory_xact_lock({_LOCK_CLASS}, 0)")
            foreign = bool(await conn.fetchval(_FOREIGN_VOTES))
            if foreign and not options.force:
                raise DemoError(
                    "the database holds votes that are not demo votes; "
                    "pass --force to add demo data beside them"
                )
            await conn.execute("SET LOCAL synchronous_commit = off")
            await conn.execute("SET LOCAL work_mem = '256MB'")
            await conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
            chosen, added = await _choose_models(conn, options.models)
            if len(chosen) < 2:
                raise DemoError("at least two enabled models are needed")
            names = [f"{r['display_name']} {r['provider_model_id']}" for r in chosen]
            now_us = int((await conn.fetchval("SELECT now()")).timestamp() * 1_000_000)
            history = _generate(persona_for(names), options, now_us, rng)
            columns = _stage_columns(history, rng)
            n = history.session.size
            refits = (
                []
                if foreign
                else _rating_history(
                    history,
                    [r["id"] for r in chosen],
                    _refit_instants(now_us, options.days * 86_400 * 1_000_000),
                    l2_penalty=ridge,
                )
            )

            for table in _COUNTED_TABLES:
                await conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            replaced = await _remove_previous_demo(conn)
            foreign_keys = await _drop_foreign_keys(conn)
            await conn.execute(_CREATE_STAGE)
            await conn.execute(
                "CREATE TEMP TABLE demo_models ON COMMIT DROP AS SELECT (n - 1)::int2 AS n, id, "
                "pmid FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS m (id, pmid, n)",
                [r["id"] for r in chosen],
                [r["provider_model_id"] for r in chosen],
            )
            await conn.execute(
                "CREATE TEMP TABLE demo_prompts ON COMMIT DROP AS SELECT (n - 1)::int2 AS n, "
                "prompt, tokens, string_to_array(categories, ',') AS categories, language, "
                "prompt_key FROM unnest($1::text[], $2::int4[], $3::text[], $4::text[], "
                "$5::text[]) WITH ORDINALITY AS q (prompt, tokens, categories, language, "
                "prompt_key, n)",
                list(_PROMPTS),
                [estimate_prompt_tokens([ChatMessage("user", p)]) for p in _PROMPTS],
                [",".join(classify(p)) for p in _PROMPTS],
                [detect_language(p) for p in _PROMPTS],
                [prompt_key(p) for p in _PROMPTS],
            )
            for lo in range(0, n, _CHUNK):
                hi = min(lo + _CHUNK, n)
                chunk = {name: values[lo:hi] for name, values in columns.items()}
                await conn.copy_to_table(
                    "demo_stage",
                    source=_BytesSource(_copy_payload(chunk, hi - lo)),
                    format="binary",
                )
                for statement in _EXPAND:
                    await conn.execute(statement, lo, hi - 1)
                if progress is not None:
                    progress(int((history.vote[lo:hi] >= 0).sum()))
            await _restore_foreign_keys(conn, foreign_keys)
            for table in _COUNTED_TABLES:
                await conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
            await rebuild(conn)
            if not foreign:
                await _write_history(conn, refits)
        await conn.execute("ANALYZE conversations, turns, matchups, responses, preferences")
    finally:
        await conn.close()
    voted = int((history.vote >= 0).sum())
    return DemoResult(
        votes=voted,
        matchups=n,
        conversations=int((history.turn_index == 0).sum()),
        sessions=history.n_sessions,
        bot_sessions=history.bot_sessions,
        models=tuple(r["display_name"] for r in chosen),
        models_added=tuple(added),
        replaced_matchups=replaced,
        seconds=time.perf_counter() - started,
        history_refits=len(refits),
    )


class _BytesSource:
    """An async iterable over one ``bytes`` payload, in pieces (asyncpg's COPY source)."""

    def __init__(self, payload: bytes, piece: int = 4 * 1024 * 1024) -> None:
        self._view = memoryview(payload)
        self._piece = piece

    def __aiter__(self) -> _BytesSource:
        self._at = 0
        return self

    async def __anext__(self) -> bytes:
        if self._at >= len(self._view):
            raise StopAsyncIteration
        piece = bytes(self._view[self._at : self._at + self._piece])
        self._at += self._piece
        return piece
