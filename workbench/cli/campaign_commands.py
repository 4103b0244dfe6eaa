"""``workbench campaign ...``, ``workbench annotator ...`` and ``workbench pack ...``: blind
annotation campaigns, annotator profiles and offline packs, for the person running a campaign."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.services.adaptive_pairing import ChoiceReplay

#: the values of ``workbench.services.scheduling.Pairing`` (not imported here: it pulls in
#: networkx, which every other command would then pay for at start-up)
PAIRINGS = ("all", "anchor", "balanced")
#: ``uniform``: the protocol's own pairs in the schedule's order; ``adaptive``: the same pairs,
#: the next one chosen from the votes so far (``services.pair_choice``)
PAIR_CHOICES = ("uniform", "adaptive")
#: a str, not a Path: Path would turn postgresql://host/db into postgresql:/host/db
BUNDLE_HELP = "a bundle file, or a postgresql:// URL of a server bundle"


def register(commands: Any) -> None:
    _register_campaign(commands)
    _register_annotator(commands)
    _register_pack(commands)


def _register_campaign(commands: Any) -> None:
    campaign = commands.add_parser("campaign", help="create and inspect blind annotation campaigns")
    actions = campaign.add_subparsers(dest="campaign_command", metavar="ACTION", required=True)

    create = actions.add_parser(
        "create",
        help="create a campaign and its seeded, counterbalanced schedule",
        description="Create a campaign. The schedule (every task and who is shown left) is "
        "drawn from the seed, stored in the bundle, and the same for the same seed.",
    )
    create.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    create.add_argument("--name", required=True, help="campaign name (annotators may see it)")
    create.add_argument(
        "--protocol", required=True, help="annotation protocol (see 'workbench campaign protocols')"
    )
    create.add_argument(
        "--models",
        default="all",
        help="comma-separated model names, 'reference' for the reference answer, or 'all' "
        "(default; give none for verification protocols)",
    )
    create.add_argument(
        "--items",
        default="all",
        help="'all' (default), a source name, or comma-separated item ids (source:id where an "
        "id exists in several sources)",
    )
    create.add_argument("--votes-per-pair", type=int, default=1, metavar="N", help="default 1")
    create.add_argument(
        "--lease-minutes",
        type=float,
        metavar="M",
        help="how long a task shown to an annotator stays reserved for them (default 30)",
    )
    create.add_argument(
        "--pack-lease-days",
        type=float,
        metavar="D",
        help="how long an offline pack's tasks stay reserved for its annotator (default 14)",
    )
    create.add_argument("--seed", type=int, default=0, metavar="S", help="default 0")
    create.add_argument(
        "--pairing",
        choices=(*PAIR_CHOICES, *PAIRINGS),
        help="uniform (default): the protocol's pairs (all pairs, or each model against the "
        "reference for protocols comparing with it) handed out in the schedule's order; "
        "adaptive: the same tasks, each next model pair chosen from the votes so far where a "
        "vote narrows the unresolved rating differences most; all, anchor, balanced: uniform "
        "over all pairs, pairs with an anchor, or a balanced random sample",
    )
    create.add_argument("--anchor", metavar="MODEL", help="anchor model, or 'reference'")
    create.add_argument(
        "--pairs-per-model-pair",
        type=int,
        metavar="N",
        help="target comparisons per model pair for balanced pairing (per model for grading)",
    )
    create.add_argument(
        "--gold",
        type=Path,
        metavar="FILE.jsonl",
        help="attention checks, one JSON object a line: item, answer, first, second, turn",
    )
    create.add_argument(
        "--practice-file",
        type=Path,
        metavar="FILE.jsonl",
        help="practice tasks, one JSON object a line: item, answer, first, second, turn, "
        "explanation (shown after the annotator answers)",
    )
    create.add_argument(
        "--practice",
        type=int,
        metavar="N",
        help="a practice round of N tasks drawn from --practice-file (default: all of them), "
        "or without a file from answers their source marks right and wrong",
    )
    create.add_argument(
        "--practice-required",
        action="store_true",
        help="annotators cannot skip the practice round",
    )
    create.add_argument(
        "--context", default="standard", help="which outputs to show (default: standard)"
    )
    create.add_argument(
        "--guidelines",
        type=Path,
        metavar="FILE.md",
        help="the annotators' guidelines (markdown), shown when they start and on F1",
    )
    create.add_argument(
        "--without-missing-images",
        action="store_true",
        help="leave out the chosen items that miss an image (they cannot be judged by eye)",
    )
    create.add_argument(
        "--annotators",
        metavar="HANDLES",
        help="comma-separated handles of the annotators who work on it (default: every "
        "annotator of the bundle); others are refused",
    )
    create.add_argument(
        "--dry-run",
        action="store_true",
        help="draw the schedule and print what would be created (tasks, each annotator's "
        "share), storing nothing",
    )
    create.add_argument(
        "--exclude-flagged",
        action="store_true",
        help="schedule no comparison showing a flagged answer or item (a broken image, an "
        "answer that names its model...)",
    )
    create.add_argument("--json", action="store_true", help="print the summary as JSON")
    create.set_defaults(handler=run_create)

    guidelines = actions.add_parser(
        "guidelines",
        help="print a campaign's annotator guidelines, or replace them with --set",
        description="Print the campaign's guidelines (markdown). --set FILE replaces them, "
        "--clear removes them.",
    )
    guidelines.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    guidelines.add_argument("name", metavar="NAME")
    change = guidelines.add_mutually_exclusive_group()
    change.add_argument("--set", type=Path, metavar="FILE.md", help="store these guidelines")
    change.add_argument("--clear", action="store_true", help="remove the guidelines")
    guidelines.set_defaults(handler=run_guidelines)

    show = actions.add_parser("show", help="a campaign's settings, schedule and progress")
    show.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true", help="print everything, schedule too, as JSON")
    show.set_defaults(handler=run_show)

    status = actions.add_parser(
        "status",
        help="a running campaign: progress, time per task, skips, checks and agreement",
        description="Per annotator: answered, skipped, median seconds per task, skip reasons "
        "and attention-check accuracy; agreement between annotators (Fleiss' kappa, "
        "Krippendorff's alpha) overall and per item category.",
    )
    status.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    status.add_argument("name", metavar="NAME")
    status.add_argument("--json", action="store_true", help="print as JSON")
    status.add_argument(
        "--verify",
        action="store_true",
        help="also make every logged pair choice again (as replay-choices does); exit 1 naming "
        "the first that differs",
    )
    status.set_defaults(handler=run_status)

    disagreements = actions.add_parser(
        "disagreements",
        help="tasks where annotators (or annotators and a judge) disagree",
        description="List the tasks whose annotators gave different answers, with every vote "
        "and any settled answer. Answers are positional: a = Response 1 (left).",
    )
    disagreements.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    disagreements.add_argument("name", metavar="NAME")
    disagreements.add_argument(
        "--judge-run", metavar="RUN", help="also list tasks where the humans and this run differ"
    )
    disagreements.add_argument("--json", action="store_true", help="print as JSON")
    disagreements.set_defaults(handler=run_disagreements)

    adjudicate = actions.add_parser(
        "adjudicate",
        help="record the settled answer of a disputed task",
        description="Record a coordinator's answer for task number ID (its sequence in the "
        "schedule), with a note; recording again replaces it. Adjudicated answers are an "
        "evaluator of their own ('adjudicated') for statistics.",
    )
    adjudicate.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    adjudicate.add_argument("name", metavar="NAME")
    adjudicate.add_argument("--task", type=int, required=True, metavar="ID")
    adjudicate.add_argument("--answer", required=True, metavar="X", help="e.g. a, b, tie, 4")
    adjudicate.add_argument("--note", required=True, metavar="TEXT", help="why this answer")
    adjudicate.add_argument("--adjudicator", required=True, metavar="HANDLE")
    adjudicate.add_argument("--criterion", help="default: the protocol's first")
    adjudicate.add_argument("--json", action="store_true", help="print the record as JSON")
    adjudicate.set_defaults(handler=run_adjudicate)

    reassign = actions.add_parser(
        "reassign",
        help="give a task that cannot finish to an annotator who has not answered it",
        description="Reserve task number ID for annotator HANDLE (as long as a pack's tasks "
        "are reserved): it comes up in their queue. If they had skipped it, their skip is "
        "withdrawn. 'campaign status' lists the tasks that cannot finish.",
    )
    reassign.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    reassign.add_argument("name", metavar="NAME")
    reassign.add_argument("--task", type=int, required=True, metavar="ID")
    reassign.add_argument("--to", required=True, metavar="HANDLE", help="the annotator")
    reassign.add_argument("--json", action="store_true", help="print the result as JSON")
    reassign.set_defaults(handler=run_reassign)

    lower = actions.add_parser(
        "lower-votes",
        help="ask fewer votes of a task that cannot finish",
        description="Set the votes task number ID needs to N: fewer than now, and no fewer "
        "than the answers it holds (at least one). A task whose answers reach N is complete.",
    )
    lower.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    lower.add_argument("name", metavar="NAME")
    lower.add_argument("--task", type=int, required=True, metavar="ID")
    lower.add_argument("--votes", type=int, required=True, metavar="N", help="the votes needed")
    lower.add_argument("--json", action="store_true", help="print the result as JSON")
    lower.set_defaults(handler=run_lower_votes)

    listing = actions.add_parser("list", help="the campaigns of a bundle")
    listing.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    listing.add_argument("--json", action="store_true", help="print as JSON")
    listing.set_defaults(handler=run_list)

    set_pairing = actions.add_parser(
        "set-pairing",
        help="switch a campaign between uniform and adaptive pairing before its first vote",
        description="Switch how the next task's model pair is chosen. Allowed until the "
        "campaign's first vote, refused after (the choices already made would not be "
        "accounted for).",
    )
    set_pairing.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    set_pairing.add_argument("name", metavar="NAME")
    set_pairing.add_argument("pairing", choices=PAIR_CHOICES)
    set_pairing.set_defaults(handler=run_set_pairing)

    replay = actions.add_parser(
        "replay-choices",
        help="make an adaptive campaign's logged choices again and report the first mismatch",
        description="Recompute every logged choice of the next model pair from the campaign's "
        "seed and the order of votes the log records; exit 1 at the first that differs.",
    )
    replay.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    replay.add_argument("name", metavar="NAME")
    replay.add_argument("--json", action="store_true", help="print as JSON")
    replay.set_defaults(handler=run_replay_choices)

    protocols = actions.add_parser("protocols", help="the annotation protocols plugins provide")
    protocols.add_argument("--json", action="store_true", help="print as JSON")
    protocols.set_defaults(handler=run_protocols)


def _register_annotator(commands: Any) -> None:
    annotator = commands.add_parser("annotator", help="annotator profiles")
    actions = annotator.add_subparsers(dest="annotator_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add an annotator profile")
    add.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    add.add_argument("handle", metavar="HANDLE")
    add.add_argument("--name", help="display name")
    add.add_argument("--expertise", help="e.g. 'radiologist' or 'native Spanish speaker'")
    add.set_defaults(handler=run_annotator_add)
    listing = actions.add_parser("list", help="the annotators of a bundle")
    listing.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    listing.add_argument("--json", action="store_true", help="print as JSON")
    listing.set_defaults(handler=run_annotator_list)


def _register_pack(commands: Any) -> None:
    pack = commands.add_parser("pack", help="offline packs: annotate on another machine")
    actions = pack.add_subparsers(dest="pack_command", metavar="ACTION", required=True)
    export = actions.add_parser(
        "export",
        help="write an annotator's open tasks to a self-contained pack bundle",
        description="Write the open tasks of one annotator in a campaign to a new bundle file "
        "holding everything needed to annotate them (and no model names).",
    )
    export.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    export.add_argument("--campaign", required=True, metavar="NAME")
    export.add_argument("--annotator", required=True, metavar="HANDLE")
    export.add_argument("--out", required=True, type=Path, metavar="PACK.wbb")
    export.add_argument("--limit", type=int, metavar="N", help="at most N tasks (default: all)")
    export.add_argument("--json", action="store_true", help="print the result as JSON")
    export.set_defaults(handler=run_pack_export)
    merge = actions.add_parser(
        "merge",
        help="merge a pack's votes back (idempotent; reports conflicts)",
        description="Add the votes of an annotated pack to the bundle it came from. Votes are "
        "matched by UUID, so merging twice changes nothing; packs merge the same in any order.",
    )
    merge.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    merge.add_argument("pack", metavar="PACK.wbb", type=Path)
    merge.add_argument("--json", action="store_true", help="print the result as JSON")
    merge.set_defaults(handler=run_pack_merge)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def _names(text: str) -> list[str] | None:
    names = [part.strip() for part in text.split(",") if part.strip()]
    return None if names in ([], ["all"]) else names


def run_create(args: argparse.Namespace) -> int:
    from workbench.services.campaign_items import ItemSpec
    from workbench.services.campaigns import (
        CampaignSpec,
        create_campaign,
        read_attention_checks,
        read_practice_tasks,
    )
    from workbench.services.scheduling import Pairing
    from workbench.storage import Bundle

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
        _print_json(summary.as_dict())
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


def run_set_pairing(args: argparse.Namespace) -> int:
    from workbench.services.adaptive_pairing import set_pair_choice
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        before = set_pair_choice(bundle, args.name, args.pairing)
    if before == args.pairing:
        print(f"campaign '{args.name}' already has {args.pairing} pairing")
    else:
        print(f"campaign '{args.name}': {before} pairing -> {args.pairing} pairing")
    return 0


def run_replay_choices(args: argparse.Namespace) -> int:
    from workbench.services.adaptive_pairing import replay_choices
    from workbench.storage import Bundle

    with Bundle.open(args.bundle, migrate=False) as bundle:
        replay = replay_choices(bundle, args.name)
    if args.json:
        _print_json(replay.to_json())
        return 0 if replay.ok else 1
    _print_replay(replay, "")
    return 0 if replay.ok else 1


def _print_replay(replay: ChoiceReplay, lead: str, indent: str = "") -> None:
    print(
        f"{lead}{replay.campaign} ({replay.pairing} pairing): {replay.replayed} of "
        f"{replay.choices} logged choice(s) made again from the seed and the order of votes"
        + ("" if replay.ok else "; the log does not match")
    )
    mismatch = replay.first_mismatch
    if mismatch is not None:
        print(
            f"{indent}  choice {mismatch['ordinal']} differs in {mismatch['what']}: recomputed "
            f"{mismatch['recomputed']}, logged {mismatch['logged']}"
        )


def _read_text(path: Path) -> str:
    from workbench.errors import WorkbenchError

    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise WorkbenchError(f"cannot read the guidelines {path}: {reason}") from None


def run_guidelines(args: argparse.Namespace) -> int:
    from workbench.services.campaigns import campaign_guidelines, set_campaign_guidelines
    from workbench.storage import Bundle

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
    from workbench.services.campaign_settings import CampaignSettings
    from workbench.services.campaigns import campaign_details
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        details = campaign_details(bundle, args.name)
    if args.json:
        _print_json(details)
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


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def run_status(args: argparse.Namespace) -> int:
    from workbench.services.adaptive_pairing import replay_choices
    from workbench.services.monitor import campaign_status
    from workbench.storage import Bundle

    with Bundle.open(args.bundle, migrate=False) as bundle:
        status = campaign_status(bundle, args.name)
        replay = replay_choices(bundle, args.name) if args.verify else None
    verified = replay is None or replay.ok
    if args.json:
        _print_json(status if replay is None else {**status, "verify": replay.to_json()})
        return 0 if verified else 1
    print(f"{status['campaign']}: {status['protocol']} ({status['status']})")
    print(
        f"  {status['tasks']} tasks, {status['complete_tasks']} complete, "
        f"{status['answered']} answers, {status['skipped']} skips, "
        f"{status['active_leases']} in progress"
    )
    if status["flags"]:
        flagged = ", ".join(f"{count} {reason}" for reason, count in status["flags"].items())
        print(f"  flags raised by annotators: {flagged}")
        tasks = sorted({row["task"] for row in status["flagged_tasks"] if row["task"] is not None})
        if tasks:
            print(f"  flagged tasks: {', '.join(map(str, tasks))}")
    for row in status["annotators"]:
        seconds = row["median_seconds_per_task"]
        line = f"  {row['annotator']}: {row['answered']} answered, {row['skipped']} skipped"
        line += f", median {seconds:.1f} s/task" if seconds is not None else ""
        if row["gold"]:
            line += f", checks {row['gold']['correct']}/{row['gold']['answered']}"
        print(line)
        for reason, count in row["skip_reasons"].items():
            print(f"      skipped {count}x: {reason}")
    if status["stuck_tasks"]:
        print(f"  {len(status['stuck_tasks'])} task(s) cannot finish:")
    for stuck in status["stuck_tasks"]:
        print(f"      task {stuck['task']} ({stuck['source']}:{stuck['item']}): {stuck['reason']}")
    if status["adaptive"] is not None:
        _print_standing(status["adaptive"])
    print(f"  agreement {status['agreement']['definition']}")
    sections = [("overall", status["agreement"]["overall"])]
    sections += list(status["agreement"]["by_category"].items())
    for label, figures in sections:
        print(
            f"  agreement {label}: {figures['comparisons']} comparisons, "
            f"Fleiss {_figure(figures['fleiss_kappa'])}, "
            f"Krippendorff {_figure(figures['krippendorff_alpha'])}"
        )
    if replay is not None:
        _print_replay(replay, "  verify: ", "  ")
    return 0 if verified else 1


def _print_standing(standing: dict[str, Any]) -> None:
    """An adaptive campaign's unresolved rating differences, as ``campaign status`` prints
    them."""
    pairs = standing["pairs"]
    print(
        f"  adaptive pairing: {standing['choices_logged']} choice(s) logged; "
        f"{standing['unresolved']} of {len(pairs)} pair(s) unresolved (the "
        f"{standing['coverage']:.0%} interval of the rating difference, in "
        f"{standing['unit']}, holds 0)"
    )
    for row in pairs:
        if row["resolved"]:
            continue
        print(
            f"      {row['first']} - {row['second']}: {row['difference']:+.1f} "
            f"[{row['low']:+.1f}, {row['high']:+.1f}], {row['battles']} vote(s), "
            f"next {row['next_probability']:.0%}"
        )


def run_disagreements(args: argparse.Namespace) -> int:
    from workbench.services.adjudication import disagreements
    from workbench.storage import Bundle

    with Bundle.open(args.bundle, migrate=False) as bundle:
        rows = disagreements(bundle, args.name, args.judge_run)
    if args.json:
        _print_json(rows)
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
    from workbench.services.adjudication import record_adjudication
    from workbench.storage import Bundle

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
    if args.json:
        _print_json(record)
        return 0
    print(
        f"task {record['task']} of {record['campaign']}: {record['answer']} "
        f"({record['criterion']}), by {record['adjudicator']}"
    )
    return 0


def run_reassign(args: argparse.Namespace) -> int:
    from workbench.services.stuck_tasks import reassign_task
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        result = reassign_task(bundle, args.name, args.task, args.to)
    if args.json:
        _print_json(result)
        return 0
    withdrawn = " (their skip is withdrawn)" if result["withdrawn_skips"] else ""
    print(
        f"task {result['task']} of {result['campaign']} is reserved for "
        f"{result['annotator']}{withdrawn}: {result['votes']} of {result['votes_target']} votes"
    )
    return 0


def run_lower_votes(args: argparse.Namespace) -> int:
    from workbench.services.stuck_tasks import lower_votes_needed
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        result = lower_votes_needed(bundle, args.name, args.task, args.votes)
    if args.json:
        _print_json(result)
        return 0
    done = "complete" if result["complete"] else "still open"
    print(
        f"task {result['task']} of {result['campaign']} now needs {result['votes_target']} "
        f"vote(s) (was {result['votes_target_before']}); it has {result['votes']}: {done}"
    )
    return 0


def run_list(args: argparse.Namespace) -> int:
    from workbench.services.campaigns import list_campaigns
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        campaigns = list_campaigns(bundle)
    if args.json:
        _print_json(campaigns)
        return 0
    if not campaigns:
        print("no campaigns")
    for campaign in campaigns:
        print(
            f"{campaign['name']}: {campaign['protocol']}, {campaign['tasks']} tasks, "
            f"{campaign['tasks_with_votes']} with votes ({campaign['status']})"
        )
    return 0


def run_protocols(args: argparse.Namespace) -> int:
    from workbench.plugins import registry

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
        _print_json(protocols)
        return 0
    for protocol in installed:
        answers = ", ".join(f"{choice.key}={choice.label}" for choice in protocol.choices)
        if protocol.grade_scale is not None:
            scale = protocol.grade_scale
            answers = f"grade {scale.minimum:g}-{scale.maximum:g}"
        print(f"{protocol.name}: {protocol.title} [{answers}]")
    return 0


def run_annotator_add(args: argparse.Namespace) -> int:
    from workbench.services.campaigns import add_annotator
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        annotator = add_annotator(bundle, args.handle, args.name, args.expertise)
    print(f"added annotator {annotator.handle}")
    return 0


def run_annotator_list(args: argparse.Namespace) -> int:
    from workbench.services.campaigns import list_annotators
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        annotators = list_annotators(bundle)
    if args.json:
        _print_json([annotator.as_dict() for annotator in annotators])
        return 0
    for annotator in annotators:
        extra = ", ".join(filter(None, (annotator.display_name, annotator.expertise)))
        print(annotator.handle + (f" ({extra})" if extra else ""))
    return 0


def run_pack_export(args: argparse.Namespace) -> int:
    from workbench.services.packs import export_pack
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        info = export_pack(bundle, args.campaign, args.annotator, args.out, args.limit)
    if args.json:
        _print_json({"pack": str(args.out), **info.as_dict()})
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
    from workbench.services.packs import merge_pack
    from workbench.storage import Bundle

    with Bundle.open(args.bundle) as bundle:
        report = merge_pack(bundle, args.pack)
        where = bundle.location  # a server URL is shown without its password
    if args.json:
        _print_json(report.as_dict())
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
