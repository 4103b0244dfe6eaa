"""shown order and flags: which side each annotator saw first, and items or answers flagged by
annotators or by the model-name detector

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28

- ``votes.shown_swapped``: the annotator saw the task's right model first (left). A vote's
  ``model_a``/``model_b`` and choice stay in the task's scheduled order, so the annotators of
  one task can be shown it in opposite orders and their answers still compare; every vote
  stored before this revision was shown in the scheduled order (False).
- ``pair_leases.shown_swapped``: the order a handed-out task is shown in, so the next annotator
  of the task is given the other one and a resumed task keeps its order.
- ``flags``: an item, or one model's answer on it, flagged as a broken image, an answer that
  names its model, offensive, or something else with a note; by an annotator during a
  campaign or by the detector at import or judging.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "votes",
        sa.Column("shown_swapped", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.add_column(
        "pair_leases",
        sa.Column("shown_swapped", sa.Boolean(), server_default=sa.false(), nullable=False),
    )
    op.create_table(
        "flags",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("uuid", sa.String(length=32), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("model_id", sa.Integer(), nullable=True),
        sa.Column("campaign_id", sa.Integer(), nullable=True),
        sa.Column("pair_id", sa.Integer(), nullable=True),
        sa.Column("annotator_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("origin", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("retracted_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["item_id"], ["items.id"], name=op.f("fk_flags_item_id_items"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name=op.f("fk_flags_model_id_models")),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_flags_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["pair_id"],
            ["scheduled_pairs.id"],
            name=op.f("fk_flags_pair_id_scheduled_pairs"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["annotator_id"], ["annotators.id"], name=op.f("fk_flags_annotator_id_annotators")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_flags")),
        sa.UniqueConstraint("uuid", name=op.f("uq_flags_uuid")),
    )
    op.create_index(op.f("ix_flags_item_id"), "flags", ["item_id"])
    op.create_index(op.f("ix_flags_campaign_id"), "flags", ["campaign_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_flags_campaign_id"), table_name="flags")
    op.drop_index(op.f("ix_flags_item_id"), table_name="flags")
    op.drop_table("flags")
    # plain ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later): neither column is indexed
    op.drop_column("pair_leases", "shown_swapped")
    op.drop_column("votes", "shown_swapped")
