"""Helpers of the annotation view's tests: every string a widget tree shows or exposes, what a
task page shows, and typing at the widget that has the focus."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QMenu,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS
from workbench.gui.annotation.annotation_view import AnnotationView

ACCESSIBLE_TEXTS = (
    QAccessible.Text.Name,
    QAccessible.Text.Description,
    QAccessible.Text.Value,
    QAccessible.Text.Help,
)


def _action_strings(action: QAction) -> list[str]:
    return [action.text(), action.toolTip(), action.statusTip(), action.whatsThis()]


def widget_strings(root: QWidget, visible_only: bool = False) -> list[str]:
    """Texts, tooltips, status tips, what's-this, accessible names and descriptions (as set and
    as the accessibility tree reports them), window titles, text views' plain text, line edits'
    placeholders, combo items and action texts of ``root`` and all its descendants (only those
    on screen when ``visible_only``: a hidden dock of the main window is not reachable)."""
    strings: list[str] = []
    actions: list[QAction] = [] if visible_only else list(root.findChildren(QAction))
    for widget in [root, *root.findChildren(QWidget)]:
        if visible_only and not widget.isVisible():
            continue
        strings += [
            widget.toolTip(),
            widget.statusTip(),
            widget.whatsThis(),
            widget.accessibleName(),
            widget.accessibleDescription(),
            widget.windowTitle(),
        ]
        if isinstance(widget, QLabel | QAbstractButton):
            strings.append(widget.text())
        if isinstance(widget, QLineEdit):
            strings += [widget.text(), widget.placeholderText()]
        if isinstance(widget, QTextEdit):
            strings += [widget.toPlainText(), widget.toHtml()]
        if isinstance(widget, QComboBox):
            strings += [widget.itemText(index) for index in range(widget.count())]
        interface = QAccessible.queryAccessibleInterface(widget)
        if interface is not None:
            strings += [interface.text(kind) for kind in ACCESSIBLE_TEXTS]
        actions += widget.actions()
    for action in actions:
        strings += _action_strings(action)
    return [text for text in strings if text]


def leaks(strings: list[str], forbidden: list[str]) -> list[tuple[str, str]]:
    return [
        (secret, text)
        for text in strings
        for secret in forbidden
        if secret.casefold() in text.casefold()
    ]


def shown_texts(view: AnnotationView) -> list[str]:
    """The prompts, references and responses the view shows now, in order."""
    texts = []
    for panel in view.display.turn_panels:
        texts.append(panel.prompt.source_text)
        if panel.reference is not None:
            texts.append("reference: " + panel.reference.source_text)
        texts += [f"response: {response.source_text}" for response in panel.responses]
    return texts


def press(
    qtbot: QtBot,
    view: QWidget,
    key: str | Qt.Key,
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    """Type ``key`` at the focused widget inside ``view`` (the view itself when none is), and
    wait until an answer it gave is saved (votes are written on a worker)."""
    focused = QApplication.focusWidget()
    target = focused if focused is not None and view.isAncestorOf(focused) else view
    qtbot.keyClick(target, key, modifier)
    saving = getattr(view, "busy", None)
    if isinstance(saving, bool):
        qtbot.waitUntil(lambda: getattr(view, "busy", False) is False, timeout=HANG_GUARD_MS)


def reachable_actions(window: QWidget) -> list[QAction]:
    """Every enabled action a user can reach in ``window``: through its visible menus (and
    their submenus) or by a shortcut of an action the window or one of its widgets holds."""
    found: list[QAction] = []

    def visit_menu(actions: list[QAction]) -> None:
        for action in actions:
            if not action.isVisible() or not action.isEnabled() or action in found:
                continue
            found.append(action)
            menu = action.menu()
            if menu is not None:
                assert isinstance(menu, QMenu)
                visit_menu(menu.actions())

    menu_bar = window.menuBar() if hasattr(window, "menuBar") else None
    if menu_bar is not None:
        visit_menu(menu_bar.actions())
    for action in window.findChildren(QAction):
        if action.isEnabled() and not action.shortcut().isEmpty() and action not in found:
            found.append(action)
    return found


def visible_top_level_strings() -> list[str]:
    """:func:`widget_strings` of every window and dialog on screen."""
    strings: list[str] = []
    for widget in QApplication.topLevelWidgets():
        if widget.isVisible():
            strings += widget_strings(widget, visible_only=True)
    return strings
