"""``workbench import SOURCE... --format NAME --into BUNDLE``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.progress import TerminalProgress
from workbench.errors import WorkbenchError
from workbench.services.importing import import_files
from workbench.services.maintenance import automatic_backup
from workbench.storage.locations import location_file


def run(args: argparse.Namespace) -> int:
    # a bundle this import creates needs no backup yet: a copy would only double it
    into_file = location_file(args.into)
    existed = into_file is not None and into_file.is_file()
    progress = TerminalProgress()
    try:
        result = import_files(
            args.into,
            args.sources,
            args.format,
            skip_rejected=args.skip_rejected,
            progress=progress,
        )
    finally:
        progress.finish()
    if existed and not result.already_imported:
        assert into_file is not None
        _back_up_if_due(into_file)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2, sort_keys=True))
        return 0
    if result.already_imported:
        print(f"already imported (import #{result.import_id}); nothing changed")
        return 0
    counts = ", ".join(f"{key} {value}" for key, value in result.counts.items())
    print(f"imported {args.format} into {args.into}: {counts}")
    for label, problems in (("warning", result.warnings), ("rejected", result.rejections)):
        for problem in problems[:20]:
            print(f"  {label}: {problem}", file=sys.stderr)
        if len(problems) > 20:
            print(f"  ... {len(problems) - 20} more {label} rows", file=sys.stderr)
    return 0


def _back_up_if_due(path: Path) -> None:
    """The daily automatic backup the app makes on opening a bundle file, made after a CLI
    import too, so `workbench restore` has something after a CLI-only workflow. Made once the
    import has landed: a refused import changes nothing, not even the backups. A backup that
    fails is reported and does not fail the import."""

    try:
        backup, _all_backups_bytes = automatic_backup(path)
    except WorkbenchError as error:
        print(f"workbench: no automatic backup after the import: {error}", file=sys.stderr)
        return
    if backup is not None:
        size = backup.stat().st_size / 1e6
        print(f"automatic backup written to {backup} ({size:.1f} MB)", file=sys.stderr)
