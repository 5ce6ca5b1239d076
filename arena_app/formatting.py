"""How the UI writes numbers people read."""

from __future__ import annotations

import math
import re

__all__ = ["code_spans", "dollars"]


def dollars(amount: float) -> str:
    """US dollars as people read them: cents, or four significant digits below a cent."""
    if amount == 0 or amount >= 0.01:
        return f"${amount:,.2f}"
    return f"${amount:.{3 - math.floor(math.log10(amount))}f}"


# A variable's name (with its value, if given), a path or a docs page: set as code in a hint.
_CODE = re.compile(
    r"(?<![\w/`])("
    r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?:=[^\s;()]*[^\s;().,])?"  # ARENA_MODELS=openai:a,openai:b
    r"|/[\w.-]+(?:/[\w.-]+)*[\w]"  # /app/models.yaml
    r"|docs/[\w.-]+\.md"  # docs/providers.md
    r")"
)


def code_spans(text: str) -> str:
    """``text`` as Markdown, with the names an operator types (variables and their values,
    paths, docs pages) set as code: a setup hint reads as the commands it names."""
    return _CODE.sub(lambda m: f"`{m.group(1)}`", text)
