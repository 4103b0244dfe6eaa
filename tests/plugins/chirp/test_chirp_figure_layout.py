"""The benchmark pages' heatmaps (CHIRP's Elo per criterion and per question category,
ConvBench's per-task map) and the core win-rate matrix, drawn at a docked pane's shapes as the
panel draws them: the map and its colorbar stay together and inside the picture, and the title
is not cut, whatever the pane's width."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from workbench_chirp.figures import category_heatmap, elo_heatmap
from workbench_convbench.figures import task_heatmap

from workbench.gui.panel_computations import render_figure
from workbench.stats.plots import win_rate_heatmap

MODELS = ("robin-llava-13b", "robin-llava-34b", "robin-llava-7b")
CATEGORIES = ("Counting", "Humor", "Poetry", "Visual Reasoning")
#: a wide, short pane (the Benchmark dock under the items at 1366x768) and a narrow one
PANES = ((1346, 330), (440, 600))


def chirp_by_category() -> Figure:
    values = np.array(
        [[np.nan, 1004, 1004, 1000], [np.nan, 981, 1000, 1019], [np.nan, 1015, 996, 981]]
    )
    matrix = pd.DataFrame(values, index=list(MODELS), columns=list(CATEGORIES))
    not_rated = pd.DataFrame({"category": ["Counting"], "reason": ["6 comparisons, fewer than 10"]})
    return category_heatmap(matrix, not_rated, "human survey", "overall")


def chirp_by_criterion() -> Figure:
    criteria = ["overall", "detail", "hallucination", "relevance_completeness"]
    values = np.linspace(980, 1020, 12).reshape(3, 4)
    return elo_heatmap(pd.DataFrame(values, index=list(MODELS), columns=criteria), "a judge")


def convbench_per_task() -> Figure:
    rows = [
        {
            "model": model,
            "instruction_category": category,
            "R1": 2.0 + number + column,
            "grading": "direct",
            "evaluator": "convbench-direct gpt-4o-mini",
        }
        for number, model in enumerate(MODELS)
        for column, category in enumerate(CATEGORIES)
    ]
    return task_heatmap(pd.DataFrame(rows))


def win_rate_matrix() -> Figure:
    values = np.array([[np.nan, 0.62, 0.71], [0.38, np.nan, 0.55], [0.29, 0.45, np.nan]])
    return win_rate_heatmap(pd.DataFrame(values, index=list(MODELS), columns=list(MODELS)))


@pytest.mark.parametrize("pane", PANES, ids=lambda pane: f"{pane[0]}x{pane[1]}")
@pytest.mark.parametrize(
    "build", [chirp_by_category, chirp_by_criterion, convbench_per_task, win_rate_matrix]
)
def test_the_map_its_colorbar_and_title_stay_together_inside_the_pane(
    build: object, pane: tuple[int, int]
) -> None:
    assert callable(build)
    figure = build()
    width, height = pane
    rendered = render_figure(figure, width, height)
    assert rendered.width == width
    renderer = figure.canvas.get_renderer()
    heatmap, colorbar = figure.axes
    title = heatmap.title.get_window_extent(renderer)
    # a wrapped title is centred on the map, a little left of the pane's centre: 2 px of slack
    assert title.x0 >= -2 and title.x1 <= width + 2, (title.x0, title.x1, width)
    shown = heatmap.get_window_extent(renderer)
    bar = colorbar.get_window_extent(renderer)
    assert shown.x0 >= 0 and bar.x1 <= width
    # the colorbar beside the map, not at the far edge of the pane
    assert 0 < bar.x0 - shown.x1 < 0.1 * width + 40, (shown.x1, bar.x0)
    # and the pair about centred: as much room left of the map as right of the colorbar
    assert abs(shown.x0 - (width - bar.x1)) < 0.25 * width, (shown.x0, bar.x1, width)
