"""``workbench leaderboard``, ``workbench agreement``, ``workbench contradictions`` and
``workbench scores``: statistics over the judgments in a bundle."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    import pandas as pd

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


class StatsCommandError(WorkbenchError):
    pass


def _pandas():  # type: ignore[no-untyped-def]
    """pandas, imported on first use: parsing the command line (``workbench --version``,
    ``workbench info``) must not pay for the statistics stack."""
    import pandas

    return pandas


def _add_filters(parser: argparse.ArgumentParser) -> None:
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
        "--kind",
        dest="kinds",
        choices=("human", "judge"),
        action="append",
        default=[],
        help="only human or only judge judgments",
    )
    group.add_argument(
        "--origin",
        dest="origins",
        choices=("imported", "campaign", "judge-run"),
        action="append",
        default=[],
        help="only judgments imported with a benchmark, cast in campaigns, or from judge runs",
    )


def register(commands: Any) -> None:
    leaderboard = commands.add_parser(
        "leaderboard", help="rate the models from the pairwise outcomes in a bundle"
    )
    leaderboard.add_argument("bundle", metavar="BUNDLE")
    leaderboard.add_argument(
        "--method",
        choices=("bt", "elo"),
        default="bt",
        help="bt: Bradley-Terry maximum likelihood (default); elo: online Elo in stored order",
    )
    leaderboard.add_argument(
        "--bootstrap", type=int, default=0, metavar="N", help="bootstrap rounds for 95%% CIs"
    )
    leaderboard.add_argument(
        "--seed", type=int, default=0, metavar="S", help="bootstrap seed (default 0)"
    )
    leaderboard.add_argument(
        "--anchor", metavar="MODEL=VALUE", help="pin a model's rating, e.g. gpt-4o=1000"
    )
    leaderboard.add_argument(
        "--style-control",
        action="store_true",
        help="control for answer length and markdown (bt only); plain ratings are shown too",
    )
    leaderboard.add_argument(
        "--decisive-weight",
        type=float,
        default=None,
        metavar="W",
        help="count a 'much better' verdict as W battles (WildVision-Bench uses 3)",
    )
    leaderboard.add_argument(
        "--k-factor", type=float, default=4.0, metavar="K", help="Elo K factor (default 4)"
    )
    _add_filters(leaderboard)
    leaderboard.add_argument("--json", action="store_true", help="print as JSON")
    leaderboard.add_argument(
        "--plot", type=Path, metavar="FILE", help="save a ratings plot (png, svg or pdf)"
    )
    leaderboard.add_argument(
        "--heatmap", type=Path, metavar="FILE", help="save the observed win-rate heatmap"
    )
    leaderboard.set_defaults(handler=run_leaderboard)

    agreement = commands.add_parser(
        "agreement", help="agreement of two evaluators (e.g. a judge and the humans)"
    )
    agreement.add_argument("bundle", metavar="BUNDLE")
    agreement.add_argument(
        "--a",
        required=True,
        metavar="SOURCE",
        help="first evaluator: human, judge, imported, campaign, judge-run, or KEY:NAME with KEY "
        "in source, campaign, annotator, run, rater, evaluator, category, language, criterion; "
        "join terms with commas (e.g. human,source:visit-bench)",
    )
    agreement.add_argument("--b", required=True, metavar="SOURCE", help="second evaluator")
    agreement.add_argument(
        "--bootstrap",
        type=int,
        default=100,
        metavar="N",
        help="bootstrap rounds for the leaderboards compared by rank (default 100)",
    )
    agreement.add_argument("--seed", type=int, default=0)
    _add_filters(agreement)
    agreement.add_argument("--json", action="store_true", help="print as JSON")
    agreement.set_defaults(handler=run_agreement)

    contradictions = commands.add_parser(
        "contradictions", help="preference cycles (A>B, B>C, C>A) per item and evaluator"
    )
    contradictions.add_argument("bundle", metavar="BUNDLE")
    contradictions.add_argument(
        "--by-criterion", action="store_true", help="separate graphs per criterion"
    )
    contradictions.add_argument(
        "--max-length", type=int, default=None, metavar="N", help="longest cycle to look for"
    )
    contradictions.add_argument(
        "--list", type=int, default=20, metavar="N", help="cycles to list (default 20)"
    )
    _add_filters(contradictions)
    contradictions.add_argument("--json", action="store_true", help="print as JSON")
    contradictions.set_defaults(handler=run_contradictions)

    scores = commands.add_parser("scores", help="a benchmark's own scores (e.g. ConvBench)")
    scores.add_argument("bundle", metavar="BUNDLE")
    scores.add_argument(
        "--benchmark", required=True, help="whose scores, e.g. convbench or visit-bench"
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
    )


def _judgments(bundle_path: str, filters: Any) -> tuple[pd.DataFrame, list[str]]:
    from workbench.services.outcomes import distinct_values, judgments_frame
    from workbench.storage import Bundle

    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        everything = judgments_frame(session)
    return filters.apply(everything).reset_index(drop=True), distinct_values(everything, "source")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        return _jsonable(value.item())
    if value is _pandas().NA:
        return None
    return value


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [_jsonable(row) for row in table.astype(object).to_dict(orient="records")]


def _print_json(document: Any) -> None:
    print(json.dumps(_jsonable(document), indent=2))


def _number(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


# --- leaderboard -------------------------------------------------------------------------------


def run_leaderboard(args: argparse.Namespace) -> int:
    from workbench.services.outcomes import (
        answer_style_features,
        describe_empty,
        pairwise_outcomes,
    )
    from workbench.stats.bradley_terry import Anchor, EloScale
    from workbench.stats.leaderboard import compute_leaderboard
    from workbench.storage import Bundle

    anchor = Anchor.parse(args.anchor) if args.anchor else None
    filters = _filters(args)
    judgments, sources = _judgments(args.bundle, filters)
    battles = pairwise_outcomes(judgments, args.decisive_weight)
    if battles.empty:
        raise StatsCommandError(describe_empty(filters, sources))
    style_features = None
    dropped = 0
    if args.style_control:
        with Bundle.open(args.bundle) as bundle, bundle.read_session() as session:
            features_a, features_b, found = answer_style_features(session, battles)
        dropped = int((~found).sum())
        if not found.any():
            raise StatsCommandError("style control needs the answers' texts; none were found")
        battles = battles[found].reset_index(drop=True)
        style_features = (features_a[found], features_b[found])
    board = compute_leaderboard(
        battles,
        method=args.method,
        anchor=anchor,
        bootstrap=args.bootstrap,
        seed=args.seed,
        scale=EloScale(),
        k_factor=args.k_factor,
        style_features=style_features,
    )
    written = []
    if args.plot:
        _save_forest_plot(board, args.plot)
        written.append(f"plot written to {args.plot}")
    if args.heatmap:
        _save_heatmap(battles, board, args.heatmap)
        written.append(f"heatmap written to {args.heatmap}")
    if args.json:
        document = board.to_json()
        document["filters"] = filters.describe()
        document["battles"] = len(battles)
        if args.style_control:
            document["battles_without_answers"] = dropped
        _print_json(document)
        return 0
    _print_leaderboard(board, filters.describe(), len(battles), dropped)
    for line in written:
        print(line)
    return 0


def _save_forest_plot(board: Any, path: Path) -> None:
    from workbench.stats.plots import ratings_forest_plot

    title = f"{'Bradley-Terry' if board.method == 'bt' else 'Online Elo'} ratings"
    if board.anchor is not None:
        title += f"\nanchor {board.anchor.model} = {board.anchor.rating:g}"
    ratings_forest_plot(board.table, title).savefig(path)


def _save_heatmap(battles: pd.DataFrame, board: Any, path: Path) -> None:
    from workbench.stats.plots import win_rate_heatmap
    from workbench.stats.winrate import pairwise_win_fraction

    order = list(board.table["model"])
    fraction = pairwise_win_fraction(battles).reindex(index=order, columns=order)
    win_rate_heatmap(fraction).savefig(path)


def _print_leaderboard(board: Any, filters: str, battles: int, dropped: int) -> None:
    method = "Bradley-Terry" if board.method == "bt" else "online Elo"
    print(f"{method} ratings from {battles} battles ({filters})")
    if board.anchor is not None:
        print(f"anchor: {board.anchor.model} = {board.anchor.rating:g}")
    if board.bootstrap:
        print(f"95% CI from {board.bootstrap} bootstrap rounds (seed {board.seed})")
    if dropped:
        print(f"style control left out {dropped} battles whose answers are not in the bundle")
    table = board.table
    width = max(5, *(len(str(model)) for model in table["model"]))
    styled = "rating_without_style_control" in table.columns
    header = (
        f"{'#':>3}  {'model':<{width}}  {'rating':>8}  {'95% CI':>17}  {'vs anchor':>9}  {'n':>6}"
    )
    if styled:
        header += f"  {'no style':>8}"
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
            line += f"  {row.rating_without_style_control:>8.1f}"
        print(line)
    if board.style_coefficients is not None:
        print(
            "style coefficients (log-odds per SD): "
            + ", ".join(f"{name} {value:+.3f}" for name, value in board.style_coefficients.items())
        )


# --- agreement ---------------------------------------------------------------------------------


def run_agreement(args: argparse.Namespace) -> int:
    from workbench.services.outcomes import describe_empty, pairwise_outcomes, parse_selector
    from workbench.stats.agreement import agreement_summary, rater_agreement
    from workbench.stats.position_bias import first_position_wins, swap_consistency

    select_a, select_b = parse_selector(args.a), parse_selector(args.b)
    filters = _filters(args)
    judgments, sources = _judgments(args.bundle, filters)
    outcomes = pairwise_outcomes(judgments)
    side_a, side_b = select_a.apply(outcomes), select_b.apply(outcomes)
    for name, side, selector in (("--a", side_a, select_a), ("--b", side_b, select_b)):
        if side.empty:
            raise StatsCommandError(f"{name}: {describe_empty(selector, sources)}")
    summary = agreement_summary(side_a, side_b)
    both = _pandas().concat([side_a, side_b], ignore_index=True).drop_duplicates()
    document: dict[str, Any] = {
        "a": args.a,
        "b": args.b,
        "filters": filters.describe(),
        "agreement": summary.to_json(),
        "raters": {
            "a": rater_agreement(side_a).to_json(),
            "b": rater_agreement(side_b).to_json(),
        },
        "ranks": _rank_agreement(side_a, side_b, args.bootstrap, args.seed),
        "position_bias": _records(first_position_wins(both)),
        "swap_consistency": _records(swap_consistency(both)),
    }
    if args.json:
        _print_json(document)
        return 0
    _print_agreement(document)
    return 0


def _rank_agreement(
    side_a: pd.DataFrame, side_b: pd.DataFrame, rounds: int, seed: int
) -> dict[str, Any] | None:
    from workbench.stats.leaderboard import compute_leaderboard
    from workbench.stats.rank_agreement import ci_order_agreement, kendall_tau, spearman_correlation

    board_a = compute_leaderboard(side_a, "bt", bootstrap=rounds, seed=seed).table
    board_b = compute_leaderboard(side_b, "bt", bootstrap=rounds, seed=seed).table
    ratings_a = board_a.set_index("model")["rating"]
    ratings_b = board_b.set_index("model")["rating"]
    shared = sorted(set(ratings_a.index) & set(ratings_b.index))
    if len(shared) < 3:
        return None
    # ratings are relative: compare them on the shared models only
    result: dict[str, Any] = {
        "models": len(shared),
        "spearman": spearman_correlation(ratings_a, ratings_b),
        "kendall_tau": kendall_tau(ratings_a, ratings_b),
        "ci_order": None,
    }
    if rounds:
        intervals_a = board_a.set_index("model")[["ci_lower", "ci_upper"]]
        intervals_b = board_b.set_index("model")[["ci_lower", "ci_upper"]]
        order = ci_order_agreement(
            intervals_a.rename(columns={"ci_lower": "lower", "ci_upper": "upper"}),
            intervals_b.rename(columns={"ci_lower": "lower", "ci_upper": "upper"}),
        )
        result["ci_order"] = {
            "pairs": order.pairs,
            "agree": order.agree,
            "contradict": order.contradict,
            "share": order.share,
        }
    return result


def _print_agreement(document: dict[str, Any]) -> None:
    agreement = document["agreement"]
    print(f"{document['a']}  vs  {document['b']}  ({document['filters']})")
    print(f"  comparisons judged by both   {agreement['comparisons']}")
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
        print(
            f"    {row['evaluator']}: {_number(_pct(row['first_win_share']))}% of "
            f"{row['decisive']} (p = {_number(row['p_value'], 3)})"
        )


def _pct(value: Any) -> Any:
    return None if value is None else 100 * value


# --- contradictions ----------------------------------------------------------------------------


def run_contradictions(args: argparse.Namespace) -> int:
    from workbench.services.outcomes import describe_empty, pairwise_outcomes
    from workbench.stats.contradictions import contradiction_counts, find_contradictions

    filters = _filters(args)
    judgments, sources = _judgments(args.bundle, filters)
    outcomes = pairwise_outcomes(judgments)
    if outcomes.empty:
        raise StatsCommandError(describe_empty(filters, sources))
    groups = ["evaluator", "item", *(["criterion"] if args.by_criterion else [])]
    cycles = find_contradictions(outcomes, groups, args.max_length)
    graphs = outcomes.groupby(groups, dropna=False).ngroups
    judged = outcomes.groupby("evaluator")["item"].nunique().rename("items")
    per_evaluator = (
        contradiction_counts(cycles, "evaluator").set_index("evaluator")
        if len(cycles)
        else _pandas().DataFrame({"cycles": []})
    )
    per_evaluator = judged.to_frame().join(per_evaluator).fillna({"cycles": 0}).reset_index()
    per_evaluator["cycles"] = per_evaluator["cycles"].astype(int)
    per_evaluator["cycles_per_item"] = per_evaluator["cycles"] / per_evaluator["items"]
    document = {
        "filters": filters.describe(),
        "graphs": graphs,
        "cycles": len(cycles),
        "max_length": args.max_length,
        "per_evaluator": _records(per_evaluator),
        "per_category": _records(contradiction_counts(cycles, "category"))
        if len(cycles) and "category" in cycles
        else [],
        "per_model": _records(contradiction_counts(cycles, "model")),
        "per_item": _records(
            contradiction_counts(cycles, ["item"]).merge(
                outcomes[["item", "item_external_id"]].drop_duplicates(), on="item", how="left"
            )
        )
        if len(cycles)
        else [],
        "examples": _records(
            cycles.head(args.list).merge(
                outcomes[["item", "item_external_id"]].drop_duplicates(), on="item", how="left"
            )
        )
        if len(cycles)
        else [],
    }
    if args.json:
        _print_json(document)
        return 0
    print(
        f"{document['cycles']} preference cycles in {graphs} graphs (one per evaluator and item"
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
        print(f"    {row['evaluator']} on {row['item_external_id']}: " + " < ".join(row["cycle"]))
    return 0


# --- scores ------------------------------------------------------------------------------------


def benchmark_scores(name: str) -> Any:
    """The :class:`BenchmarkScores` a plugin registered under ``name``."""
    from workbench.plugins import registry

    known = []
    for plugin in registry().plugins:
        for provider in plugin.scores:
            known.append(provider.name)
            if provider.name == name:
                return provider
    raise StatsCommandError(
        f"no plugin provides scores for '{name}' (available: {', '.join(sorted(known)) or 'none'})"
    )


def run_scores(args: argparse.Namespace) -> int:
    from workbench.services.outcomes import OutcomeFilter

    provider = benchmark_scores(args.benchmark)
    filters = _filters(args)
    judgments, sources = _judgments(args.bundle, filters)
    judgments = OutcomeFilter(sources=(provider.source,)).apply(judgments)
    if judgments.empty:
        raise StatsCommandError(
            f"no judgments of source '{provider.source}' match {filters.describe()} "
            f"(sources with judgments: {', '.join(sources) or 'none'})"
        )
    tables = provider.compute(judgments)
    if args.json:
        _print_json(
            {
                "benchmark": provider.name,
                "filters": filters.describe(),
                "tables": {name: _records(table) for name, table in tables.items()},
            }
        )
        return 0
    print(f"{provider.description} ({filters.describe()})")
    for name, table in tables.items():
        print()
        print(f"[{name}]")
        print(table.to_string(index=False, float_format=lambda value: f"{value:.2f}"))
    return 0
