"""``workbench export``: write a bundle's items, labeled pairwise sets or Arena battles to a
file (docs/export.md)."""

from __future__ import annotations

import argparse
import json

from workbench.cli.progress import TerminalProgress
from workbench.export import ExportOptions, ImageMode, JudgmentSource, export_bundle
from workbench.export.pseudonyms import pseudonym_key


def run_export(args: argparse.Namespace) -> int:
    options = ExportOptions(
        format=args.format,
        campaign=args.campaign,
        source=JudgmentSource(args.source),
        images=ImageMode(args.with_images),
        pseudonym_key=pseudonym_key() if args.pseudonymize else None,
        aggregate=args.aggregate,
        include_derived=args.include_derived,
    )

    progress = TerminalProgress()
    try:
        summary = export_bundle(
            args.bundle, args.out, options, progress=progress, replace_any_file=args.force
        )
    finally:
        progress.finish()
    if args.json:
        print(json.dumps(summary.as_dict(), indent=2))
        return 0
    print(f"wrote {summary.records} {summary.format} record(s) to {summary.path}")
    if summary.images_written:
        print(f"  {summary.images_written} image file(s) under {summary.path.parent / 'images'}")
    if summary.images_not_exported:
        print(
            f"  {summary.images_not_exported} stored image(s) named but not carried "
            "(--with-images none, the default; paths or embed carry them)"
        )
    for reason, count in sorted(summary.left_out.items()):
        print(f"  left out: {count} {reason.replace('_', ' ')}")
    for reason, count in sorted(summary.included.items()):
        print(f"  included on request: {count} {reason.replace('_', ' ')}")
    statement = summary.derived_statement()
    if statement is not None:
        print(f"  {statement}")
    return 0
