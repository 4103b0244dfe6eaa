"""The old gui.ini, written here by Qt's own QSettings as the app before the one settings file
wrote it, is carried into settings.json without Qt (storage/app_settings.py parses Qt's INI
escaping), so the window layout, view options and the session to resume survive the upgrade."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QByteArray, QSettings

from workbench.gui.settings import GuiSettings, settings_path
from workbench.paths import config_dir

pytestmark = pytest.mark.gui

#: every byte value, and the characters Qt's INI writer escapes or quotes
GEOMETRY = bytes(range(256)) + b'"\\,;= 0af\x00' + bytes(range(255, -1, -1))
STATE = b"\x00\x00\x00\xff\x00\x00\x00\x00\xfd\x00\x00\x00\x02 trailing "


def write_old_ini(models: list[str], version: int = 1) -> None:
    old = QSettings(str(config_dir() / "gui.ini"), QSettings.Format.IniFormat)
    old.setValue("version", version)
    old.setValue("window/geometry", QByteArray(GEOMETRY))
    old.setValue("window/state", QByteArray(STATE))
    old.setValue("inspector/raw_text", "true")
    old.setValue("inspector/models", models)
    for key, value in (
        ("location", "/data/study, one.wbb"),
        ("campaign", "eyes=1"),
        ("annotator", "ana"),
        ("window", "annotator"),
    ):
        old.setValue(f"annotation/{key}", value)
    old.sync()
    assert old.status() == QSettings.Status.NoError


@pytest.mark.parametrize(
    "models", [["alpha", "b, c", "d=e;f", " padded ", 'quote"d'], ["only-one"], []]
)
def test_the_old_ini_is_carried_over_without_loss(models: list[str]) -> None:
    write_old_ini(models)
    settings = GuiSettings()
    geometry, state = settings.window_geometry(), settings.window_state()
    assert geometry is not None and bytes(geometry.data()) == GEOMETRY
    assert state is not None and bytes(state.data()) == STATE
    assert settings.raw_text() is True
    assert settings.chosen_models() == models
    assert settings.annotation_session() == ("/data/study, one.wbb", "eyes=1", "ana", "annotator")
    stored = json.loads(settings_path().read_text())
    assert stored["version"] == 1 and stored["window"]["raw_text"] is True
    # and it stays: a new GuiSettings reads the migrated file, not the INI
    (config_dir() / "gui.ini").unlink()
    assert bytes(GuiSettings().window_geometry().data()) == GEOMETRY  # type: ignore[union-attr]


def test_an_ini_from_a_newer_layout_is_not_misread() -> None:
    """The old app ignored an INI whose version it did not know; so does the migration."""
    write_old_ini(["alpha"], version=2)
    settings = GuiSettings()
    assert settings.window_geometry() is None and settings.chosen_models() == []


def test_changes_are_saved_in_the_one_file() -> None:
    settings = GuiSettings()
    settings.save_window(QByteArray(b"geo"), QByteArray(b"st"))
    settings.set_chosen_models(["m1", "m2"])
    settings.set_raw_text(True)
    settings.remember_annotation_session("/b.wbb", "c", "ann", "main")
    again = GuiSettings()
    assert bytes(again.window_geometry().data()) == b"geo"  # type: ignore[union-attr]
    assert again.chosen_models() == ["m1", "m2"] and again.raw_text()
    assert again.annotation_session() == ("/b.wbb", "c", "ann", "main")
    again.forget_annotation_session()
    assert GuiSettings().annotation_session() is None
    assert not (config_dir() / "gui.ini").exists()
