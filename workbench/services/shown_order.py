"""The order each annotator of a pairwise task is shown its two answers in.

The schedule decides who is left for the campaign as a whole (``services.scheduling``); on top
of it, the annotators of one task alternate: each is given the order fewer of the others were
given (their standing answers and skips, and the unexpired leases of those still at it), so
two annotators of a task see it in opposite orders and a task's k annotators see each order
k/2 times, within one. The first annotator of a task is shown the schedule's order, so one
annotator alone sees the campaign's counterbalanced schedule as it is, and a second is shown
every task the other way round, which the schedule balances as well. When the others are even
again (the third of three), the order is the one that evens out this annotator's own tally
(per model, times shown first less times shown second), the schedule's when that is even too.
Everything follows from the seed's schedule and the order tasks were handed out, nothing from
a clock or a random draw.

An annotator who is first on some tasks and second on others is shown each model first about
as often as second, but not within one: that holds exactly when each annotator keeps one place
in the tasks' order (one works ahead of the other, or in turns).

An offline pack carries the orders chosen when it was exported (the campaign setting
``shown_swapped``: the sequences shown swapped), so the annotator sees there what the main
bundle leased for them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Connection, bindparam, distinct, func, select

from workbench.storage.models import PairLease, ScheduledPair, Vote

#: the pack campaign's setting: the sequences of the tasks shown with the right model first
SHOWN_SWAPPED_SETTING = "shown_swapped"

# Built once (each binds its values): a hand-out runs them per task
_OTHERS_VOTED = (
    select(Vote.shown_swapped, func.count(distinct(Vote.annotator_id)))
    .where(
        Vote.pair_id == bindparam("pair"),
        Vote.annotator_id != bindparam("annotator"),
        Vote.retracted_at.is_(None),
    )
    .group_by(Vote.shown_swapped)
)
_LEASES = select(PairLease.annotator_id, PairLease.shown_swapped).where(
    PairLease.pair_id == bindparam("pair"), PairLease.expires_at > bindparam("now")
)
_OWN_SHOWN = (
    select(
        Vote.pair_id, ScheduledPair.left_model_id, ScheduledPair.right_model_id, Vote.shown_swapped
    )
    .join(ScheduledPair, ScheduledPair.id == Vote.pair_id)
    .where(
        Vote.campaign_id == bindparam("campaign"),
        Vote.annotator_id == bindparam("annotator"),
        Vote.retracted_at.is_(None),
    )
    .distinct()
)
_OWN_LEASED = (
    select(
        PairLease.pair_id,
        ScheduledPair.left_model_id,
        ScheduledPair.right_model_id,
        PairLease.shown_swapped,
    )
    .join(ScheduledPair, ScheduledPair.id == PairLease.pair_id)
    .where(
        ScheduledPair.campaign_id == bindparam("campaign"),
        PairLease.annotator_id == bindparam("annotator"),
        PairLease.expires_at > bindparam("now"),
    )
)


class ShownOrders:
    """One annotator's orders in one campaign: chooses the order of each task handed to them
    and keeps their tally (loaded from what is stored at the first choice)."""

    def __init__(
        self,
        campaign_id: int,
        annotator_id: int,
        pairwise: bool,
        fixed: frozenset[int] | None = None,
    ) -> None:
        self._campaign_id = campaign_id
        self._annotator_id = annotator_id
        self._pairwise = pairwise
        self._fixed = fixed
        #: per model (None: the reference answer), times shown first less times shown second
        self._tally: Counter[int | None] | None = None
        self._counted: set[int] = set()

    def _load(self, connection: Connection, now: datetime) -> Counter[int | None]:
        tally: Counter[int | None] = Counter()
        binds = {"campaign": self._campaign_id, "annotator": self._annotator_id, "now": now}
        for statement in (_OWN_SHOWN, _OWN_LEASED):
            for pair_id, left, right, swapped in connection.execute(statement, binds):
                if pair_id is not None and pair_id not in self._counted:
                    self._count(tally, pair_id, left, right, bool(swapped))
        return tally

    def _count(
        self,
        tally: Counter[int | None],
        pair_id: int,
        left: int | None,
        right: int | None,
        swapped: bool,
    ) -> None:
        first, second = (right, left) if swapped else (left, right)
        tally[first] += 1
        tally[second] -= 1
        self._counted.add(pair_id)

    def choose(
        self,
        connection: Connection,
        pair_id: int,
        sequence: int,
        left: int | None,
        right: int | None,
        now: datetime,
    ) -> bool:
        """Whether the task is shown swapped to this annotator (see the module docstring); a
        task they hold a lease on keeps the order it was leased in."""
        if not self._pairwise:
            return False
        if self._fixed is not None:
            return sequence in self._fixed
        straight = swapped = 0
        for annotator_id, leased_swapped in connection.execute(
            _LEASES, {"pair": pair_id, "now": now}
        ):
            if annotator_id == self._annotator_id:
                return bool(leased_swapped)
            if leased_swapped:
                swapped += 1
            else:
                straight += 1
        for voted_swapped, annotators in connection.execute(
            _OTHERS_VOTED, {"pair": pair_id, "annotator": self._annotator_id}
        ):
            if voted_swapped:
                swapped += annotators
            else:
                straight += annotators
        if self._tally is None:
            self._tally = self._load(connection, now)
        if straight != swapped:
            choice = swapped < straight
        elif straight == 0:
            choice = False  # the first to see it: the schedule's order
        else:
            choice = self._tally[left] - self._tally[right] > 0
        if pair_id not in self._counted:
            self._count(self._tally, pair_id, left, right, choice)
        return choice


def swapped_sequences(orders: Iterable[tuple[int, bool]]) -> list[int]:
    """The pack setting's value: the sequences of (sequence, swapped) shown swapped, sorted."""
    return sorted(sequence for sequence, swapped in orders if swapped)
