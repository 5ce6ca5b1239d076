"""``/review``: an expert reviewer's queues, and one blind item at a time (keys 1–5 vote)."""

from __future__ import annotations

import reflex as rx

from arena_app.components.layout import layout
from arena_app.components.panes import answer
from arena_app.components.vote_bar import VOTES
from arena_app.state.review import ReviewState


def _queue_card(queue: rx.Var) -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.vstack(
                rx.text(queue["name"], weight="bold"),
                rx.text(queue["progress"] + " · " + queue["k"], size="2", color_scheme="gray"),
                spacing="1",
                align="start",
            ),
            rx.spacer(),
            rx.button(
                "Review",
                on_click=ReviewState.open(queue["id"]),
                aria_label="Review " + queue["name"],
            ),
            align="center",
            width="100%",
        ),
        width="100%",
    )


def _queues() -> rx.Component:
    return rx.vstack(
        rx.text(
            "Each item is a round: a prompt and two answers from models you are not told. Vote "
            "as you would in the arena; nobody sees your verdict before giving theirs.",
            size="2",
            color_scheme="gray",
        ),
        rx.cond(
            ReviewState.queues.length() > 0,
            rx.vstack(rx.foreach(ReviewState.queues, _queue_card), width="100%"),
            rx.callout("No queue is waiting for you.", icon="inbox", width="100%"),
        ),
        width="100%",
    )


def _answer(label: str, text: rx.Var) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.badge(f"Answer {label}", size="2"),
            rx.box(answer(text), data_testid=f"review-answer-{label}", width="100%"),
            align="start",
            width="100%",
        ),
        width="100%",
    )


def _reason(choice: rx.Var) -> rx.Component:
    ticked = ReviewState.picked.contains(choice["id"])
    return rx.button(
        rx.cond(ticked, rx.icon("check", size=12)),
        choice["label"],
        on_click=ReviewState.toggle_reason(choice["id"]),
        variant=rx.cond(ticked, "solid", "outline"),
        color_scheme=rx.cond(ticked, "accent", "gray"),
        size="1",
        radius="full",
        aria_pressed=rx.cond(ticked, "true", "false"),
    )


def _item() -> rx.Component:
    s = ReviewState
    return rx.vstack(
        rx.hstack(
            rx.text("Item ", s.done + 1, " of ", s.total, size="2", data_testid="review-progress"),
            rx.progress(value=s.percent, width="12em", aria_label="Progress"),
            align="center",
            spacing="3",
        ),
        rx.cond(
            s.history.length() > 0,
            rx.el.details(
                rx.el.summary("Earlier in this conversation"),
                rx.foreach(
                    s.history,
                    lambda turn: rx.vstack(
                        rx.text(turn["prompt"], weight="medium", white_space="pre-wrap"),
                        rx.box(answer(turn["answer"]), width="100%"),
                        width="100%",
                        padding_y="0.5em",
                    ),
                ),
                data_testid="review-history",
                open=True,
            ),
        ),
        rx.card(
            rx.text(s.prompt, white_space="pre-wrap", data_testid="review-prompt"),
            width="100%",
        ),
        rx.grid(
            _answer("A", s.answer_a),
            _answer("B", s.answer_b),
            columns=rx.breakpoints(initial="1", md="2"),
            spacing="3",
            width="100%",
        ),
        rx.cond(
            s.reasons.length() > 0,
            rx.hstack(
                rx.text("Why? (optional)", size="1", color_scheme="gray"),
                rx.foreach(s.reasons, _reason),
                wrap="wrap",
                spacing="1",
                align="center",
            ),
        ),
        rx.text_area(
            placeholder="A comment for the discussion (optional)",
            value=s.comment,
            on_change=s.set_comment,
            aria_label="Comment",
            max_length=2000,
            width="100%",
        ),
        rx.hstack(
            *(
                rx.button(
                    label,
                    rx.code(key, variant="outline", size="1"),
                    id=f"vote-key-{key}",
                    on_click=s.give(value),
                    variant="soft" if value in ("both_good", "both_bad", "skip") else "solid",
                    data_testid=f"review-{value}",
                )
                for value, label, key in VOTES
            ),
            wrap="wrap",
            spacing="2",
        ),
        width="100%",
        spacing="3",
    )


def review_page() -> rx.Component:
    s = ReviewState
    return layout(
        rx.vstack(
            rx.hstack(
                rx.heading(rx.cond(s.queue_id != "", s.queue_name, "Review"), size="6"),
                rx.cond(
                    s.queue_id != "",
                    rx.button("All queues", on_click=s.back, variant="ghost", size="1"),
                ),
                align="center",
                spacing="3",
            ),
            rx.cond(
                s.notice != "",
                rx.callout(s.notice, color_scheme="red", role="alert", width="100%"),
            ),
            rx.cond(
                ~s.signed_in,
                rx.callout(
                    "Review queues are for reviewers: sign in with your organisation's account.",
                    icon="info",
                    width="100%",
                ),
                rx.cond(
                    s.queue_id == "",
                    _queues(),
                    rx.cond(
                        s.item_id != "",
                        _item(),
                        rx.callout(
                            "You have reviewed everything in this queue. Thank you.",
                            icon="circle-check",
                            color_scheme="green",
                            width="100%",
                            data_testid="review-finished",
                        ),
                    ),
                ),
            ),
            # Keys 1-5 vote (assets/keyboard.js presses the button with that id).
            rx.script(src="/keyboard.js"),
            spacing="4",
            width="100%",
        )
    )
