"""What an export is asked for (format, filters, image handling) and what it reports back."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from workbench.errors import WorkbenchError


class ExportError(WorkbenchError):
    """An export that cannot be made as asked; nothing was written."""


class ImageMode(StrEnum):
    """How images travel with an export."""

    EMBED = "embed"  # base64 inside the record
    PATHS = "paths"  # files beside the export, under images/<sha256>.<ext>
    NONE = "none"  # only the original reference, marked not exported


class JudgmentSource(StrEnum):
    """Which judgments an export carries, by who made them."""

    HUMAN = "human"
    JUDGE = "judge"
    ALL = "all"


@dataclass(frozen=True)
class ExportOptions:
    """``campaign`` keeps only the votes of that campaign (and drops imported judgments and
    judge verdicts); ``pseudonym_key`` set replaces annotator handles by a keyed hash;
    ``aggregate`` writes one record per judged pair instead of one per judgment;
    ``include_derived`` (Arena battles only) also writes the judgments an importer derived from
    others it stored, which the leaderboard leaves out by default."""

    format: str = "jsonl"
    campaign: str | None = None
    source: JudgmentSource = JudgmentSource.ALL
    images: ImageMode = ImageMode.NONE
    pseudonym_key: bytes | None = None
    aggregate: bool = False
    include_derived: bool = False


@dataclass
class ExportSummary:
    """What an export wrote; ``included`` counts what was written only because it was asked
    for (derived judgments with ``include_derived``)."""

    path: Path
    format: str
    records: int
    images_written: int = 0
    left_out: dict[str, int] = field(default_factory=dict)
    included: dict[str, int] = field(default_factory=dict)
    #: how images travelled (``none``, ``paths``, ``embed``) and how many stored pictures a
    #: ``none`` export named without carrying
    images: str = ImageMode.NONE.value
    images_not_exported: int = 0

    def as_dict(self) -> dict[str, object]:
        document: dict[str, object] = {
            "path": str(self.path),
            "format": self.format,
            "records": self.records,
            "images": self.images,
            "images_written": self.images_written,
            "images_not_exported": self.images_not_exported,
            "left_out": dict(sorted(self.left_out.items())),
        }
        if self.included:
            document["included"] = dict(sorted(self.included.items()))
        if self.format == "arena":
            document["derived_judgments"] = (
                "included"
                if self.included.get("derived_judgments")
                else "left out"
                if self.left_out.get("derived_judgments")
                else "none stored"
            )
        return document

    def derived_statement(self) -> str | None:
        """For Arena battles, whether they count derived judgments (the file answers the
        leaderboard's question only without them); None for the other formats, which carry
        every stored judgment."""
        if self.format != "arena":
            return None
        if self.included.get("derived_judgments"):
            return (
                "derived judgments: included (--include-derived); they restate judgments also "
                "written, so FastChat's tools count that evidence twice"
            )
        if self.left_out.get("derived_judgments"):
            return (
                "derived judgments: left out, as the leaderboard counts them "
                "(--include-derived writes them too)"
            )
        return "derived judgments: none stored"


#: export format name -> what it is (the writers are in :mod:`workbench.export.service`; the
#: names live here so the CLI can list them without loading the writers and pandas)
FORMAT_DESCRIPTIONS: dict[str, str] = {
    "items": "canonical item JSONL (re-importable with --format jsonl)",
    "jsonl": "labeled pairwise set, one JSON record per judgment",
    "csv": "labeled pairwise set as CSV, one row per judgment",
    "arena": "FastChat/Arena battles JSON (model_a, model_b, winner)",
}
