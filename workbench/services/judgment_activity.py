"""A cheap fingerprint of a bundle's judgments, which the GUI polls to know when to refresh
its panels. Kept apart from :mod:`workbench.services.analysis` so that polling it, on the GUI
thread when a bundle opens, does not import the statistics and plotting stacks."""

from __future__ import annotations

from sqlalchemy import func, select

from workbench.storage.bundle import Bundle
from workbench.storage.models import JudgeVerdict, PriorJudgment, Vote


def judgment_activity(bundle: Bundle) -> tuple[int, ...]:
    """A cheap fingerprint of the bundle's judgments (count and largest id of imported
    judgments, active votes and verdicts): it changes when a judgment arrives or is retracted."""
    with bundle.read_session() as session:
        values: list[int] = []
        for table, where in (
            (PriorJudgment, None),
            (Vote, Vote.retracted_at.is_(None)),
            (JudgeVerdict, None),
        ):
            statement = select(func.count(table.id), func.max(table.id))
            if where is not None:
                statement = statement.where(where)
            count, largest = session.execute(statement).one()
            values += [int(count or 0), int(largest or 0)]
        return tuple(values)
