"""Figures of the agreement panel, built without pyplot or Qt: each evaluator's share of decisive
judgments won by the response shown first, against the unbiased one half."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from workbench.stats.errors import StatsInputError


def position_bias_bars(table: pd.DataFrame, title: str = "First-shown response wins") -> Figure:
    """One horizontal bar per evaluator (``table`` as returned by
    :func:`workbench.stats.position_bias.first_position_wins`): its ``first_win_share`` of
    decisive judgments, a dashed line at 0.5 (no position bias), and the number of decisive
    judgments beside each bar. Evaluators without a decisive judgment are left out; one whose
    design fixed the positions gets no bar but the sentence saying so (``positions``)."""
    shown = table[table["decisive"] > 0].sort_values("first_win_share", kind="stable")
    if shown.empty:
        raise StatsInputError("no decisive judgments to plot")
    positions = np.arange(len(shown))
    figure = Figure(figsize=(5.5, max(2.2, 0.3 * len(shown) + 1.0)), layout="constrained")
    axes = figure.add_subplot()
    axes.barh(positions, shown["first_win_share"].fillna(0.0), color="tab:blue", alpha=0.8)
    axes.axvline(0.5, color="tab:gray", linestyle="--", linewidth=1)
    designs = shown["positions"] if "positions" in shown else pd.Series("", index=shown.index)
    for position, share, decisive, design in zip(
        positions, shown["first_win_share"], shown["decisive"], designs, strict=True
    ):
        if pd.isna(share):
            axes.text(0.02, float(position), f"{design}: no bias measure", va="center", fontsize=7)
            continue
        axes.text(
            min(share + 0.02, 0.9), float(position), f"n={int(decisive)}", va="center", fontsize=7
        )
    axes.set_yticks(positions, [str(name) for name in shown.iloc[:, 0]])
    axes.set_xlim(0, 1)
    axes.set_xlabel("share won by the first-shown response")
    axes.set_title(title, fontsize=10)
    return figure


def rating_scatter(
    ratings: pd.DataFrame,
    label_a: str,
    label_b: str,
    spearman: float | None,
    kendall: float | None,
) -> Figure:
    """One point per model rated by both sides (``ratings``: columns ``model``, ``rating_a``,
    ``rating_b``), named beside it, with the two sides' rank correlations in the title."""
    if ratings.empty:
        raise StatsInputError("no model is rated by both sides")
    figure = Figure(figsize=(5.0, 4.2), layout="constrained")
    axes = figure.add_subplot()
    axes.scatter(ratings["rating_a"], ratings["rating_b"], color="tab:blue", zorder=2)
    for model, x, y in zip(ratings["model"], ratings["rating_a"], ratings["rating_b"], strict=True):
        axes.annotate(str(model), (x, y), xytext=(4, 3), textcoords="offset points", fontsize=7)
    axes.set_xlabel(f"rating by {label_a}")
    axes.set_ylabel(f"rating by {label_b}")
    axes.grid(alpha=0.3)

    def shown(value: float | None) -> str:
        # undefined (None or NaN) when one side rates every model the same: humans who
        # voted only ties
        return "–" if value is None or np.isnan(value) else f"{value:.3f}"

    axes.set_title(
        f"Spearman {shown(spearman)}, Kendall's tau {shown(kendall)} ({len(ratings)} models)",
        fontsize=10,
    )
    return figure
