"""Push a bundle to a server and pull it back (or copy between any two bundle locations):
every table, images included, merged by natural key in one transaction on the target."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from workbench.progress import Progress
from workbench.services.packs import MergeConflict
from workbench.storage.bundle import Bundle
from workbench.storage.dialects import parse_location
from workbench.storage.errors import BundleExistsError
from workbench.storage.models import Annotator, ScheduledPair, Vote
from workbench.storage.transfer import TransferRefusedError, TransferReport, copy_rows

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SyncReport:
    """What one push or pull did: where from and to, whether the target was created, and the
    rows copied per table."""

    source: str
    target: str
    created: bool
    transfer: TransferReport
    seconds: float
    #: tasks the target now holds two standing answers to from one annotator (a pulled copy
    #: voted on while the server took votes too), reported as a pack merge reports them
    conflicts: list[MergeConflict] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "created": self.created,
            "seconds": round(self.seconds, 3),
            **self.transfer.as_dict(),
            "conflicts": [conflict.as_dict() for conflict in self.conflicts],
        }


def copy_bundle_rows(
    source_location: str | Path, target_location: str | Path, progress: Progress | None = None
) -> SyncReport:
    """Copy everything the bundle at ``source_location`` holds into ``target_location``.

    The target is created when absent (no file, or an empty database). Either bundle is first
    upgraded to this app's schema if it is older. The target must be empty or hold the same
    bundle (pushed or pulled before); rows it already holds are skipped, so copying twice
    changes nothing the second time.
    """
    if parse_location(source_location).same_bundle(parse_location(target_location)):
        raise TransferRefusedError("the source and the target are the same bundle")
    started = time.monotonic()
    with Bundle.open(source_location) as source:
        created = not Bundle.exists(target_location)
        if created:
            # Built aside and published whole: a failure removes only this private file.
            try:
                with Bundle.building(target_location) as target:
                    report, conflicts = _copy_into(source, target, progress)
            except BundleExistsError:
                # Another pull created it first: merge into it, as into any copy of the
                # bundle (the rows it already holds are skipped).
                log.info("%s was created meanwhile; merging into it", target_location)
                created = False
        if not created:
            with Bundle.open(target_location) as target:
                report, conflicts = _copy_into(source, target, progress)
    sync = SyncReport(
        source.location,
        target.location,
        created,
        report,
        time.monotonic() - started,
        conflicts,
    )
    log.info(
        "copied %s into %s: %d rows added, %d updated in %.1f s",
        sync.source,
        sync.target,
        report.copied,
        report.updated,
        sync.seconds,
    )
    return sync


def _copy_into(
    source: Bundle, target: Bundle, progress: Progress | None
) -> tuple[TransferReport, list[MergeConflict]]:
    if source.revision() != target.revision():
        raise TransferRefusedError(
            f"{source.location} has schema {source.revision()} and {target.location} "
            f"{target.revision()}; open both with this version of the app first"
        )
    with source.read_session() as reading, target.session() as writing:
        report = copy_rows(reading.connection(), writing.connection(), progress)
        return report, answered_twice(writing)


def answered_twice(session: Session) -> list[MergeConflict]:
    """One ``answered_twice`` conflict per task and annotator with more than one standing
    (not retracted) vote on one criterion: the rule and the words of a pack merge. Both votes
    are kept; which one should count is the annotator's call (retract the other)."""
    groups = select(Vote.pair_id, Vote.annotator_id, Vote.criterion).where(
        Vote.retracted_at.is_(None), Vote.pair_id.is_not(None)
    )
    doubled = (
        groups.group_by(Vote.pair_id, Vote.annotator_id, Vote.criterion)
        .having(func.count() > 1)
        .subquery()
    )
    rows = session.execute(
        select(ScheduledPair.sequence, Annotator.handle, Vote.pair_id, Vote.annotator_id, Vote.uuid)
        .join(
            doubled,
            (doubled.c.pair_id == Vote.pair_id)
            & (doubled.c.annotator_id == Vote.annotator_id)
            & (doubled.c.criterion == Vote.criterion),
        )
        .join(ScheduledPair, ScheduledPair.id == Vote.pair_id)
        .join(Annotator, Annotator.id == Vote.annotator_id)
        .where(Vote.retracted_at.is_(None))
        .order_by(Vote.pair_id, Vote.annotator_id, Vote.uuid)
    ).all()
    found: dict[tuple[int | None, int], tuple[int, str, list[str]]] = {}
    for sequence, handle, pair_id, annotator_id, uuid in rows:
        found.setdefault((pair_id, annotator_id), (sequence, handle, []))[2].append(uuid)
    return [
        MergeConflict(
            "answered_twice",
            sequence,
            handle,
            uuids,
            "the annotator has more than one standing answer to this task (all kept; "
            "retract the ones that should not count)",
        )
        for sequence, handle, uuids in found.values()
    ]


def push(bundle: str | Path, url: str, progress: Progress | None = None) -> SyncReport:
    """Copy a local bundle to the server bundle at ``url`` (created in an empty database)."""
    return copy_bundle_rows(bundle, url, progress)


def pull(url: str, bundle: str | Path, progress: Progress | None = None) -> SyncReport:
    """Copy the server bundle at ``url`` into a local bundle file (created when absent)."""
    return copy_bundle_rows(url, bundle, progress)
