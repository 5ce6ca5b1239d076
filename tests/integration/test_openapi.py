"""The OpenAPI document holds against the real server: schemathesis runs every operation.

The server is the real API on a loopback port (``serve_arena``: a uvicorn thread, the shipped
mock roster, a clean database). schemathesis loads ``/openapi.json`` from it and checks every
answer: no 5xx, a documented status code, content type and headers, and a body (each SSE event
included) that fits its schema. First the real flows, whose answers random data rarely reaches
(a round in each protocol, votes with real tokens, reads of stored rounds, the chat front);
then requests generated with Hypothesis from each operation's schemas, derandomised so that a
run is reproducible. The calls block, so they run in a worker thread.
"""

from __future__ import annotations

import asyncio
import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.records import VOTES
from arena_api.protocols import PROTOCOLS
from tests.integration.arena_harness import serve_arena
from tests.integration.test_oidc_client import FakeProvider
from tests.support import ServerThread, free_port

#: Generated requests per operation: each body schema's branches are reached within seconds.
MAX_EXAMPLES = 25
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
PROMPT = "Explain JWTs in simple terms"
TOKEN = "api-token-of-sufficient-length"
PASSPHRASE = "a passphrase for the tests"
USER = {"role": "user", "content": PROMPT}
HELPER_TASK = (
    '### Task:\nGenerate a title. Output JSON: { "title": "..." }\n'
    "<chat_history>\nUSER: Explain JWTs\n</chat_history>"
)
BAD_VOTE = {
    "matchupId": "00000000-0000-0000-0000-000000000000",
    "matchupToken": "not a token",
    "vote": "left",
}


class Runner:
    """Calls cases on the server and keeps one report per failing case."""

    def __init__(self, document: dict[str, Any], base_url: str, session: requests.Session):
        self.schema = schemathesis.openapi.from_dict(document)
        self.base_url = base_url
        self.session = session
        self.failures: list[str] = []

    def call(self, case: schemathesis.Case) -> schemathesis.Response:
        """Call and check ``case``; raises what the checks found."""
        return case.call_and_validate(
            base_url=self.base_url, session=self.session, checks=CHECKS, timeout=30
        )

    def run(self, method: str, path: str, **parts: Any) -> schemathesis.Response:
        """Call the case built from ``parts``; a failed check is recorded, not raised."""
        case = self.schema[path][method].Case(**parts)
        response = case.call(base_url=self.base_url, session=self.session, timeout=30)
        try:
            case.validate_response(response, checks=CHECKS)
        except (Exception, FailureGroup) as exc:
            self.failures.append(f"{method} {path} {parts}: {exc}")
        return response

    def generate(self) -> list[str]:
        """Generated requests for every operation; the labels of the operations run."""
        ran = []
        for result in self.schema.get_all_operations():
            operation = result.ok()

            @settings(
                max_examples=MAX_EXAMPLES,
                deadline=None,
                derandomize=True,
                database=None,
                phases=[Phase.explicit, Phase.generate, Phase.shrink],
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy())
            def exercise(case: schemathesis.Case) -> None:
                self.call(case)

            ran.append(operation.label)
            try:
                exercise()
            except (Exception, FailureGroup) as exc:  # one report per operation; go on
                self.failures.append(f"{operation.label}: {exc}")
        return ran


def _started(response: schemathesis.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    started: dict[str, Any] = json.loads(response.headers["x-arena-matchup"][0])
    return started


def _real_flows(run: Runner) -> None:
    """The answers behind valid ids and tokens: rounds, votes, reads, the chat front."""
    chat = "/api/arena/chat"
    rounds = [
        _started(run.run("POST", chat, body={"prompt": PROMPT}, query={"protocol": p.name}))
        for p in PROTOCOLS
    ]
    run.run("POST", chat, body={"messages": [USER], "threadId": "t"}, query={"protocol": "ag-ui"})
    run.run("POST", chat, body={"prompt": " "}, query={"protocol": "ag-ui"})  # in-band failure
    parts = [{"type": "text", "text": PROMPT}]
    ui_body = {"messages": [{"id": "m", "role": "user", "parts": parts}]}
    run.run("POST", chat, body=ui_body, query={"protocol": "vercel-ai"})
    for path in ("/chat/completions", "/v1/chat/completions"):
        for model in ("omni-arena", "arena-duel", "arena-single", "arena-a"):
            run.run("POST", path, body={"model": model, "messages": [USER]})
        help_body = {"model": "arena-duel", "messages": [{"role": "user", "content": "!help"}]}
        run.run("POST", path, body=help_body, headers={"X-OpenWebUI-Chat-Id": "chat-1"})
        task = {"model": "arena-duel", "messages": [{"role": "user", "content": HELPER_TASK}]}
        run.run("POST", path, body={**task, "stream": False})
        run.run("POST", path, body={"prompt": PROMPT})

    votable = [started for started in rounds if started.get("matchupToken")]
    for started, vote in zip(votable, VOTES, strict=False):
        body = {
            "matchupId": started["matchupId"],
            "matchupToken": started["matchupToken"],
            "vote": vote,
        }
        run.run("POST", "/api/arena/vote", body=body)
    run.run("POST", "/api/arena/vote", body=body)  # already voted: 409
    for started in rounds[:2]:
        ids = {"matchup_id": started["matchupId"]}
        run.run("GET", "/api/arena/matchups/{matchup_id}", path_parameters=ids)
        ids = {"conversation_id": started["conversationId"]}
        run.run("GET", "/api/arena/conversations/{conversation_id}", path_parameters=ids)
    # The first round's vote was decisive (left): its conversation goes on.
    run.run("POST", chat, body={"prompt": PROMPT, "conversationId": rounds[0]["conversationId"]})

    for model in run.run("GET", "/v1/models").json()["data"]:
        for path in ("/models/{model_id}", "/v1/models/{model_id}"):
            run.run("GET", path, path_parameters={"model_id": model["id"]})


def _private_flows(run: Runner) -> None:
    """The refusals and the login of an arena with API tokens, a passphrase, a rate limit."""
    run.run("GET", "/login", query={"next": "/leaderboard"})
    json_body = {"media_type": "application/json"}
    run.run("POST", "/login", body={"passphrase": "wrong passphrase"}, **json_body)
    form = {"passphrase": "wrong passphrase", "next": "/"}
    run.run("POST", "/login", body=form, media_type="application/x-www-form-urlencoded")
    signed = run.run("POST", "/login", body={"passphrase": PASSPHRASE}, **json_body).json()
    # The session rides two cookies: the session and its CSRF token (the double submit).
    cookies = "; ".join(f"{name}={value}" for name, value in run.session.cookies.items())
    run.session.cookies.clear()  # each call below names its own credentials
    session = {"Cookie": cookies}
    run.run("GET", "/api/arena/leaderboard", headers=session)
    run.run("POST", "/api/arena/vote", headers=session, body=BAD_VOTE)  # no CSRF token: 403
    run.run("GET", "/logout", headers=session)
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    run.run("GET", "/api/arena/leaderboard", headers=bearer)
    for _ in range(2):  # the second round is over ARENA_RATE_LIMIT: a 429 with Retry-After
        run.run("POST", "/api/arena/chat", headers=bearer, body={"prompt": PROMPT})
    run.run("GET", "/api/arena/leaderboard", headers={"X-API-Token": "not-the-token"})
    run.run("POST", "/api/arena/chat", body={"prompt": PROMPT}, query={"protocol": "ag-ui"})
    run.run("POST", "/logout", headers={**session, "X-CSRF-Token": signed["csrfToken"]})


def _team_flows(run: Runner) -> None:
    """A team arena's own operations, as an admin's token calls them."""
    run.run("GET", "/api/admin/users")
    run.run("GET", "/api/admin/settings")
    models = run.run("GET", "/api/admin/models").json()["models"]
    run.run(
        "POST", "/api/admin/models/{model_id}/test", path_parameters={"model_id": models[0]["id"]}
    )
    run.run(
        "PATCH",
        "/api/admin/models/{model_id}",
        path_parameters={"model_id": models[0]["id"]},
        body={"prices": [1, 2]},
    )
    run.run(
        "POST",
        "/api/admin/models",
        body={"displayName": "Extra", "provider": "mock", "providerModelId": "mock-extra"},
    )
    run.run("GET", "/api/review/queues")
    run.run("GET", "/api/admin/audit", query={"limit": 5})
    run.run("GET", "/api/me/tokens")  # a token makes no tokens: 403 session_required


def _exercise(
    document: dict[str, Any], base_url: str, *, private: bool = False, token: str | None = None
) -> tuple[list[str], list[str]]:
    with requests.Session() as session:
        runner = Runner(document, base_url, session)
        if token is not None:
            session.headers["Authorization"] = f"Bearer {token}"
            _team_flows(runner)
        else:
            (_private_flows if private else _real_flows)(runner)
        ran = runner.generate()
    return ran, runner.failures


async def test_every_operation_answers_as_its_document_says(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """No 5xx, and every answer's status, content type, headers and body are documented."""
    # A short join window: a generated joinKey makes a round wait that long for its sibling.
    async with serve_arena(db, database_url, tmp_path, ARENA_JOIN_WINDOW_MS="50") as arena:
        document = (await arena.client.get("/openapi.json")).json()

        ran, failures = await asyncio.to_thread(_exercise, document, arena.url)

    assert len(ran) == sum(len(item) for item in document["paths"].values())
    assert not failures, "\n\n".join(failures)


async def test_a_private_arena_answers_as_its_document_says(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """With API tokens, a passphrase and a rate limit: the login and every refusal are
    documented."""
    async with serve_arena(
        db,
        database_url,
        tmp_path,
        ARENA_API_TOKENS=TOKEN,
        ARENA_PASSPHRASE=PASSPHRASE,
        ARENA_RATE_LIMIT="1/minute",
    ) as arena:
        answer = await arena.client.get("/openapi.json")  # no credentials: it stays open

        ran, failures = await asyncio.to_thread(_exercise, answer.json(), arena.url, private=True)

    assert answer.status_code == 200
    assert ran
    assert not failures, "\n\n".join(failures)


async def test_a_team_arena_answers_as_its_document_says_to_an_admins_token(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """Single sign-on on and an admin's token on every call: the admin, review and token
    operations answer past the edge, to generated bodies and ids."""
    port = free_port()
    provider = FakeProvider(port)  # its discovery and keys: the sign-in starts for real
    with ServerThread(provider.app(), port):
        async with serve_arena(
            db,
            database_url,
            tmp_path,
            ARENA_API_TOKENS=TOKEN,
            ARENA_OIDC_ISSUER=provider.issuer,
            ARENA_OIDC_CLIENT_ID="arena",
            ARENA_JOIN_WINDOW_MS="50",
        ) as arena:
            document = (await arena.client.get("/openapi.json")).json()

            ran, failures = await asyncio.to_thread(_exercise, document, arena.url, token=TOKEN)

    assert len(ran) == sum(len(item) for item in document["paths"].values())
    assert not failures, "\n\n".join(failures)


async def test_the_document_is_served_at_openapi_json_with_the_package_version(
    api_url: str,
) -> None:
    async with httpx.AsyncClient(base_url=api_url) as client:
        response = await client.get("/openapi.json")

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json()["openapi"] == "3.1.0"
    assert response.json()["info"]["version"] == version("arena")
