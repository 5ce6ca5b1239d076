"""ReadService: every read of stored rounds and standings, for the HTTP routes and the Reflex UI.

The leaderboard, one matchup, a shared (voted) matchup, a conversation, and the insights
dashboard's analytics. Nothing here writes; rounds, votes and control live in ``ArenaService``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Sequence
from datetime import datetime

from arena_api.core.agreement import CONFIDENCE_LEVEL, cohens_kappa, kendall_tau_b, raw_agreement
from arena_api.core.agreement import LABELS as AGREEMENT_LABELS
from arena_api.core.boards import DEFAULT_BOARD, Board, check_category, check_votes
from arena_api.core.conversation import is_continuable
from arena_api.core.errors import ConversationError, InvalidRequest, NotFound
from arena_api.core.ports import (
    AnalyticsPort,
    BoardReads,
    RatingPassRecord,
    StyleCoefficient,
    StyleSpread,
)
from arena_api.core.reasons import VoteReasons
from arena_api.core.records import DECISIVE_VOTES
from arena_api.core.scale import SCALE
from arena_api.core.standing import DEFAULT_RULE, ProvisionalRule, RatedRow, rank_ranges
from arena_api.core.style_features import ABSOLUTE_STYLE_FEATURES, STYLE_FEATURES, STYLE_UNITS
from arena_api.core.views import (
    ActivityBucket,
    ActivityView,
    AllowedRanks,
    AnswerView,
    CategoriesView,
    ComponentGroup,
    Components,
    ConfidenceInterval,
    ConversationView,
    CostBucket,
    CostView,
    FilteredVotes,
    HeadToHeadView,
    JudgeAgreementView,
    LeaderboardEntry,
    LeaderboardView,
    MatchupView,
    ModelMetricsView,
    RatingHistoryView,
    ReasonCountsView,
    SharedMatchupView,
    StyleControl,
    StyleControlView,
    StyleEffect,
    StyleUnit,
    SummaryView,
    TurnView,
    Votes,
)
from arena_api.services._reveal import reveal

__all__ = ["check_category", "check_votes", "ReadService"]

# A thinned rating history keeps at most this many refits (``rating_history(points=...)``).
MAX_HISTORY_POINTS = 10_000


class ReadService:
    def __init__(
        self,
        *,
        repository: BoardReads,
        analytics: AnalyticsPort | None = None,
        paused: Callable[[], Collection[uuid.UUID]] = frozenset,
        provisional: ProvisionalRule = DEFAULT_RULE,
        reasons: VoteReasons | None = None,
    ) -> None:
        self._repo = repository
        #: The reasons offered with a vote (``ARENA_VOTE_REASONS``): they lead the reason counts.
        self._reasons = reasons or VoteReasons()
        self._analytics = analytics
        #: The models the circuit breaker paused now (the leaderboard marks them).
        self._paused = paused
        self._provisional = provisional

    def provisional_note(self, entry: LeaderboardEntry) -> str:
        """Why ``entry`` is provisional, in words ("" when it is settled)."""
        if entry.provisional_reason is None:
            return ""
        interval = entry.confidence_interval
        return self._provisional.explain(
            entry.provisional_reason,
            entry.decided if entry.games is None else entry.games,
            None if interval is None else interval.lower,
            None if interval is None else interval.upper,
        )

    async def matchup(self, matchup_id: uuid.UUID) -> MatchupView:
        record = await self._repo.get_matchup(matchup_id)
        if record is None:
            raise NotFound("Matchup not found", code="matchup_not_found")
        return MatchupView(
            matchup_id=str(record.id),
            conversation_id=str(record.conversation_id) if record.conversation_id else None,
            turn_index=record.turn_index,
            mode="named" if record.mode == "named" else "matchup",
            votable=record.vote is None and record.mode != "shadow",
            continuable=record.vote in DECISIVE_VOTES,
            vote=record.vote,
            # A blind round is revealed by its vote; a named one was named from its start.
            models=reveal(record) if record.vote is not None or record.mode == "named" else None,
        )

    async def shared_matchup(self, matchup_id: uuid.UUID) -> SharedMatchupView:
        """A voted matchup with its prompt, answers and identities, for a shared link.

        Raises:
            NotFound: unknown, or not voted yet (a blind round is never shown by id).
        """
        record = await self._repo.get_matchup(matchup_id)
        content = await self._repo.get_matchup_content(matchup_id)
        if record is None or content is None or record.vote is None:
            raise NotFound("No voted matchup with this id", code="matchup_not_found")
        prompt, answers = content
        return SharedMatchupView(
            matchup_id=str(record.id),
            prompt=prompt,
            vote=record.vote,
            answers=[AnswerView(slot=a.slot, content=a.content, error=a.error) for a in answers],
            models=reveal(record),
        )

    async def conversation(
        self, conversation_id: uuid.UUID, session_id: str | None
    ) -> ConversationView:
        record = await self._repo.get_conversation(conversation_id)
        if record is None:
            raise ConversationError(
                "Conversation not found", status=404, code="conversation_not_found"
            )
        if record.session_id is not None and record.session_id != session_id:
            raise ConversationError(
                "Conversation session mismatch", status=403, code="conversation_forbidden"
            )
        return ConversationView(
            conversation_id=str(record.id),
            continuable=is_continuable(record),
            next_turn_index=len(record.turns),
            turns=[
                TurnView(
                    turn_index=t.turn_index,
                    matchup_id=str(t.matchup_id),
                    prompt=t.prompt,
                    votable=t.vote is None and t.mode != "shadow",
                    vote=t.vote,
                    answers=[
                        AnswerView(slot=a.slot, content=a.content, error=a.error) for a in t.answers
                    ],
                    models=reveal(t) if t.vote is not None or t.mode == "named" else None,
                )
                for t in record.turns
            ],
        )

    async def last_rating_pass(self) -> RatingPassRecord | None:
        return await self._repo.last_rating_pass()

    async def leaderboard(self, board: Board = DEFAULT_BOARD) -> LeaderboardView:
        """``board``'s models' records and ratings, plus what reading the ratings needs: every
        active model, and each paused or archived one with votes or a rating here (``status``).

        ``components`` says which ratings may be compared (the seed's rating context),
        ``styleControl`` what superficial style is worth in rating points. Each rated model is
        ranked by interval overlap within its component. The ratings are the blind votes' fit;
        with ``board.named``, the fit that adds the named side-by-side rounds' votes (the
        style-controlled ratings stay blind). Vote counts cover every vote of the population.
        ``board.population``: people's votes (the default), the judge model's, or both; the
        judge's and the combined populations have no style-controlled ratings (the style pass
        fits people's votes) and count every mode. ``board.category``: the board of one slice
        of prompts (a category or ``language:<code>``), fitted to people's votes on those
        prompts once it has enough of them; other populations get its vote records without
        ratings. ``board.filters`` off: the people's blind board with the votes the
        identity-leak filter and the duplicate-prompt cap left out kept in (no
        style-controlled ratings). The board was checked when it was built (``Board``).
        """
        records = await self._repo.leaderboard(board)
        last_pass = await self._repo.last_rating_pass()
        rows = records.models
        ranks = rank_ranges(
            RatedRow(r.model.id, r.component_id, r.ci_lower, r.ci_upper) for r in rows
        )
        style_ranks = rank_ranges(
            RatedRow(r.model.id, r.style_component_id, r.style_ci_lower, r.style_ci_upper)
            for r in rows
        )
        entries = []
        paused = self._paused()
        for r in rows:
            decided = r.wins + r.losses + r.ties
            rank, style_rank = ranks.get(r.model.id), style_ranks.get(r.model.id)
            reason = self._provisional.reason(
                decided if r.games is None else r.games, r.ci_lower, r.ci_upper
            )
            entries.append(
                LeaderboardEntry(
                    id=str(r.model.id),
                    display_name=r.model.display_name,
                    wins=r.wins,
                    losses=r.losses,
                    ties=r.ties,
                    skips=r.skips,
                    total_votes=decided + r.skips,
                    win_rate=round(r.wins / decided, 4) if decided else 0.0,
                    rating=r.rating,
                    rating_std_error=r.rating_stderr,
                    confidence_interval=_interval(r.ci_lower, r.ci_upper),
                    component_id=r.component_id,
                    style_controlled_rating=r.style_rating,
                    style_controlled_std_error=r.style_stderr,
                    style_controlled_confidence_interval=_interval(
                        r.style_ci_lower, r.style_ci_upper
                    ),
                    games=r.games,
                    rank=None if rank is None else rank.best,
                    rank_range=None
                    if rank is None
                    else AllowedRanks(best=rank.best, worst=rank.worst),
                    style_controlled_rank=None if style_rank is None else style_rank.best,
                    paused=r.model.id in paused,
                    provisional=reason is not None,
                    provisional_reason=reason,
                    status=r.status,
                )
            )
        # Settled ratings first, provisional ones below them; each group keeps the store's
        # order (rating, then wins, then votes).
        entries.sort(key=lambda e: e.provisional)
        rated = [e.component_id for e in entries if e.component_id is not None]
        groups = sorted({c: rated.count(c) for c in rated}.items())
        return LeaderboardView(
            components=Components(
                count=len(groups) if rated else None,
                groups=[ComponentGroup(component_id=c, models=n) for c, n in groups],
            ),
            style_control=_style_control(records.coefficients, records.spread),
            models=entries,
            named_votes="included" if board.named else "excluded",
            votes=board.population,
            category=board.category,
            filters="on" if board.filters else "off",
            filtered_votes=None
            if last_pass is None
            else FilteredVotes(
                anomalous_sessions=last_pass.votes_excluded,
                identity_leaks=last_pass.votes_identity_leaks,
                duplicate_prompts=last_pass.votes_duplicates,
            ),
        )

    # -- analytics (the insights dashboard) ------------------------------------------------------

    def _analytics_port(self) -> AnalyticsPort:
        if self._analytics is None:
            raise NotFound("Analytics are not available on this server", code="not_found")
        return self._analytics

    # Every read counts one population of votes (``votes``): people's by default, the judge
    # model's, or both; and, with ``category``, only the rounds in one slice of prompts. An
    # unknown population or slice is an ``InvalidRequest``.

    async def analytics_summary(
        self, votes: Votes = "human", category: str | None = None
    ) -> SummaryView:
        """Arena-wide totals: votes by kind, slot split, pair coverage, rating components.

        Raises:
            NotFound: this service was built without an analytics port.
        """
        return await self._analytics_port().summary(check_votes(votes), check_category(category))

    async def categories(self, votes: Votes = "human") -> CategoriesView:
        """The slices of prompts (categories and ``language:<code>``) with votes, most voted
        first, and whether each has a board of its own."""
        return await self._analytics_port().categories(check_votes(votes))

    async def head_to_head(
        self, votes: Votes = "human", category: str | None = None
    ) -> HeadToHeadView:
        """Per canonical pair: each side's wins and the ties (skips excluded)."""
        return await self._analytics_port().head_to_head(
            check_votes(votes), check_category(category)
        )

    async def model_metrics(
        self, votes: Votes = "human", category: str | None = None
    ) -> ModelMetricsView:
        """Per model on the board (every active one, and a paused or archived one with votes
        here): TTFT and duration percentiles, mean tokens and Markdown density of its
        error-free answers, and its decisive record in each slot."""
        return await self._analytics_port().model_metrics(
            check_votes(votes), check_category(category)
        )

    async def activity(
        self,
        bucket: ActivityBucket = "day",
        since: datetime | None = None,
        votes: Votes = "human",
        category: str | None = None,
    ) -> ActivityView:
        """Votes by outcome and cumulative games per model, per UTC day or hour.

        Args:
            bucket: ``day`` or ``hour``.
            since: only buckets starting at or after this instant (timezone-aware); the
                cumulative games still count every earlier vote.

        Raises:
            InvalidRequest: an unknown bucket, or ``since`` without a timezone.
        """
        if bucket not in ("day", "hour"):
            raise InvalidRequest(
                "bucket must be day or hour", details={"bucket": ["must be day or hour"]}
            )
        return await self._analytics_port().activity(
            bucket, _aware(since), check_votes(votes), check_category(category)
        )

    async def cost(
        self,
        bucket: CostBucket = "day",
        since: datetime | None = None,
        category: str | None = None,
    ) -> CostView:
        """What answers cost per model, over the range and per UTC day, week or month.

        Args:
            bucket: ``day``, ``week`` (starting Monday) or ``month``.
            since: only answers from this instant's UTC day on (timezone-aware); all without.

        Raises:
            InvalidRequest: an unknown bucket, or ``since`` without a timezone.
        """
        if bucket not in ("day", "week", "month"):
            raise InvalidRequest(
                "bucket must be day, week or month",
                details={"bucket": ["must be day, week or month"]},
            )
        return await self._analytics_port().cost(bucket, _aware(since), check_category(category))

    async def style_control(
        self, votes: Votes = "human", category: str | None = None
    ) -> StyleControlView:
        """The stored style coefficients and the models rated by both passes (people's votes on
        every prompt only: other populations and slices have none)."""
        return await self._analytics_port().style_control(
            check_votes(votes), check_category(category)
        )

    async def rating_history(
        self,
        since: datetime | None = None,
        *,
        points: int | None = None,
        votes: Votes = "human",
        category: str | None = None,
    ) -> RatingHistoryView:
        """Rating snapshots (one per model per refit) at or after ``since``, in time order;
        with ``points``, only the last refit of each of that many equal spans of time.

        Raises:
            InvalidRequest: ``since`` has no timezone, or ``points`` is outside 1..10,000.
        """
        if points is not None and not 1 <= points <= MAX_HISTORY_POINTS:
            raise InvalidRequest(
                f"points must be between 1 and {MAX_HISTORY_POINTS}",
                details={"points": [f"must be between 1 and {MAX_HISTORY_POINTS}"]},
            )
        return await self._analytics_port().rating_history(
            _aware(since), points, check_votes(votes), check_category(category)
        )

    async def reason_counts(
        self, votes: Votes = "human", category: str | None = None
    ) -> ReasonCountsView:
        """Why people voted, per model: each reason counted for the winner of every decisive
        vote that carried it, beside the model's wins; reasons given with a tie, a both-bad
        vote or a skip apart (``undecided``). The offered reasons lead the list."""
        return await self._analytics_port().reason_counts(
            self._reasons.slugs, check_votes(votes), check_category(category)
        )

    async def judge_agreement(self, category: str | None = None) -> JudgeAgreementView:
        """The judge against people (``core.agreement``): on the blind rounds with both a
        person's vote (skips left out) and a readable verdict of the judge, the confusion
        matrix, raw agreement and Cohen's κ with its 95 % interval; and Kendall's τ-b between
        the judge's board and people's (over every prompt only).

        Raises:
            InvalidRequest: ``category`` names no slice of prompts.
        """
        counts = await self._analytics_port().judge_agreement(check_category(category))
        kappa = cohens_kappa(counts.matrix)
        return JudgeAgreementView(
            category=category,
            judges=list(counts.judges),
            n=sum(map(sum, counts.matrix)),
            skips=counts.skips,
            labels=list(AGREEMENT_LABELS),
            matrix=[list(row) for row in counts.matrix],
            agreement=raw_agreement(counts.matrix),
            kappa=None if kappa is None else kappa.kappa,
            kappa_std_error=None if kappa is None else kappa.std_error,
            kappa_interval=None if kappa is None else _interval(kappa.lower, kappa.upper),
            confidence_level=CONFIDENCE_LEVEL,
            tau=kendall_tau_b(counts.boards),
            tau_models=len(counts.boards),
        )


def _aware(since: datetime | None) -> datetime | None:
    if since is not None and since.utcoffset() is None:
        raise InvalidRequest(
            "since must carry a timezone", details={"since": ["needs a timezone, e.g. Z"]}
        )
    return since


def _style_control(coefficients: Sequence[StyleCoefficient], spread: StyleSpread) -> StyleControl:
    """The stored style coefficients restated in rating points, per standard deviation and
    (where the deltas' spread is known) per readable unit of the raw feature."""
    if not coefficients:
        return StyleControl(effects=[], votes_observed=0, computed_at=None)
    effects = []
    for c in coefficients:
        points = SCALE * c.coefficient
        absolute = c.feature in ABSOLUTE_STYLE_FEATURES
        unit = STYLE_UNITS.get(c.feature)
        std_dev = spread.std_dev.get(c.feature)
        per_unit = (
            StyleUnit(points=points / std_dev * unit.amount, unit=unit.label)
            if not absolute and unit is not None and std_dev
            else None
        )
        effects.append(
            StyleEffect(
                feature=c.feature,
                log_odds=c.coefficient,
                points=points,
                basis="absolute" if absolute else "per_std_dev",
                per_unit=per_unit,
            )
        )
    # The features in the order the rating process fits them; later additions sort last.
    known = {feature: k for k, feature in enumerate(STYLE_FEATURES)}
    effects.sort(key=lambda e: (known.get(e.feature, len(known)), e.feature))
    return StyleControl(
        effects=effects,
        votes_observed=spread.votes,
        computed_at=max(c.computed_at for c in coefficients),
    )


def _interval(lower: float | None, upper: float | None) -> ConfidenceInterval | None:
    return None if lower is None or upper is None else ConfidenceInterval(lower=lower, upper=upper)
