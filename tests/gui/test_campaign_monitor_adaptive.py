"""The Campaign monitor of an adaptive campaign lists the model pairs whose order is still open,
with the intervals of their rating differences, as ``workbench campaign status`` prints them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.patience import HANG_GUARD_MS
from tests.services.campaign_helpers import build_campaign_bundle, registry_with_all_protocols
from tests.services.test_adaptive_campaigns import MODELS, simulate
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.monitor import campaign_status
from workbench.storage import Bundle

pytestmark = pytest.mark.gui


def test_the_monitor_shows_the_unresolved_pairs_of_an_adaptive_campaign(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from workbench.gui.main_window import MainWindow

    plugins = registry_with_all_protocols()
    location = build_campaign_bundle(tmp_path, items=12, models=MODELS, turns=1)
    with Bundle.open(location) as bundle:
        add_annotator(bundle, "ann")
        spec = CampaignSpec("adaptive", "arena-battle", seed=1, pair_choice="adaptive")
        create_campaign(bundle, spec, plugins)
        simulate(bundle, plugins, "adaptive", 30)
        standing = campaign_status(bundle, "adaptive")["adaptive"]
    unresolved = [row for row in standing["pairs"] if not row["resolved"]]
    assert unresolved
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.open_bundle(location)
    window.show()
    wait_idle(qtbot, window)
    window.campaign_ops.monitor_action.trigger()
    monitor = window.campaign_ops.monitor
    qtbot.waitUntil(lambda: monitor.unresolved.rowCount() > 0, timeout=HANG_GUARD_MS)
    shown = [
        [
            monitor.unresolved.index(r, c).data(Qt.ItemDataRole.DisplayRole)
            for c in range(monitor.unresolved.columnCount())
        ]
        for r in range(monitor.unresolved.rowCount())
    ]
    assert [row[0] for row in shown] == [f"{r['first']} - {r['second']}" for r in unresolved]
    assert shown[0][2] == f"[{unresolved[0]['low']:+.1f}, {unresolved[0]['high']:+.1f}]"
    assert monitor.views["Unresolved pairs"].isVisible()
    assert f"{len(unresolved)} of 6 pair(s) unresolved" in monitor.unresolved_label.text()
    assert "30 choice(s) logged" in monitor.unresolved_label.text()
