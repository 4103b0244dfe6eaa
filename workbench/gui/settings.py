"""The GUI's own settings (window layout, view options) in the user's config folder.

Stored as an INI file with a version; :func:`upgrade` brings older layouts forward, and a file
from a newer app is left alone rather than misread.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from workbench.paths import config_dir

SETTINGS_FILE = "gui.ini"
SETTINGS_VERSION = 1


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE


def upgrade(settings: QSettings, from_version: int) -> None:
    """Bring settings written by an older app to :data:`SETTINGS_VERSION` (none exist yet: the
    hook is where the first layout change goes)."""
    settings.setValue("version", SETTINGS_VERSION)


class GuiSettings:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings_path()
        self._settings = QSettings(str(self.path), QSettings.Format.IniFormat)
        stored = int(str(self._settings.value("version", 0) or 0))  # INI values are text
        self.readable = stored <= SETTINGS_VERSION
        if stored < SETTINGS_VERSION:
            upgrade(self._settings, stored)

    def _bytes(self, key: str) -> QByteArray | None:
        if not self.readable:
            return None
        value = self._settings.value(key)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def window_geometry(self) -> QByteArray | None:
        return self._bytes("window/geometry")

    def window_state(self) -> QByteArray | None:
        return self._bytes("window/state")

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        if self.readable:
            self._settings.setValue("window/geometry", geometry)
            self._settings.setValue("window/state", state)
            self._settings.sync()

    def raw_text(self) -> bool:
        return self.readable and str(self._settings.value("inspector/raw_text", "false")) == "true"

    def set_raw_text(self, raw: bool) -> None:
        if self.readable:
            self._settings.setValue("inspector/raw_text", "true" if raw else "false")

    def chosen_models(self) -> list[str]:
        if not self.readable:
            return []
        value = self._settings.value("inspector/models", [])
        if isinstance(value, str):
            return [value] if value else []
        return [str(v) for v in value] if isinstance(value, list) else []

    def set_chosen_models(self, models: list[str]) -> None:
        if self.readable:
            self._settings.setValue("inspector/models", models)

    # --- the annotation session to resume after a restart ------------------------------------

    def annotation_session(self) -> tuple[str, str, str, str] | None:
        """(location, campaign, annotator, window) of the session the annotator was in when
        the app last closed, or None; ``window`` is "annotator" or "main"."""
        if not self.readable:
            return None
        values = [
            str(self._settings.value(f"annotation/{key}", "") or "")
            for key in ("location", "campaign", "annotator", "window")
        ]
        return (values[0], values[1], values[2], values[3]) if all(values) else None

    def remember_annotation_session(
        self, location: str, campaign: str, annotator: str, window: str
    ) -> None:
        """Remember the session to reopen (never a server URL's password: ``location`` is
        what :func:`workbench.recent.remember_location` would store)."""
        if self.readable:
            for key, value in (
                ("location", location),
                ("campaign", campaign),
                ("annotator", annotator),
                ("window", window),
            ):
                self._settings.setValue(f"annotation/{key}", value)
            self._settings.sync()

    def forget_annotation_session(self) -> None:
        if self.readable:
            self._settings.remove("annotation")
            self._settings.sync()

    def sync(self) -> None:
        self._settings.sync()
