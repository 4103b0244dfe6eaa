"""The Qt-free figures: what they draw, and that they save."""

from __future__ import annotations

from pathlib import Path

import matplotlib.colors as mcolors
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from matplotlib.container import ErrorbarContainer

from workbench.stats.errors import StatsInputError
from workbench.stats.plots import preference_graph_plot, ratings_forest_plot, win_rate_heatmap


def test_forest_plot_orders_models_and_draws_intervals(tmp_path: Path) -> None:
    table = pd.DataFrame(
        {
            "model": ["b", "a", "c"],
            "rating": [1100.0, 1200.0, 900.0],
            "ci_lower": [1080.0, 1150.0, 850.0],
            "ci_upper": [1130.0, 1260.0, 940.0],
        }
    )
    figure = ratings_forest_plot(table, "title")
    axes = figure.axes[0]
    labels = [label.get_text() for label in axes.get_yticklabels()]
    assert labels == ["c", "b", "a"]  # best at the top
    (container,) = axes.containers
    assert isinstance(container, ErrorbarContainer)
    segments = container.lines[2][0].get_segments()
    assert [tuple(segment[:, 0]) for segment in segments] == [
        (850.0, 940.0),
        (1080.0, 1130.0),
        (1150.0, 1260.0),
    ]
    path = tmp_path / "forest.pdf"
    figure.savefig(path)
    assert path.read_bytes().startswith(b"%PDF")
    no_intervals = ratings_forest_plot(table.drop(columns=["ci_lower", "ci_upper"]))
    assert not no_intervals.axes[0].containers
    with pytest.raises(StatsInputError):
        ratings_forest_plot(table.iloc[:0])


def test_heatmap_shows_the_matrix_with_blank_missing_cells() -> None:
    matrix = pd.DataFrame([[np.nan, 0.7], [0.3, np.nan]], index=["x", "y"], columns=["x", "y"])
    figure = win_rate_heatmap(matrix)
    axes = figure.axes[0]
    image = axes.images[0]
    data = image.get_array()
    assert isinstance(data, np.ma.MaskedArray)
    assert data.mask.tolist() == [[True, False], [False, True]]
    assert [text.get_text() for text in axes.texts] == ["0.70", "0.30"]


def test_preference_graph_colours_edges_by_expected_order() -> None:
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_edge("weak", "strong", consensus=0.8)
    graph.add_edge("strong", "mid", consensus=0.6)
    figure = preference_graph_plot(graph, expected_order=["strong", "mid", "weak"])
    patches = list(figure.axes[0].patches)
    colours = sorted(mcolors.to_hex(patch.get_edgecolor()) for patch in patches)
    assert colours == sorted([mcolors.to_hex("tab:green"), mcolors.to_hex("tab:red")])
    alphas = sorted(round(mcolors.to_rgba(patch.get_edgecolor())[3], 2) for patch in patches)
    assert alphas == [0.6, 0.8]
