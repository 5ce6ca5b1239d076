"""Users, roles, API tokens and the audit log: ``/api/admin/*`` (admins) and ``/api/me/tokens``
(a signed-in person's own tokens)."""

from __future__ import annotations

from arena_api.openapi._operation import Operation, json_answer, param, ref

__all__ = ["ADMIN_OPERATIONS"]

_ADMIN_ONLY = (
    "Admins only: a signed-in admin's session, a token with the `admin` scope of an admin, or "
    "a static `ARENA_API_TOKENS` token. 403 `forbidden_role` or `insufficient_scope` otherwise; "
    "`access_not_configured` on an arena with neither tokens nor sign-in."
)
_REVIEW = (
    "Reviewers and admins (403 `forbidden_role` otherwise, `access_not_configured` on an arena "
    "with neither tokens nor sign-in)."
)
_OWN = (
    "A signed-in person's browser session only (403 `session_required` for a token, "
    "`login_required` without a session)."
)


def _json_body(schema: str) -> dict[str, object]:
    return {"required": True, "content": {"application/json": {"schema": ref(schema)}}}


def _id(name: str, what: str) -> dict[str, object]:
    return param("path", name, {"type": "string", "format": "uuid"}, what)


ADMIN_OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "get",
        "/api/admin/users",
        "listUsers",
        "The people who signed in, admins first, with their roles",
        "admin",
        {"200": json_answer("The users.", "UserList")},
        errors=(403,),
        description=_ADMIN_ONLY,
    ),
    Operation(
        "patch",
        "/api/admin/users/{user_id}",
        "setUserRole",
        "Give a user another role (audited)",
        "admin",
        {"200": json_answer("The user, and their role before.", "RoleChanged")},
        errors=(400, 404, 409, 413, 415),
        parameters=(_id("user_id", "The user's id."),),
        body=_json_body("SetRoleRequest"),
        description=_ADMIN_ONLY + " 409 `last_admin`: the arena would be left without an admin.",
    ),
    Operation(
        "get",
        "/api/admin/tokens",
        "listAllTokens",
        "Every user's API tokens (never their values)",
        "admin",
        {"200": json_answer("The tokens, newest first.", "TokenList")},
        errors=(403,),
        description=_ADMIN_ONLY,
    ),
    Operation(
        "delete",
        "/api/admin/tokens/{token_id}",
        "revokeAnyToken",
        "Revoke any user's API token (audited)",
        "admin",
        {"200": json_answer("The token, revoked.", "TokenChanged")},
        errors=(404,),
        parameters=(_id("token_id", "The token's id."),),
        description=_ADMIN_ONLY,
    ),
    Operation(
        "get",
        "/api/admin/audit",
        "getAuditLog",
        "The audit log: sign-ins, refusals, sign-outs, roles, tokens, newest first",
        "admin",
        {"200": json_answer("A page of entries.", "AuditPage")},
        errors=(400, 403),
        parameters=(
            param("query", "limit", {"type": "integer", "minimum": 1, "maximum": 500}, "1-500."),
            param("query", "before", {"type": "integer", "minimum": 1}, "An entry's id."),
        ),
        description=_ADMIN_ONLY,
    ),
    Operation(
        "get",
        "/api/admin/settings",
        "listSettingsInForce",
        "Every setting in force and where it came from, secrets masked",
        "admin",
        {"200": json_answer("The settings, as parsed at start.", "SettingsList")},
        errors=(403,),
        description=_ADMIN_ONLY,
    ),
    Operation(
        "get",
        "/api/admin/models",
        "listRosterModels",
        "The roster: every model, its status and where it came from, and the providers",
        "admin",
        {"200": json_answer("The models, active first.", "RosterList")},
        errors=(403,),
        description=_ADMIN_ONLY,
    ),
    Operation(
        "post",
        "/api/admin/models",
        "addRosterModel",
        "Add a model to the roster (audited; the roster file's next seed keeps it)",
        "admin",
        {"201": json_answer("The model added.", "ModelAdded")},
        errors=(400, 409, 413, 415),
        body=_json_body("AddModelRequest"),
        description=_ADMIN_ONLY + " 409 `model_exists`; 400 for a provider this server has not "
        "configured.",
    ),
    Operation(
        "patch",
        "/api/admin/models/{model_id}",
        "editRosterModel",
        "Rename a model, set its prices, pause, archive or reactivate it (audited)",
        "admin",
        {"200": json_answer("The model after, and before.", "ModelEdited")},
        errors=(400, 404, 413, 415),
        parameters=(_id("model_id", "The model's id."),),
        body=_json_body("EditModelRequest"),
        description=_ADMIN_ONLY + " For a model the roster file lists, the file's values come "
        "back at the next start.",
    ),
    Operation(
        "post",
        "/api/admin/models/{model_id}/test",
        "testRosterModel",
        "Test a model's connection: one short prompt through its provider",
        "admin",
        {"200": json_answer("The first tokens and their latency, or why it failed.", "ModelProbe")},
        errors=(404,),
        parameters=(_id("model_id", "The model's id."),),
        description=_ADMIN_ONLY,
    ),
    Operation(
        "post",
        "/api/review/queues",
        "createReviewQueue",
        "Make an expert review queue from a suite run or stored rounds (admins; audited)",
        "review",
        {"201": json_answer("The queue's id.", "QueueCreated")},
        errors=(400, 403, 404, 413, 415),
        body=_json_body("CreateQueueRequest"),
        description=_REVIEW + " Admins only (403 `forbidden_role`). 400 `no_rounds`: the "
        "source has no round with both answers; 404: no such suite run.",
    ),
    Operation(
        "get",
        "/api/review/queues",
        "listReviewQueues",
        "The queues you review (every queue for an admin), with progress",
        "review",
        {"200": json_answer("The queues, newest first.", "QueueList")},
        errors=(403,),
        description=_REVIEW,
    ),
    Operation(
        "get",
        "/api/review/queues/{queue_id}",
        "getReviewQueue",
        "A queue and each reviewer's progress (admins)",
        "review",
        {"200": json_answer("The queue.", "QueueDetail")},
        errors=(403, 404),
        parameters=(_id("queue_id", "The queue's id."),),
        description=_REVIEW + " Admins only.",
    ),
    Operation(
        "get",
        "/api/review/queues/{queue_id}/agreement",
        "getReviewAgreement",
        "Fleiss' kappa with its interval, each reviewer's agreement, the items split most",
        "review",
        {"200": json_answer("The agreement.", "QueueAgreementView")},
        errors=(403, 404),
        parameters=(_id("queue_id", "The queue's id."),),
        description=_REVIEW + " Admins only.",
    ),
    Operation(
        "get",
        "/api/review/queues/{queue_id}/next",
        "nextReviewItem",
        "Your next item, blind: the prompt and answers A and B (null when none is left)",
        "review",
        {"200": json_answer("The item and your progress.", "NextItem")},
        errors=(403, 404),
        parameters=(_id("queue_id", "The queue's id."),),
        description=_REVIEW + " 403 `not_a_reviewer_of_this_queue`.",
    ),
    Operation(
        "post",
        "/api/review/items/{item_id}/verdict",
        "giveReviewVerdict",
        "Your verdict on an item: a vote, reasons, a comment (a skip passes it on)",
        "review",
        {"201": json_answer("Recorded.", "VerdictRecorded")},
        errors=(400, 403, 404, 409, 413, 415),
        parameters=(_id("item_id", "The item's id."),),
        body=_json_body("VerdictRequest"),
        description=_REVIEW + " 409 `already_reviewed`, `item_complete`; 400 `invalid_reasons`.",
    ),
    Operation(
        "get",
        "/api/me/tokens",
        "listMyTokens",
        "Your API tokens",
        "access",
        {"200": json_answer("Your tokens, newest first.", "TokenList")},
        errors=(403,),
        description=_OWN,
    ),
    Operation(
        "post",
        "/api/me/tokens",
        "createToken",
        "Create an API token, shown this once (audited)",
        "access",
        {"201": json_answer("The token and what is kept of it.", "CreatedToken")},
        errors=(400, 413, 415),
        body=_json_body("CreateTokenRequest"),
        description=_OWN + " The `admin` scope needs an admin (403 `forbidden_role`).",
    ),
    Operation(
        "delete",
        "/api/me/tokens/{token_id}",
        "revokeMyToken",
        "Revoke one of your API tokens (audited)",
        "access",
        {"200": json_answer("The token, revoked.", "TokenChanged")},
        errors=(404,),
        parameters=(_id("token_id", "The token's id."),),
        description=_OWN,
    ),
)
