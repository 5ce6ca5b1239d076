"""Cutting a streaming answer into whole Markdown blocks and the one block still being written.

The browser renders each whole block once and re-renders only the open block on every flush, so
the Markdown work per flush does not grow with the answer, and a flush inside a block sends that
block alone (the list of whole blocks goes out when a block ends). Outside a code fence, a
blank line ends a block at once, unless the block is a list: a list ends before a line after a
blank one that starts a new block, not an indented continuation and not another item (a list
stays one block, so it keeps its numbering and spacing). Each block renders as it would inside
the whole text.

An open block longer than ``limit`` is cut anyway, so that one enormous code listing or paragraph
cannot make every flush expensive: a code block at its last line break, closed in the frozen part
and reopened in the rest; a paragraph at its last line break or space.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Blocks", "freeze_blocks", "shows_as_typed"]

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"\s*([-*+]|\d{1,9}[.)])(\s|$)")
_MAYBE_LIST_ITEM = re.compile(r"([-*+]|\d{1,9}[.)]?)$")  # a line that may still become one


# What Markdown (CommonMark, GFM, math) may render otherwise than as typed, inside a line:
# emphasis, code, links and images, autolinks, entities, escapes, strikethrough, math, tables,
# headings and setext underlines, and list markers.
_INLINE_SYNTAX = re.compile(r"[*_`\[\]()!<>&\\~$|#=+\-]|://|www\.")


def shows_as_typed(text: str, at_line_start: bool) -> bool:
    """Whether ``text``, the next words of the open block, looks the same as plain text as it
    will as Markdown: one line of prose with none of Markdown's syntax that does not start a
    line with indentation or a number. The page shows such words at once in its live tail, so
    taking them into the Markdown can wait for their line to end."""
    if "\n" in text or _INLINE_SYNTAX.search(text):
        return False
    return not (at_line_start and (text[:1].isspace() or text[:1].isdigit()))


class Blocks(NamedTuple):
    whole: list[str]
    rest: str
    in_code: bool  # the rest is inside an open code block


def freeze_blocks(text: str, limit: int) -> Blocks:
    """Split ``text`` into whole blocks to freeze and the open rest."""
    blocks: list[str] = []
    start = position = opened = 0
    fence = fence_line = ""
    after_blank = listed = False
    for line in text.splitlines(keepends=True):
        complete = line.endswith("\n")
        if listed and after_blank and not fence and _starts_block(line, complete):
            # A list ends before a line after a blank one that starts a new block.
            blocks.append(text[start:position])
            start, listed = position, False
        marker = _FENCE.match(line)
        if not fence and marker:
            fence, fence_line, opened = marker.group(1), line, position + len(line)
        elif fence and marker and complete and _closes(line, fence):
            fence = ""
        elif not fence and _LIST_ITEM.match(line):
            listed = True
        after_blank = complete and not line.strip()
        position += len(line)
        if after_blank and not fence and not listed and text[start:position].strip():
            # Any other block ends at its blank line, at once: the words after it start a line
            # of their own, not the end of the block's last line, and the block renders once,
            # frozen. Blank lines alone are no block: they lead the next one.
            blocks.append(text[start:position])
            start = position
    rest = text[start:]
    if len(rest) > limit:
        frozen, rest = _cut(rest, fence, fence_line, opened - start)
        if frozen:
            blocks.append(frozen)
    return Blocks(blocks, rest, bool(fence))


def _starts_block(line: str, complete: bool) -> bool:
    if not line.strip() or line[0] in " \t":
        return False
    if not complete and _MAYBE_LIST_ITEM.match(line):
        return False  # "1" may yet become "1. item"
    return not _LIST_ITEM.match(line)


def _closes(line: str, fence: str) -> bool:
    run = line.strip()
    return set(run) == {fence[0]} and len(run) >= len(fence)


def _cut(rest: str, fence: str, fence_line: str, code_from: int) -> tuple[str, str]:
    """Cut an over-long open block at its last line break (or, in prose, space); in a code block
    (whose code starts at ``code_from``), close it before the cut and reopen it after."""
    if fence:
        cut = rest.rfind("\n", 0, len(rest) - 1) + 1
        if cut <= code_from:
            return "", rest
        return rest[:cut] + fence + "\n", fence_line + rest[cut:]
    cut = rest.rfind("\n", 0, len(rest) - 1) + 1 or rest.rfind(" ", 0, len(rest) - 1) + 1
    return rest[:cut], rest[cut:]
