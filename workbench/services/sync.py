"""Push a bundle to a server and pull it back (or copy between any two bundle locations):
every table, images included, merged by natural key in one transaction on the target."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.progress import Progress
from workbench.storage.bundle import Bundle
from workbench.storage.dialects import parse_location
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "created": self.created,
            "seconds": round(self.seconds, 3),
            **self.transfer.as_dict(),
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
            with Bundle.building(target_location) as target:
                report = _copy_into(source, target, progress)
        else:
            with Bundle.open(target_location) as target:
                report = _copy_into(source, target, progress)
    sync = SyncReport(source.location, target.location, created, report, time.monotonic() - started)
    log.info(
        "copied %s into %s: %d rows added, %d updated in %.1f s",
        sync.source,
        sync.target,
        report.copied,
        report.updated,
        sync.seconds,
    )
    return sync


def _copy_into(source: Bundle, target: Bundle, progress: Progress | None) -> TransferReport:
    if source.revision() != target.revision():
        raise TransferRefusedError(
            f"{source.location} has schema {source.revision()} and {target.location} "
            f"{target.revision()}; open both with this version of the app first"
        )
    with source.read_session() as reading, target.session() as writing:
        return copy_rows(reading.connection(), writing.connection(), progress)


def push(bundle: str | Path, url: str, progress: Progress | None = None) -> SyncReport:
    """Copy a local bundle to the server bundle at ``url`` (created in an empty database)."""
    return copy_bundle_rows(bundle, url, progress)


def pull(url: str, bundle: str | Path, progress: Progress | None = None) -> SyncReport:
    """Copy the server bundle at ``url`` into a local bundle file (created when absent)."""
    return copy_bundle_rows(url, bundle, progress)
