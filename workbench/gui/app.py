"""Start the app on a bundle, or render its main window offscreen to a PNG and exit.

``run_app`` is what ``workbench open`` and plain ``workbench`` call. With ``screenshot`` the
window is laid out at 1600x1000 on Qt's offscreen platform when there is no display, every
pending query and image decode is let finish, and the window is saved as an image.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, cast

from workbench.errors import WorkbenchError

if TYPE_CHECKING:  # imported where used, so that a start loads only what it needs
    from PySide6.QtWidgets import QApplication, QWidget

    from workbench.gui.annotation.annotator_window import AnnotatorWindow
    from workbench.gui.main_window import MainWindow
    from workbench.services.packs import PackInfo
    from workbench.storage import Bundle

log = logging.getLogger(__name__)

PANEL_PAGES = ("leaderboard", "graph", "agreement", "failures", "benchmark")
#: coordinator views of a campaign (``--campaign`` picks one, default the first)
CAMPAIGN_PAGES = ("monitor", "adjudicate")
PAGES = ("items", "annotate", "analysis", *PANEL_PAGES, *CAMPAIGN_PAGES)
SCREENSHOT_TIMEOUT_S = 30.0


def _has_display() -> bool:
    if sys.platform != "linux":
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _choose_platform(offscreen_allowed: bool, bundle_path: str | Path) -> None:
    """Use the offscreen platform for screenshots without a display; refuse to start a window
    without one (Qt would abort with a message about plugins instead). The refusal names the
    full command, since bare ``workbench`` has no --screenshot of its own."""
    if os.environ.get("QT_QPA_PLATFORM") or _has_display():
        return
    if offscreen_allowed:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    else:
        command = f"workbench open {shlex.quote(str(bundle_path))} --screenshot out.png"
        raise WorkbenchError(
            f"no display to show the window on; render it offscreen with `{command}`, "
            "or run under a desktop session"
        )


def install_qt_message_logging() -> None:
    """Send Qt's own warnings to the log file instead of the terminal."""
    # start-up: Qt loads only once a window is to be shown (the CLI imports this module)
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    qt_log = logging.getLogger("qt")
    levels = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        qt_log.log(levels.get(kind, logging.WARNING), "%s", message)

    qInstallMessageHandler(handler)


def _application() -> QApplication:
    # start-up: Qt and the app's Qt helpers load only once a window is to be shown
    from PySide6.QtWidgets import QApplication

    from workbench.gui.collector import install_idle_collector
    from workbench.gui.fonts import install_fallback_fonts
    from workbench.gui.resources import app_icon
    from workbench.gui.termination import close_on_termination
    from workbench.gui.tweaks import check_switches

    check_switches()
    # instance() is typed as the core application; in this process it is a QApplication (made
    # here, or by pytest-qt's qapp)
    app = cast("QApplication | None", QApplication.instance())
    if app is None:
        install_qt_message_logging()
        app = QApplication(sys.argv[:1])
        app.setApplicationName("VLM Workbench")
        app.setOrganizationName("vlm-workbench")
        install_fallback_fonts()
        install_idle_collector(app)  # full collections wait for an idle user
        close_on_termination(app)  # SIGTERM or SIGHUP: cancel the jobs and close, not die
    app.setWindowIcon(app_icon())
    return app


def wait_until_idle(
    window: MainWindow | AnnotatorWindow, timeout_s: float = SCREENSHOT_TIMEOUT_S
) -> bool:
    """Process events until the window has no query or image decode left (or time runs out)."""
    # start-up: Qt loads only once a window is to be shown (the CLI imports this module)
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout_s
    quiet_passes = 0
    while time.monotonic() < deadline:
        QApplication.processEvents()
        quiet_passes = quiet_passes + 1 if not window.is_busy() else 0
        if quiet_passes >= 3:
            return True
        time.sleep(0.01)
    return False


def render_window(window: QWidget, target: Path) -> None:
    """Save ``window`` as it is drawn now to ``target`` (PNG, or any format from the suffix)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(target)):
        raise WorkbenchError(f"cannot write the screenshot to {target}")


def screenshot_annotator(bundle: Bundle) -> str | None:
    """Whose view a screenshot shows when no annotator is named: the pack's annotator in an
    offline pack, else the first profile by handle, else None (a newcomer's view: the
    screenshot's bundle is open read-only, so no profile is added)."""
    # start-up: the campaign and pack services, only for a screenshot's annotator
    from workbench.services.campaigns import list_annotators
    from workbench.services.packs import pack_info

    pack = pack_info(bundle)
    if pack is not None:
        return pack.annotator
    profiles = list_annotators(bundle)
    return profiles[0].handle if profiles else None


def parse_size(text: str) -> tuple[int, int]:
    """``"1366x768"`` as (width, height); WorkbenchError for anything else."""
    width, _, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        raise WorkbenchError(f"--size takes WIDTHxHEIGHT, like 1366x768 (not {text!r})") from None
    if not (320 <= size[0] <= 10_000 and 240 <= size[1] <= 10_000):
        raise WorkbenchError(f"--size {text} is out of range (320x240 to 10000x10000)")
    return size


def _take_screenshot(
    window: MainWindow | AnnotatorWindow,
    screenshot: str | Path,
    size: tuple[int, int],
    shown: QWidget | None = None,
) -> int:
    """Render ``shown`` (the window, or a dialog of the page) once ``window`` is idle."""
    window.resize(*size)
    window.show()
    if shown is not None and shown.isWindow() and shown is not window:
        # a dialog as it would open on a screen of ``size``: as large as the screen allows
        from workbench.gui.screen_fit import SCREEN_SHARE

        shown.resize(*(int(side * SCREEN_SHARE) for side in size))
    if not wait_until_idle(window):
        log.warning("screenshot taken before every image was decoded")
    # Drawn once and settled again: a table sizes its rows to their wrapped text when first
    # drawn (the monitor's do), and the layout follows those heights only after that.
    (shown if shown is not None else window).grab()
    wait_until_idle(window)
    render_window(shown if shown is not None else window, Path(screenshot))
    window.close()
    return 0


def _is_pack(bundle_path: str | Path) -> bool:
    """Whether ``bundle_path`` is an offline pack file. A bundle file at the current schema is
    asked with plain sqlite3: opening it the usual way here as well would open it twice (and
    load SQLAlchemy) before the window shows; any other file is opened the usual way."""
    # start-up: the quick reader answers before SQLAlchemy loads
    from workbench.services.pack_marker import PACK_INFO_KEY
    from workbench.storage.fast_read import info_value

    found = info_value(bundle_path, PACK_INFO_KEY)
    if found is not None:
        return found.value is not None
    return _pack_of(bundle_path) is not None


def _pack_of(bundle_path: str | Path) -> PackInfo | None:
    """The pack's description when ``bundle_path`` is an offline pack file, else None."""
    # start-up: SQLAlchemy and the pack service, only when the quick reader cannot answer
    from workbench.services.packs import pack_info
    from workbench.storage import Bundle
    from workbench.storage.dialects import parse_location

    if parse_location(bundle_path).is_server:
        return None
    try:
        with Bundle.open(bundle_path, migrate=False) as bundle:
            return pack_info(bundle)
    except WorkbenchError:  # the main window reports why it cannot be opened
        return None


def run_annotator(
    bundle_path: str | Path,
    campaign: str | None = None,
    annotator: str | None = None,
    screenshot: str | Path | None = None,
    size: tuple[int, int] | None = None,
    ask_annotator: bool = False,
) -> int:
    """Open the annotator's window (the annotation page alone) on ``campaign`` as
    ``annotator``; in an offline pack both default to the pack's. With ``ask_annotator`` the
    start dialog asks first, ``campaign`` and ``annotator`` chosen in it (closing it opens
    nothing). With ``screenshot``, render it at ``size`` and exit."""
    # start-up: the pack and voting services and SQLAlchemy, only on the annotator's path
    from workbench.services.packs import pack_info
    from workbench.services.voting import AnnotationSession
    from workbench.storage import Bundle

    _choose_platform(screenshot is not None, bundle_path)
    preview = screenshot is not None  # a screenshot writes nothing: no profile, no lease
    bundle = Bundle.open(bundle_path, read_only=preview)
    if ask_annotator and not preview:
        chosen = ask_who_annotates(bundle, campaign, annotator)
        if chosen is None:
            bundle.close()
            return 0
        campaign, annotator = chosen
    try:
        pack = pack_info(bundle)
        campaign = campaign or (pack.campaign if pack is not None else None)
        if campaign is None:
            raise WorkbenchError("say which campaign to annotate: --campaign NAME")
        if annotator is None:
            if screenshot is not None:
                annotator = screenshot_annotator(bundle)
            elif pack is not None:
                annotator = pack.annotator
            else:
                raise WorkbenchError("say who annotates: --annotator HANDLE")
        session = AnnotationSession(bundle, campaign, annotator, preview=preview)
    except BaseException:
        bundle.close()
        raise
    app = _application()

    # start-up: the annotator window, only on the annotator's path
    from workbench.gui.annotation.annotator_window import WINDOW_SIZE, AnnotatorWindow
    from workbench.gui.event_loop import run_shared_loop

    window = AnnotatorWindow(bundle, session, location=bundle_path)
    if screenshot is not None:
        return _take_screenshot(window, screenshot, size or WINDOW_SIZE)
    window.show()
    _ended(run_shared_loop(app))


def ask_who_annotates(
    bundle: Bundle, campaign: str | None, annotator: str | None
) -> tuple[str, str] | None:
    """The start dialog, on its own before the annotator's window opens: (campaign,
    annotator) as accepted, or None when it was closed."""
    _application()
    # start-up: Qt and the start dialog, only on the annotator's path
    from PySide6.QtWidgets import QDialog

    from workbench.gui.annotation.start_dialog import StartAnnotatingDialog

    dialog = StartAnnotatingDialog(bundle, None, campaign, annotator)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    if dialog.campaign is None or dialog.annotator is None:
        return None
    return dialog.campaign, dialog.annotator


def resumable_session() -> tuple[str, str, str, str] | None:
    """(location, campaign, annotator, window) of the annotation session the app was closed
    in, when it can still be resumed (the bundle, campaign and profile exist); else None, and
    a session that cannot be resumed any more is forgotten."""
    # start-up: the voting service and SQLAlchemy, only when a session may be resumed
    from workbench.gui.settings import GuiSettings
    from workbench.recent import available
    from workbench.services.voting import AnnotationSession
    from workbench.storage import Bundle

    settings = GuiSettings()
    remembered = settings.annotation_session()
    if remembered is None:
        return None
    location, campaign, annotator, _window = remembered
    try:
        if not available(location):
            raise WorkbenchError(f"{location} is not there any more")
        with Bundle.open(location, read_only=True) as bundle:
            AnnotationSession(bundle, campaign, annotator, preview=True)
    except WorkbenchError as error:
        log.warning("cannot resume the annotation session: %s", error)
        settings.forget_annotation_session()
        return None
    return remembered


def resume_annotation() -> int | None:
    """Reopen the annotation session the app was closed in (plain ``workbench``), in the
    window it was in, asking who annotates (that session's annotator chosen at first); None
    when there is none to resume."""
    # start-up: the annotator window, only on the annotator's path
    from workbench.gui.annotation.annotator_window import ANNOTATOR_WINDOW

    remembered = resumable_session()
    if remembered is None:
        return None
    location, campaign, annotator, window = remembered
    # the remembered annotator is a default to confirm: whoever sits down now is asked
    if window == ANNOTATOR_WINDOW:
        return run_annotator(location, campaign, annotator, ask_annotator=True)
    return run_app(
        location, page="annotate", campaign=campaign, annotator=annotator, ask_annotator=True
    )


def _ended(status: int) -> NoReturn:
    """The event loop ended with ``status`` (the last window closed): the process ends now,
    without waiting for background readers (see :mod:`workbench.gui.termination`)."""
    # start-up: Qt's termination helpers, only when a window ran
    from workbench.gui.termination import exit_process

    exit_process(status)


def run_app(
    bundle_path: str | Path,
    screenshot: str | Path | None = None,
    page: str = "items",
    item: str | None = None,
    campaign: str | None = None,
    annotator: str | None = None,
    size: tuple[int, int] | None = None,
    ask_annotator: bool = False,
    just_created: bool = False,
) -> int:
    """Open the main window on ``bundle_path`` (a file path or a server URL); with
    ``screenshot``, render it to that file instead of running interactively. Returns the
    process exit status. ``just_created``: the bundle was written by this launch (the demo on
    first use), so it is not backed up on opening.

    ``page="annotate"`` starts annotating ``campaign`` as ``annotator`` (see
    :func:`screenshot_annotator` for the profile used when none is named), or with
    ``ask_annotator`` opens the start dialog with both chosen. An offline pack opens in the
    annotator's window (:func:`run_annotator`)."""
    if page not in PAGES:
        raise WorkbenchError(f"unknown page {page!r} (pages: {', '.join(PAGES)})")
    if page == "annotate" and campaign is None:
        raise WorkbenchError("--page annotate needs --campaign NAME")
    if page in ("items", "annotate") and item is None and _is_pack(bundle_path):
        return run_annotator(bundle_path, campaign, annotator, screenshot, size, ask_annotator)
    _choose_platform(screenshot is not None, bundle_path)
    app = _application()

    # start-up: the main window and its event loop, only on the main window's path
    from workbench.gui.event_loop import (
        favour_the_event_loop,
        prepare_judge_runtime_in_background,
        run_shared_loop,
    )
    from workbench.gui.first_paint import when_items_painted
    from workbench.gui.locations import display_location
    from workbench.gui.main_window import WINDOW_SIZE, MainWindow

    favour_the_event_loop()
    window = MainWindow(
        persist_layout=screenshot is None,
        read_only=screenshot is not None,
        auto_backup=False if just_created else None,
    )
    shown: QWidget = window  # what a screenshot renders: the window, or a dialog of the page

    def start_judge_preparation() -> None:
        if screenshot is None:
            prepare_judge_runtime_in_background()

    try:
        window.open_bundle(bundle_path)
        if item is not None and not window.go_to_item(item):
            raise WorkbenchError(f"no item {item!r} in {display_location(bundle_path)}")
        if page == "annotate" and campaign is not None:
            assert window.bundle is not None
            handle = annotator or (screenshot_annotator(window.bundle) if screenshot else None)
            if ask_annotator and screenshot is None:  # over the window, once it is shown
                # start-up: the CLI imports this module, so Qt is imported only inside its functions
                from PySide6.QtCore import QTimer

                annotation = window.annotation
                QTimer.singleShot(0, lambda: annotation.show_start_dialog(campaign, handle))
            else:
                window.annotation.start(campaign, handle)
        if page == "monitor":
            window.campaign_ops.show_monitor(campaign)
        elif page == "adjudicate":
            shown = window.campaign_ops.show_adjudication(campaign)
        if page == "items" and window.item_list.judgment_total:
            page = "leaderboard"  # judgments without items: the page that shows them
        if page == "analysis":
            window.analysis.show_all()
        elif page in PANEL_PAGES:
            window.analysis.show_panel(page)
    except WorkbenchError as error:
        if screenshot is not None:
            print(f"workbench: {error}", file=sys.stderr)
            window.close()
            return 1
        window.show()
        window.report_open_failure(error)
        _ended(run_shared_loop(app))

    # the judge's HTTP stack loads once the first items are on screen, not before
    when_items_painted(window.item_list.ui.itemTable, lambda _at: start_judge_preparation())
    if screenshot is None:
        window.show()
        _ended(run_shared_loop(app))

    return _take_screenshot(window, screenshot, size or WINDOW_SIZE, shown)
