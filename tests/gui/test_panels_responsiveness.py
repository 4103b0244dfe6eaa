"""Opening a busy bundle, and recomputing and redrawing the leaderboard, never stall the event
loop for more than 100 ms of wall-clock time, on a bundle of 20 models and 20,000 judgments
with 500 bootstrap rounds (a case that once stalled 884 ms), and (behind the ``long`` marker)
on a bundle of 1,000,000 campaign votes. Statistics, figure building and drawing to pixels
happen in the panels' worker process (workbench/gui/panel_process.py); the GUI thread only
turns finished pixels into a pixmap.

What is measured is the longest wall-clock gap between ticks of a 10 ms timer while the work
runs: that is what the user feels, whether the GUI thread computed, waited for the GIL held by
a worker, or waited for a core. (An earlier version asserted the GUI thread's CPU time only,
which missed the 884 ms stalls measured on that case.)

Wall-clock gaps depend on what else the machine runs, so these are ``budget`` tests: not in the
default run; bench/event_loop_stalls.py runs them and reports the stall against the idle loop's
gap in the same run. That the figures are built in the worker process is checked without a
clock by tests/gui/test_panels_leaderboard.py."""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from pytest import MonkeyPatch
from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import write_jsonl
from tests.patience import HANG_GUARD_MS
from workbench.services.importing import import_files

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow

pytestmark = [pytest.mark.gui, pytest.mark.budget]

MODELS = tuple(f"model-{number:02d}" for number in range(20))
ITEMS = 500
JUDGMENTS_PER_ITEM = 40
BOOTSTRAP_ROUNDS = 500
TICK_MS = 10
#: the issue's budget for the longest event-loop stall, on a quiet machine
STALL_BUDGET = 0.100
#: an idle loop's longest gap on a quiet machine (12-15 ms measured, docs/PERFORMANCE.md): a
#: run whose idle loop already gaps longer is on a loaded machine, and the excess is added to
#: the budget (the machine's share of any stall, not the app's)
QUIET_IDLE_GAP = 0.015


def _busy_bundle_lines() -> list[dict[str, Any]]:
    """Items answered by every model, each with many votes in one line (a fast import); the
    stronger model (lower number) wins three times in four."""
    chance = random.Random(7)
    lines = []
    for number in range(ITEMS):
        judgments = []
        for _ in range(JUDGMENTS_PER_ITEM):
            first, second = sorted(chance.sample(range(len(MODELS)), 2))
            outcome = "a" if chance.random() < 0.75 else "b"
            judgments.append(
                {
                    "kind": "human",
                    "model_a": MODELS[first],
                    "model_b": MODELS[second],
                    "outcome": outcome,
                    "rater": f"rater-{chance.randrange(30)}",
                }
            )
        lines.append(
            {
                "format": "vlm-workbench/item",
                "format_version": 1,
                "source": "busy",
                "id": f"item-{number}",
                "category": "general",
                "language": "English",
                "turns": [{"prompt": f"Question {number}?"}],
                "outputs": [{"model": model, "text": f"{model} answers"} for model in MODELS],
                "judgments": judgments,
            }
        )
    return lines


@pytest.fixture(scope="module")
def busy_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("busy")
    bundle = folder / "busy.wbb"
    import_files(bundle, [write_jsonl(folder / "items.jsonl", _busy_bundle_lines())], "jsonl")
    return bundle


@pytest.fixture(autouse=True)
def app_tweaks(qapp: QApplication) -> Iterator[None]:
    """The scheduling tweaks the app makes at start-up (run_app; each on unless its variable in
    workbench/gui/tweaks.py is 0): the interpreter lock's switch interval and the idle
    collector, undone after the test."""
    from workbench.gui.collector import IdleCollector, install_idle_collector
    from workbench.gui.event_loop import favour_the_event_loop

    default_interval, default_thresholds = sys.getswitchinterval(), gc.get_threshold()
    before = qapp.findChild(IdleCollector)
    favour_the_event_loop()
    collector = install_idle_collector(qapp)
    yield
    if collector is not None and collector is not before:
        collector.timer.stop()
        collector.setParent(None)
        collector.deleteLater()
    gc.set_threshold(*default_thresholds)
    sys.setswitchinterval(default_interval)


def _analysis_window(qtbot: QtBot, rounds: int | None = BOOTSTRAP_ROUNDS) -> MainWindow:
    """A shown main window with every analysis panel on screen and no bundle yet (the
    leaderboard's bootstrap ``rounds``; None: the app's default)."""
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    if rounds is not None:
        window.analysis.leaderboard.rounds.setValue(rounds)
    window.analysis.show_all()
    window.show()
    qtbot.waitExposed(window, timeout=HANG_GUARD_MS)
    return window


def _open_and_settle(qtbot: QtBot, window: MainWindow, bundle: Path) -> None:
    window.open_bundle(bundle)
    qtbot.waitUntil(lambda: window.analysis.leaderboard.result is not None, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)


@pytest.fixture
def busy_window(qtbot: QtBot, busy_bundle: Path) -> Iterator[Any]:
    window = _analysis_window(qtbot)
    _open_and_settle(qtbot, window, busy_bundle)
    try:
        yield window
    finally:
        window.close()


def _waited_for_a_cpu() -> float:
    """Seconds the calling thread has spent runnable but waiting for a core (Linux's
    schedstat; NaN elsewhere): tells a loaded machine's stall from the app's."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


class StallWatch:
    """Records, between consecutive ticks of a 10 ms timer, the wall-clock gap, the CPU time
    the GUI thread spent, and the time it waited for a core."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.wall_gaps: list[float] = []
        self.cpu_gaps: list[float] = []
        self.queue_gaps: list[float] = []
        self._last: tuple[float, float, float] | None = None

    def _tick(self) -> None:
        now = (time.perf_counter(), time.thread_time(), _waited_for_a_cpu())
        if self._last is not None:
            self.wall_gaps.append(now[0] - self._last[0])
            self.cpu_gaps.append(now[1] - self._last[1])
            self.queue_gaps.append(now[2] - self._last[2])
        self._last = now

    def __enter__(self) -> StallWatch:
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.stop()

    @classmethod
    def idle_reference(cls, qtbot: QtBot, seconds: float = 2.0) -> float:
        """The longest gap of the same timer with nothing to do: the machine's own share of
        any stall."""
        with cls() as idle:
            qtbot.wait(int(1000 * seconds))
        return max(idle.wall_gaps)

    def assert_within_budget(self, idle: float) -> None:
        """The longest wall-clock gap between ticks, less the GUI thread's wait for a core in it,
        is within :data:`STALL_BUDGET`, plus the
        excess of this run's idle gap over :data:`QUIET_IDLE_GAP` (a loaded machine's share; see
        docs/PERFORMANCE.md, "Event-loop stalls"). The GUI thread's CPU time in that gap, and
        its time waiting for a core, are printed too, to tell computing from waiting for the
        interpreter lock (neither) or for the machine."""
        assert len(self.wall_gaps) > 20
        longest = max(range(len(self.wall_gaps)), key=self.wall_gaps.__getitem__)
        wall, cpu = self.wall_gaps[longest], self.cpu_gaps[longest]
        queued = self.queue_gaps[longest]
        budget = STALL_BUDGET + max(0.0, idle - QUIET_IDLE_GAP)
        # time the GUI thread was ready to run but the machine gave it no core is the machine's
        # (a busy CI host, the suite's own PostgreSQL), not the app's: it is left out, and
        # printed; where the kernel does not say (NaN), nothing is left out
        machine = queued if queued == queued else 0.0
        figure = (
            f"the event loop stalled for {1000 * wall:.0f} ms of wall-clock time "
            f"({1000 * cpu:.0f} ms of it GUI-thread CPU, {1000 * queued:.0f} ms waiting for a "
            f"core) over {len(self.wall_gaps)} ticks; "
            f"an idle loop's longest gap in this run: {1000 * idle:.0f} ms, "
            f"so the budget is {1000 * budget:.0f} ms; the GUI thread's most CPU between two "
            f"ticks: {1000 * max(self.cpu_gaps):.0f} ms"
        )
        print(f"\nlongest stall: {figure}")
        assert wall - machine < budget, figure


def test_recompute_and_redraw_do_not_stall_the_event_loop(
    qtbot: QtBot, busy_window: Any, monkeypatch: MonkeyPatch
) -> None:
    panel = busy_window.analysis.leaderboard
    assert len(panel.result.table) == len(MODELS)
    assert panel.result.battles == ITEMS * JUDGMENTS_PER_ITEM == 20_000
    assert panel.result.board.bootstrap == BOOTSTRAP_ROUNDS

    drawn_here: list[threading.Thread] = []
    real_draw: Callable[[FigureCanvasAgg], None] = FigureCanvasAgg.draw

    def recording_draw(canvas: FigureCanvasAgg) -> None:
        drawn_here.append(threading.current_thread())
        real_draw(canvas)

    monkeypatch.setattr(FigureCanvasAgg, "draw", recording_draw)

    def recompute() -> None:
        before = panel.result
        panel.refresh_button.click()
        qtbot.waitUntil(lambda: panel.result is not before, timeout=HANG_GUARD_MS)
        qtbot.waitUntil(lambda: not busy_window.is_busy(), timeout=HANG_GUARD_MS)

    idle = StallWatch.idle_reference(qtbot)
    with StallWatch() as watch:
        recompute()  # the ratings plot on screen
        panel.plots.setCurrentWidget(panel.heatmap)  # the 20 x 20 heatmap drawn when shown
        qtbot.waitUntil(lambda: panel.heatmap.pixmap is not None, timeout=HANG_GUARD_MS)
        recompute()  # and redrawn with the next result
        busy_window.resize(1200, 800)  # a resize re-renders after the debounce
        qtbot.wait(400)
        qtbot.waitUntil(lambda: not busy_window.is_busy(), timeout=HANG_GUARD_MS)

    # every figure is built and drawn in the worker process, none in this one
    assert drawn_here == []
    assert busy_window.analysis.process.worker_pid not in (None, os.getpid())
    shown = panel.heatmap.pixmap
    assert shown is not None and shown.width() >= 200 and shown.height() >= 160
    watch.assert_within_budget(idle)


def test_opening_a_busy_bundle_does_not_stall_the_event_loop(
    qtbot: QtBot, busy_bundle: Path
) -> None:
    """Opening reads the judgments (the panels' choices, their statistics) on workers: the
    window keeps painting while the leaderboard of the new bundle is computed."""
    window = _analysis_window(qtbot)
    try:
        idle = StallWatch.idle_reference(qtbot)
        with StallWatch() as watch:
            _open_and_settle(qtbot, window, busy_bundle)
        result = window.analysis.leaderboard.result
        assert result is not None and result.battles == 20_000
        watch.assert_within_budget(idle)
    finally:
        window.close()


@pytest.mark.long
def test_a_million_vote_bundle_opens_and_recomputes_without_stalling(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """The 1,000,000-vote variant (minutes to build: ``pytest -m long``)."""
    bundle = tmp_path / "million.wbb"
    script = Path(__file__).parents[2] / "bench" / "make_synthetic_bundle.py"
    subprocess.run(
        [sys.executable, str(script), str(bundle), "--items", "2000", "--votes", "1000000"],
        check=True,
    )
    window = _analysis_window(qtbot)
    panel = window.analysis.leaderboard
    try:
        idle = StallWatch.idle_reference(qtbot)
        with StallWatch() as watch:
            _open_and_settle(qtbot, window, bundle)
            before = panel.result
            panel.refresh_button.click()
            qtbot.waitUntil(lambda: panel.result is not before, timeout=300_000)
            qtbot.waitUntil(lambda: not window.is_busy(), timeout=300_000)
        assert panel.result is not None and panel.result.battles >= 1_000_000
        watch.assert_within_budget(idle)
    finally:
        window.close()


def _four_panels_on_screen(window: MainWindow) -> None:
    """Lay the four docks out in a grid, so every panel is on screen and computes on open (the
    default layout tabs failures and agreement behind the graph, which would leave them
    stale until chosen)."""
    from PySide6.QtCore import Qt

    docks = window.analysis.docks
    for dock in docks.values():
        window.removeDockWidget(dock)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, docks["leaderboard"])
    window.splitDockWidget(docks["leaderboard"], docks["graph"], Qt.Orientation.Horizontal)
    window.splitDockWidget(docks["leaderboard"], docks["failures"], Qt.Orientation.Vertical)
    window.splitDockWidget(docks["graph"], docks["agreement"], Qt.Orientation.Vertical)
    for dock in docks.values():
        dock.show()


def test_opening_the_wildvision_bundle_does_not_stall_the_event_loop(
    qtbot: QtBot, full_bundle: Path, monkeypatch: MonkeyPatch
) -> None:
    """The target on the real data: the shared data's bundle (WildVision-Bench's 19,644
    arena battles and GPT-4o's 11,000 verdicts, 50,288 judgments in all, beside the VisIT-Bench
    and ConvBench items) opens with the leaderboard, graph, failures and agreement panels all on
    screen, at the app's default settings, and the event loop never stalls over the budget from
    the open until every panel has shown its result (a result or the panel's message why there
    is none: on this data, no human judgments for the agreement panel to compare)."""
    from workbench.gui.panels.agreement_panel import AgreementPanel
    from workbench.gui.panels.failures_panel import FailuresPanel
    from workbench.gui.panels.graph_panel import GraphPanel
    from workbench.gui.panels.leaderboard_panel import LeaderboardPanel

    #: panel -> seconds from the open to its first result (or message) shown
    shown: dict[str, float] = {}
    opened = time.perf_counter()

    def recorded(cls: type, method: str, name: str) -> None:
        real = getattr(cls, method)

        def record(panel: object, outcome: object, **options: Any) -> Any:
            shown.setdefault(name, time.perf_counter() - opened)
            return real(panel, outcome, **options)

        monkeypatch.setattr(cls, method, record)

    for cls, shows, name in (
        (LeaderboardPanel, "_show", "leaderboard"),
        (GraphPanel, "_show_cycles", "graph"),
        (FailuresPanel, "_show", "failures"),
        (AgreementPanel, "_show", "agreement"),
    ):
        recorded(cls, shows, name)
        recorded(cls, "_failed", name)

    window = _analysis_window(qtbot, rounds=None)  # the app's default bootstrap rounds
    analysis = window.analysis
    try:
        _four_panels_on_screen(window)
        qtbot.waitUntil(
            lambda: all(dock.isVisible() for dock in analysis.docks.values()), timeout=HANG_GUARD_MS
        )
        panels = (analysis.leaderboard, analysis.graph, analysis.failures, analysis.agreement)
        assert all(not panel.visibleRegion().isEmpty() for panel in panels)

        idle = StallWatch.idle_reference(qtbot)
        with StallWatch() as watch:
            opened = time.perf_counter()
            window.open_bundle(full_bundle)
            # minutes on a loaded machine: the panels share two worker processes
            qtbot.waitUntil(lambda: len(shown) == 4 and not window.is_busy(), timeout=300_000)

        board = analysis.leaderboard.result
        # the default board counts human judgments, as the shared data has some (VisIT-Bench's
        # raters): WildVision-Bench's GPT-4o verdicts are not pooled with them
        assert board is not None and board.request.kind == "human" and len(board.table) >= 2
        assert analysis.failures.status.text().endswith("item(s)")
        print(
            "\nresults shown (s after the open): "
            + ", ".join(f"{name} {seconds:.1f}" for name, seconds in shown.items())
        )
        watch.assert_within_budget(idle)
    finally:
        window.close()
