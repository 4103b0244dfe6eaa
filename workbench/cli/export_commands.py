"""``workbench export``: write a bundle's items, labeled pairwise sets or Arena battles to a
file (docs/export.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(commands: Any) -> None:
    from workbench.export.options import FORMAT_DESCRIPTIONS

    formats = "; ".join(f"{name}: {text}" for name, text in FORMAT_DESCRIPTIONS.items())
    export = commands.add_parser(
        "export",
        help="write items, labeled pairwise sets (JSONL/CSV) or Arena battles to a file",
        description=f"Formats: {formats}. The file is written whole or not at all.",
    )
    export.add_argument("bundle", metavar="BUNDLE")
    export.add_argument("--out", type=Path, required=True, metavar="FILE", help="file to write")
    export.add_argument(
        "--format",
        choices=tuple(FORMAT_DESCRIPTIONS),
        default="jsonl",
        help="what to write (default jsonl)",
    )
    export.add_argument("--campaign", metavar="NAME", help="only the votes of this campaign")
    export.add_argument(
        "--source",
        choices=("human", "judge", "all"),
        default="all",
        help="whose judgments: people's, judges' or all (default all)",
    )
    export.add_argument(
        "--with-images",
        choices=("embed", "paths", "none"),
        default="none",
        help="images as base64, as files under images/ beside FILE, or as references only "
        "(default: none)",
    )
    export.add_argument(
        "--pseudonymize",
        action="store_true",
        help="replace annotator handles by a keyed hash (key from VLM_WORKBENCH_PSEUDONYM_KEY, "
        "else random; never written)",
    )
    export.add_argument(
        "--aggregate",
        action="store_true",
        help="jsonl/csv: one record per judged pair (votes per side) instead of per judgment",
    )
    export.add_argument(
        "--include-derived",
        action="store_true",
        help="arena: also write the judgments an importer derived from others it stored "
        "(WildVision-Bench's battles, derived from GPT-4o's verdicts); left out by default, as "
        "the leaderboard leaves them out, so nothing counts twice",
    )
    export.add_argument(
        "--force",
        action="store_true",
        help="replace FILE even if it is not an earlier export (never a bundle or a link)",
    )
    export.add_argument("--json", action="store_true", help="print the summary as JSON")
    export.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    from workbench.export import ExportOptions, ImageMode, JudgmentSource, export_bundle
    from workbench.export.pseudonyms import pseudonym_key

    options = ExportOptions(
        format=args.format,
        campaign=args.campaign,
        source=JudgmentSource(args.source),
        images=ImageMode(args.with_images),
        pseudonym_key=pseudonym_key() if args.pseudonymize else None,
        aggregate=args.aggregate,
        include_derived=args.include_derived,
    )
    from workbench.cli.progress import TerminalProgress

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
