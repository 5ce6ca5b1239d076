"""The admin console's data: users and roles, API tokens, the audit log.

Who is looking is read on the server from the event socket's own session cookie (never from
anything the page sends), and the role they hold now decides: an admin sees and changes
everything, anyone else signed in manages their own tokens only. Every change goes through the
same service as ``/api/admin/*`` (``services.users``), audited there.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from arena_api.core.errors import ArenaError
from arena_api.core.models import RosterItem
from arena_api.core.users import SCOPES, AuditRecord, Grant, TokenInfo, User
from arena_api.services.settings_view import settings_in_force
from arena_app.backend import services

_PAGE = 100


def _when(value: Any) -> str:
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M")


def _token_row(token: TokenInfo) -> dict[str, str]:
    return {
        "id": token.id,
        "owner": token.owner,
        "name": token.name,
        "hint": token.hint + "…",
        "scopes": ", ".join(token.scopes),
        "created": _when(token.created_at),
        "used": _when(token.last_used_at),
        "state": "revoked " + _when(token.revoked_at) if token.revoked_at else "live",
    }


_SOURCES = {"file": "roster file", "console": "console", "import": "import"}


def _model_row(item: RosterItem) -> dict[str, str]:
    prices = item.model.prices
    return {
        "id": str(item.model.id),
        "name": item.model.display_name,
        "endpoint": f"{item.model.provider}:{item.model.provider_model_id}",
        "status": item.status,
        "source": _SOURCES[item.source],
        "vision": "yes" if item.model.vision else "—",
        "prices": "—"
        if prices is None
        else f"${prices.input_per_mtok.normalize():f} / ${prices.output_per_mtok.normalize():f}",
    }


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)


def _change(value: Any) -> str:
    if not value:
        return ""
    return ", ".join(f"{k}: {_shown(v)}" for k, v in value.items())


def _audit_row(record: AuditRecord) -> dict[str, str]:
    entry = record.entry
    before, after = _change(entry.before), _change(entry.after)
    return {
        "id": str(record.id),
        "at": record.at.strftime("%Y-%m-%d %H:%M:%S"),
        "actor": entry.actor,
        "action": entry.action.replace("_", " "),
        "target": record.target_label or entry.target or "",
        "change": " → ".join(part for part in (before, after) if part),
    }


class AdminState(rx.State):
    #: ``admin``, ``reviewer``, ``voter``, or ``""`` when no user is signed in.
    role: str = ""
    me: str = ""
    users: list[dict[str, str]] = []
    tokens: list[dict[str, str]] = []
    audit: list[dict[str, str]] = []
    audit_before: str = ""  # the next, older page's cursor ("" on the last page)
    new_token_name: str = ""
    new_token_scopes: list[str] = ["read", "vote"]
    created_token: str = ""  # shown once, until the page is left
    notice: str = ""
    models: list[dict[str, str]] = []
    providers: list[str] = []
    new_model: dict[str, str] = {}
    #: The last connection test per model id: its first tokens and latency, or why it failed.
    probes: dict[str, str] = {}
    probing: str = ""  # the model id under test
    settings: list[dict[str, str]] = []
    review_queues: list[dict[str, str]] = []
    suite_runs: list[dict[str, str]] = []
    new_queue: dict[str, str] = {"k": "2"}
    queue_reviewers: list[str] = []
    agreement_of: str = ""  # the queue whose agreement is shown
    agreement: dict[str, str] = {}
    agreement_rows: list[dict[str, str]] = []
    agreement_splits: list[dict[str, str]] = []
    _user_id: str = ""

    @rx.var
    def is_admin(self) -> bool:
        return self.role == "admin"

    async def _viewer(self) -> tuple[User, Grant] | None:
        """The signed-in user of this socket, as the server's session cookie says."""
        users = services().users
        session = services().access.session_of(self.router.headers.cookie)
        grant = None if users is None else await users.session_grant(session)
        if users is None or grant is None:
            return None
        _, user = await users.actor(grant)
        return (user, grant) if user is not None else None

    @rx.event
    async def load(self) -> None:
        self.notice, self.created_token = "", ""
        viewer = await self._viewer()
        if viewer is None:
            self.role, self.me, self._user_id = "", "", ""
            return
        user, _ = viewer
        self.role, self.me, self._user_id = user.role, user.label, user.id
        await self._refresh()

    async def _refresh(self) -> None:
        users = services().users
        assert users is not None
        admin = self.role == "admin"
        tokens = await users.tokens(None if admin else self._user_id)
        self.tokens = [_token_row(t) for t in tokens]
        if admin:
            await self._queues()
            self.settings = [
                {"name": r.name, "value": r.value, "source": r.source}
                for r in settings_in_force(services().settings)
            ]
            roster = services().roster
            assert roster is not None
            self.models = [_model_row(i) for i in await roster.items()]
            self.providers = roster.providers()
            self.users = [
                {
                    "id": m.user.id,
                    "email": m.user.email or "—",
                    "name": m.user.name or "—",
                    "role": m.user.role,
                    "first": _when(m.first_seen_at),
                    "last": _when(m.last_seen_at),
                    "me": "yes" if m.user.id == self._user_id else "",
                }
                for m in await users.members()
            ]
            await self._audit(None)

    async def _audit(self, before: int | None) -> None:
        users = services().users
        assert users is not None
        records = await users.audit(_PAGE, before)
        rows = [_audit_row(r) for r in records]
        self.audit = rows if before is None else [*self.audit, *rows]
        self.audit_before = str(records[-1].id) if len(records) == _PAGE else ""

    @rx.event
    async def older(self) -> None:
        if self.role == "admin" and self.audit_before:
            await self._audit(int(self.audit_before))

    @rx.event
    async def set_role(self, user_id: str, role: str) -> None:
        self.notice = ""
        viewer = await self._viewer()
        if viewer is None or viewer[0].role != "admin":
            self.notice = "Only an admin may change roles."
            return
        try:
            await services().users.set_role(user_id, role, viewer[0].actor)  # type: ignore[union-attr]
        except ArenaError as exc:
            self.notice = exc.message
        await self._refresh()

    @rx.event
    def set_new_token_name(self, value: str) -> None:
        self.new_token_name = value

    @rx.event
    def toggle_scope(self, scope: str, on: bool) -> None:
        chosen = (
            set(self.new_token_scopes) | {scope} if on else set(self.new_token_scopes) - {scope}
        )
        self.new_token_scopes = [s for s in SCOPES if s in chosen]

    @rx.event
    async def create_token(self) -> None:
        self.notice, self.created_token = "", ""
        viewer = await self._viewer()
        if viewer is None:
            self.notice = "Sign in first."
            return
        try:
            _, value = await services().users.create_token(  # type: ignore[union-attr]
                viewer[0], self.new_token_name, self.new_token_scopes
            )
        except ArenaError as exc:
            self.notice = exc.message
            return
        self.created_token, self.new_token_name = value, ""
        await self._refresh()

    @rx.event
    async def revoke(self, token_id: str) -> None:
        self.notice = ""
        viewer = await self._viewer()
        if viewer is None:
            return
        user = viewer[0]
        owner = None if user.role == "admin" else user.id
        try:
            await services().users.revoke_token(token_id, user.actor, owner)  # type: ignore[union-attr]
        except ArenaError as exc:
            self.notice = exc.message
        await self._refresh()

    @rx.event
    def set_new_model(self, field: str, value: str) -> None:
        self.new_model = {**self.new_model, field: value}

    async def _admin(self) -> User | None:
        viewer = await self._viewer()
        if viewer is None or viewer[0].role != "admin":
            self.notice = "Only an admin may change the roster."
            return None
        return viewer[0]

    @rx.event
    async def add_model(self) -> None:
        self.notice = ""
        admin = await self._admin()
        if admin is None:
            return
        form = self.new_model
        fields: dict[str, Any] = {
            "displayName": form.get("name", ""),
            "provider": form.get("provider", ""),
            "providerModelId": form.get("model", ""),
            "vision": form.get("vision", "") == "yes",
        }
        if form.get("input", "").strip() or form.get("output", "").strip():
            fields["prices"] = [form.get("input", "").strip(), form.get("output", "").strip()]
        try:
            await services().roster.add(fields, admin.actor)  # type: ignore[union-attr]
        except ArenaError as exc:
            self.notice = exc.message
            return
        self.new_model = {"provider": form.get("provider", "")}
        await self._refresh()

    @rx.event
    async def set_status(self, model_id: str, status: str) -> None:
        self.notice = ""
        admin = await self._admin()
        if admin is None:
            return
        try:
            await services().roster.edit(model_id, {"status": status}, admin.actor)  # type: ignore[union-attr]
        except ArenaError as exc:
            self.notice = exc.message
        await self._refresh()

    @rx.event
    async def set_vision(self, model_id: str, vision: bool) -> None:
        """Mark a model as one that reads images (or not): only such models answer a prompt
        with images."""
        self.notice = ""
        admin = await self._admin()
        if admin is None:
            return
        try:
            await services().roster.edit(model_id, {"vision": bool(vision)}, admin.actor)  # type: ignore[union-attr]
        except ArenaError as exc:
            self.notice = exc.message
        await self._refresh()

    @rx.event
    async def test_model(self, model_id: str) -> Any:
        if await self._admin() is None:
            return
        self.probing = model_id
        yield
        try:
            probe = await services().roster.probe(model_id)  # type: ignore[union-attr]
        except ArenaError as exc:
            self.probes = {**self.probes, model_id: exc.message}
        else:
            if probe.ok:
                said = (
                    f"OK: first token in {probe.first_token_ms} ms, {probe.total_ms} ms in all: "
                    f"\u201c{probe.text.strip()[:80]}\u201d"
                )
            else:
                said = f"Failed ({probe.error_code}) after {probe.total_ms} ms: {probe.error}"
            self.probes = {**self.probes, model_id: said}
        self.probing = ""

    # -- review queues -----------------------------------------------------------------------

    async def _queues(self) -> None:
        review = services().review
        assert review is not None
        queues = await review.queues(Grant(self._user_id, "admin"))
        self.review_queues = [
            {
                "id": str(q["id"]),
                "name": q["name"],
                "k": str(q["k"]),
                "progress": f"{q['complete']} of {q['items']} with all their reviews"
                + (f", {q['pending']} rounds still playing" if q["pending"] else ""),
            }
            for q in queues
        ]
        runs = (await services().suites.recent()).runs
        self.suite_runs = [
            {"id": r.run_id, "label": f"{r.suite} · {r.created_at:%b %d %H:%M} · {r.total} prompts"}
            for r in runs
            if r.status == "done"
        ]

    @rx.event
    def set_new_queue(self, field: str, value: str) -> None:
        self.new_queue = {**self.new_queue, field: value}

    @rx.event
    def toggle_reviewer(self, user_id: str, on: bool) -> None:
        chosen = set(self.queue_reviewers)
        chosen = chosen | {user_id} if on else chosen - {user_id}
        self.queue_reviewers = [u["id"] for u in self.users if u["id"] in chosen]

    @rx.event
    async def create_queue(self) -> None:
        self.notice = ""
        admin = await self._admin()
        if admin is None:
            return
        form = self.new_queue
        k = form.get("k", "2")
        prompts = [p.strip() for p in form.get("prompts", "").splitlines() if p.strip()]
        body: dict[str, Any] = {
            "name": form.get("name", ""),
            "k": int(k) if k.isdigit() else k,
            "reviewers": self.queue_reviewers,
            "source": {"suiteRun": form.get("run", "")}
            if form.get("run")
            else {"prompts": prompts}
            if prompts
            else {"rounds": {"limit": 50}},
        }
        try:
            await services().review.create(body, admin.actor)  # type: ignore[union-attr]
        except ArenaError as exc:
            self.notice = exc.message
            return
        self.new_queue, self.queue_reviewers = {"k": "2"}, []
        await self._refresh()

    @rx.event
    async def show_agreement(self, queue_id: str) -> None:
        if await self._admin() is None:
            return
        result = await services().review.agreement(queue_id)  # type: ignore[union-attr]
        a = result.agreement

        def pct(share: Any) -> str:
            return "—" if share.rate is None else f"{share.rate:.0%} of {share.of}"

        self.agreement_of = queue_id
        self.agreement = {
            "name": result.queue["name"],
            "kappa": "—" if a.kappa is None else f"{a.kappa:.2f}",
            "interval": "" if a.kappa_low is None else f"[{a.kappa_low:.2f}, {a.kappa_high:.2f}]",
            "items": str(a.items),
            "observed": "—" if a.observed is None else f"{a.observed:.0%}",
        }
        self.agreement_rows = [
            {
                "reviewer": result.labels.get(r.reviewer_id, r.reviewer_id),
                "verdicts": str(r.verdicts),
                "majority": pct(r.with_majority),
                "judge": pct(r.with_judge),
                "people": pct(r.with_people),
            }
            for r in a.reviewers
        ]
        self.agreement_splits = [
            {
                "position": str(sp.position),
                "votes": ", ".join(f"{v} {n}" for v, n in sp.votes.items() if n),
                "agreement": f"{sp.agreement:.0%}",
            }
            for sp in a.splits
        ]
