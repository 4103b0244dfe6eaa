"""The Campaign monitor dock: per-annotator progress, time per task, skips and attention checks,
agreement between annotators (kappa and alpha to three decimals, as the CLI prints them), the
flags annotators raised (counted per kind, and on which tasks) and the tasks that cannot
finish, with the reason, from ``services.monitor.campaign_status``, and the two ways out for
the one selected (give it to another annotator, ask fewer votes of it: the functions of
``services.stuck_tasks``, as ``workbench campaign reassign`` / ``lower-votes``); refreshed off
the GUI thread whenever the bundle's judgment watcher sees a vote arrive or be undone.
Docked, it opens wide enough to read its columns at 1366x768; where the docks beside it
cannot give that width (a 1024x700 screen), it shares the widest one's place as a tab."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.background import BackgroundRunner
from workbench.gui.jobs import Access, JobCancelled
from workbench.gui.panels.rows_model import RowsTableModel, display_text
from workbench.storage import Bundle

log = logging.getLogger(__name__)

ANNOTATOR_HEADERS = ("Annotator", "Answered", "Skipped", "s/task", "Checks", "Skip reasons")
AGREEMENT_HEADERS = ("Scope", "Comparisons", "Fleiss' κ", "Krippendorff's α")
STUCK_HEADERS = ("Task", "Item", "Votes", "Why it cannot finish")
UNRESOLVED_HEADERS = ("Pair", "Difference", "95% interval", "Votes", "Next")
FLAG_HEADERS = ("Task", "Item", "Flag", "On", "By", "Note")
#: decimals of kappa and alpha, as ``workbench campaign status`` prints them
AGREEMENT_DIGITS = 3
#: the dock's width when it opens docked: its tables' columns readable at 1024x700 too
READABLE_WIDTH = 520
#: below this docked width its tables cut columns (at 1024x700 beside the item list it had 306)
NARROWEST_READABLE_WIDTH = 440
#: the least width of a table's free-text last column (it wraps in what it gets)
LAST_COLUMN_LEAST_WIDTH = 60
#: the least width left to another dock when the monitor takes room from it
MIN_OTHER_DOCK_WIDTH = 220
#: the least width of an item id in the stuck and flags tables: a longer id takes no more than
#: the room the other columns leave and is wrapped or shortened in its middle (whole in its
#: tooltip), so the sentence after it keeps the room (at 1024x700
#: ``demo:demo-spot-the-difference-05`` pushed the flags' note behind a scroll bar)
ITEM_COLUMN_LEAST_WIDTH = 80
#: the tables whose column 1 is an item id
ITEM_ID_TABLES = ("Stuck tasks", "Flagged tasks")
#: the rows each table shows whole (every line of a stuck task's reason) before it scrolls
ROWS_SHOWN = {"Annotators": 4, "Agreement": 3, "Stuck tasks": 3, "Flagged tasks": 3}


class WholeRowsTableView(QTableView):
    """A table that asks for the height of its first rows as laid out (wrapped cells make a
    row taller), so a layout never cuts the sentence in them: at 1024x700 the reason a task
    cannot finish wraps to five lines and a plain table showed two."""

    def __init__(self, rows_shown: int, wrap: bool, parent: QWidget) -> None:
        super().__init__(parent)
        self.rows_shown = rows_shown
        self.setWordWrap(wrap)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.verticalHeader().sectionResized.connect(lambda *_: self.updateGeometry())

    def viewportEvent(self, event: QEvent) -> bool:
        handled = super().viewportEvent(event)
        # the viewport, not the view: a scroll bar coming or going changes its width alone
        resized = event.type() == QEvent.Type.Resize and self.model() is not None
        if resized and self.accessibleName() in ITEM_ID_TABLES:
            fit_item_column(self)
        return handled

    def _rows_height(self) -> int:
        rows = min(self.model().rowCount(), self.rows_shown) if self.model() else 0
        height = sum(self.rowHeight(row) for row in range(rows))
        height += self.horizontalHeader().height() + 2 * self.frameWidth()
        bar = self.horizontalScrollBar()
        return height + (bar.sizeHint().height() if bar.isVisible() else 0)

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), self._rows_height())

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._rows_height())


def fit_item_column(view: QTableView) -> None:
    """Column 1 (an item id) as wide as its ids, but no wider than the room the other columns
    leave beside the free-text last column's least width."""
    last = view.model().columnCount() - 1
    others = sum(view.columnWidth(column) for column in range(last) if column != 1)
    room = view.viewport().width() - others - LAST_COLUMN_LEAST_WIDTH
    wanted = max(view.sizeHintForColumn(1), view.horizontalHeader().sectionSizeHint(1))
    view.setColumnWidth(1, max(ITEM_COLUMN_LEAST_WIDTH, min(wanted, room)))


def stuck_rows(status: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            row["task"],
            f"{row['source']}:{row['item']}",
            f"{row['votes']}/{row['votes_target']}",
            row["reason"],
        )
        for row in status["stuck_tasks"]
    ]


def unresolved_rows(status: dict[str, Any]) -> list[tuple[Any, ...]]:
    """An adaptive campaign's pairs whose order is still open, widest interval first (as
    ``workbench campaign status`` lists them)."""
    standing = status.get("adaptive") or {"pairs": []}
    return [
        (
            f"{row['first']} - {row['second']}",
            f"{row['difference']:+.1f}",
            f"[{row['low']:+.1f}, {row['high']:+.1f}]",
            row["battles"],
            f"{row['next_probability']:.0%}",
        )
        for row in standing["pairs"]
        if not row["resolved"]
    ]


def standing_text(status: dict[str, Any]) -> str:
    standing = status.get("adaptive")
    if not standing:
        return ""
    return (
        f"Adaptive pairing: {standing['unresolved']} of {len(standing['pairs'])} pair(s) "
        f"unresolved (rating difference in {standing['unit']}, {standing['coverage']:.0%} "
        f"interval holding 0); {standing['choices_logged']} choice(s) logged"
    )


def flag_summary(status: dict[str, Any]) -> str:
    """The flags' count per kind (reason), as the CLI's ``campaign status`` counts them."""
    counts = status["flags"]
    kinds = ", ".join(f"{reason} {count}" for reason, count in counts.items())
    return f"{sum(counts.values())} flag(s): {kinds}"


def flag_rows(status: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            row["task"] if row["task"] is not None else "-",
            f"{row['source']}:{row['item']}",
            row["reason"],
            row["flags"],
            row["by"] or "-",
            row["note"] or "-",
        )
        for row in status["flagged_tasks"]
    ]


def annotator_rows(status: dict[str, Any]) -> list[tuple[Any, ...]]:
    rows = []
    for row in status["annotators"]:
        gold = row["gold"]
        checks = f"{gold['correct']}/{gold['answered']}" if gold else "-"
        reasons = "; ".join(f"{reason} ({n})" for reason, n in row["skip_reasons"].items())
        rows.append(
            (
                row["annotator"],
                row["answered"],
                row["skipped"],
                row["median_seconds_per_task"],
                checks,
                reasons or "-",
            )
        )
    return rows


def agreement_rows(status: dict[str, Any]) -> list[tuple[Any, ...]]:
    scopes = [("All comparisons", status["agreement"]["overall"])]
    scopes += [(f"Category: {name}", v) for name, v in status["agreement"]["by_category"].items()]
    return [
        (scope, v["comparisons"], v["fleiss_kappa"], v["krippendorff_alpha"]) for scope, v in scopes
    ]


class CampaignMonitorDock(QDockWidget):
    """Shows one campaign's status; ``refresh`` reads it on ``runner``'s worker thread."""

    def __init__(
        self, bundle: Callable[[], Bundle | None], runner: BackgroundRunner, parent: QWidget
    ) -> None:
        super().__init__("Campaign monitor", parent)
        self.setObjectName("campaignMonitorDock")
        self._bundle = bundle
        self.runner = runner
        self.refreshes = 0
        #: reads asked for and not yet shown (the window is busy until they are)
        self._reads_pending = 0
        #: the campaign to show first (until the coordinator picks one)
        self.wanted: str | None = None
        body = QWidget(self)
        layout = QVBoxLayout(body)
        self.campaigns = QComboBox(body)
        self.campaigns.setAccessibleName("Campaign")
        self.campaigns.currentTextChanged.connect(lambda _: self.refresh())
        self.summary = QLabel("No campaign", body)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.annotators = RowsTableModel(ANNOTATOR_HEADERS, self)
        self.agreement = RowsTableModel(AGREEMENT_HEADERS, self)
        for column in (2, 3):
            self.agreement.formats[column] = lambda value: display_text(value, AGREEMENT_DIGITS)
        self.stuck = RowsTableModel(STUCK_HEADERS, self)
        self.stuck_label = QLabel("Tasks that cannot finish", body)
        self.flags = RowsTableModel(FLAG_HEADERS, self)
        self.flags_label = QLabel("Flags", body)
        self.flags_label.setTextFormat(Qt.TextFormat.PlainText)
        self.flags_label.setWordWrap(True)
        layout.addWidget(self.campaigns)
        layout.addWidget(self.summary)
        self.views: dict[str, QTableView] = {}
        for model, name in (
            (self.annotators, "Annotators"),
            (self.agreement, "Agreement"),
            (self.stuck, "Stuck tasks"),
            (self.flags, "Flagged tasks"),
        ):
            if model is self.stuck:
                layout.addWidget(self.stuck_label)
            if model is self.flags:
                layout.addWidget(self.flags_label)
            # the reason, the skip reasons and a flag's note are sentences, a scope a name:
            # wrapped, not cut
            view = WholeRowsTableView(ROWS_SHOWN[name], True, body)
            # the free-text last column may narrow to a word's width (Qt's 100 px default
            # pushed the flags' note behind a scroll bar in a 440 px dock)
            view.horizontalHeader().setDefaultSectionSize(LAST_COLUMN_LEAST_WIDTH)
            view.setModel(model)
            view.setAccessibleName(name)
            model.modelReset.connect(view.updateGeometry)
            view.verticalHeader().hide()
            header = view.horizontalHeader()
            header.setStretchLastSection(True)
            # every column but the last (free text) as wide as its contents
            model.modelReset.connect(lambda view=view: self._fit_columns(view))
            if name in ITEM_ID_TABLES:
                model.tooltip_columns.add(1)
                view.setTextElideMode(Qt.TextElideMode.ElideMiddle)
            self.views[name] = view
            layout.addWidget(view)
        self.stuck_label.hide()
        # an adaptive campaign's open rating differences: where its next votes go
        self.unresolved = RowsTableModel(UNRESOLVED_HEADERS, self)
        self.unresolved_label = QLabel("", body)
        self.unresolved_label.setWordWrap(True)
        unresolved_view = QTableView(body)
        unresolved_view.setModel(self.unresolved)
        unresolved_view.setAccessibleName("Unresolved pairs")
        unresolved_view.verticalHeader().hide()
        unresolved_view.horizontalHeader().setStretchLastSection(True)
        self.unresolved.modelReset.connect(lambda: self._fit_columns(unresolved_view))
        self.views["Unresolved pairs"] = unresolved_view
        layout.insertWidget(layout.indexOf(self.views["Agreement"]), self.unresolved_label)
        layout.insertWidget(layout.indexOf(self.views["Agreement"]), unresolved_view)
        self.unresolved_label.hide()
        unresolved_view.hide()
        stuck_view = self.views["Stuck tasks"]
        # kappa and alpha are figures, read whole; the scope's name wraps in the room left
        # (measured once per new status, not by Qt's ResizeToContents mode on every change)
        agreement_view = self.views["Agreement"]
        agreement_header = agreement_view.horizontalHeader()
        agreement_header.setStretchLastSection(False)
        agreement_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.agreement.modelReset.connect(lambda: self._fit_figures(agreement_view))
        stuck_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        stuck_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        stuck_view.hide()
        self.flags_label.hide()
        self.views["Flagged tasks"].hide()
        layout.insertWidget(layout.indexOf(self.flags_label), self._way_out(body))
        # the tables keep the heights they ask for; a short dock scrolls rather than cut them
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        self.setWidget(scroll)
        self.visibilityChanged.connect(self._visibility_changed)
        self.topLevelChanged.connect(lambda _floating: self.fit_width())

    def _way_out(self, body: QWidget) -> QWidget:
        """The actions on the selected stuck task: reassign it, or lower the votes it needs."""
        self.way_out = QWidget(body)
        row = QGridLayout(self.way_out)
        row.setContentsMargins(0, 0, 0, 0)
        self.reassign_to = QComboBox(self.way_out)
        self.reassign_to.setEditable(True)
        self.reassign_to.setAccessibleName("Annotator to give the task to")
        line = self.reassign_to.lineEdit()
        if line is not None:
            line.setPlaceholderText("Give it to (annotator)")
        self.reassign_to.setToolTip(
            "An annotator who has not answered the task (a skip of theirs is withdrawn)"
        )
        self.reassign_button = QPushButton("Reassign", self.way_out)
        self.reassign_button.setToolTip("Reserve the selected task for this annotator")
        self.reassign_button.clicked.connect(
            lambda: self.reassign(self.selected_stuck_task(), self.reassign_to.currentText())
        )
        self.votes_needed = QSpinBox(self.way_out)
        self.votes_needed.setMinimum(1)
        self.votes_needed.setAccessibleName("Votes the task needs")
        self.lower_button = QPushButton("Lower votes needed", self.way_out)
        self.lower_button.setToolTip("Ask the selected task for this many votes")
        self.lower_button.clicked.connect(
            lambda: self.lower_votes(self.selected_stuck_task(), self.votes_needed.value())
        )
        # two rows, one per way out: in one row they made the dock's body wider than a
        # narrow dock (1024x700), cutting every table's right edge
        row.addWidget(self.reassign_to, 0, 0)
        row.addWidget(self.reassign_button, 0, 1)
        row.addWidget(self.votes_needed, 1, 0, Qt.AlignmentFlag.AlignRight)
        row.addWidget(self.lower_button, 1, 1)
        row.setColumnStretch(0, 1)
        self.way_out_status = QLabel(body)
        self.way_out_status.setTextFormat(Qt.TextFormat.PlainText)
        self.way_out_status.setWordWrap(True)
        holder = QWidget(body)
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.way_out)
        column.addWidget(self.way_out_status)
        holder.hide()
        self.way_out_box = holder
        view = self.views["Stuck tasks"]
        view.selectionModel().currentRowChanged.connect(lambda *_: self._stuck_selected())
        return holder

    def selected_stuck_task(self) -> int | None:
        """The task number of the stuck task selected (the first when none is)."""
        rows = self.stuck.rows
        if not rows:
            return None
        current = self.views["Stuck tasks"].currentIndex()
        return int(rows[current.row() if current.isValid() else 0][0])

    def _stuck_selected(self) -> None:
        task = self.selected_stuck_task()
        row = next((r for r in self.stuck.rows if r[0] == task), None)
        if row is None:
            return
        votes, target = (int(part) for part in str(row[2]).split("/"))
        self.votes_needed.setRange(max(votes, 1), max(target - 1, 1))
        self.votes_needed.setValue(max(votes, 1))

    def reassign(self, task: int | None, handle: str) -> None:
        """Give ``task`` to ``handle`` (``services.stuck_tasks.reassign_task``), then refresh."""
        self._way_out_action(task, "reassign", handle)

    def lower_votes(self, task: int | None, votes: int) -> None:
        """Ask ``votes`` votes of ``task`` (``services.stuck_tasks.lower_votes_needed``)."""
        self._way_out_action(task, "lower", votes)

    def _way_out_action(self, task: int | None, action: str, value: Any) -> None:
        bundle = self._bundle()
        campaign = self.campaigns.currentText()
        if bundle is None or task is None or not campaign:
            return

        def write() -> str:
            # start-up: the stuck-task service loads when a coordinator first acts on a task
            from workbench.services.stuck_tasks import lower_votes_needed, reassign_task

            if action == "reassign":
                done = reassign_task(bundle, campaign, task, str(value))
                withdrawn = " (their skip is withdrawn)" if done["withdrawn_skips"] else ""
                return f"Task {task} is reserved for {done['annotator']}{withdrawn}."
            lowered = lower_votes_needed(bundle, campaign, task, int(value))
            return f"Task {task} now needs {lowered['votes_target']} vote(s)."

        def done(message: str) -> None:
            self.way_out_status.setText(message)
            self.refresh()

        def failed(error: BaseException) -> None:
            self.way_out_status.setText(str(error).splitlines()[0] if str(error) else repr(error))

        self.runner.run(write, done, failed, access=Access.WRITE, kind="Campaign write")

    def _visibility_changed(self, visible: bool) -> None:
        if visible:
            self.fit_width()
            self.refresh()

    @staticmethod
    def _fit_columns(view: QTableView) -> None:
        model = view.model()
        header = view.horizontalHeader()
        for column in range(model.columnCount() - 1):
            if header.sectionResizeMode(column) == QHeaderView.ResizeMode.Interactive:
                view.resizeColumnToContents(column)
        if view.accessibleName() in ITEM_ID_TABLES:
            fit_item_column(view)

    @staticmethod
    def _fit_figures(view: QTableView) -> None:
        for column in range(1, view.model().columnCount()):
            view.resizeColumnToContents(column)

    def fit_width(self) -> None:
        """Docked, take the width the tables need (not the 250 px a new dock gets), leaving
        the main window's centre at least half of it."""
        window = self.parentWidget()
        if self.isFloating() or not isinstance(window, QMainWindow):
            return
        wanted = min(READABLE_WIDTH, window.width() // 2)
        if self.width() >= wanted:
            return
        window.resizeDocks([self], [wanted], Qt.Orientation.Horizontal)
        deficit = wanted - self.width()
        if deficit <= 0:
            return
        # a narrow window (1024 px): the docks beside it give up some of their width
        others = [
            dock
            for dock in window.findChildren(QDockWidget)
            if dock is not self and dock.isVisible() and not dock.isFloating()
        ]
        if others:
            share = deficit // len(others) + 1
            sizes = [max(MIN_OTHER_DOCK_WIDTH, dock.width() - share) for dock in others]
            window.resizeDocks([*others, self], [*sizes, wanted], Qt.Orientation.Horizontal)
        if others:
            # where the docks beside it cannot give more (the item list's filters need their
            # width), it shares the widest one's place as a tab, shown in front, rather than
            # cut every table's columns behind a scroll bar. Judged once the layout has taken
            # the new sizes and the showing that called this has ended (moving a dock while
            # it is being shown hid it under X11).
            widest = max(others, key=lambda dock: dock.width())
            QTimer.singleShot(0, lambda: self._share_place(widest, wanted))

    def _share_place(self, other: QDockWidget, wanted: int) -> None:
        window = self.parentWidget()
        if not isinstance(window, QMainWindow) or self.isFloating() or self.isHidden():
            return
        if self.width() >= NARROWEST_READABLE_WIDTH or not other.isVisible():
            return
        window.tabifyDockWidget(other, self)
        self.show()
        self.raise_()
        window.resizeDocks([self], [wanted], Qt.Orientation.Horizontal)

    def refresh(self) -> None:
        """Read the campaigns and the chosen one's status off the GUI thread, if shown."""
        bundle = self._bundle()
        if bundle is None or not self.isVisible():
            return
        chosen = self.campaigns.currentText() or self.wanted

        def read() -> tuple[list[str], dict[str, Any] | None, list[str]]:
            # start-up: the monitor's statistics stack loads on the worker, off the first paint
            from workbench.services.campaigns import list_annotators, list_campaigns
            from workbench.services.monitor import campaign_status

            names = [campaign["name"] for campaign in list_campaigns(bundle)]
            name = chosen if chosen in names else (names[0] if names else None)
            handles = [annotator.handle for annotator in list_annotators(bundle)]
            return names, campaign_status(bundle, name) if name else None, handles

        self._reads_pending += 1

        def shown(result: tuple[list[str], dict[str, Any] | None, list[str]]) -> None:
            self._reads_pending -= 1
            self._show(result)

        def failed(error: BaseException) -> None:
            self._reads_pending -= 1
            if not isinstance(error, JobCancelled):
                log.error("cannot read the campaign's status", exc_info=error)

        self.runner.run(read, shown, failed)

    @property
    def reading(self) -> bool:
        """Whether a status asked for is not on screen yet."""
        return self._reads_pending > 0

    def _show(self, result: tuple[list[str], dict[str, Any] | None, list[str]]) -> None:
        names, status, handles = result
        typed = self.reassign_to.currentText()
        self.reassign_to.clear()
        self.reassign_to.addItems(handles)
        self.reassign_to.setCurrentText(typed)
        self.refreshes += 1
        self.campaigns.blockSignals(True)
        if [self.campaigns.itemText(i) for i in range(self.campaigns.count())] != names:
            self.campaigns.clear()
            self.campaigns.addItems(names)
        if status is not None:
            self.campaigns.setCurrentText(status["campaign"])
        self.campaigns.blockSignals(False)
        if status is None:
            self.summary.setText("This bundle has no campaign.")
            self.annotators.set_rows([])
            self.agreement.set_rows([])
            self.stuck.set_rows([])
            self.flags.set_rows([])
            self.way_out_box.hide()
            self._show_flags(False)
            return
        self.summary.setText(
            f"{status['protocol']} ({status['status']}): {status['tasks']} tasks, "
            f"{status['complete_tasks']} complete; {status['answered']} answered, "
            f"{status['skipped']} skipped; {status['active_leases']} in progress"
        )
        self.annotators.set_rows(annotator_rows(status))
        self.agreement.set_rows(agreement_rows(status))
        adaptive = status.get("adaptive") is not None
        self.unresolved.set_rows(unresolved_rows(status))
        self.unresolved_label.setText(standing_text(status))
        self.unresolved_label.setVisible(adaptive)
        self.views["Unresolved pairs"].setVisible(adaptive)
        stuck = stuck_rows(status)
        self.stuck.set_rows(stuck)
        self.stuck_label.setText(f"{len(stuck)} task(s) cannot finish")
        self.stuck_label.setVisible(bool(stuck))
        self.views["Stuck tasks"].setVisible(bool(stuck))
        self.way_out_box.setVisible(bool(stuck) or bool(self.way_out_status.text()))
        self.way_out.setVisible(bool(stuck))
        self._stuck_selected()
        flagged = flag_rows(status)
        self.flags.set_rows(flagged)
        self.flags_label.setText(flag_summary(status))
        self._show_flags(bool(status["flags"]))

    def _show_flags(self, shown: bool) -> None:
        self.flags_label.setVisible(shown)
        self.views["Flagged tasks"].setVisible(shown)
