"""The five vote buttons (with keyboard shortcuts 1–5), the optional reason chips, and what
follows a vote."""

from __future__ import annotations

import reflex as rx

from arena_app.state.arena import ArenaState
from arena_app.state.vote_reasons import VoteReasonsState

VOTES: tuple[tuple[str, str, str], ...] = (
    ("left", "A is better", "1"),
    ("right", "B is better", "2"),
    ("both_good", "Both good", "3"),
    ("both_bad", "Both bad", "4"),
    ("skip", "Skip", "5"),
)


def _judge_verdict() -> rx.Component:
    """What the judge decided and why (its reasoning folds away)."""
    return rx.box(
        rx.text(ArenaState.judge_verdict, size="2", weight="medium", data_testid="judge-verdict"),
        rx.cond(
            ArenaState.judge_reasoning != "",
            rx.el.details(
                rx.el.summary("The judge's reasoning"),
                rx.text(
                    ArenaState.judge_reasoning,
                    size="2",
                    white_space="pre-wrap",
                    data_testid="judge-reasoning",
                ),
            ),
        ),
        max_width="48em",
        text_align="center",
    )


def _reason_chip(choice: rx.Var[dict[str, str]]) -> rx.Component:
    """One reason as a toggle button: ticked, it is sent with the vote (Tab to it, Space)."""
    ticked = VoteReasonsState.picked.contains(choice["id"])
    return rx.button(
        rx.cond(ticked, rx.icon("check", size=12)),
        choice["label"],
        on_click=VoteReasonsState.toggle(choice["id"]),
        disabled=~ArenaState.votable,
        variant=rx.cond(ticked, "solid", "outline"),
        color_scheme=rx.cond(ticked, "accent", "gray"),
        size="1",
        radius="full",
        aria_pressed=rx.cond(ticked, "true", "false"),
        data_testid="reason-" + choice["id"].to(str),
    )


def _reason_chips() -> rx.Component:
    """Why (optional): the offered reasons, shown while the round can be voted on and, after
    the vote, the ones that were sent with it."""
    return rx.cond(
        (VoteReasonsState.choices.length() > 0)
        & (ArenaState.votable | (VoteReasonsState.picked.length() > 0)),
        rx.hstack(
            rx.text("Why? (optional)", size="1", color_scheme="gray", id="vote-reasons-label"),
            rx.foreach(VoteReasonsState.choices, _reason_chip),
            role="group",
            aria_labelledby="vote-reasons-label",
            wrap="wrap",
            spacing="1",
            justify="center",
            align="center",
            data_testid="vote-reasons",
        ),
    )


def vote_bar() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            *(
                rx.button(
                    label,
                    rx.code(key, variant="outline", size="1"),
                    id=f"vote-key-{key}",
                    on_click=ArenaState.vote(value),
                    disabled=~ArenaState.can_vote,
                    variant="soft" if value in ("both_good", "both_bad", "skip") else "solid",
                    data_testid=f"vote-{value}",
                )
                for value, label, key in VOTES
            ),
            rx.cond(
                ArenaState.judge_name != "",
                rx.button(
                    rx.icon("scale", size=14),
                    "Ask the judge",
                    on_click=ArenaState.ask_judge,
                    disabled=~ArenaState.can_vote,
                    loading=ArenaState.judging,
                    variant="outline",
                    title=f"Let {ArenaState.judge_name} vote on this round",
                    data_testid="ask-judge",
                ),
            ),
            wrap="wrap",
            spacing="2",
            justify="center",
        ),
        _reason_chips(),
        rx.cond(ArenaState.judge_verdict != "", _judge_verdict()),
        rx.cond(
            ArenaState.vote_cast != "",
            rx.hstack(
                rx.badge(ArenaState.outcome, size="2", data_testid="outcome"),
                rx.cond(
                    ArenaState.continuable,
                    rx.text("Ask a follow-up: it continues from the winning answer.", size="2"),
                    rx.button(
                        "New conversation",
                        on_click=ArenaState.new_conversation,
                        variant="outline",
                        data_testid="new-conversation",
                    ),
                ),
                rx.button(
                    rx.icon("share-2", size=14),
                    "Share",
                    on_click=ArenaState.copy_share_link,
                    variant="ghost",
                    data_testid="share",
                ),
                align="center",
                spacing="3",
                wrap="wrap",
            ),
        ),
        align="center",
        width="100%",
        # Mounted with the panes and hidden when the round is not votable: a bar that mounted
        # when the round's id arrived would render beside its first tokens and delay them.
        display=rx.cond(ArenaState.shows_votes, "flex", "none"),
        # While the round can be voted on, the bar stays at the bottom of the screen: on a
        # phone the answers stack, and nobody should scroll past a whole answer to vote.
        position=rx.cond(ArenaState.votable, "sticky", "static"),
        bottom="0",
        z_index="2",
        padding_y="0.75em",
        background_color=rx.color("gray", 1),
        border_top=rx.cond(ArenaState.votable, f"1px solid {rx.color('gray', 5)}", "none"),
        role="group",
        aria_label="Your vote",
        data_testid="vote-bar",
    )
