"""How the UI writes numbers people read."""

from __future__ import annotations

import math

__all__ = ["dollars"]


def dollars(amount: float) -> str:
    """US dollars as people read them: cents, or four significant digits below a cent."""
    if amount == 0 or amount >= 0.01:
        return f"${amount:,.2f}"
    return f"${amount:.{3 - math.floor(math.log10(amount))}f}"
