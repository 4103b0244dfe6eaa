"""ConvBench's per-task heatmap (Liu et al. 2024, the per-category figure): each model's score
per instruction category, drawn from the ``by_instruction_category`` table of
:func:`workbench_convbench.scores.score_tables`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from workbench.stats.benchmark_scores import ScoreTables
from workbench.stats.plots import name_heatmap_cells
from workbench_convbench.scores import SCALE_TOP, STANDARD

HEATMAP = "per-task heatmap"


def _shown_score(table: pd.DataFrame) -> str:
    """R1 where the overall score S0 is known, else R2 (the turns alone)."""
    return "R1" if table["R1"].notna().any() else "R2"


def task_heatmap(table: pd.DataFrame) -> Figure:
    """Models (rows) by instruction category (columns) of one grading mode and evaluator in the
    standard context, each cell its R1 (or R2 without S0) as a share of the scale's top."""
    score = _shown_score(table)
    grading = str(table["grading"].iloc[0])
    matrix = table.pivot_table(
        index="model", columns="instruction_category", values=score, aggfunc="mean"
    )
    values = matrix.to_numpy(dtype=float) / SCALE_TOP[grading]
    width = max(4.0, 0.55 * len(matrix.columns) + 2.5)
    height = max(2.5, 0.4 * len(matrix.index) + 1.8)
    # square cells and a colorbar: "compressed" keeps them together and centred in a pane of
    # any shape ("constrained" pushed the map to the right edge, cutting its title)
    figure = Figure(figsize=(width, height), layout="compressed")
    axes = figure.add_subplot()
    image = axes.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=0.0, vmax=1.0)
    name_heatmap_cells(
        axes,
        matrix,
        values,
        lambda value: f"{value * SCALE_TOP[grading]:.1f}",
        lambda value: "black" if value > 0.6 else "white",
    )
    evaluator = str(table["evaluator"].iloc[0])
    axes.set_title(f"{score} per instruction category ({grading}, {evaluator})", wrap=True)
    figure.colorbar(image, ax=axes, shrink=0.8, label=f"{score} / {SCALE_TOP[grading]:g}")
    return figure


def score_figures(tables: ScoreTables) -> dict[str, Figure]:
    """The heatmap of the first grading mode and evaluator with standard-context scores per
    category; none when there are none."""
    table = tables.get("by_instruction_category")
    if table is None or table.empty:
        return {}
    standard = table[table["context"] == STANDARD]
    if standard.empty:
        return {}
    first = standard.iloc[0]
    chosen = standard[
        (standard["grading"] == first["grading"]) & (standard["evaluator"] == first["evaluator"])
    ]
    return {HEATMAP: task_heatmap(chosen)}
