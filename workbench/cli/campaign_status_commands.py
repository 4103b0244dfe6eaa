"""``workbench campaign status``, ``campaign set-pairing`` and ``campaign replay-choices``: a
running campaign's progress and agreement, and its adaptive pairing. Their own module because
the monitor and the pairing rule load the statistics stack, which the other campaign commands
do without."""

from __future__ import annotations

import argparse
from typing import Any

from workbench.cli.campaign_commands import print_json
from workbench.services.adaptive_pairing import ChoiceReplay, replay_choices, set_pair_choice
from workbench.services.monitor import campaign_status
from workbench.storage import Bundle


def run_set_pairing(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle) as bundle:
        before = set_pair_choice(bundle, args.name, args.pairing)
    if before == args.pairing:
        print(f"campaign '{args.name}' already has {args.pairing} pairing")
    else:
        print(f"campaign '{args.name}': {before} pairing -> {args.pairing} pairing")
    return 0


def run_replay_choices(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle, migrate=False) as bundle:
        replay = replay_choices(bundle, args.name)
    if args.json:
        print_json(replay.to_json())
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


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def run_status(args: argparse.Namespace) -> int:
    with Bundle.open(args.bundle, migrate=False) as bundle:
        status = campaign_status(bundle, args.name)
        replay = replay_choices(bundle, args.name) if args.verify else None
    verified = replay is None or replay.ok
    if args.json:
        print_json(status if replay is None else {**status, "verify": replay.to_json()})
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
        f"  adaptive pairing ({standing['rule']} rule): "
        f"{standing['choices_logged']} choice(s) logged; "
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
