"""What the analysis docks ask of every panel they hold: the one interface the leaderboard, the
contradiction graph, the failure cases and the agreement panels share (and a new panel
implements), so the docks treat them alike, with no case for any one of them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel

    from workbench.gui.panels.computing import ComputingStatus
    from workbench.services.analysis import AnalysisChoices
    from workbench.storage import Bundle


@runtime_checkable
class Panel(Protocol):
    """An analysis panel in a dock (also a QWidget: the docks lay it out)."""

    #: the line above the panel's tables saying what is shown, or why nothing is
    status: QLabel
    #: "Computing… N s" with Cancel, and "Reading the bundle…" while the choices are read
    computing: ComputingStatus

    @property
    def busy(self) -> bool:
        """Whether a computation of the panel is running."""
        ...

    def set_bundle(self, bundle: Bundle | None, choices: AnalysisChoices | None) -> None:
        """Show ``bundle`` (None: closing), with the pickers' choices read from it."""
        ...

    def refresh(self) -> None:
        """Compute again from the bundle (the docks call it for a panel on screen)."""
        ...

    def set_on_screen(self, visible: bool) -> None:
        """The panel's dock came on screen or went off it: a panel that defers work while
        hidden does it once shown."""
        ...
