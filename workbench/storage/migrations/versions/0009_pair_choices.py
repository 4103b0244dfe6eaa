"""pair choices: the log of an adaptive campaign's choices of the next model pair

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28

- ``pair_choices``: one row per choice (its ordinal, the seeded draw, digests of the state and
  of the probabilities it came from, the candidate pairs open to the annotator, the pair drawn,
  the task handed out, and the votes counted since the previous choice), so a campaign's
  choices can be replayed from its seed and the order of votes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pair_choices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("draw", sa.Float(), nullable=False),
        sa.Column("state_sha256", sa.String(length=64), nullable=False),
        sa.Column("probabilities_sha256", sa.String(length=64), nullable=False),
        sa.Column("available", sa.JSON(), nullable=False),
        sa.Column("chosen", sa.Integer(), nullable=False),
        sa.Column("pair_id", sa.Integer(), nullable=False),
        sa.Column("annotator_id", sa.Integer(), nullable=True),
        sa.Column("votes_added", sa.JSON(), nullable=False),
        sa.Column("votes_removed", sa.JSON(), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"],
            ["campaigns.id"],
            name=op.f("fk_pair_choices_campaign_id_campaigns"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["pair_id"],
            ["scheduled_pairs.id"],
            name=op.f("fk_pair_choices_pair_id_scheduled_pairs"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["annotator_id"],
            ["annotators.id"],
            name=op.f("fk_pair_choices_annotator_id_annotators"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pair_choices")),
        sa.UniqueConstraint(
            "campaign_id", "ordinal", name=op.f("uq_pair_choices_campaign_id_ordinal")
        ),
    )


def downgrade() -> None:
    op.drop_table("pair_choices")
