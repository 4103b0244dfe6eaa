"""``workbench plugins``, ``workbench judge-templates`` and ``workbench campaign protocols``:
what the installed plugins offer, read from the plugin registry."""

from __future__ import annotations

import argparse
import json
from typing import Any

from workbench.plugins import registry


def run_plugins(args: argparse.Namespace) -> int:
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


def run_protocols(args: argparse.Namespace) -> int:
    installed = registry().protocols()
    protocols: list[dict[str, Any]] = [
        {
            "name": protocol.name,
            "title": protocol.title,
            "display": protocol.display.value,
            "criteria": [criterion.name for criterion in protocol.criteria],
            "choices": {choice.key: choice.label for choice in protocol.choices},
            "grade": (
                [protocol.grade_scale.minimum, protocol.grade_scale.maximum]
                if protocol.grade_scale
                else None
            ),
            "per_turn": protocol.per_turn,
            "shows_reference": protocol.shows_reference,
        }
        for protocol in installed
    ]
    if args.json:
        print(json.dumps(protocols, indent=2, ensure_ascii=False))
        return 0
    for protocol in installed:
        answers = ", ".join(f"{choice.key}={choice.label}" for choice in protocol.choices)
        if protocol.grade_scale is not None:
            scale = protocol.grade_scale
            answers = f"grade {scale.minimum:g}-{scale.maximum:g}"
        print(f"{protocol.name}: {protocol.title} [{answers}]")
    return 0


def run_templates(args: argparse.Namespace) -> int:
    plugins = registry()
    if args.show:
        template = plugins.judge_template(args.show)
        if args.json:
            print(json.dumps(template.as_record(), indent=2, ensure_ascii=False))
            return 0
        record = template.as_record()
        print(f"{template.label}: {template.title}")
        print(f"  {template.description}")
        print(f"  plugin: {plugins.plugin_of_template(template).name}")
        print(
            f"  mode: {record['mode']}, criteria: {', '.join(template.criteria)}"
            + (", plus one verdict per turn" if template.turn_verdicts else "")
        )
        images = f"yes, long side at most {template.max_image_side} px"
        print(f"  images sent: {images if template.send_images else 'no'}")
        print(f"  verdict read by: {template.parse.name}: {template.parse.description}")
        print(f"  no verdict: {'a tie, flagged' if template.unparsed == 'tie' else 'no outcome'}")
        print("\n--- system ---\n" + template.system)
        print("\n--- user ---\n" + template.user)
        if template.extraction is not None:
            print("\n--- answer extraction follow-up (system) ---\n" + template.extraction.system)
            print("\n--- answer extraction follow-up (user) ---\n" + template.extraction.user)
        if template.overall_pass is not None:
            step = template.overall_pass
            print("\n--- overall pass, fed the turns' judgments (system) ---\n" + step.system)
            print("\n--- overall pass, fed the turns' judgments (user) ---\n" + step.user)
        return 0
    listing: list[dict[str, Any]] = [
        {
            "name": template.name,
            "version": template.version,
            "plugin": plugins.plugin_of_template(template).name,
            "mode": template.mode.value,
            "images": template.send_images,
            "title": template.title,
            "description": template.description,
        }
        for template in plugins.judge_templates()
    ]
    if args.json:
        print(json.dumps(listing, indent=2, ensure_ascii=False))
        return 0
    if not listing:
        print("no judge templates installed")
    for entry in listing:
        kind = entry["mode"] + (", images" if entry["images"] else ", text only")
        print(f"{entry['name']}@{entry['version']} ({entry['plugin']}; {kind}): {entry['title']}")
    return 0
