"""``workbench agreement``, ``workbench contradictions``, ``workbench failures``, ``workbench
scores`` and the full path of ``workbench leaderboard``: statistics over the judgments in a
bundle."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import Any

from workbench.cli.arguments import AGREEMENT_DEFAULTS, FILTER_FLAGS
from workbench.cli.progress import TerminalProgress
from workbench.errors import WorkbenchError
from workbench.services import analysis_request as defaults
from workbench.services.analysis import (
    AnalysisError,
    agreement,
    contradictions,
    failure_cases,
    leaderboard,
    read_model_attributes,
    score_provider,
    scores,
)
from workbench.services.analysis_request import (
    METHODS,
    AnalysisRequest,
    flagged_note,
    simulated_note,
)
from workbench.services.inter_annotator import inter_annotator_agreement
from workbench.services.outcomes import OutcomeFilter
from workbench.services.to_json import jsonable
from workbench.stats.cycle_scopes import CYCLE_SCOPES
from workbench.storage import Bundle


class StatsCommandError(WorkbenchError):
    pass


# --- helpers -----------------------------------------------------------------------------------


def _filters(args: argparse.Namespace) -> Any:
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
    print(json.dumps(jsonable(document), indent=2))


def _number(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


# --- leaderboard -------------------------------------------------------------------------------

#: columns the table shows only when the board has them: the board column that says so, the
#: header, and the row's cells
_OPTIONAL_COLUMNS: tuple[tuple[str, str, Callable[[Any], str]], ...] = (
    (
        "rating_without_style_control",
        f"  {'no style':>8}  {'rank change':>11}",
        lambda row: f"  {row.rating_without_style_control:>8.1f}  {row.rank_change:>+11d}",
    ),
    (
        "mean_answer_tokens",
        f"  {'tokens':>6}",
        lambda row: f"  {_number(row.mean_answer_tokens, 0):>6}",
    ),
    (
        "rank_lower",
        f"  {'rank-set':>8}  {'verdicts':>8}",
        lambda row: f"  {f'{row.rank_lower}-{row.rank_upper}':>8}  {row.judge_verdicts:>8}",
    ),
)


def run_full_leaderboard(args: argparse.Namespace, request: AnalysisRequest) -> int:
    """``workbench leaderboard`` where the quick path declines (leaderboard_command.py): the
    analysis service's leaderboard, printed, plotted or saved as asked."""
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
    extra = [column for column in _OPTIONAL_COLUMNS if column[0] in table.columns]
    header = (
        f"{'#':>3}  {'model':<{width}}  {'rating':>8}  {'95% CI':>17}  {'vs anchor':>9}  {'n':>6}"
    )
    print(header + "".join(title for _, title, _ in extra))
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
        print(line + "".join(cells(row) for _, _, cells in extra))
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
