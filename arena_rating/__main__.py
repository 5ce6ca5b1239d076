"""``python -m arena_rating``: see ``arena_rating._cli``."""

from __future__ import annotations

from arena_rating._cli import main

raise SystemExit(main())
