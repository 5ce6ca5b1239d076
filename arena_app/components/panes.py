"""The two anonymous answer panes and the turns already voted on."""

from __future__ import annotations

import reflex as rx

from arena_app.components.attachments import prompt_images
from arena_app.components.live_tail import live_tail
from arena_app.state.arena import ArenaState, LivePane


def copy_button(label: str, on_click: rx.EventType[()], testid: str) -> rx.Component:
    return rx.tooltip(
        rx.icon_button(
            rx.icon("copy", size=14),
            variant="ghost",
            size="1",
            color_scheme="gray",
            on_click=on_click,
            aria_label=label,
            data_testid=testid,
        ),
        content="Copy (Markdown)",
    )


def answer(text: rx.Var[str], class_name: str | rx.Var[str] = "arena-answer") -> rx.Component:
    """Model output is untrusted: Markdown without raw HTML (react-markdown also drops
    ``javascript:`` links), so nothing in an answer can run in the page."""
    return rx.markdown(text, use_raw=False, class_name=class_name)


@rx.memo
def markdown_block(text: rx.Var[str], class_name: rx.Var[str]) -> rx.Component:
    """Markdown that renders again only when its text changes (memoised), not on every flush
    of the pane around it: a whole block, or the open one (which a flush that freezes a block
    leaves empty, as it was)."""
    return answer(text, class_name=class_name)


def pane(
    slot: str,
    live: type[LivePane],
    error: rx.Var[str],
    done: rx.Var[bool],
    streaming: rx.Var[bool],
    reveal: rx.Var[str],
    feed: rx.Var[str],
) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.badge(f"Model {slot}", size="2", variant="soft"),
                rx.cond(
                    reveal != "",
                    rx.text(reveal, weight="bold", data_testid=f"reveal-{slot}"),
                ),
                rx.spacer(),
                # Still, not a spinner: an animation repaints the page every frame, and while
                # two answers stream that work delays their words (see benchmarks/ui_latency.py).
                rx.cond(
                    streaming & ~done,
                    rx.text("writing…", size="1", color_scheme="gray"),
                ),
                rx.cond(
                    done,
                    copy_button(
                        f"Copy answer {slot}", ArenaState.copy_answer(slot), f"copy-{slot}"
                    ),
                ),
                width="100%",
                align="center",
            ),
            rx.cond(
                error != "",
                rx.callout(
                    error,
                    icon="triangle_alert",
                    color_scheme="red",
                    size="1",
                    data_testid=f"error-{slot}",
                ),
            ),
            # The answer's box sits in a plain block, not straight in the flex column: a flex
            # item is never a relayout boundary, so each word would lay out the page again.
            rx.box(
                rx.box(
                    rx.foreach(
                        live.blocks,
                        lambda block: markdown_block(text=block, class_name="arena-answer"),
                    ),
                    # Marked by a class, not found by :last-of-type: a structural selector
                    # would restyle every block of the answer each time one is added. Not
                    # rendered while empty, as it is when the page loads and after every
                    # paragraph: the page's first render parses no Markdown, and a fold that
                    # freezes a block renders that block alone.
                    rx.cond(
                        live.open_block != "",
                        markdown_block(text=live.open_block, class_name="arena-answer arena-open"),
                    ),
                    live_tail(feed=feed, slot=slot, folded=live.folded, code=live.in_code),
                    class_name="arena-live",
                    data_testid=f"pane-{slot}",
                ),
                width="100%",
            ),
            spacing="2",
            width="100%",
            align="start",
        ),
        width="100%",
        role="region",
        aria_label=f"Answer {slot}",
    )


def prompt_bubble(text: rx.Var[str], testid: str) -> rx.Component:
    """The person's prompt above the answers to it, set apart as in a chat: on the right, in
    its own colour, its lines kept."""
    return rx.box(
        rx.text(text, size="3", white_space="pre-wrap", overflow_wrap="anywhere"),
        background_color=rx.color("accent", 3),
        border_radius="var(--radius-4)",
        padding_x="0.9em",
        padding_y="0.6em",
        max_width=rx.breakpoints(initial="100%", md="80%"),
        margin_left="auto",
        aria_label="Your prompt",
        data_testid=testid,
    )


def past_turn(turn: rx.Var[dict[str, str]], images: rx.Var[list[dict[str, str]]]) -> rx.Component:
    return rx.card(
        rx.vstack(
            prompt_images(images),
            prompt_bubble(turn["prompt"], "past-prompt"),
            rx.grid(
                *(
                    rx.box(
                        rx.hstack(
                            rx.text(turn[f"reveal_{x}"], size="1", color_scheme="gray"),
                            rx.spacer(),
                            copy_button(
                                f"Copy answer {x.upper()}",
                                rx.set_clipboard(turn[x]),
                                f"copy-past-{x}",
                            ),
                            width="100%",
                            align="center",
                        ),
                        answer(turn[x]),
                    )
                    for x in ("a", "b")
                ),
                columns=rx.breakpoints(initial="1", md="2"),
                spacing="3",
                width="100%",
            ),
            rx.badge(turn["outcome"], variant="outline"),
            spacing="2",
            width="100%",
        ),
        width="100%",
        variant="surface",
        data_testid="past-turn",
    )
