"""Data shown in Qt's small text surfaces (tooltips, menu entries) exactly as written.

Qt renders a tooltip as HTML whenever it looks like HTML, so a model name or an image reference
holding ``<img src="/dev/zero">`` would make a hover read local files or hang the app. Every
tooltip or status tip that can hold data goes through :func:`plain_tooltip`; every menu entry
named by data through :func:`menu_text`. Window titles, status-bar messages, item-view cells
and headers are plain text in Qt already; labels holding data set ``Qt.TextFormat.PlainText``.
"""

from __future__ import annotations

import html

#: tooltips wider than this wrap; a single long reference stays readable
_TOOLTIP_STYLE = "white-space: pre-wrap;"


def plain_tooltip(text: object) -> str:
    """``text`` as a tooltip that shows its characters and renders no markup.

    The text is escaped and wrapped in one paragraph, so Qt renders it as rich text whose only
    content is the text itself (left as it was, Qt would guess; escaped without the wrapper, it
    would show ``&lt;`` literally).
    """
    if text is None or text == "":
        return ""
    return f'<p style="{_TOOLTIP_STYLE}">{html.escape(str(text), quote=False)}</p>'


def menu_text(text: str) -> str:
    """``text`` as a menu entry: a ``&`` in data shows as itself, not as a shortcut marker."""
    return text.replace("&", "&&")
