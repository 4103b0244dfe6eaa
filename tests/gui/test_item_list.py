"""The item list: lazy model, search, filters, sorting, and following the shared selection."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_idle
from tests.gui.sample_bundle import sample_lines
from tests.patience import HANG_GUARD_MS, HANG_GUARD_SECONDS
from workbench.gui.item_table_model import COLUMNS, ItemTableModel
from workbench.services.browse import BundleBrowser, ItemFlag, ItemQuery, ItemRow, SortKey

if TYPE_CHECKING:
    from workbench.gui.item_list_panel import ItemListPanel
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui


def shown_ids(window: MainWindow) -> list[str]:
    model = window.item_list.model
    return [model.data(model.index(row, 0)) for row in range(model.rowCount())]


def test_the_list_shows_every_item_with_its_columns(open_window: MainWindow) -> None:
    lines = sample_lines()
    assert shown_ids(open_window) == [line["id"] for line in lines]
    model = open_window.item_list.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["ID", "Source", "Category", "Language", "Outputs", "Judgments", "Flags"]
    row = {line["id"]: n for n, line in enumerate(lines)}
    a1, b1 = row["a1"], row["b1"]
    assert model.data(model.index(a1, 1)) == "alpha"
    assert model.data(model.index(a1, 2)) == "counting · objects"
    assert model.data(model.index(a1, 4)) == len(lines[a1]["outputs"])
    assert model.data(model.index(b1, 5)) == len(lines[b1]["judgments"])
    assert model.data(model.index(a1, 6)) == "image, reference"
    assert model.data(model.index(b1, 6)) == "disagreement"
    assert open_window.item_list.ui.countLabel.text() == f"{len(lines)} items"


def test_the_model_fetches_pages_lazily() -> None:
    fetched: list[list[int]] = []

    def fetch(ids: Sequence[int]) -> list[ItemRow]:
        fetched.append(list(ids))
        return [ItemRow(i, str(i), "s", None, None, None, 0, 0, frozenset()) for i in ids]

    model = ItemTableModel(fetch)
    model.set_ids(list(range(1, 100_001)))
    assert model.total() == 100_000
    assert model.rowCount() == 200 and fetched == [list(range(1, 201))]
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    assert model.rowCount() == 400
    model.ensure_loaded(1_000)
    assert model.rowCount() > 1_000 and model.data(model.index(1_000, 0)) == "1001"
    assert sum(len(page) for page in fetched) == model.rowCount()  # nothing read twice
    assert model.position_of(99_999) == 99_998 and model.position_of(0) is None


def set_search(qtbot: QtBot, window: MainWindow, text: str) -> None:
    window.item_list.ui.searchEdit.setText(text)
    qtbot.waitUntil(lambda: window.item_list.search_term == text, timeout=HANG_GUARD_MS)
    wait_idle(qtbot, window)


def test_search_filters_and_highlights(qtbot: QtBot, open_window: MainWindow) -> None:
    set_search(qtbot, open_window, "zebra")
    assert shown_ids(open_window) == ["a3"]
    assert open_window.item_list.ui.countLabel.text() == "1 of 5 items"
    # the item view follows to the only match and highlights the term in the output
    assert open_window.item_view.detail is not None
    assert open_window.item_view.detail.external_id == "a3"
    highlighted = [view for view in open_window.item_view.text_views() if view.highlighted_count()]
    assert [view.source_text for view in highlighted] == ["Ein Zebra und zwei Pferde."]
    set_search(qtbot, open_window, "")
    assert len(shown_ids(open_window)) == len(sample_lines())


@pytest.mark.parametrize(
    ("combo", "value", "expected"),
    [
        ("sourceFilter", "beta", ["b1", "b2"]),
        ("categoryFilter", "counting", ["a1", "a3"]),
        ("modelFilter", "model-three", ["a2"]),
        ("flagFilter", ItemFlag.DISAGREEMENT, ["b1"]),
        ("flagFilter", ItemFlag.MISSING_IMAGE, ["a1"]),
    ],
)
def test_filters(
    qtbot: QtBot, open_window: MainWindow, combo: str, value: object, expected: list[str]
) -> None:
    box = getattr(open_window.item_list.ui, combo)
    box.setCurrentIndex(box.findData(value))
    qtbot.waitUntil(lambda: shown_ids(open_window) == expected, timeout=HANG_GUARD_MS)
    box.setCurrentIndex(0)
    qtbot.waitUntil(
        lambda: len(shown_ids(open_window)) == len(sample_lines()), timeout=HANG_GUARD_MS
    )


def test_sorting_by_a_column_header(qtbot: QtBot, open_window: MainWindow) -> None:
    table = open_window.item_list.ui.itemTable
    outputs_column = [key for _name, key in COLUMNS].index(SortKey.OUTPUTS)
    table.sortByColumn(outputs_column, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: shown_ids(open_window)[0] == "a2", timeout=HANG_GUARD_MS)  # six outputs
    counts = [
        open_window.item_list.model.data(open_window.item_list.model.index(r, outputs_column))
        for r in range(len(sample_lines()))
    ]
    assert counts == sorted(counts, reverse=True)
    table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: shown_ids(open_window)[0] == "b2", timeout=HANG_GUARD_MS)


def test_the_list_and_the_view_follow_the_shared_selection(
    qtbot: QtBot, open_window: MainWindow
) -> None:
    table = open_window.item_list.ui.itemTable
    model = open_window.item_list.model
    b2 = model.id_at(4)
    open_window.selection.set_item(b2)
    assert table.currentIndex().row() == 4
    assert open_window.item_view.detail is not None
    assert open_window.item_view.detail.external_id == "b2"
    table.setCurrentIndex(model.index(1, 0))  # the user clicks a row
    assert open_window.selection.item_id == model.id_at(1)
    assert open_window.item_view.detail.external_id == "a2"


def test_a_second_bundle_replaces_the_first(
    qtbot: QtBot, open_window: MainWindow, tmp_path: Path
) -> None:
    from workbench.services.importing import import_files

    source = tmp_path / "other.jsonl"
    source.write_text(
        '{"format": "vlm-workbench/item", "format_version": 1, "source": "other", "id": "z1",'
        ' "turns": [{"prompt": "Only item"}]}\n',
        encoding="utf-8",
    )
    other = tmp_path / "other.wbb"
    import_files(other, [source], "jsonl")
    open_window.open_bundle(other)
    wait_idle(qtbot, open_window)
    assert shown_ids(open_window) == ["z1"]
    assert open_window.item_view.detail is not None
    assert open_window.item_view.detail.external_id == "z1"
    assert open_window.item_list.ui.sourceFilter.count() == 2  # "All sources" and "other"


class _FlagCountingBrowser(BundleBrowser):
    """Rows without a disagreement flag; item 2 disagrees; every flag lookup is recorded.
    It reads no bundle: a query it does not answer fails."""

    def __init__(self) -> None:
        self.lookups: list[list[int]] = []
        self.asked_flags: list[object] = []

    def item_rows(
        self, ids: Sequence[int], flags: frozenset[ItemFlag] | None = None
    ) -> list[ItemRow]:
        self.asked_flags.append(flags)
        return [ItemRow(i, str(i), "s", None, None, None, 0, 0, frozenset()) for i in ids]

    def flagged_items(self, flag: ItemFlag, ids: Sequence[int]) -> set[int]:
        assert flag is ItemFlag.DISAGREEMENT
        self.lookups.append(list(ids))
        return {2}


def _panel(qtbot: QtBot) -> ItemListPanel:
    from workbench.gui.background import BackgroundRunner
    from workbench.gui.item_list_panel import ItemListPanel
    from workbench.gui.linked_selection import LinkedSelection

    runner = BackgroundRunner()
    panel = ItemListPanel(LinkedSelection(), runner)
    qtbot.addWidget(panel)
    return panel


def test_the_first_page_is_painted_before_the_disagreement_flag_is_read(qtbot: QtBot) -> None:
    """The disagreement flag needs the statistics stack; the first page shows the
    SQL flags, and the disagreement flag is looked up once the list has painted."""
    from workbench.services.browse import SQL_FLAGS

    panel = _panel(qtbot)
    browser = _FlagCountingBrowser()
    panel.browser = browser
    panel.resize(600, 400)
    panel.show()
    panel.model.set_ids([1, 2, 3])
    assert browser.asked_flags == [SQL_FLAGS] and browser.lookups == []  # not painted yet
    assert panel.model.data(panel.model.index(1, 6)) == ""
    qtbot.waitUntil(
        lambda: panel.model.data(panel.model.index(1, 6)) == "disagreement", timeout=HANG_GUARD_MS
    )
    assert browser.lookups == [[1, 2, 3]]
    assert panel.model.data(panel.model.index(0, 6)) == ""


def test_a_hidden_list_reads_the_disagreement_flag_at_once(qtbot: QtBot) -> None:
    panel = _panel(qtbot)
    browser = _FlagCountingBrowser()
    panel.browser = browser
    panel.model.set_ids([1, 2, 3])  # never shown: no paint to wait for
    qtbot.waitUntil(
        lambda: panel.model.data(panel.model.index(1, 6)) == "disagreement", timeout=HANG_GUARD_MS
    )
    assert browser.lookups == [[1, 2, 3]]


class _SlowListBrowser(_FlagCountingBrowser):
    """1,000 items whose whole id list is read only when the test lets it (``release``); the
    first page (a ``limit``) answers at once."""

    def __init__(self) -> None:
        super().__init__()
        import threading

        self.release = threading.Event()
        self.limits: list[int | None] = []

    def matching_item_ids(self, query: ItemQuery, limit: int | None = None) -> list[int]:
        self.limits.append(limit)
        ids = list(range(1, 1_001))
        if limit is not None:
            return ids[:limit]
        assert self.release.wait(HANG_GUARD_SECONDS), "the test never released the whole list"
        return ids

    def item_count(self) -> int:
        return 1_000


def test_the_first_page_shows_before_the_whole_list_is_read(qtbot: QtBot) -> None:
    """At 200,000 items reading every id takes most of a second; the list paints its
    first page from a LIMIT query meanwhile, then keeps those rows when the whole list comes."""
    from workbench.gui.item_table_model import PAGE_SIZE

    panel = _panel(qtbot)
    browser = _SlowListBrowser()
    panel.resize(600, 400)
    panel.show()
    try:
        panel.set_browser(browser, None)
        qtbot.waitUntil(lambda: panel.model.rowCount() == PAGE_SIZE, timeout=HANG_GUARD_MS)
        # shown while the whole list is still being read, which only a page has asked for
        assert panel.querying and panel.ui.countLabel.text() == "Searching…"
        assert sorted(browser.limits, key=str) == [PAGE_SIZE, None]
        assert len(browser.asked_flags) == 1  # the page's rows, read once
    finally:
        browser.release.set()
    qtbot.waitUntil(lambda: not panel.querying, timeout=HANG_GUARD_MS)
    assert panel.model.total() == 1_000 and panel.ui.countLabel.text() == "1,000 items"
    assert len(browser.asked_flags) == 1  # the whole list kept the page's rows
    assert panel.model.canFetchMore(QModelIndex())
    panel.model.fetchMore(QModelIndex())
    assert panel.model.rowCount() == 2 * PAGE_SIZE
    assert panel.model.data(panel.model.index(2 * PAGE_SIZE - 1, 0)) == str(2 * PAGE_SIZE)


def test_a_reset_after_the_whole_list_reads_the_rows_again() -> None:
    """Keeping loaded rows is for a first page only: a later list with the same ids (after a
    vote, say) reads its rows again, so their counts are fresh."""
    fetched: list[list[int]] = []

    def fetch(ids: Sequence[int]) -> list[ItemRow]:
        fetched.append(list(ids))
        return [ItemRow(i, str(i), "s", None, None, None, 0, 0, frozenset()) for i in ids]

    model = ItemTableModel(fetch)
    model.set_first_page([1, 2])
    model.set_ids([1, 2, 3])
    assert fetched == [[1, 2]] and model.total() == 3
    model.set_ids([1, 2, 3])
    assert fetched == [[1, 2], [1, 2, 3]]
    model.set_first_page([5, 6])
    model.set_ids([1, 2])  # another order: reset
    assert fetched[-1] == [1, 2] and model.rowCount() == 2


@pytest.mark.parametrize("sort", ["id", "source", "category", "language"])
def test_the_first_ids_read_alone_begin_the_whole_list(open_window: MainWindow, sort: str) -> None:
    browser = open_window.browser
    for descending in (False, True):
        query = ItemQuery(sort=SortKey(sort), descending=descending)
        assert browser is not None
        whole = browser.matching_item_ids(query)
        assert browser.matching_item_ids(query, 3) == whole[:3]
    for whole_list_first in (
        ItemQuery(sort=SortKey.OUTPUTS),
        ItemQuery(flag=ItemFlag.DISAGREEMENT),
        ItemQuery(search="zebra"),
        ItemQuery(pair=("m1", "m2")),
    ):
        with pytest.raises(ValueError, match="first_page_in_sql"):
            assert browser is not None
            browser.matching_item_ids(whole_list_first, 3)
