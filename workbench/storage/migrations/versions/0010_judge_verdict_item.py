"""judge verdict item: a run stores one verdict per item, even when two items' requests are
byte-identical

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28

Schema 0003's unique index kept a run's verdicts once per (request, models, criterion, turn),
without the item: two look-alike items judged on text alone send the same request, and the
second item's verdict was dropped as a duplicate of the first's (1,018 of 1,020 battles on the
WildVision-Bench import). The index now carries the item. Every bundle at 0009 satisfies the
narrower old key, so it satisfies this one too: the upgrade neither drops nor adds a verdict
(resuming the run afterwards stores the missing item's verdict from the cached answer).
Downgrading keeps the first verdict of each old key, as schema 0003 would.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ux_judge_verdicts_request"
OLD_KEY = (
    "run_id, request_hash, model_a_id, coalesce(model_b_id, 0), criterion, coalesce(turn_index, -1)"
)
KEY = (
    "run_id, item_id, request_hash, model_a_id, coalesce(model_b_id, 0), criterion, "
    "coalesce(turn_index, -1)"
)


def upgrade() -> None:
    op.execute(f"DROP INDEX {INDEX}")
    op.execute(f"CREATE UNIQUE INDEX {INDEX} ON judge_verdicts ({KEY})")


def downgrade() -> None:
    op.execute(f"DROP INDEX {INDEX}")
    op.execute(
        "DELETE FROM judge_verdicts WHERE id NOT IN "
        f"(SELECT min(id) FROM judge_verdicts GROUP BY {OLD_KEY})"
    )
    op.execute(f"CREATE UNIQUE INDEX {INDEX} ON judge_verdicts ({OLD_KEY})")
