"""The read and reveal shapes the service returns: one definition for the API and the UI.

Serialised with camelCase keys (``.wire()``), matching the seed system's API; instants as ISO 8601
in UTC with milliseconds (``2026-07-24T09:00:00.000Z``), as the seed system writes them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, PlainSerializer
from pydantic.alias_generators import to_camel

from arena_api.core.lifecycle import ACTIVE, ModelStatus
from arena_api.core.models import Slot
from arena_api.core.populations import Population
from arena_api.core.standing import ProvisionalReason

__all__ = [
    "ActivityBucket",
    "AllowedRanks",
    "ActivityView",
    "ActivityVotes",
    "CategoriesView",
    "CategoryCount",
    "FilteredVotes",
    "AnswerView",
    "Components",
    "ComponentGroup",
    "CostBucket",
    "CostPoint",
    "CostTotals",
    "CostView",
    "ModelCost",
    "ConfidenceInterval",
    "ConversationView",
    "CumulativeGames",
    "HeadToHeadPair",
    "HeadToHeadView",
    "Instant",
    "JudgeAgreementView",
    "JudgeReading",
    "JudgeReveal",
    "JudgeView",
    "LeaderboardEntry",
    "LeaderboardView",
    "MatchupView",
    "ModelIdentity",
    "ModelMetrics",
    "ModelMetricsView",
    "ModelReasons",
    "RatingHistoryPoint",
    "RatingHistoryView",
    "ReasonChoice",
    "ReasonChoicesView",
    "ReasonCountsView",
    "RevealedModels",
    "SharedMatchupView",
    "StyleCoefficientView",
    "StyleControl",
    "StyleControlView",
    "StyleEffect",
    "StyleRatedModel",
    "StyleUnit",
    "SuiteDiffRow",
    "SuiteDiffView",
    "SuiteResultView",
    "SuiteRunView",
    "SuiteRunsView",
    "SuiteSummaryView",
    "SuiteTally",
    "SuitesView",
    "SummaryView",
    "TurnView",
    "View",
    "VoteReveal",
    "Votes",
]


def _iso_instant(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: A timezone-aware instant, written ``2026-07-24T09:00:00.000Z`` on the wire.
Instant = Annotated[datetime, PlainSerializer(_iso_instant, return_type=str, when_used="json")]
ActivityBucket = Literal["day", "hour"]
CostBucket = Literal["day", "week", "month"]
#: Whose votes a read counts (``?votes=``): ``arena_api.core.populations.Population``.
Votes = Population


class View(BaseModel):
    """Base of every view: frozen, camelCase on the wire."""

    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)

    def wire(self) -> dict[str, object]:
        return self.model_dump(by_alias=True, mode="json")

    def wire_json(self) -> bytes:
        """The same as ``wire()``, already encoded (pydantic-core's encoder; for large bodies)."""
        return self.__pydantic_serializer__.to_json(self, by_alias=True)


class ModelIdentity(View):
    id: str
    display_name: str


class RevealedModels(View):
    A: ModelIdentity
    B: ModelIdentity

    model_config = ConfigDict(frozen=True, alias_generator=None)


class VoteReveal(View):
    accepted: bool
    models: RevealedModels
    continuable: bool
    conversation_id: str | None
    #: The reasons stored with the vote, in the configured order (an addition to the seed
    #: system's reveal).
    reasons: list[str] = []


class ReasonChoice(View):
    """One reason a voter may give: its slug (what a vote sends) and what its chip says."""

    id: str
    label: str


class ReasonChoicesView(View):
    """The reasons this arena offers with a vote (``ARENA_VOTE_REASONS``), in chip order;
    empty when none are offered."""

    reasons: list[ReasonChoice]


class ModelReasons(View):
    """One model's decisive wins in a cut, and the reasons they came with."""

    id: str
    display_name: str
    #: Decisive votes it won (with reasons or without).
    wins: int
    #: Of those, the ones that carried at least one reason.
    explained_wins: int
    #: Reason -> wins that carried it (a vote may carry several, so these may add up to more
    #: than ``explained_wins``); reasons it never won with are left out.
    counts: dict[str, int]


class ReasonCountsView(View):
    """Why people voted, per model: each reason counted for the winner of every decisive vote
    that carried it. Reasons given with a tie, a both-bad vote or a skip have no winner to be
    counted for: they are in ``undecided``."""

    #: The offered reasons in chip order, then any stored reason no longer offered.
    reasons: list[ReasonChoice]
    #: Votes in the cut that carried any reason.
    votes: int
    #: The models that won a vote with a reason, most such wins first.
    models: list[ModelReasons]
    undecided: dict[str, int]


class JudgeReading(View):
    """One call of the judge: which slot it was shown first, and what it decided (in slots)."""

    shown_first: Literal["A", "B"]
    outcome: str


class JudgeView(View):
    """The judge's verdict, shown with the reveal: its reasoning, readings and cost."""

    name: str
    outcome: str
    reasoning: str
    swapped: bool
    readings: list[JudgeReading]
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


class JudgeReveal(View):
    """What asking the judge did: its vote (``accepted``) and, once the matchup has a vote,
    who the models were. An unreadable verdict is no vote: the round stays blind and open."""

    accepted: bool
    vote: str | None
    judge: JudgeView
    models: RevealedModels | None
    continuable: bool
    conversation_id: str | None


class SuiteSummaryView(View):
    name: str
    description: str
    prompts: int
    #: The suite's fixed pair, if it names one.
    models: list[str] | None


class SuitesView(View):
    """The loaded suites, and one line per suite file that did not load."""

    suites: list[SuiteSummaryView]
    errors: list[str]


class SuiteResultView(View):
    index: int
    prompt: str
    category: str | None
    reference: str | None
    #: ``A``/``B`` (that slot won), ``tie``, ``both_bad``, ``unparseable`` or ``failed``.
    outcome: str
    winner: str | None
    models: list[str]
    matchup_id: str | None
    cost_usd: float | None
    error: str | None


class SuiteTally(View):
    model: str
    wins: int
    losses: int
    ties: int


class SuiteRunView(View):
    run_id: str
    suite: str
    #: ``running``, ``done``, ``failed`` or ``interrupted`` (resumable).
    status: str
    total: int
    completed: int
    progress: float
    cost_usd: float | None
    error: str | None
    created_at: Instant
    finished_at: Instant | None
    tally: list[SuiteTally]
    unparseable: int
    failed: int
    results: list[SuiteResultView]


class SuiteRunsView(View):
    runs: list[SuiteRunView]


class SuiteDiffRow(View):
    prompt: str
    a: SuiteResultView | None
    b: SuiteResultView | None
    #: The winner (or the tie) differs between the runs, or only one run has the prompt.
    changed: bool


class SuiteDiffView(View):
    a: SuiteRunView
    b: SuiteRunView
    changed: int
    unchanged: int
    prompts: list[SuiteDiffRow]


class MatchupView(View):
    matchup_id: str
    conversation_id: str | None
    turn_index: int | None
    mode: str
    votable: bool
    continuable: bool
    vote: str | None
    models: RevealedModels | None


class AnswerView(View):
    slot: Slot
    content: str
    error: str | None


class SharedMatchupView(View):
    """A voted matchup's public reveal page (``/m/{id}``): nothing before the vote."""

    matchup_id: str
    prompt: str
    vote: str
    answers: list[AnswerView]
    models: RevealedModels


class TurnView(View):
    turn_index: int
    matchup_id: str
    prompt: str
    votable: bool
    vote: str | None
    answers: list[AnswerView]
    models: RevealedModels | None


class ConversationView(View):
    conversation_id: str
    continuable: bool
    next_turn_index: int
    turns: list[TurnView]


class ConfidenceInterval(View):
    lower: float
    upper: float


class AllowedRanks(View):
    """The ranks a model's 95 % interval allows within its component (``core.standing``)."""

    best: int
    worst: int

    @property
    def label(self) -> str:
        """``3`` when the interval allows one rank, ``1–3`` when it allows several."""
        return str(self.best) if self.best == self.worst else f"{self.best}–{self.worst}"


class JudgeAgreementView(View):
    """The judge against people (``core.agreement``): on the blind rounds that have both a
    person's vote and a verdict of the judge, how often they agree, Cohen's κ with its 95 %
    interval, the confusion matrix, and Kendall's τ-b between the judge's board and people's."""

    #: The slice of prompts counted (``None``: every prompt).
    category: str | None
    #: The judges whose verdicts were counted (the roster's judge may have changed).
    judges: list[str]
    #: Rounds counted: a person's vote (not a skip) and the judge's latest readable verdict.
    n: int
    #: Judged rounds whose person skipped: left out of every figure.
    skips: int
    #: The matrix's labels, in its order (slot A is the answer shown left).
    labels: list[str]
    #: ``matrix[i][j]``: rounds people labelled ``labels[i]`` and the judge ``labels[j]``.
    matrix: list[list[int]]
    #: The share of rounds where both chose the same label; ``None`` with no round.
    agreement: float | None
    #: Cohen's κ; ``None`` with no round, or when both used one label throughout.
    kappa: float | None
    kappa_std_error: float | None
    #: κ's interval at ``confidence_level`` (analytic, Fleiss–Cohen–Everitt; within [-1, 1]).
    kappa_interval: ConfidenceInterval | None
    confidence_level: float
    #: Kendall's τ-b between the judge's and people's ratings of the models rated on both;
    #: ``None`` for a slice of prompts (the judge's board is fitted over every prompt only),
    #: with fewer than two such models, or when a board ties them all.
    tau: float | None
    #: The models rated on both boards.
    tau_models: int


class LeaderboardEntry(View):
    """One model's row: every active model's, and a paused or archived one's while it has a
    vote or a rating on this board.

    ``rank`` is 1 + the number of models of the same rating component whose interval lies
    wholly above this one's (``null`` while unrated): models whose intervals overlap share a
    rank. ``rankRange`` is every rank its interval allows (``best`` is ``rank``).
    ``styleControlledRank`` is ``rank`` over the style-controlled intervals. ``games`` is what
    the rating process counted (non-skip votes). ``provisional``: the rating cannot be read as
    settled yet (``provisionalReason``: ``unrated``, ``few_votes`` below
    ``ARENA_PROVISIONAL_VOTES``, or ``wide_interval`` beyond ``ARENA_PROVISIONAL_CI``); such rows
    sort below the settled ones. ``status``: the model's place in the roster (``active``;
    ``paused``: not matched for now; ``archived``: no longer in the roster, its history kept),
    not the circuit breaker's passing ``paused``. All of these are additions to the seed's shape.
    """

    id: str
    display_name: str
    wins: int
    losses: int
    ties: int
    skips: int
    total_votes: int
    win_rate: float
    rating: float | None
    rating_std_error: float | None
    confidence_interval: ConfidenceInterval | None
    component_id: int | None
    style_controlled_rating: float | None
    style_controlled_std_error: float | None
    style_controlled_confidence_interval: ConfidenceInterval | None
    games: int | None = None
    rank: int | None = None
    style_controlled_rank: int | None = None
    #: The circuit breaker paused the model after repeated failures: no round draws it until
    #: it is tried again (``ARENA_BREAKER_*``).
    paused: bool = False
    rank_range: AllowedRanks | None = None
    provisional: bool = False
    provisional_reason: ProvisionalReason | None = None
    status: ModelStatus = ACTIVE

    @property
    def decided(self) -> int:
        """Votes that decided something (wins, losses, ties: not skips), counted now; ``games``
        is what the last rating pass saw."""
        return self.wins + self.losses + self.ties


class ComponentGroup(View):
    component_id: int
    models: int


class Components(View):
    count: int | None
    groups: list[ComponentGroup]


class StyleUnit(View):
    points: float
    unit: str


class StyleEffect(View):
    feature: str
    log_odds: float
    points: float
    basis: Literal["absolute", "per_std_dev"]
    per_unit: StyleUnit | None


class StyleControl(View):
    effects: list[StyleEffect]
    votes_observed: int
    computed_at: Instant | None


class FilteredVotes(View):
    """Votes the latest rating pass left out of the fit, by reason."""

    #: Votes of sessions the anomaly screen flagged.
    anomalous_sessions: int
    #: Votes on rounds whose answers named their own model, family or vendor.
    identity_leaks: int
    #: Votes of over-asked prompts beyond ``RATING_DUPLICATE_CAP``.
    duplicate_prompts: int


class CategoryCount(View):
    """A slice of prompts with votes: a category, or a language as ``language:<code>``."""

    category: str
    votes: int
    #: Whether the rating process fitted a board for it (it has enough votes).
    rated: bool


class CategoriesView(View):
    """The slices of prompts with votes in the population asked for, most voted first."""

    categories: list[CategoryCount]


class LeaderboardView(View):
    components: Components
    style_control: StyleControl
    models: list[LeaderboardEntry]
    #: Whether the ratings count the votes of named side-by-side rounds (``?include=named``).
    named_votes: Literal["excluded", "included"] = "excluded"
    #: Whose votes the board counts (``?votes=``): people's, the judge model's, or both.
    votes: Votes = "human"
    #: The slice of prompts the board is cut to (``?category=``): a category, or
    #: ``language:<code>``; ``null`` for every prompt.
    category: str | None = None
    #: Whether the ratings leave out the votes the filters before the fit dropped (identity
    #: leaks, over-asked prompts): ``on``, or ``off`` for the board with them (``?filters=off``).
    filters: Literal["on", "off"] = "on"
    #: What the rating process's latest pass left out (``null`` before its first pass).
    filtered_votes: FilteredVotes | None = None


# -- analytics (``GET /api/arena/analytics/*``) --------------------------------------------------


class SummaryView(View):
    """Arena-wide totals over every stored vote, paused and archived models' included.

    ``enabledModels`` counts the active models (those that are matched) and ``pairsPossible``
    their pairs. ``pairsSampled`` counts canonical pairs with a non-skip vote (any models, as
    in the seed system, so it can exceed ``pairsPossible`` after a model is paused or
    archived); the additional ``enabledPairsSampled`` counts only pairs of active models, the
    share of ``pairsPossible`` covered.
    """

    total_matchups: int
    total_votes: int
    decisive_votes: int
    tie_votes: int
    skip_votes: int
    slot_a_wins: int
    slot_b_wins: int
    enabled_models: int
    pairs_sampled: int
    pairs_possible: int
    rating_components: int | None
    enabled_pairs_sampled: int


class HeadToHeadPair(View):
    """One canonical pair: ``modelAId`` is the smaller id; ``games`` excludes skips."""

    model_a_id: str
    model_b_id: str
    a_wins: int
    b_wins: int
    ties: int
    games: int


class HeadToHeadView(View):
    models: list[ModelIdentity]
    pairs: list[HeadToHeadPair]


class ModelMetrics(View):
    """Pace and style of a model's error-free answers, and its decisive record per slot."""

    id: str
    display_name: str
    responses: int
    ttft_ms_p50: float | None
    ttft_ms_p90: float | None
    duration_ms_p50: float | None
    duration_ms_p90: float | None
    mean_output_tokens: float | None
    mean_markdown_density: float | None
    slot_a_wins: int
    slot_a_games: int
    slot_b_wins: int
    slot_b_games: int


class ModelMetricsView(View):
    models: list[ModelMetrics]


class ActivityVotes(View):
    bucket_start: Instant
    left: int
    right: int
    both_good: int
    both_bad: int
    skip: int
    total: int


class CumulativeGames(View):
    """Running non-skip games per model id at the end of the bucket (models with any so far)."""

    bucket_start: Instant
    games: dict[str, int]


class ActivityView(View):
    bucket: ActivityBucket
    models: list[ModelIdentity]
    votes: list[ActivityVotes]
    cumulative_games: list[CumulativeGames]


class CostTotals(View):
    """What answers cost, and how sure the figures are.

    ``priced_responses`` had prices to cost them (the rest are unpriced: no cost, never 0);
    ``estimated_responses`` had a token count the provider did not report.
    """

    responses: int
    priced_responses: int
    estimated_responses: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


class ModelCost(CostTotals):
    id: str
    display_name: str


class CostPoint(CostTotals):
    bucket_start: Instant
    model_id: str


class CostView(View):
    """Spend by model over the range, and per UTC day, week or month and model."""

    bucket: CostBucket
    since: Instant | None
    currency: Literal["USD"] = "USD"
    total: CostTotals
    models: list[ModelCost]
    series: list[CostPoint]


class StyleCoefficientView(View):
    feature: str
    coefficient: float
    computed_at: Instant


class StyleRatedModel(View):
    id: str
    display_name: str
    rating: float
    style_controlled_rating: float


class StyleControlView(View):
    coefficients: list[StyleCoefficientView]
    models: list[StyleRatedModel]


class RatingHistoryPoint(View):
    model_id: str
    rating: float
    ci_lower: float
    ci_upper: float
    games: int
    computed_at: Instant


class RatingHistoryView(View):
    models: list[ModelIdentity]
    points: list[RatingHistoryPoint]
