"""campaign counters (progress kept with every vote, undo, skip and lease) and adjudications

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _campaign_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["campaign_id"],
        ["campaigns.id"],
        name=op.f(f"fk_{table}_campaign_id_campaigns"),
        ondelete="CASCADE",
    )


def _pair_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["pair_id"],
        ["scheduled_pairs.id"],
        name=op.f(f"fk_{table}_pair_id_scheduled_pairs"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    # New tables only; the counters are then filled by a recount of the stored votes and leases.
    op.create_table(
        "campaign_counts",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("tasks", sa.Integer(), nullable=False),
        sa.Column("gold_tasks", sa.Integer(), nullable=False),
        sa.Column("complete_tasks", sa.Integer(), nullable=False),
        sa.Column("answered", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("leases", sa.Integer(), nullable=False),
        _campaign_fk("campaign_counts"),
        sa.PrimaryKeyConstraint("campaign_id", name=op.f("pk_campaign_counts")),
    )
    op.create_table(
        "campaign_pair_counts",
        sa.Column("pair_id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("skips", sa.Integer(), nullable=False),
        sa.Column("leases", sa.Integer(), nullable=False),
        _campaign_fk("campaign_pair_counts"),
        _pair_fk("campaign_pair_counts"),
        sa.PrimaryKeyConstraint("pair_id", name=op.f("pk_campaign_pair_counts")),
    )
    op.create_index(
        op.f("ix_campaign_pair_counts_campaign_id"), "campaign_pair_counts", ["campaign_id"]
    )
    op.create_table(
        "campaign_annotator_counts",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=False),
        sa.Column("answered", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("answered_open", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_campaign_annotator_counts_annotator_id_annotators"),
            ondelete="CASCADE",
        ),
        _campaign_fk("campaign_annotator_counts"),
        sa.PrimaryKeyConstraint(
            "campaign_id", "annotator_id", name=op.f("pk_campaign_annotator_counts")
        ),
    )
    op.create_table(
        "adjudications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("pair_id", sa.Integer(), nullable=False),
        sa.Column("criterion", sa.String(length=64), nullable=False),
        sa.Column("choice", sa.String(length=32), nullable=True),
        sa.Column("grade", sa.Float(), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("adjudicator", sa.String(length=128), nullable=False),
        sa.Column("adjudicated_at", sa.DateTime(timezone=True), nullable=False),
        _campaign_fk("adjudications"),
        _pair_fk("adjudications"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_adjudications")),
        sa.UniqueConstraint(
            "pair_id", "criterion", name=op.f("uq_adjudications_pair_id_criterion")
        ),
    )
    op.create_index(op.f("ix_adjudications_campaign_id"), "adjudications", ["campaign_id"])
    # The recount reads only columns that exist since revision 0002 (votes, scheduled_pairs,
    # pair_leases) and writes only the tables above.
    from workbench.storage.counters import rebuild_counters

    rebuild_counters(op.get_bind())


def downgrade() -> None:
    op.drop_index(op.f("ix_adjudications_campaign_id"), table_name="adjudications")
    op.drop_table("adjudications")
    op.drop_table("campaign_annotator_counts")
    op.drop_index(op.f("ix_campaign_pair_counts_campaign_id"), table_name="campaign_pair_counts")
    op.drop_table("campaign_pair_counts")
    op.drop_table("campaign_counts")
