"""The arguments of every command, for the parser the registry (workbench/cli/registry.py)
builds. Building it must stay cheap, since every command and ``--help`` pays for it: this
module imports the standard library and the few constant-only modules below, never a service,
the storage, the statistics or Qt (tests/cli/test_start_up_imports.py checks). Constants of
heavier modules are repeated here by value, each with the test that keeps them equal."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.export.options import FORMAT_DESCRIPTIONS
from workbench.services import analysis_request as defaults
from workbench.stats.cycle_scopes import CYCLE_SCOPES, DEFAULT_CYCLE_SCOPE, DEFAULT_MAX_CYCLE_LENGTH

#: a str, not a Path: Path would turn postgresql://host/db into postgresql:/host/db
BUNDLE_HELP = "a bundle file, or a postgresql:// URL of a server bundle"
URL_HELP = "a postgresql://USER@HOST[:PORT]/DATABASE URL (TLS options as ?sslmode=...)"
#: ``workbench export``'s formats, as its description lists them
EXPORT_FORMATS = "; ".join(f"{name}: {text}" for name, text in FORMAT_DESCRIPTIONS.items())

#: kept equal to workbench.gui.app.PAGES (tests/gui/test_panel_pages.py checks)
PAGES = (
    "items",
    "annotate",
    "analysis",
    "leaderboard",
    "graph",
    "agreement",
    "failures",
    "benchmark",
    "monitor",
    "adjudicate",
)
#: the values of ``workbench.services.scheduling.Pairing`` (tests/cli/test_start_up_imports.py
#: checks)
PAIRINGS = ("all", "anchor", "balanced")
#: ``uniform``: the protocol's own pairs in the schedule's order; ``adaptive``: the same pairs,
#: the next one chosen from the votes so far (``services.pair_choice``)
PAIR_CHOICES = ("uniform", "adaptive")
FILTER_FLAGS = (
    ("--source", "sources", str, "only items of this source (repeatable)"),
    ("--campaign", "campaigns", str, "only votes of this campaign"),
    ("--annotator", "annotators", str, "only votes of this annotator (handle)"),
    ("--judge-run", "judge_runs", str, "only verdicts of this judge run"),
    ("--rater", "raters", str, "only imported judgments of this rater"),
    ("--category", "categories", str, "only items of this category"),
    ("--family", "families", str, "only items of this family"),
    ("--language", "languages", str, "only items in this language"),
    ("--turn", "turns", int, "only judgments of this turn (1-based)"),
    ("--criterion", "criteria", str, "only judgments on this criterion"),
)


#: workbench.stats.agreement.AGREEMENT_CONVENTIONS, default first, named here so that building
#: the parser imports no statistics
AGREEMENT_CONVENTION_NAMES = ("majority", "mt-bench")
#: the defaults of ``workbench agreement``'s settings of two sides, by flag (none of them
#: applies to ``--inter-annotator``)
AGREEMENT_DEFAULTS: dict[str, Any] = {
    "--bootstrap": 100,
    "--seed": 0,
    "--convention": AGREEMENT_CONVENTION_NAMES[0],
    "--decisive-weight": 3.0,
}

#: the Failures panel's questions (workbench.services.analysis.FAILURE_KINDS), named here so
#: that building the parser imports no service
FAILURE_KIND_NAMES = (
    "disagreement",
    "cycles",
    "loses-to-all",
    "reference-flagged",
    "lowest-turn-scores",
)
#: how ``workbench failures`` spells the kind of evaluator (its ``--kind`` is the question):
#: workbench.services.analysis.FAILURES_KIND_FLAG
FAILURES_KIND_FLAG = "--judgments"


def add_filters(
    parser: argparse.ArgumentParser, pooling: bool = False, kind_flag: str = "--kind"
) -> None:
    """The selection flags; with ``pooling`` (the leaderboard and the report) ``--kind`` may be
    ``all``, which needs ``--pool-kinds``. ``kind_flag``: the kind's flag where ``--kind``
    names something else (``workbench failures``)."""
    group = parser.add_argument_group("filters (repeat a flag to allow several values)")
    for flag, dest, kind, text in FILTER_FLAGS:
        group.add_argument(
            flag,
            dest=dest,
            type=kind,
            action="append",
            default=[],
            metavar="N" if kind is int else "NAME",
            help=text,
        )
    group.add_argument(
        kind_flag,
        dest="kinds",
        choices=("human", "judge", "all") if pooling else ("human", "judge"),
        action="append",
        default=[],
        help="only human or only judge judgments"
        + (
            " (default: human when the selection has any, else judge; all pools both and "
            "needs --pool-kinds)"
            if pooling
            else ""
        ),
    )
    if pooling:
        group.add_argument(
            "--pool-kinds",
            action="store_true",
            help="count human judgments and judge verdicts together in one board (labelled "
            "'pooled: human + judge')",
        )
    group.add_argument(
        "--origin",
        dest="origins",
        choices=("imported", "campaign", "judge-run", "adjudication"),
        action="append",
        default=[],
        help="only judgments imported with a benchmark, cast in campaigns, from judge runs, or "
        "settled by adjudication (left out unless named)",
    )
    group.add_argument(
        "--include-derived",
        action="store_true",
        help="also count judgments an importer derived from others it stored (WildVision-Bench's "
        "battles, derived from GPT-4o's verdicts); left out by default so nothing counts twice",
    )
    group.add_argument(
        "--include-simulated",
        action="store_true",
        help="also count the verdicts of simulated judge runs (judge model "
        "workbench-simulated-judge, drawn at random); left out by default unless --judge-run "
        "names the run",
    )
    group.add_argument(
        "--exclude-flagged",
        action="store_true",
        help="leave out judgments on flagged comparisons: an item, or either side's answer on "
        "it, flagged by an annotator, the importer's model-name rule or a judge run (counted "
        "and said otherwise)",
    )
    group.add_argument(
        "--multi-turn",
        action="store_true",
        help="only conversations of more than one user turn (VisionArena's Multi-Turn board)",
    )
    group.add_argument(
        "--exclude-ties",
        action="store_true",
        help="leave out tie and both-bad outcomes (VisionArena's Exclude Ties board)",
    )
    group.add_argument(
        "--exclude-category",
        dest="exclude_categories",
        action="append",
        default=[],
        metavar="NAME",
        help="leave out items in this category (repeatable); --exclude-category refusal is "
        "VisionArena's Exclude Refusal board where the source tags refusals",
    )


def add_request_flags(parser: argparse.ArgumentParser, fitting: bool = True) -> None:
    """The flags of an analysis request (``workbench leaderboard``, ``workbench report``),
    parsed by :meth:`AnalysisRequest.from_args`; their defaults are the request's. Without
    ``fitting`` (the report, which fits Bradley-Terry with and without style control) the
    method, style control and Elo's K are not offered."""
    if fitting:
        parser.add_argument(
            "--method",
            choices=tuple(defaults.METHODS),
            default=defaults.DEFAULT_METHOD,
            help="bt: Bradley-Terry maximum likelihood (default); elo: online Elo in stored "
            "order; ppi: the human votes' Bradley-Terry powered by the judge verdicts on the "
            "same kind of comparisons (prediction-powered inference), with rank-sets",
        )
        parser.add_argument(
            "--coverage",
            type=float,
            default=defaults.DEFAULT_COVERAGE,
            metavar="P",
            help="--method ppi: coverage of the intervals and rank-sets (default "
            f"{defaults.DEFAULT_COVERAGE:g})",
        )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=defaults.DEFAULT_BOOTSTRAP_ROUNDS,
        metavar="N",
        help=f"bootstrap rounds for 95%% CIs (default {defaults.DEFAULT_BOOTSTRAP_ROUNDS})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=defaults.DEFAULT_SEED,
        metavar="S",
        help=f"bootstrap seed (default {defaults.DEFAULT_SEED})",
    )
    parser.add_argument(
        "--anchor",
        metavar="MODEL[=VALUE]",
        help="pin a model's rating, e.g. gpt-4o=1000 (default: the model with the most battles "
        f"at {defaults.DEFAULT_ANCHOR_RATING:g})",
    )
    parser.add_argument(
        "--exclude-refusal",
        action="store_true",
        help="leave out battles in which either answer refuses, found by a phrase rule in the "
        "answers (VisionArena's Exclude Refusal board on data that does not tag refusals)",
    )
    if fitting:
        parser.add_argument(
            "--style-control",
            nargs="?",
            const=defaults.DEFAULT_STYLE_ESTIMATOR,
            choices=defaults.STYLE_ESTIMATOR_NAMES,
            metavar="ESTIMATOR",
            help="control for answer length and markdown (bt only), with FastChat's 2024 "
            "estimator (fastchat-2024, the default) or LMArena's current contextual "
            "Bradley-Terry (lmarena); plain ratings are shown too",
        )
    parser.add_argument(
        "--decisive-weight",
        type=float,
        default=defaults.DEFAULT_DECISIVE_WEIGHT,
        metavar="W",
        help=f"count a 'much better' verdict as W battles (default "
        f"{defaults.DEFAULT_DECISIVE_WEIGHT:g}, the rule of WildVision-Bench and "
        "Arena-Hard-Auto; 1 counts every verdict once)",
    )
    parser.add_argument(
        "--ties",
        choices=tuple(defaults.TIE_POLICIES),
        default=defaults.DEFAULT_TIES,
        help="half: a tie (or both bad) counts half a win to each side (default); drop: ties "
        "are left out",
    )
    parser.add_argument(
        "--min-battles",
        type=int,
        default=defaults.DEFAULT_MIN_BATTLES,
        metavar="N",
        help="leave out, with the reason, models in fewer than N battles (default "
        f"{defaults.DEFAULT_MIN_BATTLES}; 0 keeps every model)",
    )
    if fitting:
        parser.add_argument(
            "--k-factor",
            type=float,
            default=defaults.DEFAULT_K_FACTOR,
            metavar="K",
            help=f"Elo K factor (default {defaults.DEFAULT_K_FACTOR:g})",
        )
    add_filters(parser, pooling=True)


def add_scope(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scope",
        choices=tuple(CYCLE_SCOPES),
        default=DEFAULT_CYCLE_SCOPE,
        help="where a preference cycle is looked for: per-evaluator (each evaluator's own "
        "judgments of an item; the default) or pooled-per-item (all judgments of the item)",
    )


def add_size(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "--size", metavar="WxH", help=f"window size of the screenshot (default {default})"
    )


# --- the commands, in the registry's order -------------------------------------------------


def import_(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sources", nargs="+", metavar="SOURCE", help="files or folders to read")
    parser.add_argument("--format", required=True, help="import format (see 'workbench plugins')")
    parser.add_argument("--into", required=True, metavar="BUNDLE", help="the bundle file")
    parser.add_argument(
        "--skip-rejected",
        action="store_true",
        help="import the valid rows and list the rejected ones, instead of importing nothing",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def info(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bundle", metavar="BUNDLE", help="a bundle file, or a postgresql:// URL of a server bundle"
    )
    parser.add_argument("--json", action="store_true", help="print as JSON")


def upgrade(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bundle", metavar="BUNDLE", help="a bundle file, or a postgresql:// URL of a server bundle"
    )


def plugins(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print as JSON")


def demo(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", type=Path, help="where to write it (default: the user data folder)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--force", action="store_true", help="replace an existing demo bundle")


def campaign_create(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("--name", required=True, help="campaign name (annotators may see it)")
    parser.add_argument(
        "--protocol", required=True, help="annotation protocol (see 'workbench campaign protocols')"
    )
    parser.add_argument(
        "--models",
        default="all",
        help="comma-separated model names, 'reference' for the reference answer, or 'all' "
        "(default; give none for verification protocols)",
    )
    parser.add_argument(
        "--items",
        default="all",
        help="'all' (default), a source name, or comma-separated item ids (source:id where an "
        "id exists in several sources)",
    )
    parser.add_argument("--votes-per-pair", type=int, default=1, metavar="N", help="default 1")
    parser.add_argument(
        "--lease-minutes",
        type=float,
        metavar="M",
        help="how long a task shown to an annotator stays reserved for them (default 30)",
    )
    parser.add_argument(
        "--pack-lease-days",
        type=float,
        metavar="D",
        help="how long an offline pack's tasks stay reserved for its annotator (default 14)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="default 0")
    parser.add_argument(
        "--pairing",
        choices=(*PAIR_CHOICES, *PAIRINGS),
        help="uniform (default): the protocol's pairs (all pairs, or each model against the "
        "reference for protocols comparing with it) handed out in the schedule's order; "
        "adaptive: the same tasks, each next model pair chosen from the votes so far where a "
        "vote narrows the unresolved rating differences most; all, anchor, balanced: uniform "
        "over all pairs, pairs with an anchor, or a balanced random sample",
    )
    parser.add_argument("--anchor", metavar="MODEL", help="anchor model, or 'reference'")
    parser.add_argument(
        "--pairs-per-model-pair",
        type=int,
        metavar="N",
        help="target comparisons per model pair for balanced pairing (per model for grading)",
    )
    parser.add_argument(
        "--gold",
        type=Path,
        metavar="FILE.jsonl",
        help="attention checks, one JSON object a line: item, answer, first, second, turn",
    )
    parser.add_argument(
        "--practice-file",
        type=Path,
        metavar="FILE.jsonl",
        help="practice tasks, one JSON object a line: item, answer, first, second, turn, "
        "explanation (shown after the annotator answers)",
    )
    parser.add_argument(
        "--practice",
        type=int,
        metavar="N",
        help="a practice round of N tasks drawn from --practice-file (default: all of them), "
        "or without a file from answers their source marks right and wrong",
    )
    parser.add_argument(
        "--practice-required",
        action="store_true",
        help="annotators cannot skip the practice round",
    )
    parser.add_argument(
        "--context", default="standard", help="which outputs to show (default: standard)"
    )
    parser.add_argument(
        "--guidelines",
        type=Path,
        metavar="FILE.md",
        help="the annotators' guidelines (markdown), shown when they start and on F1",
    )
    parser.add_argument(
        "--without-missing-images",
        action="store_true",
        help="leave out the chosen items that miss an image (they cannot be judged by eye)",
    )
    parser.add_argument(
        "--annotators",
        metavar="HANDLES",
        help="comma-separated handles of the annotators who work on it (default: every "
        "annotator of the bundle); others are refused",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="draw the schedule and print what would be created (tasks, each annotator's "
        "share), storing nothing",
    )
    parser.add_argument(
        "--exclude-flagged",
        action="store_true",
        help="schedule no comparison showing a flagged answer or item (a broken image, an "
        "answer that names its model...)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def campaign_guidelines(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    change = parser.add_mutually_exclusive_group()
    change.add_argument("--set", type=Path, metavar="FILE.md", help="store these guidelines")
    change.add_argument("--clear", action="store_true", help="remove the guidelines")


def campaign_show(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument(
        "--json", action="store_true", help="print everything, schedule too, as JSON"
    )


def campaign_status(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="also make every logged pair choice again (as replay-choices does); exit 1 naming "
        "the first that differs",
    )


def campaign_disagreements(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument(
        "--judge-run", metavar="RUN", help="also list tasks where the humans and this run differ"
    )
    parser.add_argument("--json", action="store_true", help="print as JSON")


def campaign_adjudicate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument("--task", type=int, required=True, metavar="ID")
    parser.add_argument("--answer", required=True, metavar="X", help="e.g. a, b, tie, 4")
    parser.add_argument("--note", required=True, metavar="TEXT", help="why this answer")
    parser.add_argument("--adjudicator", required=True, metavar="HANDLE")
    parser.add_argument("--criterion", help="default: the protocol's first")
    parser.add_argument("--json", action="store_true", help="print the record as JSON")


def campaign_reassign(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument("--task", type=int, required=True, metavar="ID")
    parser.add_argument("--to", required=True, metavar="HANDLE", help="the annotator")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def campaign_lower_votes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument("--task", type=int, required=True, metavar="ID")
    parser.add_argument("--votes", type=int, required=True, metavar="N", help="the votes needed")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def campaign_list(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("--json", action="store_true", help="print as JSON")


def campaign_set_pairing(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument("pairing", choices=PAIR_CHOICES)


def campaign_replay_choices(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("name", metavar="NAME")
    parser.add_argument("--json", action="store_true", help="print as JSON")


def campaign_protocols(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print as JSON")


def annotator_add(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("handle", metavar="HANDLE")
    parser.add_argument("--name", help="display name")
    parser.add_argument("--expertise", help="e.g. 'radiologist' or 'native Spanish speaker'")


def annotator_list(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("--json", action="store_true", help="print as JSON")


def pack_export(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("--campaign", required=True, metavar="NAME")
    parser.add_argument("--annotator", required=True, metavar="HANDLE")
    parser.add_argument("--out", required=True, type=Path, metavar="PACK.wbb")
    parser.add_argument("--limit", type=int, metavar="N", help="at most N tasks (default: all)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def pack_merge(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help=BUNDLE_HELP)
    parser.add_argument("pack", metavar="PACK.wbb", type=Path)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def leaderboard(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    add_request_flags(parser)
    parser.add_argument(
        "--answer-tokens",
        action="store_true",
        help="add each model's mean answer length in tokens (WildVision-Bench's Avg Tokens)",
    )
    parser.add_argument("--json", action="store_true", help="print as JSON")
    parser.add_argument(
        "--plot", type=Path, metavar="FILE", help="save a ratings plot (png, svg or pdf)"
    )
    parser.add_argument(
        "--heatmap", type=Path, metavar="FILE", help="save the observed win-rate heatmap"
    )
    parser.add_argument(
        "--csv", type=Path, metavar="FILE", help="save the leaderboard table as CSV"
    )


def agreement(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument(
        "--a",
        metavar="SOURCE",
        help="first evaluator: human, judge, imported, campaign, judge-run, adjudication, or "
        "KEY:NAME with KEY in source, campaign, annotator, run, rater, evaluator, category, "
        "language, criterion; join terms with commas (e.g. human,source:visit-bench)",
    )
    parser.add_argument("--b", metavar="SOURCE", help="second evaluator")
    parser.add_argument(
        "--inter-annotator",
        action="store_true",
        help="instead of two sides: the agreement among the human raters within each group "
        "(each campaign's annotators, each imported benchmark's raters) of the selection, "
        "Fleiss' kappa and Krippendorff's alpha, as workbench campaign status and the report",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=AGREEMENT_DEFAULTS["--bootstrap"],
        metavar="N",
        help="bootstrap rounds for the leaderboards compared by rank (default 100)",
    )
    parser.add_argument("--seed", type=int, default=AGREEMENT_DEFAULTS["--seed"])
    parser.add_argument(
        "--convention",
        choices=AGREEMENT_CONVENTION_NAMES,
        default=AGREEMENT_DEFAULTS["--convention"],
        help="majority: each side's majority per comparison, one count per comparison (the "
        "default); mt-bench: side b's majority against each vote of side a, one count per vote "
        "(MT-Bench's human-vs-judge agreement). Both are given with and without ties",
    )
    parser.add_argument(
        "--decisive-weight",
        type=float,
        default=AGREEMENT_DEFAULTS["--decisive-weight"],
        metavar="W",
        help="battles a 'much better' verdict counts as in the leaderboards compared by rank "
        "(default 3, as workbench leaderboard)",
    )
    add_filters(parser)
    parser.add_argument("--json", action="store_true", help="print as JSON")


def contradictions(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    add_scope(parser)
    parser.add_argument("--by-criterion", action="store_true", help="separate graphs per criterion")
    parser.add_argument(
        "--max-length",
        type=int,
        default=DEFAULT_MAX_CYCLE_LENGTH,
        metavar="N",
        help=f"longest cycle to look for (default {DEFAULT_MAX_CYCLE_LENGTH}, as the panels)",
    )
    parser.add_argument(
        "--list", type=int, default=20, metavar="N", help="cycles to list (default 20)"
    )
    add_filters(parser)
    parser.add_argument("--json", action="store_true", help="print as JSON")


def failures(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument(
        "--kind",
        required=True,
        choices=FAILURE_KIND_NAMES,
        help="disagreement, cycles, loses-to-all (with --model), reference-flagged or "
        "lowest-turn-scores",
    )
    parser.add_argument("--model", help="the model of loses-to-all")
    add_scope(parser)
    add_filters(parser, kind_flag=FAILURES_KIND_FLAG)
    parser.add_argument("--json", action="store_true", help="print as JSON")


def scores(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument(
        "--benchmark", required=True, help="whose scores, e.g. convbench or visit-bench"
    )
    parser.add_argument(
        "--model-attributes",
        type=Path,
        metavar="CSV",
        help="a CSV with a 'model' column and numeric ones such as 'size' (billions of "
        "parameters), for the tables that need them (CHIRP: how often each evaluator prefers "
        "the larger model)",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        metavar="N",
        help="bootstrap rounds of the boards read off the leaderboards (VisionArena, "
        f"WildVision-Bench; default {defaults.DEFAULT_BOOTSTRAP_ROUNDS}); the papers' own Elo "
        "tables keep their protocol's rounds (CHIRP 500, VisIT-Bench 1000)",
    )
    parser.add_argument(
        "--seed", type=int, metavar="N", help=f"their seed (default {defaults.DEFAULT_SEED})"
    )
    add_filters(parser)
    parser.add_argument("--json", action="store_true", help="print as JSON")


def categories(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    add_filters(parser)
    parser.add_argument("--json", action="store_true", help="print the table as JSON")


def compare_rankings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", metavar="A")
    parser.add_argument("b", metavar="B")
    for side in ("a", "b"):
        parser.add_argument(
            f"--{side}-request",
            metavar="FLAGS",
            help=f"the leaderboard flags of bundle {side.upper()}'s board, as one argument, "
            "e.g. --" + side + "-request='--kind judge --judge-run gpt4o' (as `workbench "
            "leaderboard` takes them; default: the default request)",
        )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def judge(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bundle", metavar="BUNDLE", help="a bundle file, or a postgresql:// URL of a server bundle"
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the endpoint, e.g. http://127.0.0.1:8000/v1 for a local server or "
        "https://api.openai.com/v1 (default: the last one used; there is no other default)",
    )
    parser.add_argument(
        "--model", metavar="NAME", help="the judge model (default: the last one used)"
    )
    parser.add_argument(
        "--simulated",
        action="store_true",
        help="try the judge without a model: a built-in simulated judge on loopback answers in "
        "the template's format with verdicts drawn at random (its runs are named "
        "workbench-simulated-judge; see docs/judge.md)",
    )
    parser.add_argument(
        "--template", required=True, metavar="NAME", help="see 'workbench judge-templates'"
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--campaign", metavar="NAME", help="judge the pairs of this campaign")
    what.add_argument(
        "--models",
        metavar="A,B,...",
        help="models to compare ('reference' for the reference answer; default: every model "
        "that answered the items)",
    )
    parser.add_argument(
        "--items",
        default="all",
        help="'all' (default), a source name, or comma-separated item ids",
    )
    parser.add_argument("--anchor", metavar="MODEL", help="compare every model with this one")
    parser.add_argument(
        "--context", default="standard", help="which outputs to judge (default: standard)"
    )
    parser.add_argument("--limit", type=int, metavar="N", help="judge at most N comparisons")
    parser.add_argument(
        "--matchups-of",
        metavar="SELECTOR",
        help="judge only the model pairs these judgments compared on each item, e.g. human "
        "(CHIRP's judges on the human survey's matchups); selectors as in 'workbench agreement'",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="requests at once (default: the number used last with this endpoint, else 8)",
    )
    parser.add_argument(
        "--swap",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="judge every pair in both orders (default: on, except for a template whose "
        "benchmark fixes the side, such as convbench-pairwise: one query per conversation)",
    )
    parser.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop before exceeding (default 5 when the model's price is known; 0: no limit)",
    )
    parser.add_argument(
        "--max-requests",
        type=int,
        metavar="N",
        help="stop after N requests (default 1000; 0: no limit)",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="start without asking when the estimate is above the limits (the run still stops "
        "at them)",
    )
    parser.add_argument(
        "--text-only",
        action="store_true",
        help="let an image-based template judge items whose images are missing, on text alone",
    )
    parser.add_argument(
        "--max-total-tokens", type=int, metavar="N", help="stop before exceeding N tokens"
    )
    parser.add_argument("--temperature", type=float, help="default: the template's (usually 0)")
    parser.add_argument(
        "--max-output-tokens", type=int, metavar="N", help="per answer (default: the template's)"
    )
    parser.add_argument(
        "--price",
        metavar="IN,OUT",
        help="the judge model's price in dollars per million input and output tokens "
        "(0,0 for a local model)",
    )
    parser.add_argument(
        "--prices", type=Path, metavar="FILE.json", help='prices {"model": [in, out], ...}'
    )
    parser.add_argument(
        "--api-key-env", metavar="VAR", help="read the API key from this environment variable"
    )
    parser.add_argument("--run", metavar="NAME", help="run name (default: derived from settings)")
    parser.add_argument("--no-cache", action="store_true", help="ask again even if cached")
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="wall-clock seconds per attempt, however slowly the answer arrives (default 120)",
    )
    parser.add_argument(
        "--attempts", type=int, default=6, metavar="N", help="tries per request (default 6)"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would be sent and its cost estimate"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def simulated_judge(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the drawn verdicts")


def judge_templates(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--show", metavar="NAME", help="print this template in full")
    parser.add_argument("--json", action="store_true", help="print as JSON")


def export(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="file to write")
    parser.add_argument(
        "--format",
        choices=tuple(FORMAT_DESCRIPTIONS),
        default="jsonl",
        help="what to write (default jsonl)",
    )
    parser.add_argument("--campaign", metavar="NAME", help="only the votes of this campaign")
    parser.add_argument(
        "--source",
        choices=("human", "judge", "all"),
        default="all",
        help="whose judgments: people's, judges' or all (default all)",
    )
    parser.add_argument(
        "--with-images",
        choices=("embed", "paths", "none"),
        default="none",
        help="images as base64, as files under images/ beside FILE, or as references only "
        "(default: none)",
    )
    parser.add_argument(
        "--pseudonymize",
        action="store_true",
        help="replace annotator handles by a keyed hash (key from VLM_WORKBENCH_PSEUDONYM_KEY, "
        "else random; never written)",
    )
    parser.add_argument(
        "--aggregate",
        action="store_true",
        help="jsonl/csv: one record per judged pair (votes per side) instead of per judgment",
    )
    parser.add_argument(
        "--include-derived",
        action="store_true",
        help="arena: also write the judgments an importer derived from others it stored "
        "(WildVision-Bench's battles, derived from GPT-4o's verdicts); left out by default, as "
        "the leaderboard leaves them out, so nothing counts twice",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace FILE even if it is not an earlier export (never a bundle or a link)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def report(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="HTML to write")
    add_request_flags(parser, fitting=False)


def check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument(
        "--full",
        action="store_true",
        help="SQLite's full integrity check and the foreign-key check (slower)",
    )
    parser.add_argument("--json", action="store_true", help="print as JSON")


def backup(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")


def backups(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument("--json", action="store_true", help="print as JSON")


def restore(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE")
    parser.add_argument(
        "--from",
        dest="backup",
        metavar="FILE",
        type=Path,
        help="the backup to restore (default: the newest one, beside the bundle or in the "
        "backup folder)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="restore a backup of another bundle (by default only this bundle's own backups)",
    )


def push(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help="the bundle file (or a URL)")
    parser.add_argument("url", metavar="URL", help=URL_HELP)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def pull(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help=URL_HELP)
    parser.add_argument("bundle", metavar="BUNDLE", help="the bundle file (or a URL)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def server_init(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help=URL_HELP)


def server_check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help=URL_HELP)
    parser.add_argument("--json", action="store_true", help="print as JSON")


def server_login(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help=URL_HELP)
    parser.add_argument(
        "--no-check", action="store_true", help="store the password without connecting first"
    )


def server_logout(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help=URL_HELP)


def open_(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "bundle", metavar="BUNDLE", help="a bundle file, or a postgresql:// URL of a server bundle"
    )
    parser.add_argument("--screenshot", metavar="FILE.png", type=Path, help="render and exit")
    add_size(parser, "1600x1000")
    parser.add_argument("--page", choices=PAGES, default="items", help="page to render")
    parser.add_argument("--item", metavar="ID", help="item to select (external id or row id)")
    parser.add_argument(
        "--campaign",
        metavar="NAME",
        help="campaign to annotate (--page annotate) or to show (--page monitor|adjudicate)",
    )
    parser.add_argument(
        "--annotator",
        metavar="HANDLE",
        help="annotator profile (default: the pack's annotator, else the first profile, else a "
        "new profile 'screenshot')",
    )


def annotate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE", help="a bundle file, pack, or URL")
    parser.add_argument("--campaign", metavar="NAME", help="campaign to annotate")
    parser.add_argument("--annotator", metavar="HANDLE", help="annotator profile")
    parser.add_argument("--screenshot", metavar="FILE.png", type=Path, help="render and exit")
    add_size(parser, "1366x768")
