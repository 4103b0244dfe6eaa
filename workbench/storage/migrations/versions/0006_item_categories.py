"""item categories: every category of an item that has several, so a category's board counts
every item tagged with it, not only those for which it is the first

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28

VisionArena tags a conversation with any number of categories (a struct of flags); an item's
one ``category`` column held only the first flag set, so the OCR board left out every OCR
conversation also tagged with an earlier category. The flags were kept in the item's metadata
(``categories``), so existing bundles get their rows from there.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ITEMS = sa.table("items", sa.column("id", sa.Integer()), sa.column("metadata", sa.JSON()))


def upgrade() -> None:
    table = op.create_table(
        "item_categories",
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("category", sa.String(length=256), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["items.id"],
            name=op.f("fk_item_categories_item_id_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("item_id", "category", name=op.f("pk_item_categories")),
    )
    op.create_index(op.f("ix_item_categories_category"), "item_categories", ["category"])
    rows: list[dict[str, object]] = []
    for item_id, metadata in op.get_bind().execute(sa.select(_ITEMS.c.id, _ITEMS.c.metadata)):
        flags = (metadata or {}).get("categories") if isinstance(metadata, dict) else None
        if isinstance(flags, dict):
            rows.extend(
                {"item_id": item_id, "category": str(name)}
                for name, flag in flags.items()
                if flag is True
            )
    if rows:
        op.bulk_insert(table, rows)


def downgrade() -> None:
    op.drop_index(op.f("ix_item_categories_category"), table_name="item_categories")
    op.drop_table("item_categories")
