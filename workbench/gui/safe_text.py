"""A read-only text view for untrusted text (model outputs, references, instructions).

Markdown is rendered with raw HTML switched off, so ``<script>`` or ``<img>`` in a model's answer
shows as the characters it is; nothing is ever loaded (the view and its document answer every
resource request with nothing, and markdown images are replaced by a labelled placeholder);
links are plain styled text that cannot be followed. The view grows to fit its text, so a page
of them scrolls as one.
"""

from __future__ import annotations

from math import ceil
from typing import Any

from PySide6.QtCore import QByteArray, QSizeF, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QTextEdit, QWidget

MARKDOWN_FEATURES = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)
HIGHLIGHT_COLOUR = QColor("#ffe066")


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
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._text = ""
        self._raw = False
        self._highlight = ""

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
        self._render()

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

    def _render(self) -> None:
        document = self.document()
        if self._raw:
            document.setPlainText(self._text)
        else:
            document.setMarkdown(self._text, MARKDOWN_FEATURES)
            replace_images_with_labels(document)
        self._apply_highlight()
        self._fit_height(document.size())

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
        margins = self.contentsMargins()
        height = ceil(size.height()) + margins.top() + margins.bottom() + 2 * self.frameWidth()
        if height != self.height():
            self.setFixedHeight(max(height, self.fontMetrics().height() + 6))
