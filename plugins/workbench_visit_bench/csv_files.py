"""Reading the CSV files VisIT-Bench publishes, strictly: UTF-8 text (a byte-order mark is
accepted), one header row, every row with as many fields as the header.

Rows are numbered as a spreadsheet shows them: the header is row 1, the first data row is row 2,
and a row whose quoted text spans several lines still counts as one row.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.domain import Origin
from workbench.errors import WorkbenchError
from workbench.importers.base import ImportReport
from workbench.importers.limits import DEFAULT_LIMITS, ReadLimits, check_file_size

HEADER_ROW = 1
FIRST_DATA_ROW = 2


class CsvFileError(WorkbenchError):
    """The file as a whole cannot be read as a CSV table; ``row`` is where reading stopped."""

    def __init__(self, reason: str, row: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.row = row


@dataclass(frozen=True, slots=True)
class CsvRow:
    number: int
    cells: dict[str, str]


@dataclass(frozen=True)
class CsvTable:
    """A decoded CSV file: its header and the text still to be split into rows."""

    path: Path
    columns: tuple[str, ...]
    text: str

    @property
    def name(self) -> str:
        return self.path.name

    def origin(self, row: int | None = None) -> Origin:
        return Origin(self.name, row)

    def has_columns(self, required: Sequence[str], what: str, report: ImportReport) -> bool:
        """Whether the header has every ``required`` column; if not, the file is rejected as a
        ``what`` CSV that lacks them."""
        missing = [column for column in required if column not in self.columns]
        if missing:
            report.reject(
                self.origin(),
                ", ".join(missing),
                f"{what} CSV lacks column(s): {', '.join(missing)}",
            )
        return not missing

    def rows(self, report: ImportReport) -> Iterator[CsvRow]:
        """The data rows. A row with the wrong number of fields is rejected and skipped; a
        quoting error ends the file with :class:`CsvFileError` (nothing after it is trusted)."""
        reader = csv.reader(io.StringIO(self.text, newline=""), strict=True)
        number = HEADER_ROW
        data_rows = 0
        try:
            next(reader)
            for number, fields in enumerate(reader, start=FIRST_DATA_ROW):
                if not fields:
                    continue
                data_rows += 1
                if len(fields) != len(self.columns):
                    report.reject(
                        self.origin(number),
                        None,
                        f"has {len(fields)} field(s) but the header has {len(self.columns)}"
                        + (" (is the file truncated?)" if len(fields) < len(self.columns) else ""),
                    )
                    continue
                yield CsvRow(number, dict(zip(self.columns, fields, strict=True)))
        except csv.Error as error:
            if "field limit" in str(error):
                raise CsvFileError(
                    f"a field is longer than {csv.field_size_limit():,} characters, the most a "
                    "cell may hold",
                    number + 1,
                ) from error
            raise CsvFileError(
                f"CSV cannot be read past here: {error} (is the file truncated?)", number + 1
            ) from error
        if data_rows == 0:
            report.warn(self.origin(), None, "has a header but no data rows")
        elif not self.text.endswith(("\n", "\r")):
            # Every CSV writer ends the last row with a line break; without one, the file may
            # have been cut inside that row's last field, which no other check can notice.
            report.warn(
                self.origin(number),
                None,
                "the file does not end with a line break: if it was cut short, this last row "
                "is incomplete",
            )


def open_table(path: Path, limits: ReadLimits = DEFAULT_LIMITS) -> CsvTable:
    """Decode ``path`` and read its header. Raises :class:`CsvFileError` for a file that is not
    UTF-8, is empty, has no usable header, or cannot be read, and :class:`LimitExceededError`
    for one larger than ``limits`` allow (checked before reading it)."""
    try:
        check_file_size(path, limits.max_file_bytes)
        data = path.read_bytes()
    except OSError as error:
        raise CsvFileError(f"cannot read file: {error.strerror or error}") from error
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise CsvFileError(
            f"not UTF-8 text: {error.reason} at byte {error.start} (line {line}); "
            "save the file as UTF-8 and import it again"
        ) from error
    if not text.strip():
        raise CsvFileError("file is empty")
    try:
        header = next(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as error:
        raise CsvFileError(f"header cannot be read: {error}", HEADER_ROW) from error
    columns = tuple(name.strip() for name in header)
    repeated = sorted({name for name in columns if name and columns.count(name) > 1})
    if repeated:
        raise CsvFileError(
            "header repeats column(s): " + ", ".join(repr(name) for name in repeated), HEADER_ROW
        )
    return CsvTable(path, columns, text)


def candidate_files(
    sources: Sequence[Path], recognises: Callable[[tuple[str, ...]], bool]
) -> list[Path]:
    """The files an import reads: every file given by name, and the ``*.csv`` files of given
    folders whose header ``recognises`` accepts.

    A folder's CSV whose header cannot be read at all is kept, so the import reports it instead
    of silently passing over a file the user may have meant.
    """
    found: list[Path] = []
    for source in sources:
        if not source.is_dir():
            found.append(source)
            continue
        for path in sorted(source.glob("*.csv")):
            if not path.is_file():
                continue
            try:
                columns = open_table(path).columns
            except CsvFileError:
                found.append(path)
                continue
            if recognises(columns):
                found.append(path)
    return found
