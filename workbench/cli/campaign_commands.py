"""``workbench campaign ...``, ``workbench annotator ...`` and ``workbench pack ...``: blind
annotation campaigns, annotator profiles and offline packs, for the person running a campaign."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from workbench.cli.arguments import PAIRINGS
from workbench.errors import WorkbenchError
from workbench.services.adjudication import disagreements, record_adjudication
from workbench.services.campaign_items import ItemSpec
from workbench.services.campaign_settings import CampaignSettings
from workbench.services.campaigns import (
    CampaignSpec,
    add_annotator,
    campaign_details,
    campaign_guidelines,
    create_campaign,
    list_annotators,
    list_campaigns,
    read_attention_checks,
    read_practice_tasks,
    set_campaign_guidelines,
)
from workbench.services.packs import export_pack, merge_pack
from workbench.services.scheduling import Pairing
from workbench.services.stuck_tasks import lower_votes_needed, reassign_task
from workbench.storage import Bundle


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def _print_result(args: argparse.Namespace, data: Any, lines: Iterable[str]) -> int:
    """``data`` as JSON with ``--json``, else ``lines`` for a person to read."""
    if args.json:
        print_json(data)
    else:
        for line in lines:
            print(line)
    return 0


def _names(text: str) -> list[str] | None:
    names = [part.strip() for part in text.split(",") if part.strip()]
    return None if names in ([], ["all"]) else names


def run_create(args: argparse.Namespace) -> int:
    spec = CampaignSpec(
        name=args.name,
        protocol=args.protocol,
        items=ItemSpec(args.items),
        models=_names(args.models),
        votes_per_pair=args.votes_per_pair,
        seed=args.seed,
        pairing=Pairing(args.pairing) if args.pairing in PAIRINGS else None,
        pair_choice="adaptive" if args.pairing == "adaptive" else "uniform",
        anchor=args.anchor,
        pairs_per_model_pair=args.pairs_per_model_pair,
        gold=read_attention_checks(args.gold) if args.gold else (),
        practice=(read_practice_tasks(args.practice_file) if args.practice_file else ()),
        practice_count=args.practice,
        practice_optional=not args.practice_required,
        output_context=args.context,
        lease_minutes=args.lease_minutes,
        pack_lease_days=args.pack_lease_days,
        without_missing_images=args.without_missing_images,
        exclude_flagged=args.exclude_flagged,
        guidelines=_read_text(args.guidelines) if args.guidelines else None,
        annotators=_names(args.annotators or "") or (),
    )
    with Bundle.open(args.bundle) as bundle:
        summary = create_campaign(bundle, spec, dry_run=args.dry_run)
    if summary.items_missing_images:
        print(
            f"warning: {summary.items_missing_images} of the campaign's items miss an image, so "
            "annotators will be asked about pictures they cannot see; create it again (under "
            "another name) with --without-missing-images to leave them out",
            file=sys.stderr,
        )
    if args.json:
        print_json(summary.as_dict())
        return 0
    print(
        f"{'would create' if summary.dry_run else 'created'} campaign '{summary.name}' "
        f"({summary.protocol}, {summary.pairing_text}, "
        f"seed {summary.seed}): {summary.tasks} comparisons to judge, on "
        f"{summary.items} {'item turns' if summary.per_turn else 'items'}, "
        f"{summary.votes_per_pair} vote(s) each"
        + (f", {summary.gold_tasks} attention checks" if summary.gold_tasks else "")
        + (f", a practice round of {summary.practice_tasks}" if summary.practice_tasks else "")
    )
    for pair, missing in summary.shortfalls.items():
        print(f"  {pair}: {missing} comparison(s) short of the target (not enough items)")
    if summary.left_out_missing_images:
        print(f"  left out {summary.left_out_missing_images} item(s) whose images are missing")
    if summary.left_out_flagged:
        print(f"  left out {summary.left_out_flagged} flagged answer(s) (--exclude-flagged)")
    for line in summary.annotator_lines():
        print(f"  {line}")
    return 0


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise WorkbenchError(f"cannot read the guidelines {path}: {reason}") from None


def run_guidelines(args: argparse.Namespace) -> int:
    text = _read_text(args.set) if args.set else None
    with Bundle.open(args.bundle) as bundle:
        if args.set or args.clear:
            set_campaign_guidelines(bundle, args.name, text)
            done = "stored" if text and text.strip() else "removed"
            print(f"{done} the guidelines of '{args.name}'")
            return 0
        guidelines = campaign_guidelines(bundle, args.name)
    if guidelines is None:
        print(f"campaign '{args.name}' has no guidelines (add them with --set FILE.md)")
    else:
        print(guidelines, end="" if guidelines.endswith("\n") else "\n")
    return 0


def run_show(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle) as bundle:
        details = campaign_details(bundle, args.name)
    if args.json:
        print_json(details)
        return 0
    settings = details["settings"]
    print(f"{details['name']}: {details['protocol']} ({details['status']})")
    typed = CampaignSettings.from_json(settings, details["name"])
    choice = "adaptive " if typed.pair_choice == "adaptive" else ""
    print(
        f"  seed {details['seed']}, {choice}{settings['pairing']} pairing, "
        f"anchor {settings['anchor']}"
    )
    print(f"  contestants: {', '.join(settings['contestants']) or '(none)'}")
    print(
        f"  {details['tasks']} tasks, {details['complete_tasks']} complete, "
        f"{details['votes_per_pair']} vote(s) per task"
    )
    for handle, counts in details["annotators"].items():
        print(f"  {handle}: {counts['answered']} answered, {counts['skipped']} skipped")
    for handle, counts in details["gold"].items():
        print(f"  attention checks {handle}: {counts['correct']}/{counts['answered']} as expected")
    print("  (--json prints the schedule)")
    return 0


def run_disagreements(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle, migrate=False) as bundle:
        rows = disagreements(bundle, args.name, args.judge_run)
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print("no disagreements")
    for row in rows:
        answers = ", ".join(f"{vote['annotator']}={vote['answer']}" for vote in row["votes"])
        judge = f"; judge {row['judge']['answer']}" if row["judge"] else ""
        settled = row["adjudication"]
        done = f"; settled {settled['answer']} by {settled['adjudicator']}" if settled else ""
        print(
            f"task {row['task']} ({row['source']}:{row['item']}, {row['criterion']}): "
            f"{answers}{judge}{done}"
        )
    return 0


def run_adjudicate(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle) as bundle:
        record = record_adjudication(
            bundle,
            args.name,
            args.task,
            args.answer,
            args.note,
            args.adjudicator,
            args.criterion,
        )
    line = (
        f"task {record['task']} of {record['campaign']}: {record['answer']} "
        f"({record['criterion']}), by {record['adjudicator']}"
    )
    return _print_result(args, record, [line])


def _stuck_task_command(
    args: argparse.Namespace,
    operation: Callable[[Bundle, str, int, Any], dict[str, Any]],
    value: Any,
    describe: Callable[[dict[str, Any]], str],
) -> int:
    """Apply a stuck-task ``operation`` to the task ``args`` name and say what it did."""
    with Bundle.open(args.bundle) as bundle:
        result = operation(bundle, args.name, args.task, value)
    line = f"task {result['task']} of {result['campaign']} {describe(result)}"
    return _print_result(args, result, [line])


def run_reassign(args: argparse.Namespace) -> int:
    def describe(result: dict[str, Any]) -> str:
        withdrawn = " (their skip is withdrawn)" if result["withdrawn_skips"] else ""
        return (
            f"is reserved for {result['annotator']}{withdrawn}: "
            f"{result['votes']} of {result['votes_target']} votes"
        )

    return _stuck_task_command(args, reassign_task, args.to, describe)


def run_lower_votes(args: argparse.Namespace) -> int:
    def describe(result: dict[str, Any]) -> str:
        done = "complete" if result["complete"] else "still open"
        return (
            f"now needs {result['votes_target']} vote(s) (was {result['votes_target_before']}); "
            f"it has {result['votes']}: {done}"
        )

    return _stuck_task_command(args, lower_votes_needed, args.votes, describe)


def run_list(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle) as bundle:
        campaigns = list_campaigns(bundle)
    lines = [
        f"{campaign['name']}: {campaign['protocol']}, {campaign['tasks']} tasks, "
        f"{campaign['tasks_with_votes']} with votes ({campaign['status']})"
        for campaign in campaigns
    ]
    return _print_result(args, campaigns, lines or ["no campaigns"])


def run_annotator_add(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle) as bundle:
        annotator = add_annotator(bundle, args.handle, args.name, args.expertise)
    print(f"added annotator {annotator.handle}")
    return 0


def run_annotator_list(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle) as bundle:
        annotators = list_annotators(bundle)
    if args.json:
        print_json([annotator.as_dict() for annotator in annotators])
        return 0
    for annotator in annotators:
        extra = ", ".join(filter(None, (annotator.display_name, annotator.expertise)))
        print(annotator.handle + (f" ({extra})" if extra else ""))
    return 0


def run_pack_export(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle) as bundle:
        info = export_pack(bundle, args.campaign, args.annotator, args.out, args.limit)
    if args.json:
        print_json({"pack": str(args.out), **info.as_dict()})
        return 0
    print(f"wrote {args.out}: {info.tasks} tasks of '{info.campaign}' for {info.annotator}")
    if info.choices is not None:
        first, last = info.choices
        print(
            f"  adaptive pairing: {last - first + 1} task(s) chosen now from the votes so far "
            f"(logged choices {first}-{last}); votes cast after this pack left do not change them"
        )
    return 0


def run_pack_merge(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle) as bundle:
        report = merge_pack(bundle, args.pack)
        where = bundle.location  # a server URL is shown without its password
    if args.json:
        print_json(report.as_dict())
        return 0
    print(
        f"merged {args.pack} into {where}: {report.added} vote rows added, "
        f"{report.unchanged} already there, {report.retractions} retraction(s) applied"
    )
    if report.adaptive_choices:
        print(
            f"  the votes answer {len(report.adaptive_choices)} adaptive choice(s) made at "
            f"packing time ({report.adaptive_choices[0]}-{report.adaptive_choices[-1]}); the "
            "next choice counts them"
        )
    for conflict in report.conflicts:
        print(f"  conflict ({conflict.kind}) on task #{conflict.task}: {conflict.detail}")
    return 0
