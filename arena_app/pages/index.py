"""The arena: a prompt, two anonymous streaming answers, five votes, the reveal."""

from __future__ import annotations

import reflex as rx

from arena_app.components.attachments import attach_button, pending_images, prompt_images
from arena_app.components.layout import layout
from arena_app.components.leaderboard import leaderboard
from arena_app.components.panes import pane, past_turn, prompt_bubble
from arena_app.components.vote_bar import vote_bar
from arena_app.components.welcome import examples, intro, setup_notice
from arena_app.state.arena import ArenaState, PaneAState, PaneBState, TemplateState

#: What the prompt box holds now, read in the browser when Send is clicked.
_TYPED = rx.Var(
    _js_expr="""(document.querySelector('textarea[data-testid="prompt"]')?.value ?? "")""",
    _var_type=str,
)


def _templates() -> rx.Component:
    return rx.hstack(
        rx.menu.root(
            rx.menu.trigger(
                rx.button(
                    rx.icon("bookmark", size=14),
                    "Templates",
                    variant="ghost",
                    size="1",
                    data_testid="templates",
                )
            ),
            rx.menu.content(
                rx.menu.item(
                    "Save current prompt", on_click=TemplateState.save, data_testid="save-template"
                ),
                rx.menu.separator(),
                rx.foreach(
                    TemplateState.names,
                    lambda name: rx.menu.item(name, on_click=TemplateState.use(name)),
                ),
            ),
        ),
        spacing="2",
    )


def _model_picker(slot: str, value: rx.Var[str], on_change: rx.EventType[str]) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(
            placeholder=f"Model {slot}", aria_label=f"Model {slot}", data_testid=f"pick-{slot}"
        ),
        rx.select.content(
            rx.foreach(
                ArenaState.roster,
                lambda model: rx.select.item(model["name"], value=model["id"]),
            )
        ),
        value=value,
        on_change=on_change,
        disabled=ArenaState.streaming,
        size="2",
    )


def _mode_bar() -> rx.Component:
    """Blind (the arena) or named side by side: two models the person picks, named at once."""
    return rx.hstack(
        rx.segmented_control.root(
            rx.segmented_control.item("Blind arena", value="blind"),
            rx.segmented_control.item("Side by side", value="named"),
            value=ArenaState.mode,
            on_change=ArenaState.set_mode,
            size="1",
            aria_label="Mode",
            data_testid="mode",
        ),
        rx.cond(
            ArenaState.mode == "named",
            rx.hstack(
                _model_picker("A", ArenaState.named_a, ArenaState.set_named_a),
                rx.text("vs", size="2", color_scheme="gray"),
                _model_picker("B", ArenaState.named_b, ArenaState.set_named_b),
                align="center",
                spacing="2",
                wrap="wrap",
            ),
        ),
        align="center",
        spacing="3",
        wrap="wrap",
        width="100%",
    )


def _prompt_box() -> rx.Component:
    return rx.vstack(
        _mode_bar(),
        # Images pasted into the box or dropped on it join the picker's (assets/attach.js).
        rx.vstack(
            pending_images(),
            rx.text_area(
                value=ArenaState.prompt,
                on_change=ArenaState.set_prompt,
                placeholder=ArenaState.prompt_placeholder,
                rows="3",
                width="100%",
                # Until the event socket has hydrated the page, typing and clicks would be lost.
                disabled=ArenaState.streaming | ~rx.State.is_hydrated,
                data_testid="prompt",
            ),
            spacing="2",
            width="100%",
            class_name="arena-drop",
            data_testid="prompt-area",
        ),
        rx.hstack(
            attach_button(),
            _templates(),
            rx.spacer(),
            rx.cond(
                ArenaState.has_round & ~ArenaState.streaming,
                rx.button(
                    rx.icon("refresh-cw", size=14),
                    "New round, same prompt",
                    variant="ghost",
                    size="2",
                    on_click=ArenaState.same_prompt,
                    data_testid="same-prompt",
                ),
            ),
            rx.cond(
                ArenaState.turns.length() > 0,
                rx.button(
                    "New conversation",
                    variant="ghost",
                    size="2",
                    on_click=ArenaState.new_conversation,
                ),
            ),
            rx.cond(
                ArenaState.streaming,
                rx.button(
                    rx.icon("square", size=14),
                    "Stop",
                    color_scheme="red",
                    variant="soft",
                    on_click=ArenaState.stop,
                    data_testid="stop",
                ),
                rx.button(
                    rx.icon("send", size=14),
                    "Send",
                    # The box's words as they stand go first: the debounced box may not have
                    # sent its last keystrokes yet when Send is clicked (or Enter pressed).
                    on_click=[ArenaState.set_prompt(_TYPED), ArenaState.send],
                    # Too few models to play: the setup notice says why, the button waits.
                    disabled=~rx.State.is_hydrated | (ArenaState.setup_notice != ""),
                    data_testid="send",
                ),
            ),
            width="100%",
            align="center",
            wrap="wrap",
        ),
        width="100%",
    )


def index() -> rx.Component:
    return layout(
        rx.grid(
            rx.vstack(
                rx.foreach(
                    ArenaState.turns,
                    lambda turn, i: past_turn(turn, ArenaState.turn_images[i]),
                ),
                rx.cond(ArenaState.shows_welcome, intro()),
                rx.cond(ArenaState.setup_notice != "", setup_notice()),
                _prompt_box(),
                rx.cond(ArenaState.shows_welcome & (ArenaState.examples.length() > 0), examples()),
                rx.cond(
                    ArenaState.notice != "",
                    rx.callout(
                        ArenaState.notice,
                        icon="info",
                        color_scheme="amber",
                        width="100%",
                        data_testid="notice",
                    ),
                ),
                # The round's panes and votes are laid out with the page and shown when a round
                # starts: mounted then, their first render would run beside the first tokens.
                rx.vstack(
                    prompt_images(ArenaState.round_images),
                    prompt_bubble(ArenaState.round_prompt, "round-prompt"),
                    rx.grid(
                        pane(
                            "A",
                            PaneAState,
                            ArenaState.error_a,
                            ArenaState.done_a,
                            ArenaState.streaming,
                            ArenaState.reveal_a,
                            ArenaState.live_feed,
                        ),
                        pane(
                            "B",
                            PaneBState,
                            ArenaState.error_b,
                            ArenaState.done_b,
                            ArenaState.streaming,
                            ArenaState.reveal_b,
                            ArenaState.live_feed,
                        ),
                        columns=rx.breakpoints(initial="1", md="2"),
                        spacing="4",
                        width="100%",
                    ),
                    vote_bar(),
                    width="100%",
                    spacing="4",
                    display=rx.cond(ArenaState.has_round, "flex", "none"),
                ),
                spacing="4",
                width="100%",
            ),
            leaderboard(),
            # The leaderboard's five columns need about 21rem; the arena takes the rest.
            columns=rx.breakpoints(initial="1", lg="minmax(0, 3fr) minmax(21rem, 1fr)"),
            spacing="5",
            width="100%",
        ),
        # Announced politely by screen readers: the round's steps, not every token.
        rx.box(
            ArenaState.announcement,
            aria_live="polite",
            class_name="arena-sr-only",
            data_testid="announcer",
        ),
        # Keys 1-5 vote; Enter sends, Shift+Enter is a new line (assets/keyboard.js).
        rx.script(src="/keyboard.js"),
        # Paste and drop of images (the picker is the page's rx.upload).
        rx.script(src="/attach.js"),
    )
