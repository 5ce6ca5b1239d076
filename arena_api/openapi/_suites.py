"""The eval suite operations: list the suites, start, read, resume and compare their runs."""

from __future__ import annotations

from arena_api.openapi._operation import Operation, json_answer, param

__all__ = ["SUITE_OPERATIONS"]

_RUN_ID = param("path", "run_id", {"type": "string", "format": "uuid"}, "The run's id.")

SUITE_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "get",
        "/api/suites",
        "listSuites",
        "The eval suites that loaded, and the files that did not",
        "suites",
        {"200": json_answer("The suites (`ARENA_SUITES_DIR`).", "SuitesView")},
        errors=(503,),
    ),
    Operation(
        "post",
        "/api/suites/{name}/run",
        "startSuiteRun",
        "Start a run of a suite; it walks its prompts in the background",
        "suites",
        {"202": json_answer("The run, just started (poll it for progress).", "SuiteRunView")},
        errors=(400, 404, 409, 429, 503),
        parameters=(param("path", "name", {"type": "string"}, "The suite's name."),),
        description="Each prompt becomes a headless round judged by the roster's judge, one "
        "after another. 404 `suite_not_found` or `judge_not_configured`; 400 when the suite's "
        "fixed pair names no enabled model; 409 `model_paused` or `model_archived` when it "
        "names a paused or archived one.",
    ),
    Operation(
        "get",
        "/api/suites/runs",
        "listSuiteRuns",
        "The latest suite runs, newest first",
        "suites",
        {"200": json_answer("Up to 50 runs, without their results.", "SuiteRunsView")},
        errors=(503,),
        parameters=(param("query", "suite", {"type": "string"}, "Only this suite's runs."),),
    ),
    Operation(
        "get",
        "/api/suites/runs/{run_id}",
        "getSuiteRun",
        "A run's progress, tally, cost and per-prompt verdicts",
        "suites",
        {"200": json_answer("The run.", "SuiteRunView")},
        errors=(400, 404, 503),
        parameters=(_RUN_ID,),
        description="404 `suite_run_not_found`.",
    ),
    Operation(
        "post",
        "/api/suites/runs/{run_id}/resume",
        "resumeSuiteRun",
        "Walk an interrupted (or failed) run on from its first unjudged prompt",
        "suites",
        {"202": json_answer("The run, running again.", "SuiteRunView")},
        errors=(400, 404, 409, 429, 503),
        parameters=(_RUN_ID,),
        description="404 `suite_run_not_found`; 409 `suite_run_not_resumable` (running or done).",
    ),
    Operation(
        "get",
        "/api/suites/runs/{a}/diff/{b}",
        "diffSuiteRuns",
        "Two runs compared prompt by prompt",
        "suites",
        {
            "200": json_answer(
                "Each prompt's verdict in both runs, and what changed.", "SuiteDiffView"
            )
        },
        errors=(400, 404, 503),
        parameters=(
            param("path", "a", {"type": "string", "format": "uuid"}, "The first run."),
            param("path", "b", {"type": "string", "format": "uuid"}, "The second run."),
        ),
    ),
)
