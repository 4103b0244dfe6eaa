"""Full garbage collections wait for an idle user instead of falling on the event loop at a
random moment, and nothing in the app freezes the collector."""

from __future__ import annotations

import ast
import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

from workbench.gui import collector as collector_module
from workbench.gui.collector import NO_AUTOMATIC_FULL_COLLECTION, IdleCollector
from workbench.gui.jobs import JobManager

pytestmark = pytest.mark.gui

PACKAGE = Path(collector_module.__file__).resolve().parents[1]


@pytest.fixture
def idle_collector(qapp: QApplication) -> Iterator[IdleCollector]:
    thresholds = gc.get_threshold()
    collector = IdleCollector(qapp)
    yield collector
    collector.timer.stop()
    qapp.focusWindowChanged.disconnect(collector.watch)
    collector.deleteLater()
    gc.set_threshold(*thresholds)


@contextmanager
def _full_collections() -> Iterator[list[str]]:
    """The full collections that run inside the block, one entry each."""
    seen: list[str] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            seen.append("full")

    gc.callbacks.append(callback)
    try:
        yield seen
    finally:
        gc.callbacks.remove(callback)


def _grow_the_old_generation() -> list[list[object]]:
    """Containers that survive the young collections, half as many as the process tracks:
    past the quarter of growth at which CPython starts a full collection by itself."""
    survivors: list[list[object]] = [[] for _ in range(len(gc.get_objects()) // 2)]
    for _ in range(30_000):  # and cycles, so a full collection has something to find
        node: list[object] = []
        node.append(node)
        del node
    return survivors


def test_the_interpreter_starts_no_full_collection_of_its_own(
    idle_collector: IdleCollector,
) -> None:
    assert gc.get_threshold()[2] == NO_AUTOMATIC_FULL_COLLECTION
    with _full_collections() as seen:
        survivors = _grow_the_old_generation()
    assert len(survivors) > 1000
    assert seen == []  # with the default threshold, CPython collects everything at least once


def test_an_idle_user_gets_the_full_collection_and_a_busy_one_does_not(
    qapp: QApplication,
    idle_collector: IdleCollector,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    survivors = _grow_the_old_generation()
    now = time.monotonic()
    idle_collector.last_input = now - collector_module.IDLE_AFTER_S - 1
    window = QWidget()
    window.show()
    handle = window.windowHandle()
    idle_collector.watch(handle)  # what the focus moving to the window does
    key = QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_1, Qt.KeyboardModifier.NoModifier, "1")
    QApplication.sendEvent(handle, key)  # the user presses a key: not idle any more
    window.close()
    assert idle_collector.last_input >= now
    assert not idle_collector.collect_if_idle()

    monkeypatch.setattr(collector_module, "IDLE_AFTER_S", 0.0)
    with _full_collections() as seen:
        assert idle_collector.collect_if_idle()
    assert seen == ["full"] and idle_collector.full_collections == 1
    assert not idle_collector.collect_if_idle()  # nothing new to collect since
    del survivors


def test_nothing_in_the_app_freezes_the_collector() -> None:
    """gc.freeze() kept every frozen cycle for the life of the process; the idle collector
    replaced it."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "freeze"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "gc"
            ):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert offenders == []


def test_preparing_the_judge_runtime_freezes_nothing() -> None:
    from workbench.services.judging.runner import prepare_runtime

    before = gc.get_freeze_count()
    prepare_runtime()
    assert gc.get_freeze_count() == before


def test_a_user_who_is_never_idle_still_gets_a_full_collection_now_and_then(
    idle_collector: IdleCollector, monkeypatch: pytest.MonkeyPatch
) -> None:
    survivors = _grow_the_old_generation()
    idle_collector.last_input = time.monotonic()  # busy: idle never comes
    monkeypatch.setattr(collector_module, "BUSY_BACKSTOP_COLLECTIONS", 10**9)
    assert not idle_collector.collect_if_idle()
    # the old generation has been added to since the last full collection: the backstop fires
    monkeypatch.setattr(collector_module, "BUSY_BACKSTOP_COLLECTIONS", gc.get_count()[2])
    with _full_collections() as seen:
        assert idle_collector.collect_if_idle()
    assert seen == ["full"]
    del survivors


class WindowWithJobs(QWidget):
    """A window with its own jobs, as the main window."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs = JobManager(self)


def test_a_user_waiting_for_a_computation_is_not_idle(
    qapp: QApplication, idle_collector: IdleCollector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No input for a while, but a panel's computation running: its result's redraw must not
    wait behind a full collection."""
    survivors = _grow_the_old_generation()
    monkeypatch.setattr(collector_module, "IDLE_AFTER_S", 0.0)
    window = WindowWithJobs()
    computation = window.jobs.follow("Leaderboard", "panel")
    try:
        with _full_collections() as seen:
            assert not idle_collector.collect_if_idle()
            computation.end(None)
            qapp.processEvents()  # the end is delivered on the GUI thread
            assert idle_collector.collect_if_idle()
        assert seen == ["full"]
    finally:
        window.deleteLater()
        del survivors
