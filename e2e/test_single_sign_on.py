"""Sign-in with OpenID Connect in the real product, against a real OpenID provider.

The provider is panva's certified ``oidc-provider`` from npm (``e2e/oidc/``, installed with
``npm ci`` when its lock changes), started by the fixture with this arena as its client and four
accounts: an admin and a reviewer by their ``groups`` claim, a voter, and someone outside the
allowed email domain. Chromium goes through the provider's own login and consent pages.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, Page, expect

from e2e.conftest import screenshot
from e2e.test_accessibility import _serious_violations
from e2e.test_arena_ui import STREAM_TIMEOUT, _ask, _wait_votable
from tests.support import ROOT, ProductProcess, free_port, npm_ci

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROVIDER = ROOT / "e2e" / "oidc"
CLIENT_ID, CLIENT_SECRET = "arena", "arena-client-secret-for-tests"
ACCOUNTS: dict[str, dict[str, Any]] = {
    "alice": {
        "email": "alice@example.com",
        "email_verified": True,
        "name": "Alice Admin",
        "groups": ["staff", "arena-admins"],
    },
    "bob": {
        "email": "bob@example.com",
        "email_verified": True,
        "name": "Bob Reviewer",
        "groups": ["arena-reviewers"],
    },
    "carol": {"email": "carol@example.com", "email_verified": True, "name": "Carol"},
    "dave": {
        "email": "dave@example.com",
        "email_verified": True,
        "name": "Dave Reviewer",
        "groups": ["arena-reviewers"],
    },
    "mallory": {"email": "mallory@elsewhere.test", "email_verified": True, "name": "Mallory"},
}

if shutil.which("node") is None:
    pytest.skip("Node.js runs the OpenID provider of these tests", allow_module_level=True)


@contextlib.contextmanager
def _provider(port: int, redirect_uri: str, log: Path) -> Iterator[str]:
    job = {
        "port": port,
        "clients": [
            {
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "redirect_uris": [redirect_uri],
            }
        ],
        "accounts": ACCOUNTS,
    }
    with log.open("ab") as out:
        process = subprocess.Popen(
            ["node", "provider.mjs", json.dumps(job)],
            cwd=npm_ci(PROVIDER),
            stdout=subprocess.PIPE,
            stderr=out,
        )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, f"the OpenID provider did not start:\n{log.read_text()[-2000:]}"
        yield json.loads(line)["issuer"]
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def sso_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """The product with sign-in through the provider: admins and reviewers by ``groups``,
    ``example.com`` addresses only."""
    folder = tmp_path_factory.mktemp("sso")
    port = free_port()
    redirect_uri = f"http://127.0.0.1:{port}/auth/oidc/callback"
    with _provider(free_port(), redirect_uri, folder / "provider.log") as issuer:
        env = {
            "DATABASE_URL": fresh_database(),
            "ARENA_DATA_DIR": str(folder / "data"),
            "ARENA_MOCK_PROVIDER": "1",
            "ARENA_ALLOW_DEV_SECRET": "1",
            "ARENA_RATING_WORKER": "off",
            "ARENA_OIDC_ISSUER": issuer,
            "ARENA_OIDC_CLIENT_ID": CLIENT_ID,
            "ARENA_OIDC_NAME": "Test ID",
            "ARENA_OIDC_CLIENT_SECRET": CLIENT_SECRET,
            "ARENA_OIDC_SCOPES": "openid email profile groups",
            "ARENA_OIDC_ALLOWED_DOMAINS": "example.com",
            "ARENA_OIDC_ROLE_CLAIM": "groups",
            "ARENA_OIDC_ADMIN_VALUES": "arena-admins",
            "ARENA_OIDC_REVIEWER_VALUES": "arena-reviewers",
        }
        server = ProductProcess(env, port, folder / "serve.log").start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture
async def context(browser: Browser) -> AsyncIterator[BrowserContext]:
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    # The provider's development pages import a web font; this machine has no internet.
    await context.route(re.compile(r"https://fonts\.(googleapis|gstatic)\.com/.*"), _abort)
    yield context
    await context.close()


async def _abort(route: Any) -> None:
    await route.abort()


async def _sign_in(page: Page, product: ProductProcess, login: str, target: str = "/") -> None:
    """From an arena page through the arena's login page and the provider's pages."""
    await page.goto(product.url + target)
    await expect(page).to_have_url(re.compile(re.escape(product.url) + "/login"))
    await page.get_by_role("link", name=re.compile("Sign in with")).click()
    await page.locator("input[name=login]").fill(login)
    await page.locator("input[name=password]").fill("any password")
    await page.get_by_role("button", name="Sign-in").click()
    await page.get_by_role("button", name="Continue").click()


async def _audit(product: ProductProcess) -> list[asyncpg.Record]:
    dsn = "postgresql://" + product.env["DATABASE_URL"].partition("://")[2]
    conn = await asyncpg.connect(dsn)
    try:
        return list(
            await conn.fetch(
                "SELECT a.actor, a.action, a.after, u.role FROM audit_log a "
                "LEFT JOIN users u ON u.id = a.actor_id ORDER BY a.id"
            )
        )
    finally:
        await conn.close()


async def test_people_sign_in_through_the_provider_with_the_role_their_groups_give(
    sso_product: ProductProcess, context: BrowserContext
) -> None:
    page = await context.new_page()
    await page.goto(sso_product.url + "/login")
    await expect(page.get_by_role("link", name="Sign in with Test ID")).to_be_visible()
    await expect(page.get_by_label("Passphrase")).to_have_count(0)  # no passphrase set
    await screenshot(page, "sso-login")

    await _sign_in(page, sso_product, "alice", "/insights/rankings")

    await expect(page).to_have_url(re.compile(re.escape(sso_product.url) + "/insights/rankings/?$"))
    me = await (await page.request.get(sso_product.url + "/api/me")).json()
    assert me["signedIn"] is True
    assert me["user"] == {
        "id": me["user"]["id"],
        "email": "alice@example.com",
        "name": "Alice Admin",
        "role": "admin",
    }

    for login, role in (("bob", "reviewer"), ("carol", "voter")):
        other = await context.browser.new_context()  # type: ignore[union-attr]
        await other.route(re.compile(r"https://fonts\.(googleapis|gstatic)\.com/.*"), _abort)
        other_page = await other.new_page()
        await _sign_in(other_page, sso_product, login)
        await expect(other_page.get_by_test_id("send")).to_be_visible(timeout=60_000)
        who = await (await other_page.request.get(sso_product.url + "/api/me")).json()
        assert who["user"]["role"] == role, login
        await other.close()

    rows = await _audit(sso_product)
    signed = [(r["actor"], r["role"]) for r in rows if r["action"] == "sign_in"]
    assert signed == [
        ("alice@example.com", "admin"),
        ("bob@example.com", "reviewer"),
        ("carol@example.com", "voter"),
    ]


async def test_a_vote_on_the_page_carries_the_person_and_signing_out_ends_the_session(
    sso_product: ProductProcess, context: BrowserContext
) -> None:
    page = await context.new_page()
    await _sign_in(page, sso_product, "carol")
    await expect(page.get_by_test_id("send")).to_be_visible(timeout=60_000)
    await _ask(page, "Hello from a signed-in voter")
    await expect(page.get_by_test_id("pane-A")).not_to_be_empty(timeout=STREAM_TIMEOUT)
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()
    dsn = "postgresql://" + sso_product.env["DATABASE_URL"].partition("://")[2]
    conn = await asyncpg.connect(dsn)
    try:
        voter = await conn.fetchval(
            "SELECT u.email FROM preferences p JOIN users u ON u.id = p.user_id "
            "ORDER BY p.created_at DESC LIMIT 1"
        )
    finally:
        await conn.close()
    assert voter == "carol@example.com"

    await page.goto(sso_product.url + "/logout")
    await page.get_by_role("button", name="Sign out").click()

    await expect(page).to_have_url(re.compile(re.escape(sso_product.url) + "/login"))
    me = await page.request.get(sso_product.url + "/api/me")
    assert me.status == 401 and (await me.json())["code"] == "login_required"
    actions = [(r["actor"], r["action"]) for r in await _audit(sso_product)]
    assert actions[-1] == ("carol@example.com", "sign_out")


async def test_someone_outside_the_allowed_domain_is_refused_and_gets_no_session(
    sso_product: ProductProcess, context: BrowserContext
) -> None:
    page = await context.new_page()
    await _sign_in(page, sso_product, "mallory")

    error = page.get_by_role("alert")
    await expect(error).to_contain_text("mallory@elsewhere.test is not in a domain")
    await expect(error).to_have_attribute("data-code", "oidc_domain_refused")
    await screenshot(page, "sso-refused-domain")
    me = await page.request.get(sso_product.url + "/api/me")
    assert me.status == 401
    refused = [r for r in await _audit(sso_product) if r["actor"] == "mallory@elsewhere.test"]
    assert [(r["action"], json.loads(r["after"]), r["role"]) for r in refused] == [
        ("sign_in_refused", {"code": "oidc_domain_refused"}, None)  # on record, yet no user
    ]


async def test_a_callback_that_is_not_this_browsers_sign_in_is_refused(
    sso_product: ProductProcess, browser: Browser, context: BrowserContext
) -> None:
    """A login CSRF: someone else's callback URL (their code and state) opened in a browser
    that started a sign-in of its own."""
    theirs = await context.new_page()
    callbacks: list[str] = []
    theirs.on(
        "request",
        lambda r: callbacks.append(r.url) if "/auth/oidc/callback?" in r.url else None,
    )
    await _sign_in(theirs, sso_product, "carol")
    await expect(theirs.get_by_test_id("send")).to_be_visible(timeout=60_000)
    assert len(callbacks) == 1

    victim = await browser.new_context()
    await victim.route(re.compile(r"https://fonts\.(googleapis|gstatic)\.com/.*"), _abort)
    page = await victim.new_page()
    await page.goto(sso_product.url + "/login")
    await page.get_by_role("link", name=re.compile("Sign in with")).click()
    await expect(page.locator("input[name=login]")).to_be_visible()  # at the provider
    await page.goto(callbacks[0])

    error = page.get_by_role("alert")
    await expect(error).to_have_attribute("data-code", "oidc_state_mismatch")
    me = await page.request.get(sso_product.url + "/api/me")
    assert me.status == 401
    await victim.close()


async def test_the_sign_in_routes_refuse_what_they_cannot_finish(
    sso_product: ProductProcess,
) -> None:
    async with httpx.AsyncClient(base_url=sso_product.url, timeout=30) as client:
        start = await client.get("/auth/oidc/start", params={"next": "//evil.test/x"})
        no_flow = await client.get("/auth/oidc/callback", params={"code": "c", "state": "s"})
        passphrase = await client.post("/login", json={"passphrase": "anything at all"})

    assert start.status_code == 303
    location = httpx.URL(start.headers["location"])
    assert location.params["code_challenge_method"] == "S256"
    assert location.params["client_id"] == CLIENT_ID
    assert {"state", "nonce", "code_challenge"} <= set(location.params)
    flow_cookie = start.headers["set-cookie"]
    assert "arena_oidc_flow=" in flow_cookie and "HttpOnly" in flow_cookie
    assert "Path=/auth/oidc" in flow_cookie and "SameSite=lax" in flow_cookie
    assert no_flow.status_code == 400 and 'data-code="oidc_state_mismatch"' in no_flow.text
    assert passphrase.status_code == 404  # no passphrase in this arena


async def _signed_in(browser: Browser, product: ProductProcess, login: str, **options: Any) -> Page:
    context = await browser.new_context(**options)
    await context.route(re.compile(r"https://fonts\.(googleapis|gstatic)\.com/.*"), _abort)
    page = await context.new_page()
    await _sign_in(page, product, login)
    await expect(page.get_by_test_id("send")).to_be_visible(timeout=60_000)
    return page


async def test_the_admin_console_changes_a_role_and_makes_and_revokes_a_token(
    sso_product: ProductProcess, browser: Browser
) -> None:
    carol = await _signed_in(browser, sso_product, "carol")
    await expect(carol.get_by_role("link", name="Tokens")).to_be_visible()
    alice = await _signed_in(browser, sso_product, "alice", viewport={"width": 1400, "height": 900})

    await alice.get_by_role("link", name="Admin").click()
    await expect(alice.get_by_role("heading", name="Admin")).to_be_visible()
    users = alice.get_by_test_id("users")
    await expect(users).to_contain_text("alice@example.com")
    await expect(users).to_contain_text("carol@example.com")
    await alice.get_by_role("combobox", name="Role of carol@example.com").click()
    await alice.get_by_role("option", name="reviewer").click()
    await expect(alice.get_by_role("combobox", name="Role of carol@example.com")).to_have_text(
        "reviewer"
    )

    await alice.get_by_label("Display name").fill("Mock Echo")
    await alice.get_by_role("combobox", name="Provider", exact=True).click()
    await alice.get_by_role("option", name="mock").click()
    await alice.get_by_label("Provider's model id").fill("mock-echo")
    await alice.get_by_label("$ in / M tokens").fill("0.25")
    await alice.get_by_label("$ out / M tokens").fill("1")
    await alice.get_by_test_id("add-model").click()
    echo = alice.get_by_test_id("models").get_by_role("row").filter(has_text="Mock Echo")
    await expect(echo).to_contain_text("mock:mock-echo")
    await expect(echo).to_contain_text("console")
    await expect(echo).to_contain_text("$0.25 / $1")
    await alice.get_by_role("button", name="Test Mock Echo").click()
    await expect(alice.get_by_test_id("probe")).to_contain_text("Mock Echo: OK: first token in")

    await alice.get_by_label("Token name").fill("eval notebook")
    await alice.get_by_test_id("create-token").click()
    token = (await alice.get_by_test_id("new-token").inner_text()).strip()
    assert token.startswith("arena_")
    tokens = alice.get_by_test_id("tokens")
    await expect(tokens).to_contain_text("eval notebook")
    await expect(tokens).to_contain_text(token[:10])
    audit = alice.get_by_test_id("audit")
    role_change = audit.get_by_role("row").filter(has_text="user role")
    await expect(role_change).to_contain_text("role: voter → role: reviewer")
    await expect(role_change).to_contain_text("carol@example.com")  # the target, not its id
    await expect(audit).to_contain_text("token create")
    await expect(audit.get_by_role("row").filter(has_text="model add")).to_contain_text("Mock Echo")
    await alice.get_by_text("Settings in force").click()
    settings = alice.get_by_test_id("settings")
    await expect(
        settings.get_by_role("row").filter(has_text="ARENA_OIDC_CLIENT_SECRET")
    ).to_contain_text("(set)")
    assert CLIENT_SECRET not in await alice.content()
    await screenshot(alice, "admin-console")

    async with httpx.AsyncClient(base_url=sso_product.url, timeout=30) as client:
        used = await client.get(
            "/api/arena/leaderboard", headers={"authorization": f"Bearer {token}"}
        )
        assert used.status_code == 200
        await alice.get_by_role("button", name="Revoke eval notebook").click()
        await expect(tokens).to_contain_text("revoked")
        refused = await client.get(
            "/api/arena/leaderboard", headers={"authorization": f"Bearer {token}"}
        )
    assert refused.status_code == 401

    await carol.goto(sso_product.url + "/admin")
    await expect(carol.get_by_role("heading", name="API tokens", exact=True)).to_be_visible()
    await expect(carol.get_by_test_id("users")).to_have_count(0)
    await expect(carol.get_by_test_id("audit")).to_have_count(0)
    await expect(carol.get_by_text("admin", exact=True)).to_have_count(0)  # no admin scope offered

    phone = await _signed_in(
        browser, sso_product, "alice", viewport={"width": 390, "height": 844}, is_mobile=True
    )
    await phone.goto(sso_product.url + "/admin")
    await expect(phone.get_by_test_id("audit")).to_contain_text("token revoke")
    await screenshot(phone, "admin-console-phone")
    for page in (alice, carol, phone):
        await page.context.close()


async def _review_all(
    page: Page, product: ProductProcess, queue: str, keys: str, shot: str | None = None
) -> None:
    """Work through the queue with the keyboard, one key per item (a screenshot of the second
    item as ``shot``)."""
    await page.goto(product.url + "/review")
    await page.get_by_role("button", name=f"Review {queue}").click()
    for n, key in enumerate(keys, start=1):
        await expect(page.get_by_test_id("review-progress")).to_have_text(
            f"Item {n} of {len(keys)}"
        )
        await expect(page.get_by_test_id("review-answer-A")).not_to_be_empty()
        if shot is not None and n == 2:
            await screenshot(page, shot)
        await page.keyboard.press(key)
    await expect(page.get_by_test_id("review-finished")).to_be_visible()


async def test_a_team_reviews_a_suite_run_and_reads_its_agreement(
    sso_product: ProductProcess, browser: Browser
) -> None:
    """The admin runs a suite, makes a queue of it with k = 2 for two reviewers, both finish it
    blind with keys 1-5, and the agreement shows kappa with its interval."""
    bob = await _signed_in(browser, sso_product, "bob")
    dave = await _signed_in(
        browser, sso_product, "dave", viewport={"width": 390, "height": 844}, is_mobile=True
    )
    alice = await _signed_in(browser, sso_product, "alice", viewport={"width": 1400, "height": 900})

    await alice.goto(sso_product.url + "/suites")
    await alice.get_by_test_id("run-example").click()
    await expect(alice.get_by_test_id("run-status")).to_have_text("done", timeout=120_000)

    await alice.goto(sso_product.url + "/admin")
    await alice.get_by_label("Queue name").fill("Example suite check")
    await alice.get_by_role("combobox", name="Suite run").click()
    await alice.get_by_role("option").first.click()
    for reviewer in ("bob@example.com", "dave@example.com"):
        box = alice.get_by_role("checkbox", name=reviewer)
        await box.click()
        await expect(box).to_be_checked()
    await alice.get_by_test_id("create-queue").click()
    queues = alice.get_by_test_id("review-queues")
    await expect(queues).to_contain_text("Example suite check")
    await expect(queues).to_contain_text("0 of 5 with all their reviews")

    await expect(bob.get_by_role("link", name="Review")).to_be_visible()
    await _review_all(bob, sso_product, "Example suite check", "11234", "review-item")
    await _review_all(dave, sso_product, "Example suite check", "12234", "review-item-phone")
    await bob.goto(sso_product.url + "/review")
    await bob.get_by_role("button", name="Review Example suite check").click()
    await bob.set_viewport_size({"width": 1400, "height": 900})
    await expect(bob.get_by_test_id("review-finished")).to_be_visible()

    await alice.reload()
    await expect(queues).to_contain_text("5 of 5 with all their reviews")
    await alice.get_by_role("button", name="Agreement of Example suite check").click()
    kappa = alice.get_by_test_id("queue-kappa")
    await expect(kappa).to_contain_text(
        re.compile(r"Fleiss' κ -?\d\.\d\d \[-?\d\.\d\d, -?\d\.\d\d\]")
    )
    await expect(alice.get_by_test_id("queue-reviewers")).to_contain_text("bob@example.com")
    await expect(alice.get_by_test_id("queue-splits")).to_contain_text("left 1, right 1")
    audit = alice.get_by_test_id("audit")
    await expect(audit).to_contain_text("review queue create")
    await screenshot(alice, "admin-review-agreement")
    for page in (alice, bob, dave):
        await page.context.close()


async def test_the_admin_console_and_the_review_page_have_no_serious_axe_violation(
    sso_product: ProductProcess, browser: Browser
) -> None:
    alice = await _signed_in(browser, sso_product, "alice", viewport={"width": 1400, "height": 900})
    await alice.goto(sso_product.url + "/admin")
    await expect(alice.get_by_test_id("models")).to_be_visible()
    await expect(alice.get_by_test_id("audit")).to_be_visible()
    admin_violations = await _serious_violations(alice)

    bob = await _signed_in(browser, sso_product, "bob")
    await bob.goto(sso_product.url + "/review")
    await expect(bob.get_by_role("heading", name="Review", exact=True)).to_be_visible()
    review_violations = await _serious_violations(bob)

    for page in (alice, bob):
        await page.context.close()
    assert admin_violations == [] and review_violations == []
