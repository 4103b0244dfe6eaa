"""A note over an empty table of an analysis panel: why the table can be empty and what would
fill it (a menu item or a command). Each panel installs one with :func:`install_empty_hint`; the
note then follows the table's model on its own, shown while it has no rows."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QLabel

#: what fills each panel, in the menus' words and the CLI's
LEADERBOARD_HINT = (
    "No pairwise judgments for this selection. Votes come from imported benchmarks "
    "(File > Import… or `workbench import`) and campaigns (Annotate > New campaign…); judge "
    "verdicts from Tools > Run LLM judge… or `workbench judge`."
)
AGREEMENT_HINT = (
    "No comparison judged by both sides (the line above says which side has none). Human "
    "votes come from imported benchmarks or campaigns (Annotate > New campaign…); judge "
    "verdicts from Tools > Run LLM judge… or `workbench judge`."
)
CYCLES_HINT = (
    "No item has a preference cycle in this scope. A cycle needs one item on which at least "
    "three models were compared in pairs (A over B, B over C, C over A): run a campaign with "
    "--pairs-per-model-pair or a judge over all model pairs (`workbench judge --models all`)."
)
FAILURES_HINT = (
    "No item matches this question. Disagreements need human votes and judge verdicts on the "
    "same pairs (Tools > Run LLM judge…); cycles need three or more models compared on an "
    "item; the line above says what is missing."
)


class EmptyHint(QLabel):
    """A word-wrapped note laid over ``view``'s viewport while its model has no rows; while the
    panel computes (:meth:`set_override`) it says that instead, since an empty table then is
    not an empty result."""

    def __init__(self, view: QAbstractItemView, text: str) -> None:
        super().__init__(text, view.viewport())
        self.setObjectName("emptyHint")
        self.view = view
        self.empty_text = text
        self._override: str | None = None
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setStyleSheet("color: palette(placeholder-text); padding: 12px;")
        self.setTextFormat(Qt.TextFormat.PlainText)
        model = view.model()
        for signal in (model.modelReset, model.rowsInserted, model.rowsRemoved):
            signal.connect(self.follow_model)
        view.viewport().installEventFilter(self)
        self.follow_model()

    @property
    def showing(self) -> bool:
        """Whether the note is up (the model is empty), whether or not the panel is on screen."""
        return not self.isHidden()

    def set_override(self, text: str | None) -> None:
        """Say ``text`` over the empty table instead of the empty-result note (None: the note
        again)."""
        self._override = text
        self.setText(self.empty_text if text is None else text)

    def set_empty_text(self, text: str) -> None:
        """Change the empty-result note (it depends on the panel's switches)."""
        self.empty_text = text
        if self._override is None:
            self.setText(text)

    def follow_model(self) -> None:
        self.setHidden(self.view.model().rowCount() > 0)
        self.setGeometry(self.view.viewport().rect())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(self.view.viewport().rect())
        return False


def install_empty_hint(view: QAbstractItemView, text: str) -> EmptyHint:
    """Lay ``text`` over ``view`` whenever its model is empty; return the note (for tests)."""
    return EmptyHint(view, text)
