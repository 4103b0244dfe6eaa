"""judgment coordinates: one meaning of a judgment's turn, context and unparsed verdict whether
it was imported, voted or returned by a judge run

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28

Rows written before this revision with the older conventions take the one the read model reads:

- a VisIT-Bench preference (importer ``visit-bench-preferences``) judges the whole tuple; it
  was stored as turn 1, campaign votes and judge runs on a whole item store no turn (NULL), so
  the same comparison never met across them. It now has no turn.
- a judge run kept its output context only under ``parameters.selection.context``; the read
  model reads ``parameters.context``, so every verdict read as ``standard``. It is copied there.
- a verdict the judge gave no readable answer for, which its template counts as a tie, was
  stored with an error, and every row with an error is left out of the read model. It is now
  an ordinary verdict flagged ``unparsed`` in its metadata (the reason moves there); rows with
  no outcome keep their error and stay out.

Data only: no table or index changes. The downgrade leaves the rows as they are (the older
read model reads them, with the older conventions' gaps).
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PREFERENCES_IMPORTER = "visit-bench-preferences"
UNPARSED_PREFIX = "unparsed: "
UNPARSED_KEY = "unparsed"

_prior = sa.table(
    "prior_judgments",
    sa.column("id", sa.Integer),
    sa.column("import_id", sa.Integer),
    sa.column("turn_index", sa.Integer),
)
_imports = sa.table("imports", sa.column("id", sa.Integer), sa.column("importer", sa.String))
_runs = sa.table("judge_runs", sa.column("id", sa.Integer), sa.column("parameters", sa.JSON))
_verdicts = sa.table(
    "judge_verdicts",
    sa.column("id", sa.Integer),
    sa.column("outcome", sa.String),
    sa.column("error", sa.Text),
    sa.column("metadata", sa.JSON),
)


def upgrade() -> None:
    connection = op.get_bind()
    preference_imports = sa.select(_imports.c.id).where(_imports.c.importer == PREFERENCES_IMPORTER)
    connection.execute(
        sa.update(_prior)
        .where(_prior.c.import_id.in_(preference_imports), _prior.c.turn_index == 1)
        .values(turn_index=None)
    )
    for run_id, parameters in connection.execute(sa.select(_runs.c.id, _runs.c.parameters)):
        moved = _with_context(parameters)
        if moved is not None:
            connection.execute(
                sa.update(_runs).where(_runs.c.id == run_id).values(parameters=moved)
            )
    unparsed = connection.execute(
        sa.select(_verdicts.c.id, _verdicts.c.error, _verdicts.c.metadata).where(
            _verdicts.c.error.like(UNPARSED_PREFIX + "%"), _verdicts.c.outcome.is_not(None)
        )
    ).all()
    for verdict_id, error, metadata in unparsed:
        flagged = {**(metadata or {}), UNPARSED_KEY: str(error)[len(UNPARSED_PREFIX) :]}
        connection.execute(
            sa.update(_verdicts)
            .where(_verdicts.c.id == verdict_id)
            .values(error=None, metadata=flagged)
        )


def _with_context(parameters: Any) -> dict[str, Any] | None:
    """The run's parameters with ``context`` copied from its selection, or None when there is
    nothing to copy or it is there already."""
    if not isinstance(parameters, dict) or "context" in parameters:
        return None
    selection = parameters.get("selection")
    context = selection.get("context") if isinstance(selection, dict) else None
    if not isinstance(context, str):
        return None
    return {**parameters, "context": context}


def downgrade() -> None:
    pass
