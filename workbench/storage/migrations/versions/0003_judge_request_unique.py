"""judge request unique: a run stores each request's verdicts once, and a run is claimed by the
process judging it

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25

Two processes running the same judge command at once stored every verdict twice (and doubled
the leaderboard's battles). A unique index on (run, request, models, criterion, turn) makes the
second insert of a verdict a no-op; the claim columns let a second process see that the run is
being judged and stay out of it. NULL model_b (a reference side) and NULL turn are folded to a
sentinel in the index, since both backends treat NULLs as distinct in a unique index.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ux_judge_verdicts_request"
KEY = (
    "run_id, request_hash, model_a_id, coalesce(model_b_id, 0), criterion, coalesce(turn_index, -1)"
)


def upgrade() -> None:
    # Bundles judged twice at once hold duplicates: keep the first of each, as the index would.
    op.execute(
        "DELETE FROM judge_verdicts WHERE id NOT IN "
        f"(SELECT min(id) FROM judge_verdicts GROUP BY {KEY})"
    )
    op.execute(f"CREATE UNIQUE INDEX {INDEX} ON judge_verdicts ({KEY})")
    with op.batch_alter_table("judge_runs") as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(length=256), nullable=True))
        batch_op.add_column(
            sa.Column("claim_expires_at", sa.DateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("judge_runs") as batch_op:
        batch_op.drop_column("claim_expires_at")
        batch_op.drop_column("claimed_by")
    op.execute(f"DROP INDEX {INDEX}")
