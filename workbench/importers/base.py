"""The importer protocol and the report an import fills in.

An importer reads files and yields domain records; it never touches the bundle. Problems with a
row go to the report as rejections (the row cannot be imported) or warnings (imported, but the
user should know, such as a missing image or an unreadable verdict). The import service decides
what a rejection means for the whole import (by default: nothing lands).
"""

from __future__ import annotations

import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.domain import ItemRecord, JudgmentRecord, ModelRecord, Origin, OutputRecord
from workbench.errors import WorkbenchError
from workbench.importers.images import ImageSpool
from workbench.importers.limits import DEFAULT_LIMITS, ReadLimits

Record = ItemRecord | OutputRecord | JudgmentRecord | ModelRecord

MAX_PROBLEMS_SHOWN = 20


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """One rejected row or warning: where it is and what is wrong."""

    file: str
    row: int | None
    field: str | None
    reason: str

    @classmethod
    def at(cls, origin: Origin | None, field: str | None, reason: str) -> ImportProblem:
        if origin is None:
            return cls("?", None, field, reason)
        return cls(origin.file, origin.row, field, reason)

    def __str__(self) -> str:
        where = self.file if self.row is None else f"{self.file}, row {self.row}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{where}: {self.reason}"

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "row": self.row, "field": self.field, "reason": self.reason}


@dataclass
class ImportReport:
    """What an import found wrong, filled in by the importer and by the import service."""

    rejections: list[ImportProblem] = field(default_factory=list)
    warnings: list[ImportProblem] = field(default_factory=list)
    cancel_requested: Callable[[], bool] = lambda: False
    #: the images the importer set aside while reading rows, which the import service takes
    #: as checked and the writer reads back; it lives as long as the report
    spool: ImageSpool | None = field(default=None, repr=False, compare=False)

    def image_spool(self, limits: ReadLimits = DEFAULT_LIMITS) -> ImageSpool:
        """This import's image spool, made on first use (an import without embedded images
        makes no file)."""
        if self.spool is None:
            self.spool = ImageSpool(limits.max_image_bytes)
            # A report dropped without close() (an importer read directly) still lets its
            # workers go. Only without waiting: the cycle collector runs finalizers on whatever
            # thread it interrupts, and a join there can wait on a lock that thread holds.
            weakref.finalize(self, self.spool.abandon)
        return self.spool

    def close(self) -> None:
        """Let go of what the import held while reading: its image spool's workers and file.
        The import service calls it when the import ends, however it ends."""
        if self.spool is not None:
            self.spool.close()

    def reject(self, origin: Origin | None, field: str | None, reason: str) -> None:
        self.rejections.append(ImportProblem.at(origin, field, reason))

    def warn(self, origin: Origin | None, field: str | None, reason: str) -> None:
        self.warnings.append(ImportProblem.at(origin, field, reason))


class ImportRejectedError(WorkbenchError):
    """The import did not land because rows were rejected (or a file could not be read)."""

    def __init__(self, problems: Sequence[ImportProblem], headline: str | None = None) -> None:
        self.problems = list(problems)
        shown = "\n".join(f"  {problem}" for problem in self.problems[:MAX_PROBLEMS_SHOWN])
        more = len(self.problems) - MAX_PROBLEMS_SHOWN
        if more > 0:
            shown += f"\n  ... and {more} more"
        first = headline or (
            f"import rejected: {len(self.problems)} problem(s); the bundle was not changed"
        )
        super().__init__(f"{first}\n{shown}" if shown else first)


class Importer(ABC):
    """A file format the app can import. Subclasses set the class attributes and implement
    :meth:`read`. Instances are stateless: one may serve many imports."""

    #: the name given to ``workbench import --format``
    name: str
    #: bumped whenever the records produced from the same files would change
    version: str
    #: one line for ``workbench plugins``
    description: str
    #: how much :meth:`read` may read (file sizes, inflated bytes, rows, image sizes); an
    #: instance may be given lower limits, as tests do to build bombs small
    limits: ReadLimits = DEFAULT_LIMITS

    def files(self, sources: Sequence[Path]) -> list[Path]:
        """The data files this import reads, for provenance and the re-import check.

        Images are not listed: they are content-addressed in the bundle anyway.
        """
        return files_under(sources)

    @abstractmethod
    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        """Yield the records found in ``sources``; report rows that cannot be imported."""


def files_under(sources: Sequence[Path], patterns: Sequence[str] = ("*",)) -> list[Path]:
    """The given files, plus the files matching ``patterns`` directly inside given folders."""
    found: list[Path] = []
    for source in sources:
        if source.is_dir():
            for pattern in patterns:
                found.extend(path for path in sorted(source.glob(pattern)) if path.is_file())
        else:
            found.append(source)
    return found


def missing_sources(sources: Sequence[Path]) -> list[Path]:
    return [source for source in sources if not source.exists()]


def unreadable_sources(sources: Sequence[Path]) -> list[Path]:
    """Sources that are neither a regular file nor a folder: a device such as /dev/zero, a
    pipe or a socket would be read forever, or block."""
    return [s for s in sources if s.exists() and not (s.is_file() or s.is_dir())]


def relative_name(path: Path, roots: Sequence[Path]) -> str:
    """A short name of ``path`` for messages: relative to the source folder it came from."""
    for root in roots:
        base = root if root.is_dir() else root.parent
        try:
            return str(path.relative_to(base))
        except ValueError:
            continue
    return path.name
