"""The GUI's settings (window layout, view options, the session to resume) live in the one
settings file, with Qt's byte arrays stored as bytes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QByteArray

from workbench.gui.settings import GuiSettings
from workbench.paths import config_dir

pytestmark = pytest.mark.gui


def test_changes_are_saved_in_the_one_file() -> None:
    settings = GuiSettings()
    settings.save_window(QByteArray(b"geo"), QByteArray(b"st"))
    settings.set_chosen_models(["m1", "m2"])
    settings.set_raw_text(True)
    settings.remember_annotation_session("/b.wbb", "c", "ann", "main")
    again = GuiSettings()
    geometry = again.window_geometry()
    assert geometry is not None and bytes(geometry.data()) == b"geo"
    assert again.chosen_models() == ["m1", "m2"] and again.raw_text()
    assert again.annotation_session() == ("/b.wbb", "c", "ann", "main")
    again.forget_annotation_session()
    assert GuiSettings().annotation_session() is None
    assert not (config_dir() / "gui.ini").exists()
