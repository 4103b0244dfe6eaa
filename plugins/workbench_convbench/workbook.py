"""Reading one sheet of an xlsx workbook into plain rows, with spreadsheet row numbers, so the
importer can check cells one by one and name the row a user would see in Excel.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError
from workbench.importers.limits import (
    DEFAULT_LIMITS,
    LimitExceededError,
    ReadLimits,
    check_file_size,
    check_rows,
)


class UnreadableWorkbookError(WorkbenchError):
    """The file cannot be read as an xlsx workbook, or lacks the expected sheet."""


@dataclass(frozen=True, slots=True)
class SheetRow:
    """The cell values of one row; ``number`` is the spreadsheet row number (header is 1)."""

    number: int
    values: tuple[Any, ...]

    @property
    def is_blank(self) -> bool:
        return all(
            value is None or (isinstance(value, str) and not value.strip()) for value in self.values
        )


@dataclass(frozen=True, slots=True)
class Sheet:
    header: tuple[str, ...]
    rows: Sequence[SheetRow]


def read_sheet(path: Path, sheet_name: str, limits: ReadLimits = DEFAULT_LIMITS) -> Sheet:
    """The header (row 1) and the data rows of ``sheet_name``, trailing blank rows dropped.

    Raises :class:`UnreadableWorkbookError` when the file is not a readable xlsx or has no
    such sheet, and :class:`LimitExceededError` when it is larger than ``limits`` allow: by
    its size, the sizes its zip parts declare, the rows its sheet declares, or the rows read.
    """
    check_file_size(path, limits.max_file_bytes)
    _check_inflated_size(path, limits)
    # openpyxl is imported here, not at module level, because plugins load at app start-up and
    # openpyxl alone takes about 0.15 s to import.
    import openpyxl

    try:
        # read_only streams the sheet XML instead of building a cell object per cell: about
        # 0.1 s for ConvBench's 578 rows, against several times that in the default mode.
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            if sheet_name not in workbook.sheetnames:
                found = ", ".join(f"'{name}'" for name in workbook.sheetnames) or "none"
                raise UnreadableWorkbookError(f"no sheet '{sheet_name}' (sheets found: {found})")
            worksheet = workbook[sheet_name]
            declared = worksheet.max_row  # the sheet's own <dimension>, read before any row
            if declared is not None and declared > limits.max_rows:
                raise LimitExceededError(
                    f"{path.name}: sheet '{sheet_name}' declares {declared:,} rows, over the "
                    f"limit of {limits.max_rows:,}"
                )
            # Some writers store a wrong used-range; without this reset, read-only mode would
            # stop at that range and silently drop rows.
            worksheet.reset_dimensions()
            raw_rows = _bounded_rows(worksheet.iter_rows(values_only=True), path.name, limits)
        finally:
            workbook.close()
    except (UnreadableWorkbookError, LimitExceededError):
        raise
    # A damaged xlsx surfaces from zipfile, zlib, the XML parser or openpyxl itself, with many
    # exception types; all of them mean the same thing to the user.
    except Exception as error:
        detail = str(error) or type(error).__name__
        raise UnreadableWorkbookError(f"not a readable xlsx: {detail}") from error

    if not raw_rows:
        return Sheet(header=(), rows=[])
    header = tuple("" if cell is None else str(cell).strip() for cell in raw_rows[0])
    rows = [
        SheetRow(number, _padded(values, len(header)))
        for number, values in enumerate(raw_rows[1:], start=2)
    ]
    while rows and rows[-1].is_blank:
        rows.pop()
    return Sheet(header=header, rows=rows)


def _bounded_rows(
    rows: Iterator[Sequence[Any]], name: str, limits: ReadLimits
) -> list[Sequence[Any]]:
    """The sheet's rows up to its last non-blank one, stopping past ``limits.max_rows``.

    Read-only mode yields an empty row for every row number skipped, so a sheet whose one row
    is numbered two billion would otherwise be two billion rows in memory; blank rows are
    only counted until a row with content follows them.
    """
    kept: list[Sequence[Any]] = []
    blanks = 0
    for number, values in enumerate(rows, start=1):
        check_rows(name, number, limits)
        if all(value is None for value in values):
            blanks += 1
            continue
        kept.extend([()] * blanks)
        blanks = 0
        kept.append(values)
    return kept


def _check_inflated_size(path: Path, limits: ReadLimits) -> None:
    """Refuse an xlsx whose zip parts declare more than ``limits.max_decompressed_bytes``."""
    try:
        with zipfile.ZipFile(path) as archive:
            declared = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError):
        return  # read_sheet reports an unreadable file in its own words
    if declared > limits.max_decompressed_bytes:
        raise LimitExceededError(
            f"{path.name}: inflates to {declared:,} bytes, over the limit of "
            f"{limits.max_decompressed_bytes:,}; refused as a decompression bomb"
        )


def _padded(values: Sequence[Any], width: int) -> tuple[Any, ...]:
    """Read-only rows are as long as their last stored cell (a row with no cell is an empty
    list, not a tuple); pad so columns line up."""
    return (*values, *(None,) * (width - len(values)))
