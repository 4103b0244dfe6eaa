"""Each scheduling tweak is on by default and off behind its one variable, and a mistyped
switch is refused before the app starts."""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

import pytest
from PySide6.QtWidgets import QApplication

from workbench.errors import WorkbenchError
from workbench.gui import app as app_module
from workbench.gui import panel_computations, tweaks
from workbench.gui.collector import (
    NO_AUTOMATIC_FULL_COLLECTION,
    IdleCollector,
    install_idle_collector,
)
from workbench.gui.event_loop import GIL_SWITCH_INTERVAL_S, favour_the_event_loop

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def switches_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for tweak in tweaks.TWEAKS:
        monkeypatch.delenv(tweak, raising=False)


@pytest.mark.parametrize(("value", "on"), [(None, True), ("", True), ("1", True), ("0", False)])
def test_a_tweak_is_on_unless_its_variable_is_zero(
    monkeypatch: pytest.MonkeyPatch, value: str | None, on: bool
) -> None:
    if value is not None:
        monkeypatch.setenv(tweaks.IDLE_COLLECTION, value)
    assert tweaks.enabled(tweaks.IDLE_COLLECTION) is on


def test_a_mistyped_switch_is_refused_by_name_before_the_app_starts(
    monkeypatch: pytest.MonkeyPatch, qapp: QApplication
) -> None:
    monkeypatch.setenv(tweaks.NICE_PANEL_WORKER, "off")
    with pytest.raises(WorkbenchError, match="WORKBENCH_NICE_PANEL_WORKER='off'"):
        app_module._application()
    with pytest.raises(ValueError, match="unknown tweak"):
        tweaks.enabled("WORKBENCH_NO_SUCH_TWEAK")


def test_the_idle_collector_is_left_out_when_switched_off(
    monkeypatch: pytest.MonkeyPatch, qapp: QApplication
) -> None:
    thresholds = gc.get_threshold()
    before = qapp.findChildren(IdleCollector)  # another test's, if any, not yet deleted
    monkeypatch.setenv(tweaks.IDLE_COLLECTION, "0")
    assert install_idle_collector(qapp) is None
    assert qapp.findChildren(IdleCollector) == before
    assert gc.get_threshold() == thresholds
    monkeypatch.setenv(tweaks.IDLE_COLLECTION, "1")
    collector = install_idle_collector(qapp)
    assert isinstance(collector, IdleCollector)
    if collector not in before:
        try:
            assert gc.get_threshold()[2] == NO_AUTOMATIC_FULL_COLLECTION
        finally:
            collector.timer.stop()
            qapp.focusWindowChanged.disconnect(collector.watch)
            collector.setParent(None)
            collector.deleteLater()
            gc.set_threshold(*thresholds)


def test_the_switch_interval_is_kept_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = sys.getswitchinterval()
    # Another test in this worker may have started the app, which shortens the interval for the
    # whole process: start from Python's own default so the switch has something to change.
    default = 0.005
    sys.setswitchinterval(default)
    try:
        monkeypatch.setenv(tweaks.SHORT_SWITCH_INTERVAL, "0")
        favour_the_event_loop()
        assert sys.getswitchinterval() == default
        monkeypatch.setenv(tweaks.SHORT_SWITCH_INTERVAL, "1")
        favour_the_event_loop()
        assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_INTERVAL_S)
    finally:
        sys.setswitchinterval(kept)


def _niceness_and_own_session() -> tuple[int, bool]:
    return os.nice(0), os.getsid(0) == os.getpid()


@pytest.mark.skipif(not hasattr(os, "setsid"), reason="sessions and nice values are Unix's")
def test_the_panel_worker_is_niced_in_its_own_session_unless_switched_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context = multiprocessing.get_context("spawn")  # as the app's pool: the worker reads its env
    own = os.nice(0)
    seen = {}
    for value in ("1", "0"):
        monkeypatch.setenv(tweaks.NICE_PANEL_WORKER, value)
        with ProcessPoolExecutor(
            1, mp_context=context, initializer=panel_computations.start_worker
        ) as pool:
            seen[value] = pool.submit(_niceness_and_own_session).result()
    assert seen["1"] == (own + panel_computations.WORKER_NICENESS, True)
    assert seen["0"] == (own, False)
