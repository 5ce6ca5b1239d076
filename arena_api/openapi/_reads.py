"""The read operations: stored rounds, the leaderboard, analytics and the OpenAI model list."""

from __future__ import annotations

from arena_api.core.categories import CATEGORIES
from arena_api.openapi._operation import Operation, json_answer, param

__all__ = ["READ_OPERATIONS"]

_UUID = {"type": "string", "format": "uuid"}
_SINCE = param(
    "query",
    "since",
    {"type": "string", "format": "date-time"},
    "Only what happened at or after this ISO 8601 instant (a timezone is required, e.g. `Z`).",
)

_VOTES = param(
    "query",
    "votes",
    {"type": "string", "enum": ["human", "judge", "all"], "default": "human"},
    "Whose votes to count: people's, the judge model's, or both.",
)

_CATEGORY = param(
    "query",
    "category",
    {"type": "string", "pattern": f"^(?:{'|'.join(CATEGORIES)}|language:[a-z]{{2,3}})$"},
    "Only the rounds in one slice of prompts: a category, or a language as `language:<code>` "
    "(ISO 639, e.g. `language:de`). Category boards are fitted to people's votes.",
)

_EXPORT = Operation(
    "get",
    "/api/arena/export",
    "exportVotes",
    "Every vote as a row of JSON Lines (API token holders only)",
    "reads",
    {
        "200": {
            "description": "One JSON object per line: the vote's models, outcome, mode, method, "
            "categories, language, style features, timings and anonymised session (and, with "
            "`includeText`, the prompt and answers).",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
    errors=(400, 403, 503),
    parameters=(
        _SINCE,
        param(
            "query",
            "until",
            {"type": "string", "format": "date-time"},
            "Only votes cast before this ISO 8601 instant (a timezone is required).",
        ),
        param(
            "query",
            "includeText",
            {"type": "string", "enum": ["true", "false"], "default": "false"},
            "Add the prompts and the answers.",
        ),
        param(
            "query",
            "scrub",
            {"type": "string", "enum": ["true", "false"], "default": "true"},
            "With `includeText`: replace e-mail addresses, phone numbers, IP addresses, card "
            "numbers and secrets by `[EMAIL]`, `[PHONE]`, `[IP]`, `[CARD]`, `[SECRET]` "
            "(`false`: the text as written).",
        ),
    ),
    description="403 `api_token_required`: the request carried no `ARENA_API_TOKENS` token "
    "(also when none is configured).",
)

READ_OPERATIONS: tuple[Operation, ...] = (
    _EXPORT,
    Operation(
        "get",
        "/api/arena/matchups/{matchup_id}",
        "getMatchup",
        "A matchup's state; its models once voted (or when named)",
        "reads",
        {"200": json_answer("The matchup.", "MatchupView")},
        errors=(400, 404, 503),
        parameters=(param("path", "matchup_id", _UUID, "The matchup's id."),),
        description="404 `matchup_not_found`.",
    ),
    Operation(
        "get",
        "/api/arena/conversations/{conversation_id}",
        "getConversation",
        "A conversation's turns, with each voted turn's models",
        "reads",
        {"200": json_answer("The conversation.", "ConversationView")},
        errors=(400, 403, 404, 503),
        parameters=(
            param("path", "conversation_id", _UUID, "The conversation's id."),
            param(
                "query",
                "sessionId",
                {"type": "string", "minLength": 1, "maxLength": 200},
                "The session that started the conversation, if it was started with one.",
            ),
        ),
        description="403 `conversation_forbidden` (another session's); 404 "
        "`conversation_not_found`.",
    ),
    Operation(
        "get",
        "/api/arena/leaderboard",
        "getLeaderboard",
        "Enabled models' records and ratings with confidence intervals",
        "reads",
        {"200": json_answer("The leaderboard.", "LeaderboardView")},
        errors=(400, 503),
        parameters=(
            param(
                "query",
                "include",
                {"type": "string", "enum": ["named"]},
                "`named`: rate the named side-by-side rounds' votes with the blind ones "
                "(people's votes only).",
            ),
            _VOTES,
            _CATEGORY,
            param(
                "query",
                "filters",
                {"type": "string", "enum": ["on", "off"], "default": "on"},
                "`off`: the board that keeps the votes the identity-leak filter and the "
                "duplicate-prompt cap left out (people's blind votes on every prompt only).",
            ),
        ),
    ),
    *(
        Operation(
            "get",
            f"/api/arena/analytics/{name}",
            operation_id,
            summary,
            "analytics",
            {"200": json_answer(summary + ".", schema)},
            errors=(400, 404, 503),
            parameters={
                "cost": (*parameters, _CATEGORY),
                "judge-agreement": (*parameters, _CATEGORY),
                "categories": parameters,
            }.get(name, (*parameters, _VOTES, _CATEGORY)),
        )
        for name, operation_id, summary, schema, parameters in (
            (
                "categories",
                "getCategories",
                "The slices of prompts (categories, languages) with votes, most voted first",
                "CategoriesView",
                (_VOTES,),
            ),
            (
                "summary",
                "getAnalyticsSummary",
                "Arena-wide totals: votes by kind, slot split, pair coverage",
                "SummaryView",
                (),
            ),
            (
                "head-to-head",
                "getHeadToHead",
                "Wins and ties of every pair of models",
                "HeadToHeadView",
                (),
            ),
            (
                "model-metrics",
                "getModelMetrics",
                "Pace and style of each model's answers, and its record per slot",
                "ModelMetricsView",
                (),
            ),
            (
                "activity",
                "getActivity",
                "Votes by outcome and cumulative games per model, per day or hour",
                "ActivityView",
                (
                    param(
                        "query",
                        "bucket",
                        {"type": "string", "enum": ["day", "hour"], "default": "day"},
                        "The bucket width (UTC).",
                    ),
                    _SINCE,
                ),
            ),
            (
                "cost",
                "getCost",
                "Spend by model, and per UTC day, week or month and model",
                "CostView",
                (
                    param(
                        "query",
                        "bucket",
                        {"type": "string", "enum": ["day", "week", "month"], "default": "day"},
                        "The bucket width (UTC).",
                    ),
                    _SINCE,
                ),
            ),
            (
                "style-control",
                "getStyleControl",
                "The stored style coefficients and the models rated by both passes",
                "StyleControlView",
                (),
            ),
            (
                "rating-history",
                "getRatingHistory",
                "Rating snapshots, one per model per refit, in time order",
                "RatingHistoryView",
                (
                    _SINCE,
                    param(
                        "query",
                        "points",
                        {"type": "integer", "minimum": 1, "maximum": 10_000},
                        "Thin the history to the last refit of each of this many equal spans.",
                    ),
                ),
            ),
            (
                "reasons",
                "getReasonCounts",
                "Why people voted: each reason counted for the winner of every decisive vote "
                "that carried it, per model",
                "ReasonCountsView",
                (),
            ),
            (
                "judge-agreement",
                "getJudgeAgreement",
                "The judge against people: agreement, Cohen's kappa and the confusion matrix "
                "on rounds both judged, Kendall's tau-b between their boards",
                "JudgeAgreementView",
                (),
            ),
        )
    ),
    *(
        Operation(
            "get",
            path,
            operation_id,
            "The models an OpenAI client can pick",
            "openai",
            {"200": json_answer("OpenAI's list (`ARENA_OPENAI_MODELS` says which).", "ModelList")},
            errors=(503,),
        )
        for path, operation_id in (("/models", "listModels"), ("/v1/models", "listModelsV1"))
    ),
    *(
        Operation(
            "get",
            path,
            operation_id,
            "One listed model",
            "openai",
            {"200": json_answer("The model.", "ModelObject")},
            errors=(404, 503),
            parameters=(
                param("path", "model_id", {"type": "string", "minLength": 1}, "The model id."),
            ),
            description="404 `model_not_found`.",
        )
        for path, operation_id in (
            ("/models/{model_id}", "retrieveModel"),
            ("/v1/models/{model_id}", "retrieveModelV1"),
        )
    ),
)
