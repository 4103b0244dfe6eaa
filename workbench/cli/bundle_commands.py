"""``workbench info``, ``workbench upgrade``, ``workbench plugins`` and ``workbench demo``."""

from __future__ import annotations

import argparse
import json

from workbench.storage import Bundle, MigrationDeclinedError
from workbench.storage.queries import bundle_counts


def run_upgrade(args: argparse.Namespace) -> int:
    try:
        with Bundle.open(args.bundle, read_only=True) as bundle:  # writes nothing
            print(f"{bundle.location} is already at schema {bundle.revision()}; nothing to do")
        return 0
    except MigrationDeclinedError:
        pass  # older: upgrade it
    with Bundle.open(args.bundle) as bundle:  # a backup beside a file first, then the migration
        print(f"upgraded {bundle.location} to schema {bundle.revision()}")
    return 0


def run_info(args: argparse.Namespace) -> int:
    # read-only: info never writes, not even the upgrade of an older bundle (`workbench upgrade`)
    with Bundle.open(args.bundle, read_only=True) as bundle:
        with bundle.read_session() as session:
            counts = bundle_counts(session)
        counts["bundle"] = {
            # a server bundle has no path; its location never shows a password
            "path": str(bundle.path) if bundle.path is not None else None,
            "location": bundle.location,
            "schema": bundle.revision(),
            **bundle.info(),
        }
    if args.json:
        print(json.dumps(counts, indent=2, sort_keys=True))
        return 0
    print(f"{counts['bundle']['location']} (schema {counts['bundle']['schema']})")
    for key, value in counts["totals"].items():
        print(f"  {INFO_LABELS.get(key, key):<24}{value:>10}")
    for source, values in counts["sources"].items():
        print(f"  [{source}]")
        for key, value in values.items():
            print(f"    {INFO_LABELS.get(key, key):<22}{value:>10}")
    return 0


#: the words ``info`` shows for counts whose JSON key is not a word of docs/glossary.md (the
#: JSON keeps its keys, which scripts read)
INFO_LABELS = {"image_slots": "item_images"}
