"""The item list: search, filters by source, category, model and flag, and a sortable table
that follows (and sets) the linked selection, keeping only the items that compare its model
pair (or its single model) when one is chosen. Queries run on a worker thread; a newer query
makes the answer of an older one irrelevant, so only the latest answer is applied."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QHeaderView, QWidget

from workbench.gui.background import BackgroundRunner
from workbench.gui.forms.ui_item_list_panel import Ui_ItemListPanel
from workbench.gui.item_table_model import PAGE_SIZE, ItemTableModel
from workbench.gui.jobs import JobCancelled
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.panels.empty_hint import install_empty_hint
from workbench.services.browse import (
    SQL_FLAGS,
    BundleBrowser,
    FilterChoices,
    ItemFlag,
    ItemQuery,
    SortKey,
    first_page_in_sql,
)

log = logging.getLogger(__name__)

SEARCH_DELAY_MS = 300
COLUMN_WIDTHS = (124, 80, 140, 72, 62, 82)


def _fill(combo: QComboBox, everything: str, values: Sequence[tuple[str, object]]) -> None:
    combo.blockSignals(True)
    current = combo.currentData()
    combo.clear()
    combo.addItem(everything, None)
    for text, value in values:
        combo.addItem(text, value)
    index = combo.findData(current)
    combo.setCurrentIndex(max(index, 0))
    combo.blockSignals(False)


class ItemListPanel(QWidget):
    """Emits :attr:`idsApplied` after each query's result is shown and :attr:`searchChanged`
    with the term the texts should highlight."""

    idsApplied = Signal()
    searchChanged = Signal(str)
    queryFailed = Signal(str)

    def __init__(
        self, selection: LinkedSelection, runner: BackgroundRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.ui = Ui_ItemListPanel()
        self.ui.setupUi(self)
        self.selection = selection
        self.runner = runner
        self.browser: BundleBrowser | None = None
        self.model = ItemTableModel(self._fetch_rows)
        self.ui.itemTable.setModel(self.model)
        self.ui.itemTable.verticalHeader().setDefaultSectionSize(
            self.ui.itemTable.fontMetrics().height() + 6
        )
        header = self.ui.itemTable.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in enumerate(COLUMN_WIDTHS):
            header.resizeSection(column, width)
        header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        self._sort = SortKey.ID
        self._descending = False
        self._generation = 0
        self._applied_query: ItemQuery | None = None
        self._total_items = 0
        self.querying = False
        self._painted = False
        self._after_first_paint: list[Callable[[], None]] = []
        self.ui.itemTable.viewport().installEventFilter(self)
        #: what a bundle without items holds instead (shown only when it has none)
        self.empty_hint = install_empty_hint(self.ui.itemTable, "")
        self.judgment_total = 0

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.ui.searchEdit.textChanged.connect(lambda _text: self._search_timer.start())
        self.ui.searchEdit.returnPressed.connect(self.refresh)
        for combo in self.filter_combos():
            combo.currentIndexChanged.connect(lambda _index: self.refresh())
        _fill(self.ui.flagFilter, "Any or no flag", [(flag.value, flag) for flag in ItemFlag])
        self.model.sortRequested.connect(self._sort_requested)
        self.ui.itemTable.selectionModel().currentRowChanged.connect(self._row_changed)
        selection.itemChanged.connect(self._follow_selection)
        selection.modelPairChanged.connect(lambda _pair: self.refresh())
        selection.modelChanged.connect(lambda _model: self.refresh())

    def filter_combos(self) -> list[QComboBox]:
        ui = self.ui
        return [ui.sourceFilter, ui.categoryFilter, ui.modelFilter, ui.flagFilter]

    # --- bundle ---------------------------------------------------------------------------------

    def set_browser(self, browser: BundleBrowser | None, choices: FilterChoices | None) -> None:
        """Show the items of another bundle (or none), with the filters it offers."""
        self.browser = browser
        self._total_items = browser.item_count() if browser else 0
        # a bundle of judgments alone (a battle log without conversations) has nothing to
        # list: say what it holds and where it shows
        self.judgment_total = browser.judgment_total() if browser and not self._total_items else 0
        empty = browser is not None and not self._total_items
        self.empty_hint.setText(no_items_text(self.judgment_total) if empty else "")
        for combo in self.filter_combos():
            combo.blockSignals(True)
            combo.setCurrentIndex(0)
            combo.blockSignals(False)
        if choices is not None:
            _fill(self.ui.sourceFilter, "All sources", [(s, s) for s in choices.sources])
            _fill(self.ui.categoryFilter, "All categories", [(c, c) for c in choices.categories])
            _fill(self.ui.modelFilter, "All models", [(m, m) for m in choices.models])
        self.ui.searchEdit.blockSignals(True)
        self.ui.searchEdit.clear()
        self.ui.searchEdit.blockSignals(False)
        if browser is None:
            self._generation += 1
            self.model.set_ids([])
            self._update_count()
        else:
            self.refresh()

    def _fetch_rows(self, ids: Sequence[int]) -> list[Any]:
        """A page of rows with the flags SQL finds; the disagreement flag, which needs the
        statistics stack, follows from a worker, so the first page is shown without loading
        pandas on the GUI thread."""
        browser = self.browser
        if browser is None:
            return []
        page = list(ids)

        def add(flagged: set[int]) -> None:
            if browser is self.browser:
                self.model.add_flag(ItemFlag.DISAGREEMENT, page, flagged)

        def look_up() -> None:
            self.runner.run(lambda: browser.flagged_items(ItemFlag.DISAGREEMENT, page), add)

        self.after_first_paint(look_up)
        return browser.item_rows(page, SQL_FLAGS)

    def after_first_paint(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the list has first painted rows (now if it has, or if it is
        not on screen): for work the first paint does not need, which even on a worker would
        compete with it for the interpreter lock (the statistics stack's imports)."""
        if self._painted or not self.ui.itemTable.isVisible():  # no paint to wait for
            callback()
        else:
            self._after_first_paint.append(callback)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.Paint
            and watched is self.ui.itemTable.viewport()
            and self.model.rowCount() > 0
        ):
            self._painted = True
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._run_deferred)  # once this paint is on screen
        return False

    def _run_deferred(self) -> None:
        waiting, self._after_first_paint = self._after_first_paint, []
        for look_up in waiting:
            look_up()

    # --- queries --------------------------------------------------------------------------------

    def current_query(self) -> ItemQuery:
        ui = self.ui
        return ItemQuery(
            search=ui.searchEdit.text().strip(),
            source=ui.sourceFilter.currentData(),
            category=ui.categoryFilter.currentData(),
            model=ui.modelFilter.currentData(),
            flag=ui.flagFilter.currentData(),
            sort=self._sort,
            descending=self._descending,
            pair=self.selection.model_pair,
            compared=self.selection.model,
        )

    def refresh(self) -> None:
        """Run the current query on a worker thread and show its result when it arrives."""
        self._search_timer.stop()
        browser = self.browser
        if browser is None:
            return
        query = self.current_query()
        self._generation += 1
        generation = self._generation
        self.querying = True
        self.ui.countLabel.setText("Searching…")

        def apply(ids: list[int]) -> None:
            if generation == self._generation and browser is self.browser:
                self._apply(query, ids)

        def show_first_page(ids: list[int]) -> None:
            # only while the whole list is still being read for this query
            if generation == self._generation and browser is self.browser and self.querying:
                self.model.set_first_page(ids)
                self._follow_selection(self.selection.item_id)

        def fail(error: BaseException) -> None:
            if generation == self._generation and isinstance(error, JobCancelled):
                self.querying = False
                self.ui.countLabel.setText("The search was cancelled.")
            elif generation == self._generation:
                self.querying = False
                log.error("item query failed", exc_info=error)
                self.ui.countLabel.setText("The search failed; see the log.")
                self.queryFailed.emit(str(error))

        if first_page_in_sql(query):
            # The first rows are shown from a LIMIT query while every id is read: at 200,000
            # items the whole list takes most of a second, the first page a few milliseconds.
            # a failure here is the whole list's too, and is reported when that one fails
            self.runner.run(
                lambda: browser.matching_item_ids(query, PAGE_SIZE),
                show_first_page,
                lambda error: log.debug("the first page's query failed: %r", error),
            )
        self.runner.run(lambda: browser.matching_item_ids(query), apply, fail)

    def _apply(self, query: ItemQuery, ids: list[int]) -> None:
        self.querying = False
        self._applied_query = query
        self.model.set_ids(ids)
        self._update_count()
        self._follow_selection(self.selection.item_id)
        self.searchChanged.emit(query.search)
        self.idsApplied.emit()

    def _update_count(self) -> None:
        shown = self.model.total()
        if shown == self._total_items:
            text = f"{shown:,} items"
        else:
            text = f"{shown:,} of {self._total_items:,} items"
        query = self._applied_query
        # say why the list is shorter: the models are chosen elsewhere (the leaderboard)
        if query is not None and query.pair is not None:
            text += f" comparing {query.pair[0]} and {query.pair[1]}"
        elif query is not None and query.compared is not None:
            text += f" comparing {query.compared} with another model"
        self.ui.countLabel.setText(text)

    def _sort_requested(self, key: SortKey, descending: bool) -> None:
        self._sort, self._descending = key, descending
        self.refresh()

    @property
    def search_term(self) -> str:
        return self._applied_query.search if self._applied_query else ""

    # --- selection ------------------------------------------------------------------------------

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item_id = self.model.id_at(current.row()) if current.isValid() else None
        if item_id is not None:
            self.selection.set_item(item_id)

    def _follow_selection(self, item_id: int | None) -> None:
        table = self.ui.itemTable
        row = None if item_id is None else self.model.position_of(item_id)
        selection_model = table.selectionModel()
        if row is None:
            selection_model.clearSelection()
            return
        current = table.currentIndex()
        if current.isValid() and current.row() == row:
            return
        self.model.ensure_loaded(row)
        index = self.model.index(row, 0)
        selection_model.setCurrentIndex(
            index,
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows,
        )
        # Scroll only when the row is out of sight, and then centre it: stepping through the
        # list then repaints two rows rather than the whole table at each step.
        if not table.viewport().rect().contains(table.visualRect(index)):
            table.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)

    def neighbour(self, step: int) -> int | None:
        """The id ``step`` rows away from the selected item in the list's order, if any."""
        ids = self.model.ids
        if not ids:
            return None
        current = self.selection.item_id
        row = None if current is None else self.model.position_of(current)
        if row is None:
            return ids[0] if step > 0 else ids[-1]
        target = row + step
        return ids[target] if 0 <= target < len(ids) else None

    def focus_search(self) -> None:
        self.ui.searchEdit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.ui.searchEdit.selectAll()


def no_items_text(judgments: int) -> str:
    """The items page's note for a bundle without items."""
    if judgments:
        return f"No items; {judgments:,} judgments — see the Leaderboard (View > Leaderboard)."
    return "No items yet: import some with File > Import… or `workbench import`."
