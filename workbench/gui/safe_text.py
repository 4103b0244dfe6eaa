"""A read-only text view for untrusted text (model outputs, references, instructions).

Markdown is rendered with raw HTML switched off, so ``<script>`` or ``<img>`` in a model's answer
shows as the characters it is; nothing is ever loaded (the view and its document answer every
resource request with nothing, and markdown images are replaced by a labelled placeholder);
links are plain styled text that cannot be followed. The view grows to fit its text, so a page
of them scrolls as one.

Long texts show their first :data:`PREVIEW_CHARS` characters and a note saying how much more
there is; double-clicking the view (or its context menu's "Show all text") opens the whole text
in a plain-text window. Qt's markdown layout grows faster than linearly with the text (a
250 KB bullet list took 88 s), and an answer of megabytes is not read in a table cell anyway;
the plain-text window lays out only what is on screen, so any length opens at once.
"""

from __future__ import annotations

from math import ceil
from typing import Any

from PySide6.QtCore import QByteArray, QSizeF, Qt, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QContextMenuEvent,
    QImage,
    QMouseEvent,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QTextBrowser,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.gui.screen_fit import resize_within_screen

MARKDOWN_FEATURES = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)
HIGHLIGHT_COLOUR = QColor("#ffe066")
#: how much of a text the view lays out; the rest is one double-click away
PREVIEW_CHARS = 8_000


def preview(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, int]:
    """The start of ``text`` to show (cut at a line break near ``limit`` when there is one, so
    markdown is not cut mid-line) and how many characters are left out."""
    if len(text) <= limit:
        return text, 0
    cut = text.rfind("\n", limit // 2, limit)
    shown = text[: cut if cut > 0 else limit]
    return shown, len(text) - len(shown)


def replace_images_with_labels(document: QTextDocument) -> int:
    """Replace every image in ``document`` by the text ``[image: <source>]``; return how many.

    Markdown such as ``![x](http://host/p.png)`` becomes an image object; showing its address
    instead makes clear that nothing was fetched.
    """
    found: list[tuple[int, int, str]] = []
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            char_format = fragment.charFormat()
            if char_format.isImageFormat():
                found.append(
                    (fragment.position(), fragment.length(), char_format.toImageFormat().name())
                )
            fragments += 1
        block = block.next()
    cursor = QTextCursor(document)
    for position, length, name in reversed(found):
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(f"[image: {name}]", QTextCharFormat())
    return len(found)


def _blank_image() -> QImage:
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    image.fill(0)
    return image


def _wrap_code_blocks(document: QTextDocument) -> None:
    """Let markdown code blocks wrap like the rest of the text: the markdown reader marks their
    lines unbreakable, and a line wider than the column then ran off its edge."""
    block = document.begin()
    while block.isValid():
        block_format = block.blockFormat()
        if block_format.nonBreakableLines():
            block_format.setNonBreakableLines(False)
            QTextCursor(block).setBlockFormat(block_format)
        block = block.next()


class InertDocument(QTextDocument):
    """A document that loads no resource at all.

    QTextDocument's own loader reads local files (``file:`` URLs and relative paths) when its
    view declines a resource, so refusing in the view alone is not enough.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.requested_resources: list[QUrl] = []

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        self.requested_resources.append(QUrl(name))
        if kind == QTextDocument.ResourceType.ImageResource.value:
            # Given no image, Qt's image handler reads ``name`` as a local file path itself
            # (QImage::load), bypassing this method; a blank image leaves it nothing to read.
            return _blank_image()
        return QByteArray()


class SafeTextView(QTextBrowser):
    """Shows untrusted markdown (or raw text) inertly and highlights a search term in it."""

    #: the view's height changed to fit its text (a scroll area around it resizes)
    fitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocument(InertDocument(self))
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        # Without LinksAccessibleByMouse/Keyboard a link cannot be activated at all.
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        # An unbroken run (a long JSON line, a URL) breaks anywhere: with no horizontal scroll
        # bar, the part past the column's edge could not be read, and the view could open
        # scrolled sideways to that part, looking empty.
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._text = ""
        self._raw = False
        self._highlight = ""
        self._left_out = 0
        #: set while a text is put in: the document's size changes on the way (emptied, then
        #: filled, then the note and highlight), and fitting the height at each of those changes
        #: relaid out the page around the view several times per text
        self._rendering = False
        self.title = "Full text"  # the whole-text window's title (plain text, never a model name)
        self.show_all_action = QAction("Show all text", self)
        self.show_all_action.triggered.connect(self.show_all)

    @property
    def requested_resources(self) -> list[QUrl]:
        """Every resource the text asked for (none of which was loaded)."""
        document = self.document()
        return document.requested_resources if isinstance(document, InertDocument) else []

    # --- what is shown ------------------------------------------------------------------------

    @property
    def source_text(self) -> str:
        return self._text

    @property
    def raw(self) -> bool:
        return self._raw

    def show_text(
        self, text: str, *, raw: bool | None = None, highlight: str | None = None
    ) -> None:
        """Show ``text`` as markdown, or as typed when ``raw``; highlight ``highlight``."""
        if raw is not None:
            self._raw = raw
        if highlight is not None:
            self._highlight = highlight
        self._text = text
        # what the new text asks for, not every text a reused view ever showed
        self.requested_resources.clear()
        self._render()

    def clear_text(self) -> None:
        """Show nothing, cheaply: the document is emptied but the view keeps its height until
        the next text (a view put aside for later, hidden, need not be laid out twice)."""
        self._text = ""
        self._left_out = 0
        self.requested_resources.clear()
        self._rendering = True
        try:
            self.document().clear()
            self.setExtraSelections([])
        finally:
            self._rendering = False
        self.show_all_action.setEnabled(False)

    def set_raw(self, raw: bool) -> None:
        if raw != self._raw:
            self._raw = raw
            self._render()

    def set_highlight(self, term: str) -> None:
        if term != self._highlight:
            self._highlight = term
            self._apply_highlight()

    def highlighted_count(self) -> int:
        return len(self.extraSelections())

    @property
    def truncated(self) -> bool:
        """Whether only the start of the text is laid out (see :data:`PREVIEW_CHARS`)."""
        return self._left_out > 0

    def show_all(self) -> FullTextDialog:
        """The whole text, as typed, in a plain-text window (inert: nothing is rendered)."""
        dialog = FullTextDialog(self._text, self.title, self)
        dialog.open()
        return dialog

    def _render(self) -> None:
        self._rendering = True
        try:
            self._fill()
        finally:
            self._rendering = False
        self._fit_height(self.document().size())

    def _fill(self) -> None:
        document = self.document()
        shown, self._left_out = preview(self._text)
        if self._raw:
            document.setPlainText(shown)
        else:
            document.setMarkdown(shown, MARKDOWN_FEATURES)
            replace_images_with_labels(document)
        if self._left_out:
            cursor = QTextCursor(document)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            note = QTextCharFormat()
            note.setForeground(QColor("#666666"))
            note.setFontItalic(True)
            cursor.insertBlock()
            cursor.insertText(
                f"… {self._left_out:,} more characters: double-click to show all",
                note,
            )
        self.show_all_action.setEnabled(bool(self._left_out))
        if not self._raw and ("```" in shown or "~~~" in shown or "    " in shown or "\t" in shown):
            _wrap_code_blocks(document)  # only markdown with a code block has unbreakable lines
        self._apply_highlight()
        self.horizontalScrollBar().setValue(0)

    # --- the whole text ---------------------------------------------------------------------

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if self.truncated:
            self.show_all()
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.createStandardContextMenu(event.pos())
        menu.addSeparator()
        menu.addAction(self.show_all_action)
        menu.exec(event.globalPos())

    def _apply_highlight(self) -> None:
        selections = []
        term = self._highlight.strip()
        if term:
            document = self.document()
            highlight = QTextCharFormat()
            highlight.setBackground(HIGHLIGHT_COLOUR)
            highlight.setForeground(QColor("black"))
            cursor = document.find(term, 0)
            while not cursor.isNull():
                selection = QTextEdit.ExtraSelection()
                selection.cursor = cursor
                selection.format = highlight
                selections.append(selection)
                cursor = document.find(term, cursor)
        self.setExtraSelections(selections)

    # --- nothing is loaded ----------------------------------------------------------------------

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        """Refuse every resource (images, style sheets) whatever its address: local files and
        remote URLs alike."""
        return QByteArray()

    def setSource(self, *_args: Any) -> None:
        """Never navigate: the view shows only what was given to :meth:`show_text`."""

    # --- sizing ---------------------------------------------------------------------------------

    def _fit_height(self, size: QSizeF) -> None:
        if self._rendering:
            return  # fitted once the text is in (see _render)
        margins = self.contentsMargins()
        height = ceil(size.height()) + margins.top() + margins.bottom() + 2 * self.frameWidth()
        height = max(height, self.fontMetrics().height() + 6)
        if height != self.height():
            self.setFixedHeight(height)
            self.fitted.emit()


#: lines longer than this are shown broken into pieces in the whole-text window: a plain-text
#: view lays out a line at once, and one line of megabytes takes minutes
DISPLAY_LINE_CHARS = 4_000


def broken_long_lines(text: str, width: int = DISPLAY_LINE_CHARS) -> tuple[str, int]:
    """``text`` with every line longer than ``width`` broken every ``width`` characters, and
    how many lines were broken."""
    broken = 0
    lines: list[str] = []
    for line in text.split("\n"):
        if len(line) > width:
            broken += 1
            lines.extend(line[start : start + width] for start in range(0, len(line), width))
        else:
            lines.append(line)
    return ("\n".join(lines), broken) if broken else (text, 0)


class FullTextDialog(QDialog):
    """A long text, whole and as typed, in a plain-text view (which lays out only the lines on
    screen, so megabytes open at once). Copy all copies the text exactly as stored, even where
    very long lines are shown broken."""

    def __init__(self, text: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = text
        # the title and the text are data: plain text only, never rich text
        self.setWindowTitle(title)
        resize_within_screen(self, 900, 700)
        layout = QVBoxLayout(self)
        shown, broken = broken_long_lines(text)
        about = f"{len(text):,} characters"
        if broken:
            about += (
                f"; {broken:,} line(s) longer than {DISPLAY_LINE_CHARS:,} characters are shown "
                "broken into pieces (Copy all copies them whole)"
            )
        size = QLabel(about)
        size.setTextFormat(Qt.TextFormat.PlainText)
        size.setWordWrap(True)
        layout.addWidget(size)
        self.view = QPlainTextEdit(self)
        self.view.setReadOnly(True)
        self.view.setPlainText(shown)
        layout.addWidget(self.view)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        copy = buttons.addButton("Copy all", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(self.copy_all)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def copy_all(self) -> None:
        QApplication.clipboard().setText(self.text)
