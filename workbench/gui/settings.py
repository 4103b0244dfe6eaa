"""The GUI's side of the app's settings (window layout, view options, the annotation session
to resume): the ``window`` part of the one settings file (:mod:`workbench.storage.app_settings`),
with Qt's byte arrays converted at this edge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QByteArray

from workbench.domain.settings import AnnotationResume, AppSettings, WindowSettings
from workbench.storage.app_settings import load_settings, update_settings
from workbench.storage.app_settings import settings_path as app_settings_path


def settings_path() -> Path:
    return app_settings_path()


class GuiSettings:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings_path()
        loaded = load_settings(self.path)
        self._window = loaded.window
        #: False when the file is from a newer app: read as defaults, never written
        self.readable = loaded.writable

    def _change(self, change: Callable[[WindowSettings], WindowSettings]) -> None:
        def apply(settings: AppSettings) -> AppSettings:
            return settings.with_changes(window=change(settings.window))

        self._window = update_settings(apply, self.path).window

    @staticmethod
    def _bytes(blob: bytes | None) -> QByteArray | None:
        return QByteArray(blob) if blob else None

    def window_geometry(self) -> QByteArray | None:
        return self._bytes(self._window.geometry)

    def window_state(self) -> QByteArray | None:
        return self._bytes(self._window.state)

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        blobs = bytes(geometry.data()), bytes(state.data())
        self._change(lambda window: replace(window, geometry=blobs[0], state=blobs[1]))

    def raw_text(self) -> bool:
        return self._window.raw_text

    def set_raw_text(self, raw: bool) -> None:
        self._change(lambda window: replace(window, raw_text=bool(raw)))

    def chosen_models(self) -> list[str]:
        return list(self._window.chosen_models)

    def set_chosen_models(self, models: list[str]) -> None:
        self._change(lambda window: replace(window, chosen_models=tuple(models)))

    # --- the annotation session to resume after a restart ------------------------------------

    def annotation_session(self) -> tuple[str, str, str, str] | None:
        """(location, campaign, annotator, window) of the session the annotator was in when
        the app last closed, or None; ``window`` is "annotator" or "main"."""
        resume = self._window.annotation
        if resume is None:
            return None
        return (resume.location, resume.campaign, resume.annotator, resume.window)

    def remember_annotation_session(
        self, location: str, campaign: str, annotator: str, window: str
    ) -> None:
        """Remember the session to reopen (never a server URL's password: ``location`` is
        what :func:`workbench.recent.remember_location` would store)."""
        resume = AnnotationResume(location, campaign, annotator, window)
        self._change(lambda settings: replace(settings, annotation=resume))

    def forget_annotation_session(self) -> None:
        self._change(lambda window: replace(window, annotation=None))

    def sync(self) -> None:
        """Every change is written when it is made; kept for callers that flush on close."""
