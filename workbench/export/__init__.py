"""Exports of a bundle: the canonical item JSONL, labeled pairwise sets (JSONL and CSV) and
FastChat/Arena battles JSON, each with a format version, written atomically and
deterministically. docs/export.md describes the formats and the design."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.export.options import ExportOptions, ExportSummary, ImageMode, JudgmentSource

if TYPE_CHECKING:
    from workbench.export.service import FORMATS, export_bundle


def __getattr__(name: str) -> Any:
    if name in ("FORMATS", "export_bundle"):
        # start-up: the writers load pandas (through the Arena writer's weighting), so they load
        # when one is used and a command line that merely lists the formats starts fast
        from workbench.export import service

        return getattr(service, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FORMATS",
    "ExportOptions",
    "ExportSummary",
    "ImageMode",
    "JudgmentSource",
    "export_bundle",
]
