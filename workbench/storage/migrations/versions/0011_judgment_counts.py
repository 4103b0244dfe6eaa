"""judgment counts: pairwise judgments counted per cell, kept with every write of judgments

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28

- ``judgment_counts``: per cell (the two sides as shown, the outcome, the store and kind, who
  judged, the item's source, turn, criterion, output context, and whether the judgment is
  derived) the judgments, the decisive ones of strength 2 or more, and the first one's position
  in stored order. A new table only; it is filled by counting the stored judgments.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY = (
    "model_a_id",
    "model_b_id",
    "outcome",
    "origin",
    "kind",
    "import_id",
    "campaign_id",
    "annotator_id",
    "judge_run_id",
    "source_id",
    "turn",
    "criterion",
    "context",
    "derived",
)


def upgrade() -> None:
    op.create_table(
        "judgment_counts",
        sa.Column("model_a_id", sa.Integer(), nullable=False),
        sa.Column("model_b_id", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("import_id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("judge_run_id", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("criterion", sa.Text(), nullable=False),
        sa.Column("context", sa.Text(), nullable=False),
        sa.Column("derived", sa.Boolean(), nullable=False),
        sa.Column("judgments", sa.BigInteger(), nullable=False),
        sa.Column("strong", sa.BigInteger(), nullable=False),
        sa.Column("first_position", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint(*KEY, name=op.f("pk_judgment_counts")),
    )
    # The count reads the judgments through the read model's declaration of its stores, which
    # reads only columns that exist since revision 0008, and writes only the table above.
    from workbench.storage.judgment_counts import recount

    recount(op.get_bind())


def downgrade() -> None:
    op.drop_table("judgment_counts")
