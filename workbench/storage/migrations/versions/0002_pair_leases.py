"""pair leases: a task handed to an annotator counts towards its votes target until it expires

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A new table only: existing rows are untouched, so a 0001 bundle keeps all its data.
    op.create_table(
        "pair_leases",
        sa.Column("pair_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("leased_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_pair_leases_annotator_id_annotators"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["pair_id"],
            ["scheduled_pairs.id"],
            name=op.f("fk_pair_leases_pair_id_scheduled_pairs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("pair_id", "annotator_id", name=op.f("pk_pair_leases")),
    )


def downgrade() -> None:
    op.drop_table("pair_leases")
