"""A figure with many rows of labels is drawn at a legible height and scrolls, instead of being
squashed into a short pane (21 WildVision-Bench models in a 1024x700 window overlapped)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from workbench.gui.panel_computations import render_figure
from workbench.gui.panels.figure_view import FigureView
from workbench.stats.plots import LEGIBLE_ROW_POINTS, legible_height_inches, ratings_forest_plot

pytestmark = pytest.mark.gui


class InlineRunner:
    """Runs a render where it is asked, as the view's thread would, so a test sees it at once."""

    busy = False

    def run(
        self,
        function: Callable[[], Any],
        on_result: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        on_result(function())


def forest(models: int) -> Figure:
    table = pd.DataFrame(
        {
            "model": [f"model-{n:02d}" for n in range(models)],
            "rating": [1000.0 + 10 * n for n in range(models)],
            "ci_lower": [990.0 + 10 * n for n in range(models)],
            "ci_upper": [1010.0 + 10 * n for n in range(models)],
        }
    )
    return ratings_forest_plot(table, "Bradley-Terry ratings")


def test_a_short_request_is_drawn_at_the_legible_height() -> None:
    figure = forest(21)
    least = legible_height_inches(figure) * figure.get_dpi()
    assert least >= 21 * LEGIBLE_ROW_POINTS / 72 * figure.get_dpi()
    drawn = render_figure(figure, 400, 250)
    assert drawn.width == 400 and drawn.height == round(least)
    # a pane taller than that gets the whole pane, and a few rows never grow
    assert render_figure(forest(21), 400, 900).height == 900
    assert render_figure(forest(3), 400, 250).height == 250


def test_the_view_scrolls_a_tall_figure_and_fits_its_width(qtbot: QtBot) -> None:
    view = FigureView(InlineRunner())
    qtbot.addWidget(view)
    view.resize(420, 260)
    view.show()
    qtbot.waitExposed(view, timeout=HANG_GUARD_MS)
    view.show_figure(lambda: forest(21))
    qtbot.waitUntil(lambda: view.pixmap is not None, timeout=HANG_GUARD_MS)
    bar = view.scroll_area.verticalScrollBar()

    def scrolled_and_fitted() -> None:  # once the debounced re-render took the bar's width
        assert bar.maximum() > 0, "a 21-row figure in a 260 px pane must scroll"
        assert view.image.height() >= 21 * LEGIBLE_ROW_POINTS / 72 * 100 * 0.95
        assert view.scroll_area.horizontalScrollBar().maximum() == 0

    qtbot.waitUntil(scrolled_and_fitted, timeout=HANG_GUARD_MS)


@pytest.mark.parametrize("width", [440, 360])
def test_the_ratings_title_fits_a_docked_pane(shared_data: Path, width: int) -> None:
    """The title the Leaderboard panel gives WildVision-Bench's board, drawn about 440 px wide
    (the docked pane at 1366x768): every line inside the figure, none cut at a side or the
    top (matplotlib wrapped it only at draw time, after the layout had made room for two
    unbroken lines, and centred it over axes pushed right by the model names)."""
    answers = shared_data / "wildvision-bench" / "model_answers"
    names = sorted(path.name.removesuffix(".jsonl.gz") for path in answers.glob("*.jsonl.gz"))
    assert len(names) >= 20
    table = pd.DataFrame(
        {
            "model": names,
            "rating": [1000.0 + 10 * n for n in range(len(names))],
            "ci_lower": [990.0 + 10 * n for n in range(len(names))],
            "ci_upper": [1010.0 + 10 * n for n in range(len(names))],
        }
    )
    title = "Bradley-Terry ratings (30644 battles, human, else judge)\nanchor gpt-4o = 1000"
    figure = ratings_forest_plot(table, title)
    rendered = render_figure(figure, width, 300)
    canvas = figure.canvas
    assert isinstance(canvas, FigureCanvasAgg)  # what render_figure drew on
    renderer = canvas.get_renderer()
    texts = [(text, read) for text in figure.findobj() if (read := getattr(text, "get_text", None))]
    [shown] = [text for text, read in texts if "Bradley-Terry" in str(read())]
    assert isinstance(shown, Text)
    box = shown.get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= rendered.width, (box, rendered.width)
    assert box.y1 <= rendered.height, (box, rendered.height)
    # over the whole figure, in as few lines as its width allows: the two given ones at 440 px
    # (squeezed over the axes, it took four and touched the top edge)
    assert abs((box.x0 + box.x1) / 2 - rendered.width / 2) <= 2, (box, rendered.width)
    # matplotlib's stubs allow a named size ("large"); a drawn text reports it in points
    line = cast(float, shown.get_fontsize()) * figure.dpi / 72 * 1.2
    assert box.height <= (2 if width >= 440 else 3) * line + 2, (box.height, line)
    # the words are all there, in order, only broken into lines
    assert " ".join(str(shown.get_text()).split()) == " ".join(title.split())


def test_the_figure_follows_its_pane_when_the_scroll_bar_comes_and_goes(qtbot: QtBot) -> None:
    """In a real window, floating or docking a dock changes the pane's height first: the last
    render is then taller than the pane, the vertical bar appears (the pane narrows by its
    width with no resize of the view), the re-render fits, and the bar goes again. The figure
    stayed drawn at the width of the pane with or without the bar, whichever was last, until a
    manual resize (seen under Xvfb with a window manager at 1366x768)."""
    from PySide6.QtCore import Qt

    view = FigureView(InlineRunner())
    qtbot.addWidget(view)
    view.resize(440, 260)
    view.show()
    qtbot.waitExposed(view, timeout=HANG_GUARD_MS)
    view.show_figure(lambda: forest(3))
    area = view.scroll_area

    def drawn_at_the_pane() -> None:
        assert view._rendered_size == view.target_size() == area.viewport().size()
        assert view.pixmap is not None
        assert round(view.pixmap.width() / view.pixmap.devicePixelRatio()) == (
            area.viewport().width()
        )

    qtbot.waitUntil(drawn_at_the_pane, timeout=HANG_GUARD_MS)
    off, on = Qt.ScrollBarPolicy.ScrollBarAlwaysOff, Qt.ScrollBarPolicy.ScrollBarAlwaysOn
    area.setVerticalScrollBarPolicy(off)
    qtbot.waitUntil(drawn_at_the_pane, timeout=HANG_GUARD_MS)
    assert view._rendered_size is not None
    wide = view._rendered_size.width()
    for policy in (on, off):  # the bar comes, then goes
        area.setVerticalScrollBarPolicy(policy)
        qtbot.waitUntil(drawn_at_the_pane, timeout=HANG_GUARD_MS)
        assert view._rendered_size is not None
        assert (view._rendered_size.width() < wide) == (policy == on)
    assert view.size().width() == 440  # the view itself never resized
