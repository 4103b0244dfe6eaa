"""``workbench info``, ``workbench upgrade``, ``workbench plugins`` and ``workbench demo``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(commands: Any) -> None:
    info = commands.add_parser("info", help="what a bundle holds, in total and per source")
    info.add_argument(
        "bundle", metavar="BUNDLE", help="a bundle file, or a postgresql:// URL of a server bundle"
    )
    info.add_argument("--json", action="store_true", help="print as JSON")
    info.set_defaults(handler=run_info)

    upgrade = commands.add_parser(
        "upgrade",
        help="upgrade a bundle from an older app to this app's schema (a backup is written first)",
    )
    upgrade.add_argument(
        "bundle", metavar="BUNDLE", help="a bundle file, or a postgresql:// URL of a server bundle"
    )
    upgrade.set_defaults(handler=run_upgrade)

    plugins = commands.add_parser(
        "plugins",
        help="list installed plugins with their import formats, protocols and judge templates",
    )
    plugins.add_argument("--json", action="store_true", help="print as JSON")
    plugins.set_defaults(handler=run_plugins)

    demo = commands.add_parser(
        "demo", help="generate the demo bundle (procedurally drawn, clearly labelled as a demo)"
    )
    demo.add_argument("--out", type=Path, help="where to write it (default: the user data folder)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    demo.add_argument("--force", action="store_true", help="replace an existing demo bundle")
    demo.set_defaults(handler=run_demo)


def run_upgrade(args: argparse.Namespace) -> int:
    from workbench.storage import Bundle, MigrationDeclinedError

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
    from workbench.storage import Bundle
    from workbench.storage.queries import bundle_counts

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


def run_plugins(args: argparse.Namespace) -> int:
    from workbench.plugins import registry

    plugins = registry()
    listing: list[dict[str, Any]] = [
        {
            "name": plugin.name,
            "version": plugin.version,
            "api_version": plugin.api_version,
            "description": plugin.description,
            "importers": [
                {"format": imp.name, "version": imp.version, "description": imp.description}
                for imp in plugin.importers
            ],
            "protocols": [
                {"name": protocol.name, "title": protocol.title} for protocol in plugin.protocols
            ],
            "judge_templates": [
                {"name": template.name, "version": template.version, "title": template.title}
                for template in plugin.judge_templates
            ],
        }
        for plugin in plugins.plugins
    ]
    failures = [{"entry_point": f.entry_point, "error": f.error} for f in plugins.failures]
    if args.json:
        print(json.dumps({"plugins": listing, "failures": failures}, indent=2))
        return 0
    for plugin in listing:
        print(
            f"{plugin['name']} {plugin['version']} (plugin API {plugin['api_version']}): "
            f"{plugin['description']}"
        )
        for imp in plugin["importers"]:
            print(f"  import format {imp['format']} (v{imp['version']}): {imp['description']}")
        for protocol in plugin["protocols"]:
            print(f"  protocol {protocol['name']}: {protocol['title']}")
        for template in plugin["judge_templates"]:
            print(
                f"  judge template {template['name']} (v{template['version']}): {template['title']}"
            )
    for failure in failures:
        print(f"failed to load {failure['entry_point']}: {failure['error']}")
    return 1 if failures else 0


def run_demo(args: argparse.Namespace) -> int:
    from workbench.demo import generate_demo_bundle
    from workbench.paths import demo_bundle_path

    out = args.out or demo_bundle_path()
    path = generate_demo_bundle(out, seed=args.seed, replace=args.force)
    print(f"demo bundle written to {path}")
    return 0
