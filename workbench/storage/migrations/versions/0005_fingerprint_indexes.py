"""fingerprint indexes: the judgment fingerprint counts the rows the read model leaves out on
small partial indexes instead of scanning every vote and verdict

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26

The GUI polls the fingerprint every 400 ms and the leaderboard's kept counts read it after
every vote. Counting the live votes (``retracted_at IS NULL``) scanned the whole votes table:
0.35 s at 1,000,000 votes, on the GUI thread when a bundle opens. With these indexes a live
count is the table's count (SQLite counts the smallest index) less the few retracted rows,
each read from an index that holds only them.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: (index, table, the condition under which a row is left out of the read model)
INDEXES = (
    ("ix_votes_retracted", "votes", "retracted_at IS NOT NULL"),
    ("ix_judge_verdicts_failed", "judge_verdicts", "error IS NOT NULL"),
)


def upgrade() -> None:
    for name, table, condition in INDEXES:
        op.create_index(
            name,
            table,
            ["id"],
            sqlite_where=sa.text(condition),
            postgresql_where=sa.text(condition),
        )


def downgrade() -> None:
    for name, table, _condition in INDEXES:
        op.drop_index(name, table_name=table)
