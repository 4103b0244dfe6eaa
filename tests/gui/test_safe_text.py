"""Model text is untrusted: no script, no remote (or local) loading, no HTML, links inert."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, Qt, QUrl
from PySide6.QtGui import QTextDocument, QTextFragment
from pytestqt.qtbot import QtBot

from tests.gui.sample_bundle import HOSTILE_OUTPUT
from workbench.gui.safe_text import SafeTextView

pytestmark = pytest.mark.gui


def fragments(document: QTextDocument) -> list[QTextFragment]:
    found: list[QTextFragment] = []
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            found.append(iterator.fragment())
            iterator += 1
        block = block.next()
    return found


@pytest.fixture
def view(qtbot: QtBot) -> SafeTextView:
    widget = SafeTextView()
    qtbot.addWidget(widget)
    widget.resize(500, 200)
    widget.show()
    widget.show_text(HOSTILE_OUTPUT)
    return widget


def test_html_in_model_text_is_shown_as_text(view: SafeTextView) -> None:
    text = view.toPlainText()
    assert "<script>alert('x')</script>" in text
    assert "<img src=http://example.invalid/track.png>" in text
    html = view.toHtml()
    assert "<script" not in html.replace("&lt;script", "")


def test_no_image_is_loaded_from_anywhere(view: SafeTextView) -> None:
    assert not any(fragment.charFormat().isImageFormat() for fragment in fragments(view.document()))
    assert "[image: http://example.invalid/pic.png]" in view.toPlainText()
    # and if an image did reach the document, nothing would load it, local or remote
    names = ("http://example.invalid/x.png", "file:///etc/hostname", "relative/secret.png")
    view.setHtml("".join(f'<img src="{name}">' for name in names))
    for name in names:
        assert not view.loadResource(QTextDocument.ResourceType.ImageResource, QUrl(name))
        loaded = view.document().resource(QTextDocument.ResourceType.ImageResource, QUrl(name))
        # the document answers an image request with a 1x1 blank, never the image's content
        assert not loaded or loaded.size().width() == 1, f"{name} was loaded"
    assert {url.toString() for url in view.requested_resources} >= set(names)


def test_links_cannot_be_followed(qtbot: QtBot, view: SafeTextView) -> None:
    anchors = [f for f in fragments(view.document()) if f.charFormat().isAnchor()]
    assert [f.charFormat().anchorHref() for f in anchors] == ["http://example.invalid/page"]
    assert not view.openLinks() and not view.openExternalLinks()
    cursor = view.textCursor()
    cursor.setPosition(anchors[0].position() + 1)
    point = view.cursorRect(cursor).center()
    with qtbot.assertNotEmitted(view.anchorClicked), qtbot.assertNotEmitted(view.sourceChanged):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert view.source().isEmpty()
    view.setSource(QUrl("http://example.invalid/page"))
    assert view.source().isEmpty()


def test_raw_mode_and_highlight(qtbot: QtBot, view: SafeTextView) -> None:
    view.set_raw(True)
    assert view.toPlainText() == HOSTILE_OUTPUT
    view.set_highlight("example.invalid")
    assert view.highlighted_count() == 3
    view.set_highlight("")
    assert view.highlighted_count() == 0


def test_the_view_grows_to_fit_its_text(qtbot: QtBot) -> None:
    widget = SafeTextView()
    qtbot.addWidget(widget)
    widget.resize(300, 50)
    widget.show()
    widget.show_text("one line")
    short = widget.height()
    widget.show_text("\n\n".join(f"paragraph {n}" for n in range(10)))
    assert widget.height() > 5 * short


def test_a_reused_view_forgets_the_resources_of_earlier_texts(view: SafeTextView) -> None:
    # the annotation page reuses its text views from task to task: what they record must not
    # grow with every task shown
    view.setHtml('<img src="http://example.invalid/first.png">')
    assert view.requested_resources
    view.show_text("a plain answer without any image")
    assert view.requested_resources == []


class _Counter(QObject):
    """Counts the events of some types a widget receives."""

    def __init__(self, *kinds: QEvent.Type) -> None:
        super().__init__()
        self.kinds = kinds
        self.count = 0

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        if event.type() in self.kinds:
            self.count += 1
        return False


def test_a_new_text_resizes_the_view_once(view: SafeTextView) -> None:
    """The view is fitted to a new text once, not at each change of its document's size on
    the way (emptied, then filled): each resize relays out the page around the view, on the
    GUI thread between a vote and the next task."""
    view.show_text("one line")
    resized = _Counter(QEvent.Type.Resize)
    view.installEventFilter(resized)
    view.show_text("\n\n".join(f"paragraph {n}" for n in range(12)))
    assert resized.count == 1
    tall = view.height()
    view.show_text("\n\n".join(f"another paragraph {n}" for n in range(12)))
    assert view.height() == tall and resized.count == 1  # same height: not resized at all


def test_the_view_says_when_its_height_changed(view: SafeTextView) -> None:
    """Once per new height (the scroll area around it resizes then, and only then)."""
    fitted: list[None] = []
    view.fitted.connect(lambda: fitted.append(None))
    view.show_text("\n\n".join(f"paragraph {n}" for n in range(12)))
    view.show_text("\n\n".join(f"another paragraph {n}" for n in range(12)))
    assert len(fitted) == 1
    view.show_text("a line")
    assert len(fitted) == 2


def test_a_cleared_view_shows_nothing_and_is_not_laid_out_again(view: SafeTextView) -> None:
    view.set_highlight("script")
    assert view.highlighted_count() > 0
    resized = _Counter(QEvent.Type.Resize)
    view.installEventFilter(resized)
    view.clear_text()
    assert view.toPlainText() == "" and view.source_text == ""
    assert view.highlighted_count() == 0 and view.requested_resources == []
    assert not view.show_all_action.isEnabled()
    assert resized.count == 0
