"""CHIRP's Elo heatmaps (the paper's per-category figures): each model's median Elo over the
500 bootstrap rounds per criterion, one heatmap per evaluator, drawn from the ``elo`` table of
:func:`workbench_chirp.scores.score_tables`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from workbench.stats.benchmark_scores import ScoreTables
from workbench.stats.plots import name_heatmap_cells

HEATMAP_PREFIX = "Elo per criterion"


def heatmap_name(evaluator: str) -> str:
    return f"{HEATMAP_PREFIX} ({evaluator})"


def criterion_matrix(elo: pd.DataFrame) -> pd.DataFrame:
    """Models (rows, best overall first) by criterion (columns, ``overall`` first): the median
    Elo of one evaluator's table."""
    matrix = elo.pivot_table(index="model", columns="criterion", values="elo", aggfunc="first")
    columns = sorted(matrix.columns, key=lambda name: (name != "overall", str(name)))
    order = matrix.mean(axis=1) if "overall" not in matrix.columns else matrix["overall"]
    rows = order.sort_values(ascending=False, kind="stable").index
    return matrix.loc[rows, columns]


def elo_heatmap(matrix: pd.DataFrame, evaluator: str) -> Figure:
    """The heatmap of :func:`criterion_matrix`, each cell its Elo, coloured on one scale."""
    values = matrix.to_numpy(dtype=float)
    width = max(4.0, 0.9 * len(matrix.columns) + 3.0)
    height = max(2.5, 0.4 * len(matrix.index) + 1.8)
    figure = Figure(figsize=(width, height), layout="constrained")
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
    axes.set_title(f"Median Elo (500 bootstrap rounds) per criterion, {evaluator}")
    figure.colorbar(image, ax=axes, shrink=0.8, label="Elo")
    return figure


def score_figures(tables: ScoreTables) -> dict[str, Figure]:
    """One heatmap per evaluator of the ``elo`` table; none without Elo."""
    elo = tables.get("elo")
    if elo is None or elo.empty:
        return {}
    return {
        heatmap_name(str(evaluator)): elo_heatmap(criterion_matrix(group), str(evaluator))
        for evaluator, group in elo.groupby("evaluator", sort=True)
    }
