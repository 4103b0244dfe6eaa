"""The central item view: an item's images, caption, and each turn's instruction, focus points,
reference (with its verification flags) and the chosen models' answers side by side in columns
of equal width, aligned turn by turn.

Model names are shown here on purpose: this is the inspection view, not the blind one. The
widgets of a turn are kept and refilled when the next item is shown, so moving through items
does not rebuild the page. An item of many turns or images is shown a page at a time (the
first turns and images, then more on request): laying out 2,000 turns at once blocked the window
for a minute, and 5,000 image tiles for two and a half.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.image_grid import ImageGrid
from workbench.gui.image_loader import ImageLoader
from workbench.gui.image_viewer import ImageViewerDialog
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.plain_text import menu_text, plain_tooltip
from workbench.gui.safe_text import SafeTextView
from workbench.services.browse import (
    CaptionView,
    ImageSlot,
    ItemDetail,
    ItemFlag,
    ReferenceView,
    TurnView,
)

#: columns shown when the user has not chosen models (more stay one click away)
DEFAULT_COLUMNS = 5
#: turns laid out when an item is shown, and how many more each "Show more" adds
TURNS_PER_PAGE = 20
#: image tiles laid out when an item is shown, and how many more each "Show more" adds
IMAGES_PER_PAGE = 24
PROBLEM_COLOUR = "#b00020"
OK_COLOUR = "#1b7f3b"


def columns_for(
    item_models: Sequence[str],
    chosen: Sequence[str],
    pair: tuple[str, str] | None,
    limit: int = DEFAULT_COLUMNS,
) -> list[str]:
    """Which models get a column: the selected pair if there is one, else the chosen models
    that answered this item, else the item's first ``limit`` models by name."""
    if pair is not None:
        return list(pair)
    picked = [model for model in chosen if model in item_models]
    return picked or list(item_models[:limit])


def reference_flags_text(reference: ReferenceView) -> str:
    """The verification flags of a reference as rich text (values are ours, not the data's)."""

    def flag(name: str, value: bool | None, bad_when: bool) -> str | None:
        if value is None:
            return None
        colour = PROBLEM_COLOUR if value == bad_when else OK_COLOUR
        return f'<span style="color:{colour}">{name}: {"yes" if value else "no"}</span>'

    parts = [
        flag("verified correct", reference.verified_correct, False),
        flag("problem in caption", reference.problem_in_caption, True),
        flag("problem in reference", reference.problem_in_reference, True),
    ]
    shown = [part for part in parts if part is not None]
    # "not verified" beside a kind such as "human-verified" would read as a contradiction:
    # what is missing is a recorded check, not the reference's provenance
    return " · ".join(shown) if shown else '<span style="color:#666">no checks recorded</span>'


def _section_label(text: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("font-weight: bold; color: #444;")
    return label


def _source_note(source: str) -> str:
    return f' <span style="font-weight:normal; color:#666">({html.escape(source)})</span>'


class _TitledText(QWidget):
    """A title line (captions, references) above a text view."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)  # a long source or flags line wraps, never widens the page
        self.text = SafeTextView(self)
        layout.addWidget(self.title)
        layout.addWidget(self.text)

    def show_reference(self, reference: ReferenceView, raw: bool, highlight: str) -> None:
        name = " · ".join(html.escape(part) for part in ("Reference", reference.kind) if part)
        if reference.source:
            name += _source_note(reference.source)
        self.title.setText(f"<b>{name}</b> &nbsp; {reference_flags_text(reference)}")
        self.text.show_text(reference.text, raw=raw, highlight=highlight)

    def show_caption(self, caption: CaptionView, raw: bool, highlight: str) -> None:
        where = "" if caption.image_position is None else f" of image {caption.image_position + 1}"
        name = f"Caption{where} · {html.escape(caption.kind)}"
        if caption.source:
            name += _source_note(caption.source)
        self.title.setText(f"<b>{name}</b>")
        self.text.show_text(caption.text, raw=raw, highlight=highlight)


def _fill_blocks(
    blocks: list[_TitledText], count: int, layout: QVBoxLayout, parent: QWidget
) -> list[_TitledText]:
    """Grow the pool ``blocks`` to ``count``, show the first ``count``, hide the rest."""
    while len(blocks) < count:
        block = _TitledText(parent)
        layout.addWidget(block)
        blocks.append(block)
    for index, block in enumerate(blocks):
        block.setVisible(index < count)
    return blocks[:count]


#: answers shown side by side at most, and the narrowest an answer column is made before the
#: answers wrap onto another row
MAX_ANSWERS_PER_ROW = 8
MIN_ANSWER_WIDTH = 200


class _OutputColumn(QFrame):
    """One model's answer(s) to one turn; several when the model answered in several contexts."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(6, 4, 6, 4)
        self.header = QLabel(self)
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setStyleSheet("font-weight: bold;")
        self.header.setWordWrap(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._layout.addWidget(self.header)
        # the stretch keeps answers at the top when a neighbouring column is taller
        self._layout.addStretch(1)
        self._entries: list[tuple[QLabel, SafeTextView]] = []
        self.model = ""

    def text_views(self) -> list[SafeTextView]:
        return [view for _label, view in self._entries if view.isVisibleTo(self)]

    def show_outputs(
        self, model: str, turn: TurnView, raw: bool, highlight: str
    ) -> list[SafeTextView]:
        self.model = model
        outputs = turn.outputs_of(model)
        self.header.setText(outputs[0].display_name if outputs else model)
        self.header.setToolTip(plain_tooltip(model))
        texts = [(o.context, o.text) for o in outputs] or [("", "")]
        while len(self._entries) < len(texts):
            label = QLabel(self)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setStyleSheet("color: #666;")
            view = SafeTextView(self)
            stretch_at = self._layout.count() - 1
            self._layout.insertWidget(stretch_at, label)
            self._layout.insertWidget(stretch_at + 1, view)
            self._entries.append((label, view))
        shown = []
        for index, (label, view) in enumerate(self._entries):
            if index >= len(texts):
                label.hide()
                view.hide()
                continue
            context, text = texts[index]
            label.setText(f"context: {context}")
            label.setVisible(len(texts) > 1 or context not in ("", "standard"))
            if outputs:
                view.show_text(text, raw=raw, highlight=highlight)
            else:
                view.show_text("(no answer for this turn)", raw=True, highlight="")
            view.show()
            shown.append(view)
        return shown


class TurnSection(QFrame):
    """One turn: its instruction, focus points, references, and the models' answers."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 8)
        layout.setSpacing(4)
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setStyleSheet("font-size: 12pt; font-weight: bold;")
        self.prompt = SafeTextView(self)
        self.focus_label = _section_label("Focus points", self)
        self.focus = SafeTextView(self)
        layout.addWidget(self.title)
        layout.addWidget(self.prompt)
        layout.addWidget(self.focus_label)
        layout.addWidget(self.focus)
        self._references_layout = QVBoxLayout()
        self._references_layout.setSpacing(4)
        layout.addLayout(self._references_layout)
        self.answers_label = _section_label("Answers", self)
        layout.addWidget(self.answers_label)
        self._outputs = QGridLayout()
        self._outputs.setSpacing(6)
        layout.addLayout(self._outputs)
        self.references: list[_TitledText] = []
        self.columns: list[_OutputColumn] = []
        self._views: list[SafeTextView] = []
        #: answers side by side per row (a narrow pane wraps them onto more rows)
        self._per_row = MAX_ANSWERS_PER_ROW
        self._shown_columns = 0

    def set_available_width(self, width: int) -> None:
        """Wrap the answers onto rows of as many columns as ``width`` pixels hold at a readable
        width, so a narrow window never scrolls the whole item sideways."""
        per_row = max(1, min(MAX_ANSWERS_PER_ROW, (width + 6) // (MIN_ANSWER_WIDTH + 6)))
        if per_row != self._per_row:
            self._per_row = per_row
            self._place_columns()

    def _place_columns(self) -> None:
        for column in self.columns:
            self._outputs.removeWidget(column)
        per_row = min(self._per_row, max(1, self._shown_columns))
        for index, column in enumerate(self.columns):
            self._outputs.addWidget(column, index // per_row, index % per_row)
        for index in range(max(len(self.columns), MAX_ANSWERS_PER_ROW)):
            # equal stretch and an ignored size hint make the columns exactly equal in width
            self._outputs.setColumnStretch(index, 1 if index < per_row else 0)

    def text_views(self) -> list[SafeTextView]:
        return self._views

    def show_turn(
        self,
        turn: TurnView,
        title: str,
        models: Sequence[str],
        raw: bool,
        highlight: str,
    ) -> None:
        self.title.setText(title)
        self.prompt.show_text(turn.prompt, raw=raw, highlight=highlight)
        views = [self.prompt]
        has_focus = bool(turn.focus_points)
        self.focus_label.setVisible(has_focus)
        self.focus.setVisible(has_focus)
        if has_focus:
            self.focus.show_text(turn.focus_points or "", raw=raw, highlight=highlight)
            views.append(self.focus)

        shown = _fill_blocks(self.references, len(turn.references), self._references_layout, self)
        for block, reference in zip(shown, turn.references, strict=True):
            block.show_reference(reference, raw, highlight)
            views.append(block.text)

        while len(self.columns) < len(models):
            self.columns.append(_OutputColumn(self))
        if len(models) != self._shown_columns or self._outputs.count() != len(self.columns):
            self._shown_columns = len(models)
            self._place_columns()
        for index, column in enumerate(self.columns):
            if index < len(models):
                views.extend(column.show_outputs(models[index], turn, raw, highlight))
                column.show()
            else:
                column.hide()
        self.answers_label.setVisible(bool(models))
        self._views = views

    def visible_columns(self) -> list[_OutputColumn]:
        return [column for column in self.columns if column.isVisibleTo(self)]


class ItemView(QWidget):
    """Shows the item the selection model points at."""

    chosenModelsChanged = Signal(list)

    def __init__(
        self,
        selection: LinkedSelection,
        loader: ImageLoader,
        raw_action: QAction,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.selection = selection
        self.loader = loader
        self.detail: ItemDetail | None = None
        self.highlight = ""
        self.raw = raw_action.isChecked()
        self.chosen_models: list[str] = []
        self.shown_models: list[str] = []
        self._available_models: list[str] = []

        bar = QHBoxLayout()
        bar.setContentsMargins(8, 6, 8, 0)
        self.models_button = QToolButton(self)
        self.models_button.setText("Models")
        self.models_button.setToolTip("Choose the models whose answers are shown side by side")
        self.models_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.models_menu = QMenu(self.models_button)
        self.models_button.setMenu(self.models_menu)
        self.raw_button = QToolButton(self)
        self.raw_button.setDefaultAction(raw_action)
        self.models_note = QLabel(self)
        self.models_note.setTextFormat(Qt.TextFormat.PlainText)
        self.models_note.setStyleSheet("color: #555;")
        bar.addWidget(self.models_button)
        bar.addWidget(self.raw_button)
        bar.addWidget(self.models_note, 1)

        self.scroll_area = QScrollArea(self)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.page = QWidget()
        self.scroll_area.setWidget(self.page)
        # the images follow the pane's width, so a narrow window never scrolls the item sideways
        self.scroll_area.viewport().installEventFilter(self)
        page_layout = self._page_layout = QVBoxLayout(self.page)
        page_layout.setContentsMargins(12, 8, 12, 12)
        self.header = QLabel(self.page)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.images = ImageGrid(loader, self.page)
        self.images.imageClicked.connect(self.open_image)
        self.more_images_button = QPushButton(self.page)
        self.more_images_button.clicked.connect(self.show_more_images)
        self.more_turns_button = QPushButton(self.page)
        self.more_turns_button.clicked.connect(self.show_more_turns)
        #: how many turns and images of the current item are laid out
        self.turn_limit = TURNS_PER_PAGE
        self.image_limit = IMAGES_PER_PAGE
        self._captions_layout = QVBoxLayout()
        self._captions_layout.setSpacing(4)
        self.captions: list[_TitledText] = []
        self._turns_layout = QVBoxLayout()
        self._turns_layout.setSpacing(0)
        page_layout.addWidget(self.header)
        page_layout.addWidget(self.images)
        page_layout.addWidget(self.more_images_button, 0, Qt.AlignmentFlag.AlignLeft)
        page_layout.addLayout(self._captions_layout)
        page_layout.addLayout(self._turns_layout)
        page_layout.addWidget(self.more_turns_button, 0, Qt.AlignmentFlag.AlignLeft)
        page_layout.addStretch(1)
        self.turn_sections: list[TurnSection] = []
        #: the page's usable width, once its viewport has a size (images and answers fit it)
        self._available_width: int | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.scroll_area, 1)

        raw_action.toggled.connect(self.set_raw)
        selection.modelPairChanged.connect(lambda _pair: self._refresh())
        self.show_item(None)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.scroll_area.viewport():
            margins = self._page_layout.contentsMargins()
            self._available_width = (
                self.scroll_area.viewport().width() - margins.left() - margins.right()
            )
            self.images.set_available_width(self._available_width)
            for section in self.turn_sections:
                section.set_available_width(self._available_width)
        return super().eventFilter(watched, event)

    # --- inputs ---------------------------------------------------------------------------------

    def set_available_models(self, models: Sequence[str]) -> None:
        """The bundle's models, offered in the Models menu."""
        self._available_models = list(models)
        self.chosen_models = [m for m in self.chosen_models if m in self._available_models]
        self._rebuild_models_menu()

    def set_chosen_models(self, models: Sequence[str]) -> None:
        self.chosen_models = list(models)
        self._rebuild_models_menu()
        self.chosenModelsChanged.emit(list(self.chosen_models))
        self._refresh()

    def set_raw(self, raw: bool) -> None:
        self.raw = raw
        for view in self.text_views():
            view.set_raw(raw)

    def set_highlight(self, term: str) -> None:
        self.highlight = term
        for view in self.text_views():
            view.set_highlight(term)

    def add_flag(self, item_id: int, flag: ItemFlag) -> None:
        """Show ``flag`` on item ``item_id`` if it is still the one shown (a flag read after
        the item, see :data:`~workbench.services.browse.SQL_FLAGS`)."""
        detail = self.detail
        if detail is None or detail.id != item_id or flag in detail.flags:
            return
        self.detail = replace(detail, flags=detail.flags | {flag})
        self.header.setText(self._header_html(self.detail))

    def show_item(self, detail: ItemDetail | None) -> None:
        self.detail = detail
        self.turn_limit = TURNS_PER_PAGE
        self.image_limit = IMAGES_PER_PAGE
        self._refresh()
        self.scroll_area.verticalScrollBar().setValue(0)

    # --- what is shown --------------------------------------------------------------------------

    def text_views(self) -> list[SafeTextView]:
        views = [block.text for block in self.captions if block.isVisibleTo(self)]
        for section in self.turn_sections:
            if section.isVisibleTo(self):
                views.extend(section.text_views())
        return views

    def visible_turns(self) -> list[TurnSection]:
        return [section for section in self.turn_sections if section.isVisibleTo(self)]

    def show_more_turns(self) -> None:
        self.turn_limit += TURNS_PER_PAGE
        self._refresh()

    def show_more_images(self) -> None:
        self.image_limit += IMAGES_PER_PAGE
        self._refresh()

    @staticmethod
    def _more_text(noun: str, step: int, hidden: int) -> str:
        return f"Show {min(step, hidden):,} more {noun} ({hidden:,} not shown)"

    def _refresh(self) -> None:
        detail = self.detail
        hidden_images = 0 if detail is None else max(0, len(detail.images) - self.image_limit)
        hidden_turns = 0 if detail is None else max(0, len(detail.turns) - self.turn_limit)
        self.more_images_button.setVisible(hidden_images > 0)
        self.more_images_button.setText(self._more_text("images", IMAGES_PER_PAGE, hidden_images))
        self.more_turns_button.setVisible(hidden_turns > 0)
        self.more_turns_button.setText(self._more_text("turns", TURNS_PER_PAGE, hidden_turns))
        if detail is None:
            self.header.setText('<span style="color:#666">No item selected.</span>')
            self.images.show_images(())
            _fill_blocks(self.captions, 0, self._captions_layout, self.page)
            for section in self.turn_sections:
                section.hide()
            self.models_note.setText("")
            self.shown_models = []
            return
        self.header.setText(self._header_html(detail))
        self.images.show_images(detail.images[: self.image_limit])
        shown = _fill_blocks(self.captions, len(detail.captions), self._captions_layout, self.page)
        for block, caption in zip(shown, detail.captions, strict=True):
            block.show_caption(caption, self.raw, self.highlight)

        item_models = detail.models
        models = columns_for(item_models, self.chosen_models, self.selection.model_pair)
        self.shown_models = models
        self._note_models(item_models, models)
        turns = detail.turns[: self.turn_limit]
        while len(self.turn_sections) < len(turns):
            section = TurnSection(self.page)
            if self._available_width is not None:
                section.set_available_width(self._available_width)
            self._turns_layout.addWidget(section)
            self.turn_sections.append(section)
        multi_turn = len(detail.turns) > 1
        for index, section in enumerate(self.turn_sections):
            if index >= len(turns):
                section.hide()
                continue
            turn = turns[index]
            title = f"Turn {turn.index}" if multi_turn else "Instruction"
            if turn.category:
                title += f" · {turn.category}"
            section.show_turn(turn, title, models, self.raw, self.highlight)
            section.show()

    def _note_models(self, item_models: Sequence[str], shown: Sequence[str]) -> None:
        if not item_models:
            self.models_note.setText("No model answered this item.")
        elif len(shown) < len(item_models):
            self.models_note.setText(
                f"Showing {len(shown)} of the {len(item_models)} models that answered this "
                "item; choose others under Models."
            )
        else:
            self.models_note.setText(f"{len(item_models)} model(s) answered this item.")

    @staticmethod
    def _header_html(detail: ItemDetail) -> str:
        facts = [detail.source, detail.family, detail.category, detail.language]
        parts = [
            f'<span style="font-size:14pt; font-weight:bold">{html.escape(detail.external_id)}'
            "</span>"
        ]
        parts += [html.escape(fact) for fact in facts if fact]
        parts.append(f"{detail.judgments} judgment(s)")
        parts.append(f'<span style="color:#666">row {detail.id}</span>')
        text = " &nbsp;·&nbsp; ".join(parts)
        if detail.flags:
            badges = " ".join(
                f'<span style="color:white; background:{PROBLEM_COLOUR}">&nbsp;{flag}&nbsp;</span>'
                for flag in sorted(detail.flags)
            )
            text += f"<br>{badges}"
        return text

    def _rebuild_models_menu(self) -> None:
        self.models_menu.clear()
        show_default = self.models_menu.addAction("Default (first models of each item)")
        show_default.triggered.connect(lambda: self.set_chosen_models([]))
        self.models_menu.addSeparator()
        for model in self._available_models:
            action = self.models_menu.addAction(menu_text(model))
            action.setToolTip(plain_tooltip(model))  # an action's tooltip is its text by default
            action.setCheckable(True)
            action.setChecked(model in self.chosen_models)
            action.toggled.connect(lambda checked, name=model: self._toggle_model(name, checked))

    def _toggle_model(self, model: str, checked: bool) -> None:
        chosen = [m for m in self.chosen_models if m != model]
        if checked:
            chosen.append(model)
        self.set_chosen_models(chosen)

    # --- images ---------------------------------------------------------------------------------

    def open_image(self, slot: ImageSlot) -> ImageViewerDialog | None:
        if slot.image_id is None:
            return None
        decoded = self.loader.cached(slot.image_id)
        if decoded is None or decoded.error:
            return None
        title = f"{self.detail.external_id if self.detail else ''} · image {slot.position + 1}"
        dialog = ImageViewerDialog(decoded.full, title, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog
