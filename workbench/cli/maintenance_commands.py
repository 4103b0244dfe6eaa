"""``workbench check``, ``workbench backup``, ``workbench backups`` and ``workbench restore``:
looking after a bundle file."""

from __future__ import annotations

import argparse
import json

from workbench.services.maintenance import (
    back_up,
    backups,
    bundle_file,
    check,
    restore,
    set_aside_stale_wal,
)


def run_check(args: argparse.Namespace) -> int:
    result = check(args.bundle, full=args.full)
    path, problems, backup = result.bundle, result.problems, result.latest_backup
    if result.wal_set_aside is not None and not args.json:
        print(f"{path}: {result.wal_set_aside.describe()}")
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    elif not problems:
        print(f"{path}: ok ({'full' if args.full else 'quick'} check)")
    else:
        print(f"{path} is damaged: {len(problems)} problem(s)")
        for problem in problems[:20]:
            print(f"  {problem}")
        if len(problems) > 20:
            print(f"  ... and {len(problems) - 20} more")
        if backup is not None:
            print(f"latest backup: {backup}; `workbench restore {path}` puts it back")
        else:
            print("no backup of it was found (beside it or in the backup folder)")
    return 0 if not problems else 1


def run_backup(args: argparse.Namespace) -> int:
    aside = set_aside_stale_wal(args.bundle)
    if aside is not None:
        print(f"{args.bundle}: {aside.describe()}")
    print(f"backed up to {back_up(args.bundle)}")
    return 0


def run_backups(args: argparse.Namespace) -> int:
    listing = [
        {
            "path": str(backup.path),
            "reason": backup.reason,
            "taken_at": backup.taken_at.isoformat(),
            "bytes": backup.path.stat().st_size,
        }
        for backup in backups(bundle_file(args.bundle))
    ]
    if args.json:
        print(json.dumps(listing, indent=2))
    elif not listing:
        print(f"no backups of {args.bundle}")
    for entry in [] if args.json else listing:
        print(f"{entry['taken_at']}  {entry['reason']:<8}{entry['bytes']:>12}  {entry['path']}")
    return 0


def run_restore(args: argparse.Namespace) -> int:
    result = restore(args.bundle, args.backup, force=args.force)
    print(f"restored {result.bundle} from {result.backup}")
    if result.aside is not None:
        print(f"the previous file was kept at {result.aside}")
    return 0
