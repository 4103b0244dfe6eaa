"""The line an analysis panel shows while its work runs: "Computing… 12 s" with a Cancel
button, and, over its empty tables, "Computing…" instead of the note that says the result is
empty. A panel's jobs take from a fraction of a second to most of a minute on a loaded machine,
and an empty table meanwhile read as an empty answer ("No item has a preference cycle")."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QElapsedTimer, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from workbench.gui.panels.empty_hint import EmptyHint
from workbench.gui.panels.latest_only import LatestOnly

#: what the line says while the panel waits for the bundle's choices (models, categories...)
READING = "Reading the bundle…"
COMPUTING = "Computing…"
#: what the empty tables say after Cancel, until the panel computes again
CANCELLED = (
    "Cancelled: this result will not be shown. Change a setting or refresh to compute again."
)


class ComputingStatus(QWidget):
    """Follows a panel's :class:`LatestOnly` jobs: visible while any of them runs (and was not
    cancelled), with the seconds since the work began; its empty-result ``hints`` say
    "Computing…" meanwhile. Cancel drops the answer of the running jobs and of those waiting
    (:meth:`LatestOnly.forget`): the worker finishes the step it is on, and nothing it returns
    is shown."""

    cancelled = Signal()

    def __init__(
        self,
        tasks: Sequence[LatestOnly],
        hints: Sequence[EmptyHint] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("computingStatus")
        self.tasks = tuple(tasks)
        self.hints = tuple(hints)
        self.label = QLabel("", self)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop waiting for this result")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.cancel_button)
        self._clock = QElapsedTimer()
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._show_elapsed)
        self._reading = False
        self._cancelled = False
        self._what = COMPUTING
        self.cancel_button.clicked.connect(self.cancel)
        for task in self.tasks:
            task.busyChanged.connect(self._follow)
            task.submitted.connect(self._submitted)
        self.setVisible(False)

    @property
    def showing(self) -> bool:
        """Whether the line is up (work is under way), on screen or not."""
        return not self.isHidden()

    @property
    def text(self) -> str:
        return self.label.text()

    def reading(self, active: bool) -> None:
        """The bundle's choices are being read (the panel has no bundle yet, but one is
        opening): say so rather than "No bundle open." or an empty result."""
        self._reading = active
        self._cancelled = False
        self._follow()

    def cancel(self) -> None:
        for task in self.tasks:
            task.forget()
        self._cancelled = True
        self._follow()
        for hint in self.hints:
            hint.set_override(CANCELLED)
        self.cancelled.emit()

    def _submitted(self) -> None:
        self._cancelled = False
        self._follow()

    def _follow(self, *_: object) -> None:
        running = any(task.busy for task in self.tasks) and not self._cancelled
        active = running or self._reading
        if active and self.isHidden():
            self._clock.start()
            self._ticker.start()
        what = READING if self._reading and not running else COMPUTING
        self._what = what
        self.cancel_button.setVisible(running)
        self.setVisible(active)
        if active:
            self._show_elapsed()
            for hint in self.hints:
                hint.set_override(what)
        else:
            self._ticker.stop()
            if not self._cancelled:
                for hint in self.hints:
                    hint.set_override(None)

    def _show_elapsed(self) -> None:
        seconds = int(self._clock.elapsed() / 1000) if self._clock.isValid() else 0
        self.label.setText(f"{self._what} {seconds} s")
