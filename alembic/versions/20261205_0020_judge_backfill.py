"""judge verdicts may come from ``arena judge backfill``: a second opinion, never a vote

``arena judge backfill`` asks the judge about rounds people already voted on, so that the judge
can be checked against them (``GET /api/arena/analytics/judge-agreement``). Its verdicts are
stored like every other, with ``recorded = false``, under a source of their own, ``backfill``.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CHECK = "judge_verdicts_source_check"


def upgrade() -> None:
    op.drop_constraint(op.f(_CHECK), "judge_verdicts", type_="check")
    op.create_check_constraint(
        op.f(_CHECK), "judge_verdicts", "source IN ('request', 'autojudge', 'suite', 'backfill')"
    )


def downgrade() -> None:
    # The backfill's verdicts have no source before this revision: they go with it.
    op.execute("DELETE FROM judge_verdicts WHERE source = 'backfill'")
    op.drop_constraint(op.f(_CHECK), "judge_verdicts", type_="check")
    op.create_check_constraint(
        op.f(_CHECK), "judge_verdicts", "source IN ('request', 'autojudge', 'suite')"
    )
