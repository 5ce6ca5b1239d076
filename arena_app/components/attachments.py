"""Images on the arena page: the paperclip that picks them, the thumbnails of those waiting for
the next prompt, and those of a prompt already sent (each a link to the whole image)."""

from __future__ import annotations

import reflex as rx

from arena_app.state.attachments import ACCEPT, AttachmentsState

__all__ = ["PICK_ID", "attach_button", "pending_images", "prompt_images"]

#: The one upload of the page: the picker's, which paste and drop fill too (assets/attach.js).
PICK_ID = "pick-images"


def attach_button() -> rx.Component:
    """The paperclip: opens the file picker (hidden while the arena takes no images)."""
    button = rx.icon_button(
        rx.icon("paperclip", size=16),
        type="button",
        variant="ghost",
        size="2",
        aria_label="Attach images",
        title="Attach images (or paste or drop them on the prompt)",
        disabled=~AttachmentsState.can_attach,
        data_testid="attach",
    )
    return rx.cond(
        AttachmentsState.max_images > 0,
        # The label names the picker's hidden file input after the button inside it.
        rx.el.label(
            # The unstyled dropzone: the button is all it shows.
            rx.upload.root(
                button,
                id=PICK_ID,
                accept=ACCEPT,
                multiple=True,
                no_drag=True,
                no_keyboard=True,
                max_size=AttachmentsState.max_bytes,
                on_drop=AttachmentsState.add(rx.upload_files(upload_id=PICK_ID)),
                class_name="arena-pick",
                display="inline-flex",
            ),
            display="inline-flex",
            # What assets/attach.js needs to know whether a handoff will upload anything.
            data_max_bytes=AttachmentsState.max_bytes,
        ),
    )


def _pending(item: rx.Var[dict[str, str]], index: rx.Var[int]) -> rx.Component:
    number = index + 1
    return rx.box(
        rx.image(src=item["thumb"], alt=f"Attached image {number}: " + item["label"]),
        rx.icon_button(
            rx.icon("x", size=12),
            type="button",
            size="1",
            radius="full",
            variant="solid",
            color_scheme="gray",
            high_contrast=True,
            on_click=AttachmentsState.remove(item["id"]),
            aria_label=f"Remove image {number}",
            class_name="arena-thumb-remove",
            data_testid="remove-image",
        ),
        class_name="arena-thumb",
        data_testid="pending-image",
    )


def pending_images() -> rx.Component:
    """The images waiting for the next prompt, each removable."""
    return rx.cond(
        AttachmentsState.items.length() > 0,
        rx.hstack(
            rx.foreach(AttachmentsState.items, _pending),
            spacing="2",
            wrap="wrap",
            width="100%",
            role="group",
            aria_label="Attached images",
            data_testid="pending-images",
        ),
    )


def _sent(item: rx.Var[dict[str, str]], index: rx.Var[int]) -> rx.Component:
    number = index + 1
    return rx.box(
        rx.link(
            rx.image(src=item["thumb"], alt=f"Image {number} of the prompt: " + item["label"]),
            href=item["href"],
            is_external=True,
            title="Open the whole image in a new tab",
            display="block",
            height="100%",
        ),
        class_name="arena-thumb",
        data_testid="prompt-image",
    )


def prompt_images(images: rx.Var[list[dict[str, str]]]) -> rx.Component:
    """A sent prompt's images, above it on the right as the prompt is."""
    return rx.cond(
        images.length() > 0,
        rx.hstack(
            rx.foreach(images, _sent),
            spacing="2",
            wrap="wrap",
            justify="end",
            width="100%",
            role="group",
            aria_label="Images of the prompt",
        ),
    )
