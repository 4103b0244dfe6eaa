"""CHIRP's Elo heatmaps (the paper's per-category figures): each model's median Elo over the
500 bootstrap rounds per criterion, and per question category on one criterion, one heatmap of
each per evaluator, drawn from the ``elo`` and ``elo_per_question_category`` tables of
:func:`workbench_chirp.scores.score_tables`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from workbench.stats.benchmark_scores import ScoreTables
from workbench.stats.plots import name_heatmap_cells

HEATMAP_PREFIX = "Elo per criterion"
CATEGORY_HEATMAP_PREFIX = "Elo per question category"
#: the criterion the per-category heatmaps show when the selection has it (CHIRP's headline);
#: otherwise the one criterion the selection narrows to (``--criterion NAME``)
CATEGORY_CRITERION = "overall"
#: the text of a category's cells when it is not rated
NOT_RATED = "n/r"


def heatmap_name(evaluator: str) -> str:
    return f"{HEATMAP_PREFIX} ({evaluator})"


def category_heatmap_name(evaluator: str) -> str:
    return f"{CATEGORY_HEATMAP_PREFIX} ({evaluator})"


def category_criterion(per_category: pd.DataFrame, not_rated: pd.DataFrame) -> str | None:
    """The criterion the per-category heatmaps show: :data:`CATEGORY_CRITERION` when the
    tables have it, else the first (by name) they have; None when they have none."""
    criteria = sorted({*per_category["criterion"], *not_rated["criterion"]}, key=str)
    if not criteria:
        return None
    return CATEGORY_CRITERION if CATEGORY_CRITERION in criteria else str(criteria[0])


def category_matrix(per_category: pd.DataFrame, not_rated: pd.DataFrame) -> pd.DataFrame:
    """Models (rows, best mean first) by question category (columns, by name): one evaluator's
    median Elo on one criterion; a category that is not rated is a column of NaN."""
    matrix = per_category.pivot_table(
        index="model", columns="category", values="elo", aggfunc="first"
    )
    for name in not_rated["category"]:
        if name not in matrix.columns:
            matrix[name] = np.nan
    columns = sorted(matrix.columns, key=str)
    rows = matrix.mean(axis=1).sort_values(ascending=False, kind="stable").index
    return matrix.loc[rows, columns]


def criterion_matrix(elo: pd.DataFrame) -> pd.DataFrame:
    """Models (rows, best overall first) by criterion (columns, ``overall`` first): the median
    Elo of one evaluator's table."""
    matrix = elo.pivot_table(index="model", columns="criterion", values="elo", aggfunc="first")
    columns = sorted(matrix.columns, key=lambda name: (name != "overall", str(name)))
    order = matrix.mean(axis=1) if "overall" not in matrix.columns else matrix["overall"]
    rows = order.sort_values(ascending=False, kind="stable").index
    return matrix.loc[rows, columns]


def _elo_cells(matrix: pd.DataFrame, extra_height: float) -> tuple[Figure, Axes, AxesImage]:
    """A figure sized to ``matrix`` (models by columns) with each cell its Elo, coloured on one
    scale over the finite cells; ``extra_height``: inches for the title and what goes under."""
    values = matrix.to_numpy(dtype=float)
    width = max(4.0, 0.9 * len(matrix.columns) + 3.0)
    height = max(2.5, 0.4 * len(matrix.index) + extra_height)
    # "compressed", not "constrained": the map keeps square cells, and a pane wider than the
    # figure made the constrained layout push it to the right edge (its colorbar anchors it
    # there), cutting the title; compressed keeps map and colorbar together, centred
    figure = Figure(figsize=(width, height), layout="compressed")
    axes = figure.add_subplot()
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    middle = (low + high) / 2
    image = axes.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=low, vmax=high)
    name_heatmap_cells(
        axes,
        matrix,
        values,
        lambda value: f"{value:.0f}",
        lambda value: "black" if value > middle else "white",
    )
    return figure, axes, image


def elo_heatmap(matrix: pd.DataFrame, evaluator: str) -> Figure:
    """The heatmap of :func:`criterion_matrix`, each cell its Elo, coloured on one scale."""
    figure, axes, image = _elo_cells(matrix, 1.8)
    axes.set_title(f"Median Elo (500 bootstrap rounds) per criterion, {evaluator}", wrap=True)
    figure.colorbar(image, ax=axes, shrink=0.8, label="Elo")
    return figure


def category_heatmap(
    matrix: pd.DataFrame, not_rated: pd.DataFrame, evaluator: str, criterion: str
) -> Figure:
    """The heatmap of :func:`category_matrix`: each rated cell its Elo; a category that is not
    rated is blank with :data:`NOT_RATED` in its cells, its reason written under the map."""
    figure, axes, image = _elo_cells(matrix, 2.2 + 0.2 * len(not_rated))
    unrated = set(not_rated["category"])
    for column, name in enumerate(matrix.columns):
        if name in unrated:
            for row in range(len(matrix.index)):
                axes.text(column, row, NOT_RATED, ha="center", va="center", fontsize=7)
    axes.set_title(
        f"Median Elo (500 bootstrap rounds) per question category\n{criterion}, {evaluator}",
        wrap=True,  # a narrow pane breaks it into lines (stats.plots.wrap_titles)
    )
    if len(not_rated):
        reasons = "; ".join(f"{row.category}: {row.reason}" for row in not_rated.itertuples())
        axes.set_xlabel(f"{NOT_RATED}: not rated ({reasons})", wrap=True)
    figure.colorbar(image, ax=axes, shrink=0.8, label="Elo")
    return figure


def category_figures(tables: ScoreTables) -> dict[str, Figure]:
    """One per-category heatmap per evaluator, on :func:`category_criterion`."""
    per_category = tables.get("elo_per_question_category")
    if per_category is None:  # no category rated (the report leaves out empty tables)
        return {}
    not_rated = tables.get("question_categories_not_rated")
    if not_rated is None:
        not_rated = pd.DataFrame(columns=["evaluator", "criterion", "category", "reason"])
    criterion = category_criterion(per_category, not_rated)
    if criterion is None:
        return {}
    rated = per_category[per_category["criterion"] == criterion]
    unrated = not_rated[not_rated["criterion"] == criterion]
    figures = {}
    for evaluator in sorted(set(rated["evaluator"]), key=str):
        mine = unrated[unrated["evaluator"] == evaluator]
        matrix = category_matrix(rated[rated["evaluator"] == evaluator], mine)
        figures[category_heatmap_name(str(evaluator))] = category_heatmap(
            matrix, mine, str(evaluator), criterion
        )
    return figures


def score_figures(tables: ScoreTables) -> dict[str, Figure]:
    """One heatmap per evaluator of the ``elo`` table, and one per evaluator of its Elo per
    question category where any category is rated; none without Elo."""
    elo = tables.get("elo")
    if elo is None or elo.empty:
        return {}
    figures = {
        heatmap_name(str(evaluator)): elo_heatmap(criterion_matrix(group), str(evaluator))
        for evaluator, group in elo.groupby("evaluator", sort=True)
    }
    return {**figures, **category_figures(tables)}
