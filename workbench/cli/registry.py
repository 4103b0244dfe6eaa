"""Every command of ``workbench``, declared once: its name, its help, the function that adds
its arguments (workbench/cli/arguments.py) and the function that runs it, named as
``module:function`` and imported only when the command runs.

So the command line starts by loading this table and the argument builders (the standard
library and a few constant-only modules), and then only the module of the command given, which
imports the services it uses at its top. A command module that ``--help`` or another command
would pay for is never imported before it is chosen.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass

from workbench.cli import arguments

#: what runs when no command is given: the app on the last bundle, or the demo bundle
DEFAULT_RUNS = "workbench.cli.gui_commands:launch_default"


@dataclass(frozen=True)
class Command:
    """One command (or one action of a :class:`CommandGroup`). Called with the parsed
    arguments, it imports ``runs`` (``module:function``) and returns what that function
    returns: the exit status."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    runs: str
    description: str | None = None

    def __call__(self, args: argparse.Namespace) -> int:
        return int(runner(self.runs)(args) or 0)


@dataclass(frozen=True)
class CommandGroup:
    """A command of several actions (``workbench campaign create``)."""

    name: str
    help: str
    actions: tuple[Command, ...]


def runner(target: str) -> Callable[[argparse.Namespace], int]:
    """The function ``target`` (``module:function``) names, its module imported now."""
    module, _, function = target.partition(":")
    found: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), function)
    return found


COMMANDS: tuple[Command | CommandGroup, ...] = (
    Command(
        "import",
        "import benchmark files into a bundle (created when absent)",
        arguments.import_,
        "workbench.cli.import_command:run",
        description="Import benchmark files into a bundle. The import is one transaction: it "
        "lands whole or not at all. Importing the same files again changes nothing.",
    ),
    Command(
        "info",
        "what a bundle holds, in total and per source",
        arguments.info,
        "workbench.cli.bundle_commands:run_info",
    ),
    Command(
        "upgrade",
        "upgrade a bundle from an older app to this app's schema (a backup is written first)",
        arguments.upgrade,
        "workbench.cli.bundle_commands:run_upgrade",
    ),
    Command(
        "plugins",
        "list installed plugins with their import formats, protocols and judge templates",
        arguments.plugins,
        "workbench.cli.plugin_commands:run_plugins",
    ),
    Command(
        "demo",
        "generate the demo bundle (procedurally drawn, clearly labelled as a demo)",
        arguments.demo,
        "workbench.cli.demo_command:run_demo",
    ),
    CommandGroup(
        "campaign",
        "create and inspect blind annotation campaigns",
        (
            Command(
                "create",
                "create a campaign and its seeded, counterbalanced schedule",
                arguments.campaign_create,
                "workbench.cli.campaign_commands:run_create",
                description="Create a campaign. The schedule (every task and who is shown left) "
                "is drawn from the seed, stored in the bundle, and the same for the "
                "same seed.",
            ),
            Command(
                "guidelines",
                "print a campaign's annotator guidelines, or replace them with --set",
                arguments.campaign_guidelines,
                "workbench.cli.campaign_commands:run_guidelines",
                description="Print the campaign's guidelines (markdown). --set FILE replaces "
                "them, --clear removes them.",
            ),
            Command(
                "show",
                "a campaign's settings, schedule and progress",
                arguments.campaign_show,
                "workbench.cli.campaign_commands:run_show",
            ),
            Command(
                "status",
                "a running campaign: progress, time per task, skips, checks and agreement",
                arguments.campaign_status,
                "workbench.cli.campaign_status_commands:run_status",
                description="Per annotator: answered, skipped, median seconds per task, skip "
                "reasons and attention-check accuracy; agreement between annotators "
                "(Fleiss' kappa, Krippendorff's alpha) overall and per item category.",
            ),
            Command(
                "disagreements",
                "tasks where annotators (or annotators and a judge) disagree",
                arguments.campaign_disagreements,
                "workbench.cli.campaign_commands:run_disagreements",
                description="List the tasks whose annotators gave different answers, with every "
                "vote and any settled answer. Answers are positional: a = Response 1 "
                "(left).",
            ),
            Command(
                "adjudicate",
                "record the settled answer of a disputed task",
                arguments.campaign_adjudicate,
                "workbench.cli.campaign_commands:run_adjudicate",
                description="Record a coordinator's answer for task number ID (its sequence in "
                "the schedule), with a note; recording again replaces it. Adjudicated "
                "answers are an evaluator of their own ('adjudicated') for "
                "statistics.",
            ),
            Command(
                "reassign",
                "give a task that cannot finish to an annotator who has not answered it",
                arguments.campaign_reassign,
                "workbench.cli.campaign_commands:run_reassign",
                description="Reserve task number ID for annotator HANDLE (as long as a pack's "
                "tasks are reserved): it comes up in their queue. If they had skipped "
                "it, their skip is withdrawn. 'campaign status' lists the tasks that "
                "cannot finish.",
            ),
            Command(
                "lower-votes",
                "ask fewer votes of a task that cannot finish",
                arguments.campaign_lower_votes,
                "workbench.cli.campaign_commands:run_lower_votes",
                description="Set the votes task number ID needs to N: fewer than now, and no "
                "fewer than the answers it holds (at least one). A task whose answers "
                "reach N is complete.",
            ),
            Command(
                "list",
                "the campaigns of a bundle",
                arguments.campaign_list,
                "workbench.cli.campaign_commands:run_list",
            ),
            Command(
                "set-pairing",
                "switch a campaign between uniform and adaptive pairing before its first vote",
                arguments.campaign_set_pairing,
                "workbench.cli.campaign_status_commands:run_set_pairing",
                description="Switch how the next task's model pair is chosen. Allowed until the "
                "campaign's first vote, refused after (the choices already made would "
                "not be accounted for).",
            ),
            Command(
                "replay-choices",
                "make an adaptive campaign's logged choices again and report the first mismatch",
                arguments.campaign_replay_choices,
                "workbench.cli.campaign_status_commands:run_replay_choices",
                description="Recompute every logged choice of the next model pair from the "
                "campaign's seed and the order of votes the log records; exit 1 at "
                "the first that differs.",
            ),
            Command(
                "protocols",
                "the annotation protocols plugins provide",
                arguments.campaign_protocols,
                "workbench.cli.plugin_commands:run_protocols",
            ),
        ),
    ),
    CommandGroup(
        "annotator",
        "annotator profiles",
        (
            Command(
                "add",
                "add an annotator profile",
                arguments.annotator_add,
                "workbench.cli.campaign_commands:run_annotator_add",
            ),
            Command(
                "list",
                "the annotators of a bundle",
                arguments.annotator_list,
                "workbench.cli.campaign_commands:run_annotator_list",
            ),
        ),
    ),
    CommandGroup(
        "pack",
        "offline packs: annotate on another machine",
        (
            Command(
                "export",
                "write an annotator's open tasks to a self-contained pack bundle",
                arguments.pack_export,
                "workbench.cli.campaign_commands:run_pack_export",
                description="Write the open tasks of one annotator in a campaign to a new bundle "
                "file holding everything needed to annotate them (and no model "
                "names).",
            ),
            Command(
                "merge",
                "merge a pack's votes back (idempotent; reports conflicts)",
                arguments.pack_merge,
                "workbench.cli.campaign_commands:run_pack_merge",
                description="Add the votes of an annotated pack to the bundle it came from. Votes "
                "are matched by UUID, so merging twice changes nothing; packs merge "
                "the same in any order.",
            ),
        ),
    ),
    Command(
        "leaderboard",
        "rate the models from the pairwise outcomes in a bundle",
        arguments.leaderboard,
        "workbench.cli.leaderboard_command:run_leaderboard",
    ),
    Command(
        "agreement",
        "agreement of two evaluators (e.g. a judge and the humans)",
        arguments.agreement,
        "workbench.cli.stats_commands:run_agreement",
    ),
    Command(
        "contradictions",
        "preference cycles (A>B, B>C, C>A) per item and evaluator",
        arguments.contradictions,
        "workbench.cli.stats_commands:run_contradictions",
    ),
    Command(
        "failures",
        "items that answer a failure question (e.g. judge/human disagreement)",
        arguments.failures,
        "workbench.cli.stats_commands:run_failures",
    ),
    Command(
        "scores",
        "a benchmark's own scores (e.g. ConvBench)",
        arguments.scores,
        "workbench.cli.stats_commands:run_scores",
    ),
    Command(
        "categories",
        "battles, ties and both-bad share per category (every category of an item counts)",
        arguments.categories,
        "workbench.cli.category_commands:run_categories",
    ),
    Command(
        "compare-rankings",
        "Spearman, Kendall, Pearson and confidence agreement of two leaderboards",
        arguments.compare_rankings,
        "workbench.cli.compare_commands:run_compare_rankings",
        description="Each of A and B is a `workbench leaderboard --json` output, JSON Lines of "
        "{model: rating} (the first line the fit, the others bootstrap rounds, as "
        "WildVision-Bench's bootstrapping_results.jsonl), or a bundle (its "
        "leaderboard under the default request, or the request "
        "--a-request/--b-request gives). Models in only one board are listed and left "
        "out.",
    ),
    Command(
        "judge",
        "judge pairs (or grade outputs) with an LLM at an OpenAI-compatible endpoint",
        arguments.judge,
        "workbench.cli.judge_commands:run_judge",
        description="Judge a bundle's pairs with an LLM judge. Every pair is judged in both "
        "orders unless --no-swap. Verdicts are stored in the bundle as they arrive; "
        "running the same command again resumes the run and judges only what is left, "
        "and answers already in the bundle's response cache cost nothing. The API key "
        "comes from --api-key-env, OPENAI_API_KEY or the system keyring, and is never "
        "stored or printed.",
    ),
    Command(
        "simulated-judge",
        "serve the simulated judge on loopback, for the app's judge dialog (verdicts drawn "
        "at random, never a measurement)",
        arguments.simulated_judge,
        "workbench.cli.judge_commands:run_simulated_judge",
    ),
    Command(
        "judge-templates",
        "list the judge prompt templates, or show one",
        arguments.judge_templates,
        "workbench.cli.plugin_commands:run_templates",
    ),
    Command(
        "export",
        "write items, labeled pairwise sets (JSONL/CSV) or Arena battles to a file",
        arguments.export,
        "workbench.cli.export_commands:run_export",
        description=f"Formats: {arguments.EXPORT_FORMATS}. The file is written whole or not "
        "at all.",
    ),
    Command(
        "report",
        "write a self-contained HTML evaluation report (leaderboards, agreement, methods)",
        arguments.report,
        "workbench.cli.report_command:run_report",
        description="Write one HTML file that works offline: leaderboards with CIs, win rates, "
        "per-category boards, human vs judge agreement, cycles, failure cases and the "
        "methods. The bundle is only read.",
    ),
    Command(
        "check",
        "check a bundle file for damage",
        arguments.check,
        "workbench.cli.maintenance_commands:run_check",
    ),
    Command(
        "backup",
        "write a backup copy of a bundle (beside it, or in the backup folder if one is set)",
        arguments.backup,
        "workbench.cli.maintenance_commands:run_backup",
    ),
    Command(
        "backups",
        "list a bundle's backups, newest first",
        arguments.backups,
        "workbench.cli.maintenance_commands:run_backups",
    ),
    Command(
        "restore",
        "put a backup in place of a (damaged) bundle; the bundle is kept aside",
        arguments.restore,
        "workbench.cli.maintenance_commands:run_restore",
    ),
    Command(
        "push",
        "copy a bundle to a server (or merge it into the copy there)",
        arguments.push,
        "workbench.cli.server_commands:run_push",
        description="Copy every table of BUNDLE, images included, to the bundle at URL: created "
        "in an empty database, or merged into the same bundle pushed before (votes by "
        "UUID, judge runs by name...). Pushing again copies nothing. A row that "
        "differs on the two sides stops the push and changes nothing.",
    ),
    Command(
        "pull",
        "copy a server bundle into a file (or merge it into the file)",
        arguments.pull,
        "workbench.cli.server_commands:run_pull",
        description="Copy every table of the bundle at URL into BUNDLE: a new file, or the same "
        "bundle pulled or pushed before, which gains what the server gained.",
    ),
    CommandGroup(
        "server",
        "a bundle on a PostgreSQL server",
        (
            Command(
                "init",
                "create an empty bundle (the schema) in an empty database",
                arguments.server_init,
                "workbench.cli.server_commands:run_init",
            ),
            Command(
                "check",
                "connect, and show the schema revision, the TLS state and the counts",
                arguments.server_check,
                "workbench.cli.server_commands:run_check",
            ),
            Command(
                "login",
                "ask for the database password and keep it in the system keyring",
                arguments.server_login,
                "workbench.cli.server_commands:run_login",
                description="Ask for the password of the URL's user (never echoed), check that it "
                "connects, and store it in the system keyring for this user, host, "
                "port and database.",
            ),
            Command(
                "logout",
                "remove the stored password of a database",
                arguments.server_logout,
                "workbench.cli.server_commands:run_logout",
            ),
        ),
    ),
    Command(
        "open",
        "open a bundle in the app",
        arguments.open_,
        "workbench.cli.gui_commands:run_open",
        description="Open a bundle in the app (an offline pack opens in the annotator's window). "
        "With --screenshot, render the window offscreen to a PNG and exit (no display "
        "needed).",
    ),
    Command(
        "annotate",
        "annotate a campaign in the annotator's window",
        arguments.annotate,
        "workbench.cli.gui_commands:run_annotate",
        description="Open the annotator's window: the annotation page alone, with no inspector, "
        "search, analysis, judge or export, so no model name can be seen. In an "
        "offline pack, the campaign and annotator default to the pack's.",
    ),
)


def _add(commands: argparse._SubParsersAction[argparse.ArgumentParser], command: Command) -> None:
    parser = commands.add_parser(command.name, help=command.help, description=command.description)
    command.arguments(parser)
    parser.set_defaults(handler=command)


def add_commands(parser: argparse.ArgumentParser) -> None:
    """Every command of :data:`COMMANDS` as a subparser of ``parser``; the parsed arguments'
    ``handler`` is the :class:`Command` chosen (None when no command is given)."""
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for entry in COMMANDS:
        if isinstance(entry, Command):
            _add(commands, entry)
            continue
        group = commands.add_parser(entry.name, help=entry.help)
        actions = group.add_subparsers(
            dest=f"{entry.name}_command", metavar="ACTION", required=True
        )
        for action in entry.actions:
            _add(actions, action)
