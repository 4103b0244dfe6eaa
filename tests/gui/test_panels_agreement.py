"""The agreement dock shows the engine's human-vs-judge numbers and confusion matrix."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pytest
from pytestqt.qtbot import QtBot

from tests.gui.panel_window import opened_panel_window
from tests.patience import HANG_GUARD_MS
from workbench.services.outcomes import judgments_frame, pairwise_outcomes
from workbench.stats.agreement import agreement_summary, aligned_preferences
from workbench.storage import Bundle

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


@pytest.fixture
def panel_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    with opened_panel_window(qtbot, tmp_path / "panels") as window:
        yield window


def test_headline_numbers_and_confusion_matrix(qtbot: QtBot, panel_window: MainWindow) -> None:
    panel = panel_window.analysis.agreement
    panel_window.analysis.docks["agreement"].raise_()
    qtbot.waitUntil(lambda: panel.result is not None, timeout=HANG_GUARD_MS)
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    with Bundle.open(panel_window.bundle.path) as bundle, bundle.read_session() as session:
        outcomes = pairwise_outcomes(judgments_frame(session))
    humans = outcomes[outcomes["kind"] == "human"]
    judges = outcomes[outcomes["kind"] == "judge"]
    summary = agreement_summary(humans, judges)
    assert panel.values["agreement_with_ties"].text() == f"{100 * summary.agreement_with_ties:.1f}%"
    assert panel.values["cohen_kappa"].text() == f"{summary.cohen_kappa:.3f}"
    assert panel.values["comparisons"].text().startswith(f"{summary.comparisons} ")

    aligned = aligned_preferences(humans, judges)
    expected = pd.crosstab(aligned["preference_a"], aligned["preference_b"])
    shown = {
        (panel.confusion.index(row, 0).data(), panel.confusion.headers[column]): int(
            panel.confusion.index(row, column).data()
        )
        for row in range(panel.confusion.rowCount())
        for column in range(1, panel.confusion.columnCount())
    }
    for (human, judge), count in shown.items():
        in_engine = (
            expected.loc[human, judge]
            if human in expected.index and judge in expected.columns
            else 0
        )
        assert count == in_engine
    # the sample's one shared comparison: humans prefer m-a, the judge m-b
    assert shown[("first", "second")] == 1 and sum(shown.values()) == 1


def test_position_bias_bars_show_the_engine_shares(qtbot: QtBot, panel_window: MainWindow) -> None:
    from matplotlib.patches import Rectangle

    from workbench.stats.position_bias import first_position_wins

    panel = panel_window.analysis.agreement
    panel_window.analysis.docks["agreement"].raise_()
    qtbot.waitUntil(lambda: panel.position_bars.figure is not None, timeout=HANG_GUARD_MS)
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    with Bundle.open(panel_window.bundle.path) as bundle, bundle.read_session() as session:
        outcomes = pairwise_outcomes(judgments_frame(session))
    expected = first_position_wins(outcomes)
    expected = expected[expected["decisive"] > 0]
    assert panel.position_bars.figure is not None
    axes = panel.position_bars.figure.axes[0]
    bars = [patch for patch in axes.patches if isinstance(patch, Rectangle)]
    labels = [label.get_text() for label in axes.get_yticklabels()]
    shares = dict(zip(labels, (bar.get_width() for bar in bars), strict=True))
    # an evaluator whose design fixed the positions gets an empty bar and a sentence instead
    assert shares == pytest.approx(
        dict(zip(expected["evaluator"], expected["first_win_share"].fillna(0.0), strict=True))
    )
    fixed = expected[expected["positions"] != "randomized"]
    texts = " ".join(text.get_text() for text in axes.texts)
    assert all(f"{design}: no bias measure" in texts for design in fixed["positions"])


def test_chosen_sides_breakdowns_and_rating_scatter(qtbot: QtBot, panel_window: MainWindow) -> None:
    from workbench.services.analysis import agreement

    panel = panel_window.analysis.agreement
    panel_window.analysis.docks["agreement"].raise_()
    qtbot.waitUntil(lambda: panel.result is not None and not panel.busy, timeout=HANG_GUARD_MS)
    assert panel.sides() == ("human", "judge")
    assert panel.side_a.findText("judge") >= 0 and panel.side_a.findText("imported") >= 0
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    with Bundle.open(panel_window.bundle.path) as bundle:
        expected = agreement(bundle)
    assert [panel.by_category.rows[row][0] for row in range(panel.by_category.rowCount())] == list(
        expected.by_category["category"]
    )
    assert [tuple(row[:3]) for row in panel.by_model_pair.rows] == [
        (row.first, row.second, row.comparisons)
        for row in expected.by_model_pair.itertuples(index=False)
    ]
    panel.breakdowns.setCurrentIndex(panel.breakdowns.count() - 1)
    qtbot.waitUntil(lambda: panel.scatter.pixmap is not None, timeout=HANG_GUARD_MS)
    assert panel.scatter.figure is not None
    points = panel.scatter.figure.axes[0].collections[0].get_offsets()
    assert isinstance(points, np.ma.MaskedArray)  # what matplotlib keeps a scatter's points in
    assert list(points.data.ravel()) == pytest.approx(
        list(expected.ratings[["rating_a", "rating_b"]].to_numpy().ravel())
    )

    before = panel.result
    panel.side_a.setCurrentText("rater:r1")
    panel.side_b.setCurrentText("rater:r2")
    panel.compare_button.click()
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    assert panel.result is not None
    assert (panel.result.side_a, panel.result.side_b) == ("rater:r1", "rater:r2")
    assert panel.values["agreement_with_ties"].text() == "100.0%"
    assert panel.numbers.title() == "rater:r1 majority vs rater:r2 majority (majority convention)"


def test_overlapping_sides_are_counted_once_and_said_so(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    from workbench.services.analysis import agreement

    panel = panel_window.analysis.agreement
    panel_window.analysis.docks["agreement"].raise_()
    qtbot.waitUntil(lambda: panel.result is not None and not panel.busy, timeout=HANG_GUARD_MS)
    panel.side_b.setEditText("rater:r1")
    panel.refresh()
    qtbot.waitUntil(
        lambda: panel.result is not None and panel.result.side_b == "rater:r1" and not panel.busy,
        timeout=HANG_GUARD_MS,
    )
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    with Bundle.open(panel_window.bundle.path) as bundle:
        expected = agreement(bundle, "human", "rater:r1")
    assert expected.overlap > 0
    assert expected is not None
    assert panel.result is not None
    assert panel.result.summary == expected.summary
    assert f"{expected.overlap} judgments selected by both sides" in panel.status.text()
    assert [row[5] for row in panel.position.rows] == list(expected.position_bias["positions"])
