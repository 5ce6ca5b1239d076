"""Where the arena stores what people wrote and what the models answered, and how it is cleared.

``arena db forget-session`` and the text retention (``ARENA_TEXT_RETENTION_DAYS``) clear the same
columns the same way: text becomes the empty string and JSON lists keep their entries with their
text emptied, so every reader (the shared matchup page, a conversation, an export with its
text) shows an empty text and nothing changes shape. A turn's images (``turn_images``) go with
its prompt, in the same transaction, and each image no turn shows any more is deleted
(``arena_api.db.media.detach_images``); the round keeps how many it had
(``matchups.image_count``). No summary of the read model counts text or images, and no trigger
fires on these columns (``matchups``' update trigger only moves rounds whose categories
change), so clearing text leaves every summary as a recount would find it.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena_api.db.media import DetachedImages

__all__ = ["TEXTS", "ClearedText", "TextColumns"]


def _blank_list(column: str, key: str) -> str:
    """``column`` (a JSON list of objects) with each object's ``key`` emptied, in order."""
    return (
        f"(SELECT coalesce(jsonb_agg(e || jsonb_build_object('{key}', '') ORDER BY i), '[]')"
        f" FROM jsonb_array_elements({column}) WITH ORDINALITY AS x (e, i))"
    )


def _has_text(column: str, key: str) -> str:
    return f"""{column} @? '$[*].{key} ? (@ != "")'"""


@dataclass(frozen=True)
class TextColumns:
    """A table's text, and the round each row belongs to."""

    table: str
    #: ``SET`` assignments that clear the row's text.
    blank: str
    #: True while the row still holds text.
    has_text: str
    #: The column naming the row's round (``matchups.id``).
    round_column: str = "matchup_id"
    #: The row's images (``turn_images`` of a turn) go with its text.
    has_images: bool = False


TEXTS: tuple[TextColumns, ...] = (
    # the prompt, and the instructions the person steered the models with
    TextColumns(
        "matchups",
        f"prompt = '', steers = {_blank_list('steers', 'instruction')}",
        f"(prompt <> '' OR {_has_text('steers', 'instruction')})",
        round_column="id",
    ),
    # the prompt and its images: a turn that shows an image still holds something to clear
    TextColumns(
        "turns",
        "prompt = ''",
        "(prompt <> '' OR EXISTS (SELECT 1 FROM turn_images ti WHERE ti.turn_id = turns.id))",
        has_images=True,
    ),
    TextColumns("responses", "content = ''", "content <> ''"),
    # a judge's verdict quotes and discusses the prompt and the answers
    TextColumns(
        "judge_verdicts",
        f"reasoning = '', readings = {_blank_list('readings', 'text')}",
        f"(reasoning <> '' OR {_has_text('readings', 'text')})",
    ),
)


@dataclass(frozen=True)
class ClearedText:
    """How many rows had their text cleared, by what they held."""

    #: rounds (their prompt and steering instructions)
    rounds: int = 0
    #: turns of conversations (their prompt)
    turns: int = 0
    answers: int = 0
    #: judges' verdicts (their reasoning)
    verdicts: int = 0
    #: images taken off turns, and stored images deleted as no turn shows them any more
    images: DetachedImages = DetachedImages()

    @classmethod
    def of(cls, by_table: dict[str, int], images: DetachedImages | None = None) -> ClearedText:
        return cls(
            rounds=by_table.get("matchups", 0),
            turns=by_table.get("turns", 0),
            answers=by_table.get("responses", 0),
            verdicts=by_table.get("judge_verdicts", 0),
            images=images or DetachedImages(),
        )

    @property
    def total(self) -> int:
        return self.rounds + self.turns + self.answers + self.verdicts + self.images.links

    def describe(self) -> str:
        said = (
            f"{self.rounds:,} prompts, {self.turns:,} conversation turns, "
            f"{self.answers:,} answers, {self.verdicts:,} judge verdicts"
        )
        if self.images.links:  # an arena without image prompts reads as before
            said += (
                f", {self.images.links:,} images of turns "
                f"({self.images.deleted:,} deleted, shown nowhere else)"
            )
        return said
