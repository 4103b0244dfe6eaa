"""``workbench leaderboard``, ``workbench agreement``, ``workbench contradictions`` and
``workbench scores``: statistics over the judgments in a bundle."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from workbench.errors import WorkbenchError
from workbench.stats.cycle_scopes import CYCLE_SCOPES, DEFAULT_CYCLE_SCOPE, DEFAULT_MAX_CYCLE_LENGTH

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


class StatsCommandError(WorkbenchError):
    pass


def _add_filters(
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
    from workbench.services import analysis_request as defaults

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
    _add_filters(parser, pooling=True)


def _add_scope(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scope",
        choices=tuple(CYCLE_SCOPES),
        default=DEFAULT_CYCLE_SCOPE,
        help="where a preference cycle is looked for: per-evaluator (each evaluator's own "
        "judgments of an item; the default) or pooled-per-item (all judgments of the item)",
    )


def register(commands: Any) -> None:
    leaderboard = commands.add_parser(
        "leaderboard", help="rate the models from the pairwise outcomes in a bundle"
    )
    leaderboard.add_argument("bundle", metavar="BUNDLE")
    add_request_flags(leaderboard)
    leaderboard.add_argument(
        "--answer-tokens",
        action="store_true",
        help="add each model's mean answer length in tokens (WildVision-Bench's Avg Tokens)",
    )
    leaderboard.add_argument("--json", action="store_true", help="print as JSON")
    leaderboard.add_argument(
        "--plot", type=Path, metavar="FILE", help="save a ratings plot (png, svg or pdf)"
    )
    leaderboard.add_argument(
        "--heatmap", type=Path, metavar="FILE", help="save the observed win-rate heatmap"
    )
    leaderboard.add_argument(
        "--csv", type=Path, metavar="FILE", help="save the leaderboard table as CSV"
    )
    leaderboard.set_defaults(handler=run_leaderboard)

    agreement = commands.add_parser(
        "agreement", help="agreement of two evaluators (e.g. a judge and the humans)"
    )
    agreement.add_argument("bundle", metavar="BUNDLE")
    agreement.add_argument(
        "--a",
        metavar="SOURCE",
        help="first evaluator: human, judge, imported, campaign, judge-run, adjudication, or "
        "KEY:NAME with KEY in source, campaign, annotator, run, rater, evaluator, category, "
        "language, criterion; join terms with commas (e.g. human,source:visit-bench)",
    )
    agreement.add_argument("--b", metavar="SOURCE", help="second evaluator")
    agreement.add_argument(
        "--inter-annotator",
        action="store_true",
        help="instead of two sides: the agreement among the human raters within each group "
        "(each campaign's annotators, each imported benchmark's raters) of the selection, "
        "Fleiss' kappa and Krippendorff's alpha, as workbench campaign status and the report",
    )
    agreement.add_argument(
        "--bootstrap",
        type=int,
        default=AGREEMENT_DEFAULTS["--bootstrap"],
        metavar="N",
        help="bootstrap rounds for the leaderboards compared by rank (default 100)",
    )
    agreement.add_argument("--seed", type=int, default=AGREEMENT_DEFAULTS["--seed"])
    agreement.add_argument(
        "--convention",
        choices=AGREEMENT_CONVENTION_NAMES,
        default=AGREEMENT_DEFAULTS["--convention"],
        help="majority: each side's majority per comparison, one count per comparison (the "
        "default); mt-bench: side b's majority against each vote of side a, one count per vote "
        "(MT-Bench's human-vs-judge agreement). Both are given with and without ties",
    )
    agreement.add_argument(
        "--decisive-weight",
        type=float,
        default=AGREEMENT_DEFAULTS["--decisive-weight"],
        metavar="W",
        help="battles a 'much better' verdict counts as in the leaderboards compared by rank "
        "(default 3, as workbench leaderboard)",
    )
    _add_filters(agreement)
    agreement.add_argument("--json", action="store_true", help="print as JSON")
    agreement.set_defaults(handler=run_agreement)

    contradictions = commands.add_parser(
        "contradictions", help="preference cycles (A>B, B>C, C>A) per item and evaluator"
    )
    contradictions.add_argument("bundle", metavar="BUNDLE")
    _add_scope(contradictions)
    contradictions.add_argument(
        "--by-criterion", action="store_true", help="separate graphs per criterion"
    )
    contradictions.add_argument(
        "--max-length",
        type=int,
        default=DEFAULT_MAX_CYCLE_LENGTH,
        metavar="N",
        help=f"longest cycle to look for (default {DEFAULT_MAX_CYCLE_LENGTH}, as the panels)",
    )
    contradictions.add_argument(
        "--list", type=int, default=20, metavar="N", help="cycles to list (default 20)"
    )
    _add_filters(contradictions)
    contradictions.add_argument("--json", action="store_true", help="print as JSON")
    contradictions.set_defaults(handler=run_contradictions)

    failures = commands.add_parser(
        "failures", help="items that answer a failure question (e.g. judge/human disagreement)"
    )
    failures.add_argument("bundle", metavar="BUNDLE")
    failures.add_argument(
        "--kind",
        required=True,
        choices=FAILURE_KIND_NAMES,
        help="disagreement, cycles, loses-to-all (with --model), reference-flagged or "
        "lowest-turn-scores",
    )
    failures.add_argument("--model", help="the model of loses-to-all")
    _add_scope(failures)
    # the judgments cycles and loses-to-all read, as the Graph and Failure cases panels choose
    _add_filters(failures, kind_flag=FAILURES_KIND_FLAG)
    failures.add_argument("--json", action="store_true", help="print as JSON")
    failures.set_defaults(handler=run_failures)

    scores = commands.add_parser("scores", help="a benchmark's own scores (e.g. ConvBench)")
    scores.add_argument("bundle", metavar="BUNDLE")
    scores.add_argument(
        "--benchmark", required=True, help="whose scores, e.g. convbench or visit-bench"
    )
    scores.add_argument(
        "--model-attributes",
        type=Path,
        metavar="CSV",
        help="a CSV with a 'model' column and numeric ones such as 'size' (billions of "
        "parameters), for the tables that need them (CHIRP: how often each evaluator prefers "
        "the larger model)",
    )
    from workbench.services import analysis_request as defaults

    scores.add_argument(
        "--bootstrap",
        type=int,
        metavar="N",
        help="bootstrap rounds of the boards read off the leaderboards (VisionArena, "
        f"WildVision-Bench; default {defaults.DEFAULT_BOOTSTRAP_ROUNDS}); the papers' own Elo "
        "tables keep their protocol's rounds (CHIRP 500, VisIT-Bench 1000)",
    )
    scores.add_argument(
        "--seed", type=int, metavar="N", help=f"their seed (default {defaults.DEFAULT_SEED})"
    )
    _add_filters(scores)
    scores.add_argument("--json", action="store_true", help="print as JSON")
    scores.set_defaults(handler=run_scores)


# --- helpers -----------------------------------------------------------------------------------


def _filters(args: argparse.Namespace) -> Any:
    from workbench.services.outcomes import OutcomeFilter

    return OutcomeFilter(
        **{dest: tuple(getattr(args, dest)) for _, dest, _, _ in FILTER_FLAGS},
        kinds=tuple(args.kinds),
        origins=tuple(args.origins),
        include_derived=args.include_derived,
        include_simulated=args.include_simulated,
        exclude_flagged=args.exclude_flagged,
        multi_turn=args.multi_turn,
        exclude_ties=args.exclude_ties,
        exclude_categories=tuple(args.exclude_categories),
    )


def _print_json(document: Any) -> None:
    from workbench.services.to_json import jsonable

    print(json.dumps(jsonable(document), indent=2))


def _number(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


# --- leaderboard -------------------------------------------------------------------------------


def _quick_leaderboard(args: argparse.Namespace, request: Any) -> dict[str, Any] | None:
    """The document of a plain ``--method bt --json`` leaderboard of every judgment or of one
    campaign's, read without pandas or SQLAlchemy (services.quick_leaderboard), or None for
    the full path."""
    if not args.json or args.plot or args.heatmap or args.csv:
        return None
    from workbench.services.quick_leaderboard import quick_leaderboard

    return quick_leaderboard(args.bundle, request)


def run_leaderboard(args: argparse.Namespace) -> int:
    from workbench.services.analysis_request import AnalysisRequest

    request = AnalysisRequest.from_args(args)
    document = _quick_leaderboard(args, request)
    if document is not None:
        print(json.dumps(document, indent=2))
        return 0
    from workbench.cli.progress import TerminalProgress
    from workbench.services.analysis import AnalysisError, leaderboard
    from workbench.storage import Bundle

    progress = TerminalProgress()
    try:
        # a large bundle's full path takes tens of seconds: a terminal sees the time go by
        with (
            progress.waiting("ranking", when_piped=False),
            Bundle.open(args.bundle, read_only=True) as bundle,
        ):
            try:
                result = leaderboard(bundle, request)
            except AnalysisError as error:
                raise StatsCommandError(str(error)) from error
    finally:
        progress.finish()
    written = []
    if args.plot:
        result.forest_figure().savefig(args.plot)
        written.append(f"plot written to {args.plot}")
    if args.heatmap:
        result.heatmap_figure().savefig(args.heatmap)
        written.append(f"heatmap written to {args.heatmap}")
    if args.csv:
        result.write_csv(args.csv)
        written.append(f"table written to {args.csv}")
    if args.json:
        _print_json(result.to_json())
        return 0
    _print_leaderboard(result)
    for line in written:
        print(line)
    return 0


def _print_leaderboard(result: Any) -> None:
    from workbench.services.analysis_request import METHODS, flagged_note, simulated_note

    board, request = result.board, result.request
    judged = (
        f"{result.battles} human votes, powered by judge verdicts"
        if result.powered is not None
        else f"{result.battles} battles of {request.kind_label} judgments"
    )
    print(f"{METHODS[board.method]} ratings from {judged} ({request.selection_text()})")
    print(f"request: {request.describe()}")
    print(f"command: {request.to_command()}")
    if board.anchor is not None:
        print(f"anchor: {board.anchor.model} = {board.anchor.rating:g}")
    if board.bootstrap:
        print(f"95% CI from {board.bootstrap} bootstrap rounds (seed {board.seed})")
    if result.powered is not None:
        print(result.powered.describe())
        print(
            f"{100 * result.powered.coverage:g}% intervals (sandwich) and rank-sets "
            "(simultaneous over every pair); n = human votes"
        )
    if result.battles_without_answers:
        print(
            f"style control left out {result.battles_without_answers} battles whose answers "
            "are not in the bundle"
        )
    for model, battles in sorted(result.left_out.items(), key=lambda item: (item[1], item[0])):
        print(
            f"left out: {model} ({battles} battles, fewer than --min-battles {request.min_battles})"
        )
    note = simulated_note(result.simulated_left_out)
    if note is not None:
        print(f"left out: {note}")
    flagged = flagged_note(result.flagged_judgments, request.exclude_flagged)
    if flagged is not None:
        print(f"flags: {flagged}")
    table = board.table
    width = max(5, *(len(str(model)) for model in table["model"]))
    styled = "rating_without_style_control" in table.columns
    tokens = "mean_answer_tokens" in table.columns
    ranked = "rank_lower" in table.columns
    header = (
        f"{'#':>3}  {'model':<{width}}  {'rating':>8}  {'95% CI':>17}  {'vs anchor':>9}  {'n':>6}"
    )
    if styled:
        header += f"  {'no style':>8}  {'rank change':>11}"
    if tokens:
        header += f"  {'tokens':>6}"
    if ranked:
        header += f"  {'rank-set':>8}  {'verdicts':>8}"
    print(header)
    for rank, row in enumerate(table.itertuples(index=False), start=1):
        interval = (
            f"{_number(row.ci_lower)} .. {_number(row.ci_upper)}"
            if not math.isnan(row.ci_lower)
            else "-"
        )
        win = "-" if math.isnan(row.win_rate_vs_anchor) else f"{100 * row.win_rate_vs_anchor:.1f}%"
        line = (
            f"{rank:>3}  {row.model:<{width}}  {row.rating:>8.1f}  {interval:>17}  {win:>9}  "
            f"{row.n:>6}"
        )
        if styled:
            line += f"  {row.rating_without_style_control:>8.1f}  {row.rank_change:>+11d}"
        if tokens:
            line += f"  {_number(row.mean_answer_tokens, 0):>6}"
        if ranked:
            line += f"  {f'{row.rank_lower}-{row.rank_upper}':>8}  {row.judge_verdicts:>8}"
        print(line)
    if board.style_coefficients is not None:
        print(
            f"style control: {board.style_estimator}; style coefficients (log-odds per SD): "
            + ", ".join(f"{name} {value:+.3f}" for name, value in board.style_coefficients.items())
        )


# --- agreement ---------------------------------------------------------------------------------


class AgreementUsageError(StatsCommandError):
    """``workbench agreement`` asked for two sides and for the raters within groups at once,
    or for neither."""

    exit_code = 2


def run_agreement(args: argparse.Namespace) -> int:
    from workbench.services.analysis import AnalysisError, agreement
    from workbench.storage import Bundle

    if args.inter_annotator:
        return _run_inter_annotator(args)
    if args.a is None or args.b is None:
        raise AgreementUsageError(
            "workbench agreement needs --a and --b (the two sides compared), or "
            "--inter-annotator (the raters within each group)"
        )
    with Bundle.open(args.bundle, read_only=True) as bundle:
        try:
            result = agreement(
                bundle,
                args.a,
                args.b,
                _filters(args),
                bootstrap=args.bootstrap,
                seed=args.seed,
                convention=args.convention,
                decisive_weight=args.decisive_weight,
            )
        except AnalysisError as error:
            raise StatsCommandError(str(error)) from error
    document = result.to_json()
    if args.json:
        _print_json(document)
        return 0
    _print_agreement(document)
    return 0


def _run_inter_annotator(args: argparse.Namespace) -> int:
    from workbench.services.inter_annotator import inter_annotator_agreement
    from workbench.storage import Bundle

    given = [flag for flag, value in (("--a", args.a), ("--b", args.b)) if value is not None]
    # the two sides' settings: the raters within a group have none of them
    given += [
        flag
        for flag, default in AGREEMENT_DEFAULTS.items()
        if getattr(args, flag[2:].replace("-", "_")) != default
    ]
    if given:
        raise AgreementUsageError(
            f"--inter-annotator compares the raters within each group, not two sides: leave "
            f"out {' and '.join(given)}"
        )
    with Bundle.open(args.bundle, read_only=True) as bundle, bundle.read_session() as session:
        document = inter_annotator_agreement(session, _filters(args)).to_json()
    if args.json:
        _print_json(document)
        return 0
    print(f"inter-annotator agreement ({document['filters']})")
    print(f"  {document['request']['definition']}")
    if not document["groups"]:
        print("  no comparison was rated by two or more raters of one group")
    for row in document["groups"]:
        print(
            f"  {row['group']}: {row['raters']} raters on {row['comparisons']} comparisons, "
            f"Fleiss' kappa {_number(row['fleiss_kappa'], 3)} (on "
            f"{row['fleiss_comparisons']}), Krippendorff's alpha "
            f"{_number(row['krippendorff_alpha'], 3)}"
        )
    return 0


def _print_agreement(document: dict[str, Any]) -> None:
    agreement = document["agreement"]
    request = document["request"]
    print(f"{document['a']}  vs  {document['b']}  ({document['filters']})")
    print(f"  convention: {request['convention']} ({request['convention_label']})")
    overlap = document["overlap"]
    if overlap["judgments"]:
        print(
            f"  {overlap['judgments']} judgments selected by both sides count on side "
            f"{overlap['kept_on']} only"
        )
    if document["simulated_left_out"]:
        print(
            f"  {document['simulated_left_out']} verdicts of the simulated judge left out "
            "(drawn at random; --include-simulated counts them)"
        )
    counted = "comparisons judged by both" if request["unit"] == "comparisons" else "votes of a"
    print(f"  {counted:<29}{agreement['comparisons']}")
    print(f"  agreement with ties          {_number(_pct(agreement['agreement_with_ties']))}%")
    print(
        f"  agreement without ties       {_number(_pct(agreement['agreement_without_ties']))}% "
        f"(of {agreement['comparisons_without_ties']})"
    )
    print(f"  Cohen's kappa                {_number(agreement['cohen_kappa'], 3)}")
    print(f"  CHIRP kappa                  {_number(agreement['chirp_kappa'], 3)}")
    for side in ("a", "b"):
        raters = document["raters"][side]
        if raters["comparisons"]:
            print(
                f"  raters of {side}: {raters['raters']} raters on {raters['comparisons']} "
                f"comparisons, Fleiss' kappa {_number(raters['fleiss_kappa'], 3)} "
                f"(on {raters['fleiss_comparisons']}), Krippendorff's alpha "
                f"{_number(raters['krippendorff_alpha'], 3)}"
            )
    ranks = document["ranks"]
    if ranks:
        line = (
            f"  leaderboards ({ranks['models']} models): Spearman "
            f"{_number(ranks['spearman'], 3)}, Kendall tau {_number(ranks['kendall_tau'], 3)}"
        )
        if ranks["ci_order"]:
            order = ranks["ci_order"]
            line += (
                f", CI order agreement {_number(_pct(order['share']))}% "
                f"({order['agree']}/{order['pairs']} pairs, {order['contradict']} contradict)"
            )
        print(line)
    print("  position bias (share of decisive judgments won by the first-shown answer):")
    for row in document["position_bias"]:
        if row["p_value"] is None and row["positions"] != "randomized":
            print(f"    {row['evaluator']}: not measurable, {row['positions']}")
            continue
        print(
            f"    {row['evaluator']}: {_number(_pct(row['first_win_share']))}% of "
            f"{row['decisive']} (p = {_number(row['p_value'], 3)})"
        )


def _pct(value: Any) -> Any:
    return None if value is None else 100 * value


# --- contradictions ----------------------------------------------------------------------------


def run_contradictions(args: argparse.Namespace) -> int:
    from workbench.services.analysis import AnalysisError, contradictions
    from workbench.storage import Bundle

    filters = _filters(args)
    with Bundle.open(args.bundle, read_only=True) as bundle:
        try:
            document = contradictions(
                bundle, filters, args.by_criterion, args.max_length, args.list, args.scope
            ).to_json()
        except AnalysisError as error:
            raise StatsCommandError(str(error)) from error
    graphs = document["graphs"]
    if args.json:
        _print_json(document)
        return 0
    one_per = "evaluator and item" if args.scope == "per-evaluator" else "item"
    print(
        f"{document['cycles']} preference cycles {CYCLE_SCOPES[args.scope]} on "
        f"{document['items_with_cycles']} item(s), in {graphs} graphs (one per {one_per}"
        f"{' and criterion' if args.by_criterion else ''}; {filters.describe()})"
    )
    for row in document["per_evaluator"]:
        print(
            f"  {row['evaluator']}: {row['cycles']} cycles over {row['items']} items "
            f"({_number(row['cycles_per_item'], 3)} per item)"
        )
    if document["per_model"]:
        print(
            "  models in most cycles: "
            + ", ".join(f"{row['model']} ({row['cycles']})" for row in document["per_model"][:10])
        )
    for row in document["examples"]:
        who = f"{row['evaluator']} on " if "evaluator" in row else ""
        print(f"    {who}{row['item_external_id']}: " + " < ".join(row["cycle"]))
    return 0


# --- failures ----------------------------------------------------------------------------------


def run_failures(args: argparse.Namespace) -> int:
    from workbench.services.analysis import AnalysisError, failure_cases
    from workbench.storage import Bundle

    with Bundle.open(args.bundle, read_only=True) as bundle:
        try:
            document = failure_cases(
                bundle, args.kind, args.model, scope=args.scope, filters=_filters(args)
            ).to_json()
        except AnalysisError as error:
            raise StatsCommandError(str(error)) from error
    if args.json:
        _print_json(document)
        return 0
    print(
        f"{len(document['items'])} item(s): {document['question']} "
        f"({document['request']['filters']})"
    )
    for row in document["items"]:
        print(f"  {row['label']}  {row['category'] or '-'}  {row['detail']}")
    return 0


# --- scores ------------------------------------------------------------------------------------


def benchmark_scores(name: str) -> Any:
    """The :class:`BenchmarkScores` a plugin registered under ``name``."""
    from workbench.services.analysis import AnalysisError, score_provider

    try:
        return score_provider(name)
    except AnalysisError as error:
        raise StatsCommandError(str(error)) from error


class ScoresUsageError(StatsCommandError):
    """``workbench scores`` given a setting its benchmark has no use for, or a bad one."""

    exit_code = 2


def _score_boards(args: argparse.Namespace, provider: Any) -> tuple[int, int]:
    """The bootstrap rounds and seed of the boards ``provider`` reads off the leaderboards;
    refused naming the flag when it reads none or the value is negative."""
    from workbench.services import analysis_request as defaults

    for flag, value in (("--bootstrap", args.bootstrap), ("--seed", args.seed)):
        if value is None:
            continue
        if provider.from_boards is None:
            raise ScoresUsageError(
                f"{flag}: the {provider.name} scores read no leaderboard; their own bootstrapped "
                "tables use their paper's rounds"
            )
        if value < 0:
            raise ScoresUsageError(f"{flag} cannot be negative")
    rounds = defaults.DEFAULT_BOOTSTRAP_ROUNDS if args.bootstrap is None else args.bootstrap
    return rounds, defaults.DEFAULT_SEED if args.seed is None else args.seed


def run_scores(args: argparse.Namespace) -> int:
    from workbench.services.analysis import AnalysisError, read_model_attributes, scores
    from workbench.storage import Bundle

    provider = benchmark_scores(args.benchmark)
    filters = _filters(args)
    boards = _score_boards(args, provider)
    try:
        attributes = (
            read_model_attributes(args.model_attributes)
            if args.model_attributes is not None
            else None
        )
    except AnalysisError as error:
        raise StatsCommandError(f"--model-attributes: {error}") from error
    with Bundle.open(args.bundle, read_only=True) as bundle:
        try:
            result = scores(bundle, provider, filters, attributes, args.model_attributes, boards)
        except AnalysisError as error:
            raise StatsCommandError(str(error)) from error
    tables = result.tables
    if args.json:
        _print_json(result.to_json())
        return 0
    print(f"{provider.description} ({filters.describe()})")
    if provider.from_boards is not None:
        print(f"boards: 95% CI from {boards[0]} bootstrap rounds (seed {boards[1]})")
    for name, table in tables.items():
        print()
        print(f"[{name}]")
        print(table.to_string(index=False, float_format=lambda value: f"{value:.2f}"))
    return 0
