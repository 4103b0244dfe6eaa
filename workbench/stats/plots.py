"""Matplotlib figures of ratings and preferences, built without pyplot or Qt so the same function
serves the CLI (``--plot FILE``) and the GUI (embedded with the Qt backend)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from workbench.stats.errors import StatsInputError

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: the least height, in points, of one row of a figure that lists models on its y axis: below
#: it the model names overlap (a 9-10 pt label needs about 13 pt of room)
LEGIBLE_ROW_POINTS = 14.0
#: the Figure attribute holding the least height in inches at which it stays legible
_LEGIBLE_HEIGHT = "workbench_legible_height_inches"


def legible_height_inches(figure: Figure) -> float:
    """The least height (inches) ``figure`` can be drawn at with its labels apart; 0 when it
    declares none. A viewer drawing it into less room scrolls instead of squashing it."""
    return float(getattr(figure, _LEGIBLE_HEIGHT, 0.0))


def _declare_rows(figure: Figure, rows: int, chrome_inches: float) -> None:
    setattr(figure, _LEGIBLE_HEIGHT, rows * LEGIBLE_ROW_POINTS / 72.0 + chrome_inches)


def ratings_forest_plot(table: pd.DataFrame, title: str = "Ratings") -> Figure:
    """One row per model, best at the top: its rating as a dot and its confidence interval as a
    bar (FastChat ``visualize_bootstrap_elo_rating``, drawn horizontally). ``table`` has columns
    ``model``, ``rating`` and optionally ``ci_lower``/``ci_upper``."""
    if table.empty:
        raise StatsInputError("no ratings to plot")
    ordered = table.sort_values("rating", ascending=True, kind="stable")
    positions = np.arange(len(ordered))
    figure = Figure(figsize=(7.0, max(2.5, 0.32 * len(ordered) + 1.2)), layout="constrained")
    axes = figure.add_subplot()
    has_intervals = {"ci_lower", "ci_upper"} <= set(ordered.columns) and not (
        ordered[["ci_lower", "ci_upper"]].isna().all().all()
    )
    if has_intervals:
        lower = (ordered["rating"] - ordered["ci_lower"]).clip(lower=0).fillna(0)
        upper = (ordered["ci_upper"] - ordered["rating"]).clip(lower=0).fillna(0)
        axes.errorbar(
            ordered["rating"],
            positions,
            xerr=np.vstack([lower.to_numpy(), upper.to_numpy()]),
            fmt="o",
            color="tab:blue",
            ecolor="tab:gray",
            capsize=3,
        )
    else:
        axes.plot(ordered["rating"], positions, "o", color="tab:blue")
    axes.set_yticks(positions, ordered["model"].tolist())
    axes.set_xlabel("rating" + (" (95% CI)" if has_intervals else ""))
    # over the whole figure, not the axes (which long model names push right), and broken into
    # lines at each size it is drawn at (wrap_titles), so the layout makes room for every line
    figure.suptitle(title, fontsize=10, wrap=True)
    axes.grid(axis="x", alpha=0.3)
    _declare_rows(figure, len(ordered), chrome_inches=1.2)  # title, axis label, margins
    return figure


#: the Text attribute keeping a wrapping title's own text (its lines as given)
_UNWRAPPED = "workbench_unwrapped_text"
#: the share of a figure's width a wrapped title's lines may take
_TITLE_WIDTH_SHARE = 0.96


def wrap_titles(figure: Figure) -> None:
    """Break each wrapping title of ``figure`` (its suptitle and axes titles set with
    ``wrap=True``) into lines that fit the figure's current width, measured with its renderer:
    matplotlib's own wrapping happens at draw time, after the layout has made room for the
    unbroken lines, so a narrow figure (a docked pane about 440 px wide) cut the title's top
    line. Call it after setting the size the figure is drawn at; the title's given text is kept
    and wrapped again at the next size."""
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    room = figure.bbox.width * _TITLE_WIDTH_SHARE
    texts = [getattr(figure, "_suptitle", None), *(axes.title for axes in figure.axes)]
    for text in texts:
        if text is None or not (text.get_wrap() or hasattr(text, _UNWRAPPED)):
            continue
        if not hasattr(text, _UNWRAPPED):
            setattr(text, _UNWRAPPED, text.get_text())
            text.set_wrap(False)  # its lines are set here, for the layout to see
        properties = text.get_fontproperties()

        def width(line: str, properties: object = properties) -> float:
            found = renderer.get_text_width_height_descent(line, properties, ismath=False)
            return float(found[0])

        lines: list[str] = []
        for given in str(getattr(text, _UNWRAPPED)).split("\n"):
            line = ""
            for word in given.split(" "):
                candidate = f"{line} {word}" if line else word
                if line and width(candidate) > room:
                    lines.append(line)
                    line = word
                else:
                    line = candidate
            lines.append(line)
        text.set_text("\n".join(lines))


def name_heatmap_cells(
    axes: Axes,
    matrix: pd.DataFrame,
    values: np.ndarray,
    text: Callable[[float], str],
    colour: Callable[[float], str],
    labelled: bool = True,
) -> None:
    """Name a heatmap's columns (slanted) and rows by ``matrix``'s, and, when ``labelled``,
    write ``text(value)`` in ``colour(value)`` on each finite cell of ``values``."""
    axes.set_xticks(range(len(matrix.columns)), matrix.columns.tolist(), rotation=60, ha="right")
    axes.set_yticks(range(len(matrix.index)), matrix.index.tolist())
    if not labelled:
        return
    for row in range(values.shape[0]):
        for column in range(values.shape[1]):
            value = values[row, column]
            if np.isfinite(value):
                axes.text(
                    column, row, text(value), ha="center", va="center", fontsize=7,
                    color=colour(value),
                )  # fmt: skip


def win_rate_heatmap(matrix: pd.DataFrame, title: str = "Win rate (row beats column)") -> Figure:
    """A models x models heatmap of win rates in [0, 1], each cell labelled, as FastChat's
    ``visualize_pairwise_win_fraction`` (NaN cells left blank)."""
    if matrix.empty:
        raise StatsInputError("no win rates to plot")
    size = max(3.5, 0.45 * len(matrix.columns) + 2.0)
    # "compressed" keeps the square map and its colorbar together and centred in a pane of any
    # shape; "constrained" anchored them to the right edge of a wide pane
    figure = Figure(figsize=(size + 1.0, size), layout="compressed")
    axes = figure.add_subplot()
    values = matrix.to_numpy(dtype=float)
    image = axes.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=0.0, vmax=1.0)
    name_heatmap_cells(
        axes,
        matrix,
        values,
        lambda value: f"{value:.2f}",
        lambda value: "white" if abs(value - 0.5) > 0.3 else "black",
        labelled=len(matrix) <= 25,
    )
    axes.set_xlabel("column model")
    axes.set_ylabel("row model")
    axes.set_title(title)
    figure.colorbar(image, ax=axes, shrink=0.8)
    return figure


def preference_graph_plot(
    graph: nx.DiGraph[str], expected_order: list[str] | None = None, title: str = "Preferences"
) -> Figure:
    """A preference graph as CHIRP draws it: an arrow from the less to the more preferred model,
    its opacity the consensus; with ``expected_order`` (best first) arrows that agree with it are
    green and those that contradict it red."""
    figure = Figure(figsize=(5.5, 5.0), layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title)
    axes.set_axis_off()
    if graph.number_of_nodes() == 0:
        return figure
    # the nodes in sorted order around the circle (what circular_layout does with a node list)
    ordered: nx.Graph[str] = nx.Graph()
    ordered.add_nodes_from(sorted(graph.nodes))
    layout = nx.circular_layout(ordered)
    nx.draw_networkx_nodes(graph, layout, ax=axes, node_color="#dddddd", node_size=900)
    nx.draw_networkx_labels(graph, layout, ax=axes, font_size=8)
    rank = {model: index for index, model in enumerate(expected_order or [])}
    for loser, winner, data in graph.edges(data=True):
        colour = "tab:blue"
        if loser in rank and winner in rank:
            colour = "tab:green" if rank[winner] < rank[loser] else "tab:red"
        nx.draw_networkx_edges(
            graph,
            layout,
            edgelist=[(loser, winner)],
            ax=axes,
            edge_color=colour,
            alpha=float(data.get("consensus", 1.0)),
            arrows=True,
            arrowsize=16,
            node_size=900,
            connectionstyle="arc3,rad=0.08",
        )
    return figure
