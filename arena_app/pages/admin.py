"""``/admin``: users and roles, API tokens and the audit log for admins; anyone signed in
manages their own API tokens here."""

from __future__ import annotations

import reflex as rx

from arena_api.core.lifecycle import MODEL_STATUSES
from arena_api.core.users import ROLES, SCOPES
from arena_app.components.layout import layout
from arena_app.state.admin import AdminState


def _table(
    columns: tuple[tuple[str, str], ...],
    rows: rx.Var,
    testid: str,
    action: tuple[str, object] | None = None,
) -> rx.Component:
    """A table whose cells wrap (no region of it scrolls on a desktop, where a keyboard could
    not reach it) and that scrolls sideways inside its card on a narrow screen; ``action`` a
    second column's header and a function of the row giving its cell (second, so a phone
    shows it beside the row's name without scrolling)."""
    labels = [label for _, label in columns]
    headers = labels[:1] + ([action[0]] if action else []) + labels[1:]
    return rx.box(
        rx.table.root(
            rx.table.header(rx.table.row(*(rx.table.column_header_cell(h) for h in headers))),
            rx.table.body(
                rx.foreach(
                    rows,
                    lambda row: rx.table.row(
                        rx.table.cell(row[columns[0][0]]),
                        *([rx.table.cell(action[1](row))] if action else []),  # type: ignore[operator]
                        *(rx.table.cell(row[key]) for key, _ in columns[1:]),
                    ),
                )
            ),
            size="1",
            width="100%",
            data_testid=testid,
        ),
        overflow_x="auto",
        width="100%",
        # Focusable, so a keyboard can scroll it where it does overflow (a phone).
        tab_index=0,
        role="region",
        aria_label=testid.replace("-", " "),
    )


def _role_picker(row: rx.Var) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(aria_label="Role of " + row["email"]),
        rx.select.content(*(rx.select.item(role, value=role) for role in ROLES)),
        value=row["role"],
        on_change=lambda role: AdminState.set_role(row["id"], role),
        size="1",
    )


def _users() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Users", size="3"),
            rx.text(
                "Everyone who signed in. A role taken away applies at once, even to open "
                "sessions; the arena always keeps one admin.",
                size="2",
                color_scheme="gray",
            ),
            _table(
                (
                    ("email", "Email"),
                    ("name", "Name"),
                    ("first", "First seen"),
                    ("last", "Last seen"),
                ),
                AdminState.users,
                "users",
                ("Role", _role_picker),
            ),
            width="100%",
        ),
        width="100%",
    )


def _model_actions(row: rx.Var) -> rx.Component:
    return rx.hstack(
        rx.select.root(
            rx.select.trigger(aria_label="Status of " + row["name"]),
            rx.select.content(*(rx.select.item(s, value=s) for s in MODEL_STATUSES)),
            value=row["status"],
            on_change=lambda status: AdminState.set_status(row["id"], status),
            size="1",
        ),
        rx.tooltip(
            rx.checkbox(
                checked=row["vision"] == "yes",
                on_change=lambda on: AdminState.set_vision(row["id"], on),
                aria_label=row["name"] + " reads images",
                size="1",
                data_testid="vision-toggle",
            ),
            content="Reads images (vision): answers prompts with images",
        ),
        rx.button(
            rx.icon("plug-zap", size=14),
            "Test",
            on_click=AdminState.test_model(row["id"]),
            loading=AdminState.probing == row["id"],
            size="1",
            variant="soft",
            aria_label="Test " + row["name"],
        ),
        spacing="2",
        align="center",
    )


def _model_field(field: str, label: str, width: str) -> rx.Component:
    return rx.input(
        placeholder=label,
        aria_label=label,
        value=AdminState.new_model.get(field, ""),
        on_change=lambda value: AdminState.set_new_model(field, value),
        width=rx.breakpoints(initial="100%", sm=width),
    )


def _models() -> rx.Component:
    s = AdminState
    return rx.card(
        rx.vstack(
            rx.heading("Models", size="3"),
            rx.text(
                "The roster file seeds its models at every start (and archives the ones it "
                "drops); models added here stay until you change them. A paused or archived "
                "model keeps its votes and is never matched.",
                size="2",
                color_scheme="gray",
            ),
            rx.hstack(
                _model_field("name", "Display name", "12em"),
                rx.select.root(
                    rx.select.trigger(placeholder="Provider", aria_label="Provider"),
                    rx.select.content(
                        rx.foreach(s.providers, lambda p: rx.select.item(p, value=p))
                    ),
                    value=s.new_model.get("provider", ""),
                    on_change=lambda value: s.set_new_model("provider", value),
                ),
                _model_field("model", "Provider's model id", "14em"),
                _model_field("input", "$ in / M tokens", "9em"),
                _model_field("output", "$ out / M tokens", "9em"),
                rx.text(
                    rx.hstack(
                        rx.checkbox(
                            checked=s.new_model.get("vision", "") == "yes",
                            on_change=lambda on: s.set_new_model("vision", rx.cond(on, "yes", "")),
                            # The control is a button: the label around it does not name it.
                            aria_label="The new model reads images",
                            data_testid="new-model-vision",
                        ),
                        "Reads images",
                        spacing="2",
                        align="center",
                    ),
                    as_="label",
                    size="2",
                ),
                rx.button(
                    rx.icon("plus", size=14),
                    "Add model",
                    on_click=s.add_model,
                    data_testid="add-model",
                ),
                spacing="2",
                wrap="wrap",
                align="center",
            ),
            _table(
                (
                    ("name", "Model"),
                    ("endpoint", "Provider:model"),
                    ("source", "From"),
                    ("vision", "Vision"),
                    ("prices", "$ / M in / out"),
                ),
                s.models,
                "models",
                ("Status", _model_actions),
            ),
            rx.foreach(
                s.models,
                lambda row: rx.cond(
                    s.probes.contains(row["id"]),
                    rx.callout(
                        row["name"] + ": " + s.probes[row["id"]],
                        icon="plug-zap",
                        size="1",
                        width="100%",
                        data_testid="probe",
                    ),
                ),
            ),
            width="100%",
        ),
        width="100%",
    )


def _reviewer_pick(row: rx.Var) -> rx.Component:
    return rx.cond(
        (row["role"] == "reviewer") | (row["role"] == "admin"),
        rx.checkbox(
            row["email"],
            checked=AdminState.queue_reviewers.contains(row["id"]),
            on_change=lambda on: AdminState.toggle_reviewer(row["id"], on),
        ),
    )


def _queue_actions(row: rx.Var) -> rx.Component:
    return rx.button(
        "Agreement",
        on_click=AdminState.show_agreement(row["id"]),
        size="1",
        variant="soft",
        aria_label="Agreement of " + row["name"],
    )


def _agreement() -> rx.Component:
    s = AdminState
    return rx.vstack(
        rx.hstack(
            rx.text(s.agreement["name"], weight="bold"),
            rx.badge(
                "Fleiss' κ " + s.agreement["kappa"] + " " + s.agreement["interval"],
                size="2",
                data_testid="queue-kappa",
            ),
            rx.text(
                s.agreement["items"]
                + " items with all their reviews; pairs agree on "
                + s.agreement["observed"],
                size="2",
                color_scheme="gray",
            ),
            wrap="wrap",
            align="center",
            spacing="3",
        ),
        _table(
            (
                ("reviewer", "Reviewer"),
                ("verdicts", "Verdicts"),
                ("majority", "With the others"),
                ("judge", "With the judge"),
                ("people", "With people"),
            ),
            s.agreement_rows,
            "queue-reviewers",
        ),
        rx.cond(
            s.agreement_splits.length() > 0,
            rx.vstack(
                rx.text("Split most, to discuss:", size="2", weight="medium"),
                _table(
                    (("position", "Item"), ("votes", "Verdicts"), ("agreement", "Pairs agree")),
                    s.agreement_splits,
                    "queue-splits",
                ),
                width="100%",
            ),
        ),
        width="100%",
    )


def _review_queues() -> rx.Component:
    s = AdminState
    return rx.card(
        rx.vstack(
            rx.heading("Review queues", size="3"),
            rx.text(
                "Rounds for named reviewers to vote on blind, each item k times; then how much "
                "they agree. From a finished suite run, from prompts played now (one per line), "
                "or else the latest 50 rounds.",
                size="2",
                color_scheme="gray",
            ),
            rx.hstack(
                rx.input(
                    placeholder="Queue name",
                    aria_label="Queue name",
                    value=s.new_queue.get("name", ""),
                    on_change=lambda v: s.set_new_queue("name", v),
                    width=rx.breakpoints(initial="100%", sm="14em"),
                ),
                rx.select.root(
                    rx.select.trigger(placeholder="Suite run", aria_label="Suite run"),
                    rx.select.content(
                        rx.foreach(
                            s.suite_runs, lambda r: rx.select.item(r["label"], value=r["id"])
                        )
                    ),
                    value=s.new_queue.get("run", ""),
                    on_change=lambda v: s.set_new_queue("run", v),
                ),
                rx.input(
                    aria_label="Reviews per item",
                    type="number",
                    min=1,
                    max=20,
                    value=s.new_queue.get("k", "2"),
                    on_change=lambda v: s.set_new_queue("k", v),
                    width="5em",
                ),
                rx.button(
                    rx.icon("list-checks", size=14),
                    "Create queue",
                    on_click=s.create_queue,
                    data_testid="create-queue",
                ),
                spacing="2",
                wrap="wrap",
                align="center",
            ),
            rx.text_area(
                placeholder="Or prompts to play now, one per line",
                aria_label="Prompts",
                value=s.new_queue.get("prompts", ""),
                on_change=lambda v: s.set_new_queue("prompts", v),
                width="100%",
            ),
            rx.hstack(
                rx.text("Reviewers:", size="2"),
                rx.foreach(s.users, _reviewer_pick),
                spacing="3",
                wrap="wrap",
                align="center",
            ),
            rx.cond(
                s.review_queues.length() > 0,
                _table(
                    (("name", "Queue"), ("k", "k"), ("progress", "Progress")),
                    s.review_queues,
                    "review-queues",
                    ("", _queue_actions),
                ),
            ),
            rx.cond(s.agreement_of != "", _agreement()),
            width="100%",
        ),
        width="100%",
    )


def _settings() -> rx.Component:
    return rx.card(
        rx.el.details(
            rx.el.summary(rx.heading("Settings in force", size="3", as_="span", display="inline")),
            rx.text(
                "As this server read them at start: set in the environment or the default. "
                "Secrets show only that they are set. Change them in the environment and "
                "restart (docs/configuration.md).",
                size="2",
                color_scheme="gray",
            ),
            _table(
                (("name", "Variable"), ("value", "Value"), ("source", "From")),
                AdminState.settings,
                "settings",
            ),
        ),
        width="100%",
    )


def _revoke(row: rx.Var) -> rx.Component:
    return rx.cond(
        row["state"] == "live",
        rx.button(
            "Revoke",
            on_click=AdminState.revoke(row["id"]),
            size="1",
            color_scheme="red",
            variant="soft",
            aria_label="Revoke " + row["name"],
        ),
        rx.text(row["state"], size="1", color_scheme="gray"),
    )


def _new_token() -> rx.Component:
    s = AdminState
    return rx.vstack(
        rx.hstack(
            rx.input(
                placeholder="What it is for (e.g. eval notebook)",
                value=s.new_token_name,
                on_change=s.set_new_token_name,
                aria_label="Token name",
                max_length=100,
                width=rx.breakpoints(initial="100%", sm="22em"),
            ),
            *(
                rx.cond(
                    (scope != "admin") | s.is_admin,
                    rx.checkbox(
                        scope,
                        checked=s.new_token_scopes.contains(scope),
                        on_change=lambda on, scope=scope: s.toggle_scope(scope, on),
                    ),
                )
                for scope in SCOPES
            ),
            rx.button(
                rx.icon("key-round", size=14),
                "Create token",
                on_click=s.create_token,
                disabled=s.new_token_name.strip() == "",
                data_testid="create-token",
            ),
            align="center",
            spacing="3",
            wrap="wrap",
        ),
        rx.cond(
            s.created_token != "",
            rx.callout(
                rx.vstack(
                    rx.text("Copy it now: it is not shown again.", weight="bold"),
                    rx.hstack(
                        rx.code(s.created_token, data_testid="new-token", word_break="break-all"),
                        rx.icon_button(
                            rx.icon("copy", size=14),
                            on_click=rx.set_clipboard(s.created_token),
                            size="1",
                            variant="soft",
                            aria_label="Copy the token",
                        ),
                        align="center",
                    ),
                    spacing="1",
                ),
                icon="key-round",
                color_scheme="green",
                width="100%",
            ),
        ),
        width="100%",
    )


def _tokens() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading(rx.cond(AdminState.is_admin, "API tokens", "Your API tokens"), size="3"),
            rx.text(
                "For scripts and notebooks: send one as Authorization: Bearer. read: look; "
                "vote: play and vote too; admin: the admin routes. Only a hash is kept.",
                size="2",
                color_scheme="gray",
            ),
            _new_token(),
            rx.cond(
                AdminState.tokens.length() > 0,
                _table(
                    (
                        ("name", "Name"),
                        ("owner", "Owner"),
                        ("hint", "Starts"),
                        ("scopes", "Scopes"),
                        ("created", "Created"),
                        ("used", "Last used"),
                    ),
                    AdminState.tokens,
                    "tokens",
                    ("", _revoke),
                ),
                rx.text("No tokens yet.", size="2", color_scheme="gray"),
            ),
            width="100%",
        ),
        width="100%",
    )


def _audit() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Audit log", size="3"),
            _table(
                (
                    ("at", "When"),
                    ("action", "What"),
                    ("actor", "Who"),
                    ("target", "To"),
                    ("change", "Change"),
                ),
                AdminState.audit,
                "audit",
            ),
            rx.cond(
                AdminState.audit_before != "",
                rx.button("Older", on_click=AdminState.older, variant="soft", size="1"),
            ),
            width="100%",
        ),
        width="100%",
    )


def admin_page() -> rx.Component:
    return layout(
        rx.vstack(
            rx.heading(rx.cond(AdminState.is_admin, "Admin", "API tokens"), size="6"),
            rx.cond(
                AdminState.notice != "",
                rx.callout(AdminState.notice, color_scheme="red", role="alert", width="100%"),
            ),
            rx.cond(
                AdminState.role == "",
                rx.callout(
                    "Sign in with your organisation's account to manage API tokens.",
                    icon="info",
                    width="100%",
                ),
                rx.vstack(
                    rx.cond(AdminState.is_admin, _models()),
                    rx.cond(AdminState.is_admin, _users()),
                    rx.cond(AdminState.is_admin, _review_queues()),
                    _tokens(),
                    rx.cond(AdminState.is_admin, _audit()),
                    rx.cond(AdminState.is_admin, _settings()),
                    spacing="4",
                    width="100%",
                ),
            ),
            spacing="4",
            width="100%",
        )
    )
