"""What each section of the HTML report shows, as plain values for its template
(``report_templates/sections/``): the numbers picked from a
:class:`~workbench.services.report.ReportContent`, the tables as rows of cells and the figures
as data URIs. Nothing here writes HTML; the templates do, escaping every value."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from workbench.services.analysis import score_provider
from workbench.services.analysis_request import simulated_note
from workbench.services.inter_annotator import DEFINITION as INTER_ANNOTATOR_DEFINITION
from workbench.services.report import Board, GalleryCase, ReportContent, filter_flags
from workbench.services.report_figures import (
    FigureImage,
    ImageBudget,
    figure_image,
    plot_safe,
    thumbnail_uri,
)
from workbench.services.report_templating import number, percent
from workbench.stats.agreement_plots import rating_scatter
from workbench.stats.cycle_scopes import CYCLE_SCOPES, POOLED_PER_ITEM
from workbench.stats.plots import ratings_forest_plot, win_rate_heatmap

#: answers longer than this are cut in the gallery (the bundle holds the full text)
MAX_ANSWER_CHARS = 1_500
#: matchups listed under human vs judge, most comparisons first (22 models make 231)
MAX_MATCHUP_ROWS = 30
#: the win-rate table is left out past this many models (the heatmap still shows them)
MAX_WIN_TABLE_MODELS = 25


@dataclass(frozen=True)
class Cell:
    """A table cell: its value (escaped when drawn), right-aligned when ``numeric``, named by
    ``field`` for machines, and a link to the element ``link`` when given."""

    value: Any
    numeric: bool = False
    field: str | None = None
    link: str | None = None


@dataclass(frozen=True)
class Table:
    headers: list[str]
    rows: list[list[Cell]]
    id: str = ""


@dataclass(frozen=True)
class BoardRequest:
    """A board's request in one line, the models it left out and the command that prints it."""

    describe: str
    left_out: str
    min_battles: int
    simulated: str | None
    command: str


def board_request(board: Board) -> BoardRequest:
    rows = board.document.get("left_out") or []
    return BoardRequest(
        describe=board.request.describe(),
        left_out="; ".join(f"{row['model']} ({row['battles']} battles)" for row in rows),
        min_battles=board.request.min_battles,
        simulated=simulated_note(int(board.document.get("simulated_left_out") or 0)),
        command=board.command,
    )


def board_table(board: Board, table_id: str, styled: bool = False) -> Table:
    headers = ["rank (UB)", "model", "rating", "95% CI", "win rate vs anchor", "n"]
    if styled:
        headers.append("rating without style control")
    rows = []
    for row in board.table.itertuples(index=False):
        interval = (
            f"{number(row.ci_lower)} .. {number(row.ci_upper)}"
            if not math.isnan(row.ci_lower)
            else "–"
        )
        cells = [
            Cell(row.rank_ub, True, "rank"),
            Cell(row.model, field="model"),
            Cell(number(row.rating), True, "rating"),
            Cell(interval, True, "ci"),
            Cell(percent(row.win_rate_vs_anchor), True, "win_rate"),
            Cell(int(row.n), True, "n"),
        ]
        if styled:
            cells.append(Cell(number(row.rating_without_style_control), True))
        rows.append(cells)
    return Table(headers, rows, table_id)


def _forest(board: Board, title: str, figure_id: str) -> FigureImage:
    table = board.table.assign(model=plot_safe(board.table["model"]))
    return figure_image(ratings_forest_plot(table, title), title, figure_id)


def _missing(content: ReportContent, key: str) -> dict[str, Any]:
    return {"missing": content.missing.get(key, "No data.")}


# --- sections ----------------------------------------------------------------------------------


def summary(content: ReportContent) -> dict[str, Any]:
    counts = content.summary
    rows = [
        ("items judged", counts["items"]),
        ("models", counts["models"]),
        ("sources", ", ".join(counts["sources"]) or "–"),
        ("pairwise battles", counts["battles"]),
        ("human votes (campaigns)", counts["human_votes"]),
        ("imported human judgments", counts["imported_human_judgments"]),
        ("imported judge judgments", counts["imported_judge_judgments"]),
        ("judge verdicts (judge runs)", counts["judge_verdicts"]),
        ("annotators", counts["annotators"]),
        ("imported raters", counts["raters"]),
        ("campaigns", counts["campaigns"]),
        ("judge runs", counts["judge_runs"]),
    ]
    return {
        "selection": content.request.filters.describe(),
        "totals": counts["bundle_totals"],
        "counts": Table(
            ["what", "count"], [[Cell(name), Cell(value, True)] for name, value in rows]
        ),
        "model_names": counts["model_names"],
    }


def leaderboard(content: ReportContent) -> dict[str, Any]:
    board = content.leaderboard
    if board is None:
        return _missing(content, "leaderboard")
    view: dict[str, Any] = {
        "board": board,
        "decisive_weight": f"{board.request.decisive_weight:g}",
        "anchor_rating": f"{board.request.anchor_rating:g}",
        "table": board_table(board, "leaderboard-table"),
        "forest": _forest(
            board, f"Bradley-Terry ratings ({board.battles} battles)", "figure-forest"
        ),
        "request": board_request(board),
    }
    style = content.style_board
    if style is None:
        view["style_missing"] = content.missing.get("style", "No data.")
        return view
    coefficients = style.document.get("style_coefficients", {})
    view["style"] = {
        "dropped": content.style_dropped,
        "coefficients": ", ".join(f"{name} {value:+.3f}" for name, value in coefficients.items()),
        "table": board_table(style, "style-table", styled=True),
        "forest": _forest(style, "Style-controlled ratings", "figure-style-forest"),
        "request": board_request(style),
    }
    return view


def powered(content: ReportContent) -> dict[str, Any]:
    board = content.powered_board
    if board is None:
        return _missing(content, "powered")
    inputs = board.document["prediction_powered"]
    coverage = f"{100 * inputs['coverage']:g}%"
    headers = ["rank-set", "model", "rating", f"{coverage} interval", "human votes", "verdicts"]
    rows = [
        [
            Cell(f"{row.rank_lower}–{row.rank_upper}", True, "rank_set"),
            Cell(row.model, field="model"),
            Cell(number(row.rating), True, "rating"),
            Cell(f"{number(row.ci_lower)} .. {number(row.ci_upper)}", True, "ci"),
            Cell(int(row.n), True, "n"),
            Cell(int(row.judge_verdicts), True, "judge_verdicts"),
        ]
        for row in board.table.itertuples(index=False)
    ]
    return {
        "inputs": inputs,
        "coverage": coverage,
        "judge_weight": f"{inputs['judge_weight']:.2f}",
        "table": Table(headers, rows, "powered-table"),
        "request": board_request(board),
    }


def win_rates(content: ReportContent) -> dict[str, Any]:
    matrix = content.win_fraction
    if matrix is None or matrix.empty:
        return _missing(content, "win_matrix")
    shown = matrix.rename(index=lambda name: plot_safe(pd.Series([name]))[0]).rename(
        columns=lambda name: plot_safe(pd.Series([name]))[0]
    )
    rows = [
        [Cell(model)] + [Cell(number(value, 2), True) for value in matrix.loc[model].tolist()]
        for model in matrix.index
    ]
    return {
        "heatmap": figure_image(
            win_rate_heatmap(shown), "observed win-rate matrix", "figure-heatmap"
        ),
        "table": (
            Table(["row beats column", *map(str, matrix.columns)], rows, "win-matrix")
            if len(matrix) <= MAX_WIN_TABLE_MODELS
            else None
        ),
        "table_limit": MAX_WIN_TABLE_MODELS,
        "command": content.commands["heatmap"],
    }


def categories(content: ReportContent) -> dict[str, Any]:
    if not content.category_boards and not content.categories_unrated:
        return _missing(content, "categories")
    boards = [
        {
            "category": entry.category,
            "battles": entry.board.battles,
            "anchor": entry.board.document["anchor"]["model"],
            "table": board_table(entry.board, f"category-{index}"),
            "request": board_request(entry.board),
        }
        for index, entry in enumerate(content.category_boards)
    ]
    unrated = Table(
        ["category", "why"],
        [[Cell(category), Cell(reason)] for category, reason in content.categories_unrated.items()],
        "categories-unrated",
    )
    return {
        "boards": boards,
        "unrated": unrated if content.categories_unrated else None,
        "uncategorised_battles": content.uncategorised_battles,
    }


def rank_comparison(content: ReportContent) -> dict[str, Any]:
    """Each pair of boards compared by rank: its two requests, the figures, the ranks, and the
    command that prints them."""
    if not content.rank_comparisons:
        return _missing(content, "rank_comparison")
    comparisons = []
    for index, entry in enumerate(content.rank_comparisons):
        result = entry.result
        found = result.comparison
        order = found.ci_order
        agreement = (
            "– (a board has no intervals)"
            if order is None
            else f"{number(order.share, 3)} ({order.agree} of {order.pairs} pairs; "
            f"{order.contradict} opposite)"
        )
        figures = [
            [Cell("shared models"), Cell(len(found.models), True)],
            [Cell("Spearman"), Cell(number(found.spearman, 4), True)],
            [Cell("Kendall tau-b"), Cell(number(found.kendall_tau, 4), True)],
            [Cell("Pearson (ratings)"), Cell(number(found.pearson, 4), True)],
            [Cell("confidence agreement"), Cell(agreement, True)],
        ]
        ranks = [
            [
                Cell(row.model, field="model"),
                Cell(number(row.rating_a), True),
                Cell(number(row.rating_b), True),
                Cell(number(row.rank_a), True),
                Cell(number(row.rank_b), True),
            ]
            for row in result.ranks().itertuples(index=False)
        ]
        comparisons.append(
            {
                "name": entry.name,
                "request": result.describe(),
                "figures": Table(["figure", "value"], figures, f"rank-comparison-{index}"),
                "only": "; ".join(
                    f"only on {side} (left out): {', '.join(models)}"
                    for side, models in (("A", found.only_a), ("B", found.only_b))
                    if models
                ),
                "ranks": Table(
                    ["model", "rating A", "rating B", "rank A", "rank B"],
                    ranks,
                    f"rank-comparison-ranks-{index}",
                ),
                "command": entry.command,
            }
        )
    return {"comparisons": comparisons, "unmade": content.rank_comparisons_unmade}


def agreement(content: ReportContent) -> dict[str, Any]:
    section = content.agreement
    if section is None:
        return _missing(content, "agreement")
    totals = section.document["agreement"]
    request = section.document["request"]
    measures = [
        (
            "comparisons judged by both"
            if request["unit"] == "comparisons"
            else "human votes on comparisons the judges judged",
            str(totals["comparisons"]),
            "comparisons",
        ),
        ("agreement with ties", percent(totals["agreement_with_ties"]), "with_ties"),
        (
            f"agreement without ties (of {totals['comparisons_without_ties']})",
            percent(totals["agreement_without_ties"]),
            "without_ties",
        ),
        ("Cohen's kappa", number(totals["cohen_kappa"], 3), "cohen_kappa"),
        ("CHIRP's matchup kappa", number(totals["chirp_kappa"], 3), "chirp_kappa"),
    ]
    ranks = section.document["ranks"]
    if ranks:
        measures.append(("Spearman (leaderboards)", number(ranks["spearman"], 3), "spearman"))
        measures.append(
            ("Kendall's tau (leaderboards)", number(ranks["kendall_tau"], 3), "kendall")
        )
    matchups = section.by_model_pair.sort_values(
        ["comparisons", "first", "second"], ascending=[False, True, True], kind="stable"
    ).head(MAX_MATCHUP_ROWS)
    confusion = section.confusion
    view: dict[str, Any] = {
        "majority": request["convention"] == "majority",
        "unit": request["unit"],
        "decisive_weight": number(request["decisive_weight"] or 1, 0),
        "measures": Table(
            ["measure", "value"],
            [[Cell(name), Cell(value, True, key)] for name, value, key in measures],
            "agreement-table",
        ),
        "confusion": Table(
            ["human \\ judge", *map(str, confusion.columns)],
            [
                [Cell(label)] + [Cell(int(value), True) for value in confusion.loc[label].tolist()]
                for label in confusion.index
            ],
            "confusion",
        ),
        "matchups_shown": min(len(matchups), MAX_MATCHUP_ROWS),
        "matchups_total": len(section.by_model_pair),
        "matchups": Table(
            ["model", "model", "comparisons", "agreement", "Cohen's kappa"],
            [
                [
                    Cell(row.first),
                    Cell(row.second),
                    Cell(int(row.comparisons), True),
                    Cell(percent(row.agreement), True),
                    Cell(number(row.cohen_kappa, 3), True),
                ]
                for row in matchups.itertuples(index=False)
            ],
            "per-matchup",
        ),
        "position_bias": None,
        "not_randomized": ", ".join(section.not_randomized),
        "scatter": None,
        "command": content.commands["agreement"],
    }
    if not section.position_bias.empty:
        view["position_bias"] = Table(
            ["evaluator", "decisive", "first wins", "share", "p"],
            [
                [
                    Cell(row.evaluator),
                    Cell(int(row.decisive), True),
                    Cell(int(row.first_wins), True),
                    Cell(percent(row.first_win_share), True),
                    Cell(number(row.p_value, 3), True),
                ]
                for row in section.position_bias.itertuples(index=False)
            ],
            "position-bias",
        )
    if len(section.ratings) >= 3 and ranks:
        ratings = section.ratings.assign(model=plot_safe(section.ratings["model"]))
        view["scatter"] = figure_image(
            rating_scatter(ratings, "humans", "judges", ranks["spearman"], ranks["kendall_tau"]),
            "human vs judge ratings",
            "figure-scatter",
        )
    return view


def inter_annotator(content: ReportContent) -> dict[str, Any]:
    if not content.inter_annotator:
        return _missing(content, "inter_annotator")
    rows = [
        [
            Cell(row["group"]),
            Cell(row["raters"], True),
            Cell(row["comparisons"], True),
            Cell(number(row["fleiss_kappa"], 3), True),
            Cell(number(row["krippendorff_alpha"], 3), True),
        ]
        for row in content.inter_annotator
    ]
    return {
        "definition": INTER_ANNOTATOR_DEFINITION,
        "table": Table(
            ["group", "raters", "comparisons", "Fleiss' kappa", "Krippendorff's alpha"],
            rows,
            "inter-annotator",
        ),
        # rows of one selection share their command: print each once, in row order
        "commands": list(dict.fromkeys(row["command"] for row in content.inter_annotator)),
    }


def cycles(content: ReportContent, gallery_ids: set[int]) -> dict[str, Any]:
    view: dict[str, Any] = {
        "scope": CYCLE_SCOPES[content.cycle_scope],
        "pooled_scope": CYCLE_SCOPES[POOLED_PER_ITEM].capitalize(),
        "count": content.cycle_count,
        "cycle_items": content.cycle_items,
        "pooled_count": content.pooled_cycle_count,
        "pooled_items": content.pooled_cycle_items,
        "command": content.commands["cycles"],
        "pooled_command": content.commands["cycles_pooled"],
    }
    if content.cycles is None:
        view["missing"] = content.missing.get("cycles", "No data.")
        return view
    rows = [
        [
            Cell(row.label, link=f"item-{int(row.item)}" if int(row.item) in gallery_ids else None),
            Cell(row.evaluator),
            Cell(row.cycle),
        ]
        for row in content.cycles.itertuples(index=False)
    ]
    view["listed"] = len(content.cycles)
    view["table"] = Table(["item", "evaluator", "cycle (each loses to the next)"], rows, "cycles")
    return view


def _case(case: GalleryCase, budget: ImageBudget) -> dict[str, Any]:
    detail = case.detail
    thumbs = []
    for slot, data in zip(detail.images, case.images, strict=False):
        uri = thumbnail_uri(data, budget)
        reason = "missing" if slot.is_missing else "left out (size limit)"
        thumbs.append({"position": slot.position, "uri": uri, "reason": reason})
    turn = detail.turns[-1] if detail.turns else None
    answers = []
    if turn is not None and case.models is not None:
        for model in case.models:
            outputs = turn.outputs_of(model)
            text = outputs[0].text if outputs else "(answer not in the bundle)"
            if len(text) > MAX_ANSWER_CHARS:
                text = text[:MAX_ANSWER_CHARS] + " …"
            answers.append({"model": model, "text": text})
    return {
        "item": case.item,
        "label": case.label,
        "reason": case.reason,
        "category": detail.category or "–",
        "thumbs": thumbs,
        "prompt": turn.prompt if turn else "",
        "answers": answers,
        "verdicts": case.verdicts,
    }


def gallery(content: ReportContent, budget: ImageBudget) -> dict[str, Any]:
    """The failure cases, and each failure-case list the gallery draws from: its request, its
    count and the ``workbench failures`` command that prints its items."""
    lists = []
    for entry in content.failures:
        request = entry["document"]["request"]
        lists.append(
            {
                "kind": entry["kind"],
                "scope": f", scope {request['scope']}" if request.get("scope") else "",
                "question": entry["question"],
                "count": len(entry["document"]["items"]),
                "command": entry["command"],
            }
        )
    view: dict[str, Any] = {"lists": lists}
    if not content.gallery:
        view["missing"] = content.missing.get("gallery", "No data.")
        return view
    view["cases"] = [_case(case, budget) for case in content.gallery]
    view["omitted"] = content.summary.get("gallery_omitted")
    # the cases above spent the budget: what it left out is known only now
    view["thumbnails_left_out"] = budget.left_out
    return view


def _score_cell(value: Any) -> Cell:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return Cell(value)
    if isinstance(value, (int, np.integer)):
        return Cell(str(int(value)), True)
    return Cell(number(value, 2), True)


def benchmark_scores(content: ReportContent) -> dict[str, Any]:
    """Each benchmark's own tables, as ``workbench scores --benchmark NAME`` prints them, and
    the figures its score provider draws from them (the Benchmark panel's too: ConvBench's
    per-task heatmap, CHIRP's Elo per criterion)."""
    if not content.benchmark_scores:
        return _missing(content, "scores")

    benchmarks = []
    for benchmark, tables in content.benchmark_scores.items():
        draw = score_provider(benchmark).figures
        figures = (
            [
                (name, figure_image(figure, name, f"scores-{benchmark}-figure-{index}"))
                for index, (name, figure) in enumerate(draw(tables).items())
            ]
            if draw is not None
            else []
        )
        benchmarks.append(
            {
                "name": benchmark,
                "tables": [
                    (
                        name,
                        Table(
                            [str(column) for column in table.columns],
                            [
                                [_score_cell(value) for value in row]
                                for row in table.itertuples(index=False)
                            ],
                            f"scores-{benchmark}-{name}",
                        ),
                    )
                    for name, table in tables.items()
                ],
                "figures": figures,
                "command": content.commands[f"scores:{benchmark}"],
            }
        )
    return {"benchmarks": benchmarks}


def methods(content: ReportContent) -> dict[str, Any]:
    request = content.request
    both_orders = {True: "yes", False: "no", None: "not recorded"}
    judge_runs = [
        {**row, "both_orders": both_orders[row["both_orders"]]}
        for row in content.provenance["judge_runs"]
    ]
    board_request = (
        content.leaderboard.request.describe()
        if content.leaderboard is not None
        else request.analysis.describe()
    )
    return {
        "imports": content.provenance["imports"],
        "campaigns": content.provenance["campaigns"],
        "judge_runs": judge_runs,
        "bootstrap": request.bootstrap,
        "seed": request.seed,
        "anchor": content.summary.get("anchor") or "none (no board)",
        "anchor_rating": f"{request.analysis.anchor_rating:g}",
        "board_request": board_request,
        "filters": filter_flags(request.filters) or "none",
        "app_version": content.app_version,
        "created_at": content.created_at,
        "bundle_location": content.bundle_location,
        "commands": content.commands,
    }
