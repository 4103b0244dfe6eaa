"""The main window: the item list in a dock on the left, the item view in the centre, menus,
and the shared selection both follow. Later panels (leaderboard, graph, agreement) dock into the
same window and follow :attr:`MainWindow.selection`.

A bundle is a file or a database on a server (File > Open server bundle…). A damaged file is
met with an offer to restore its latest backup; a healthy one is backed up on a worker at most
once a day."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from workbench.errors import WorkbenchError
from workbench.gui.annotation.annotation_page import ANNOTATE_PAGE, ITEMS_PAGE, AnnotationPage
from workbench.gui.background import BackgroundRunner
from workbench.gui.backup_settings_dialog import announce_first_backup, describe_size
from workbench.gui.campaign_ops.actions import CampaignOps
from workbench.gui.forms.ui_main_window import Ui_MainWindow
from workbench.gui.help_dialogs import ShortcutsDialog, show_about
from workbench.gui.image_loader import ImageLoader
from workbench.gui.import_dialog import ImportDialog
from workbench.gui.item_list_panel import ItemListPanel
from workbench.gui.item_view import ItemView
from workbench.gui.jobs import Access, Job, JobControl, JobManager, JobStatus
from workbench.gui.jobs_view import JobsDialog, JobsIndicator
from workbench.gui.linked_selection import LinkedSelection
from workbench.gui.locations import display_location, same_bundle
from workbench.gui.panels import AnalysisDocks
from workbench.gui.panels.docks import in_scroll_area
from workbench.gui.plain_text import menu_text, plain_tooltip
from workbench.gui.problem_dialog import show_problem
from workbench.gui.report_dialog import ReportMenuEntry
from workbench.gui.resources import app_icon
from workbench.gui.restore_dialog import DamagedBundleDialog
from workbench.gui.screen_fit import resize_within_screen
from workbench.gui.server_dialog import ServerDialog
from workbench.gui.settings import GuiSettings
from workbench.gui.tool_actions import ToolActions
from workbench.recent import available, recent_locations, remember_location
from workbench.recent import is_server_location as is_server
from workbench.services.browse import SQL_FLAGS, BundleBrowser, FilterChoices, ItemFlag
from workbench.services.maintenance import automatic_backup
from workbench.storage import Bundle
from workbench.storage.errors import BundleDamagedError

log = logging.getLogger(__name__)

WINDOW_SIZE = (1600, 1000)
#: asked to end (SIGTERM), how long the window waits for its cancelled jobs to stop before it
#: closes without them, within the 2 s the app has to be gone
END_DEADLINE_MS = 1_500
ITEM_LIST_WIDTH = 700
#: the extra keys of actions whose main shortcut the .ui file cannot hold (a second one)
EXTRA_KEYS = {
    "nextAction": ("Ctrl+Down", "N"),
    "previousAction": ("Ctrl+Up", "P"),
}


class MainWindow(QMainWindow):
    """``persist_layout``: save the layout on close (the user's own session, not a test or a
    screenshot). ``auto_backup``: back up bundle files when opened (default: the same).
    ``read_only``: open bundles read-only and remember none (a screenshot writes nothing)."""

    def __init__(
        self,
        *,
        persist_layout: bool = True,
        auto_backup: bool | None = None,
        read_only: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.ui = Ui_MainWindow()
        self.ui.setupUi(self)
        self.setWindowIcon(app_icon())
        resize_within_screen(self, *WINDOW_SIZE)
        self.settings = GuiSettings()
        self.bundle: Bundle | None = None
        #: where the open bundle was opened from; a server URL here may hold a password the
        #: user gave for this session only, so it is never shown, stored or logged
        self.location: str | Path | None = None
        self.browser: BundleBrowser | None = None
        self.auto_backup = persist_layout if auto_backup is None else auto_backup
        self.read_only = read_only
        self.connecting = False  # a bundle is being opened on a worker
        self.server_dialog: ServerDialog | None = None
        self.damaged_dialog: DamagedBundleDialog | None = None
        self.restored_box: QMessageBox | None = None
        #: every long piece of work the user starts (imports, exports, reports, judge runs,
        #: backups): one place shows it and can cancel it
        self.jobs = JobManager(self)
        self.jobs_dialog: JobsDialog | None = None
        self.stop_jobs_box: QMessageBox | None = None
        self._close_when_idle = False
        #: asked to end and its jobs did not stop in time: close without them
        self._closing_despite_jobs = False
        #: the one-time note about where the first automatic backup went (for tests)
        self.first_backup_note: QMessageBox | None = None
        self.selection = LinkedSelection(self)
        self.runner = BackgroundRunner(parent=self)
        self.loader = ImageLoader(self._image_bytes, parent=self)
        self.import_dialog: ImportDialog | None = None

        ui = self.ui
        ui.rawTextAction.setChecked(self.settings.raw_text())
        self.item_view = ItemView(self.selection, self.loader, ui.rawTextAction, self)
        self.item_view.chosen_models = self.settings.chosen_models()
        ui.centralLayout.addWidget(self.item_view)

        self.item_list = ItemListPanel(self.selection, self.runner, self)
        self.item_dock = QDockWidget("Items", self)
        self.item_dock.setObjectName("itemListDock")
        # in a scroll area, so that on a short screen (1366x768 at 1.5x) the analysis docks
        # below can take the height: the list's filters alone are nearly 200 px tall
        # (only down: it keeps its least width, so a dock beside it never cuts its columns)
        item_area = in_scroll_area(self.item_list)
        item_area.setMinimumWidth(
            self.item_list.minimumSizeHint().width()
            + item_area.verticalScrollBar().sizeHint().width()
        )
        self.item_dock.setWidget(item_area)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.item_dock)
        ui.viewMenu.insertAction(ui.resetLayoutAction, self.item_dock.toggleViewAction())
        self.analysis = AnalysisDocks(self, self.selection, ui.viewMenu, ui.resetLayoutAction)
        self.analysis.watcher.pollFailed.connect(self._lost_contact)
        self.analysis.watcher.pollRecovered.connect(self._contact_back)

        self.annotation = AnnotationPage(self)
        # a vote cast here reaches the panels at once; other writers through the watcher's poll
        self.annotation.view.judgmentsWritten.connect(self.analysis.judgments_written)
        self.campaign_ops = CampaignOps(self)

        self._connect_actions()
        self.jobs_indicator = JobsIndicator(self.jobs, self.show_jobs, self, self.annotating)
        self.statusBar().addPermanentWidget(self.jobs_indicator)
        self.jobs.jobsChanged.connect(self._jobs_changed)
        self.tools = ToolActions(self)
        self.report_entry = ReportMenuEntry(self)  # File > Export report…
        self._default_state = self.saveState()
        self.persist_layout = persist_layout
        self._layout_restored = persist_layout and self._restore_layout()

        self.selection.itemChanged.connect(self._show_item)
        self.item_list.idsApplied.connect(self._ids_applied)
        self.item_list.searchChanged.connect(self.item_view.set_highlight)
        self.item_view.chosenModelsChanged.connect(self.settings.set_chosen_models)
        ui.rawTextAction.toggled.connect(self.settings.set_raw_text)
        self._update_title()

    # --- actions --------------------------------------------------------------------------------

    def _connect_actions(self) -> None:
        ui = self.ui
        for name, keys in EXTRA_KEYS.items():
            getattr(ui, name).setShortcuts([QKeySequence(key) for key in keys])
        self.open_server_action = QAction("Open &server bundle…", self)
        self.open_server_action.setObjectName("openServerAction")
        self.open_server_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.open_server_action.setStatusTip("Open a bundle kept on a PostgreSQL server")
        ui.fileMenu.insertAction(ui.recentMenu.menuAction(), self.open_server_action)
        self.jobs_action = QAction("&Jobs…", self)
        self.jobs_action.setObjectName("jobsAction")
        self.jobs_action.setShortcut(QKeySequence("Ctrl+Shift+B"))
        self.jobs_action.setStatusTip("Running and finished imports, exports, reports and runs")
        ui.viewMenu.insertAction(ui.resetLayoutAction, self.jobs_action)
        for action in self.actions_with_shortcuts():
            shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{action.toolTip()} ({shortcut})")
            self.addAction(action)  # shortcuts work even when a dock has focus
        self.open_server_action.triggered.connect(self.choose_server_bundle)
        self.jobs_action.triggered.connect(self.show_jobs)
        ui.openAction.triggered.connect(self.choose_bundle)
        ui.importAction.triggered.connect(self.show_import_dialog)
        ui.quitAction.triggered.connect(self.close)
        ui.nextAction.triggered.connect(lambda: self.step(1))
        ui.previousAction.triggered.connect(lambda: self.step(-1))
        ui.goToItemAction.triggered.connect(self.ask_item)
        ui.findAction.triggered.connect(self.item_list.focus_search)
        ui.resetLayoutAction.triggered.connect(self.reset_layout)
        ui.shortcutsAction.triggered.connect(self.show_shortcuts)
        ui.aboutAction.triggered.connect(lambda: show_about(self))
        ui.recentMenu.aboutToShow.connect(self._fill_recent_menu)

    def actions_with_shortcuts(self) -> list[QAction]:
        ui = self.ui
        return [
            ui.openAction,
            self.open_server_action,
            ui.importAction,
            ui.quitAction,
            ui.previousAction,
            ui.nextAction,
            ui.goToItemAction,
            ui.findAction,
            ui.rawTextAction,
            self.jobs_action,
            ui.shortcutsAction,
        ]

    def _fill_recent_menu(self) -> None:
        menu = self.ui.recentMenu
        menu.clear()
        locations = [location for location in recent_locations() if available(location)]
        for location in locations:
            server = is_server(location)
            action = menu.addAction(menu_text(location if server else Path(location).name))
            action.setToolTip(plain_tooltip(location))
            action.setStatusTip(location)  # the status bar shows plain text
            if server:  # connecting may take seconds: on a worker
                action.triggered.connect(
                    lambda _checked=False, url=location: self.open_in_background(url)
                )
            else:
                action.triggered.connect(
                    lambda _checked=False, p=Path(location): self.open_bundle_reporting(p)
                )
        if not locations:
            menu.addAction("No recent bundles").setEnabled(False)

    # --- bundles --------------------------------------------------------------------------------

    def open_bundle(self, location: str | Path) -> None:
        """Show the bundle at ``location`` (a file path or a server URL); raises WorkbenchError
        if it cannot be opened (the bundle shown before stays open then)."""
        self._show_bundle(location, *self._load(location, self.read_only))

    @staticmethod
    def _load(
        location: str | Path, read_only: bool = False
    ) -> tuple[Bundle, BundleBrowser, FilterChoices]:
        """Open the bundle and read what the item list offers (any thread)."""
        bundle = Bundle.open(location, read_only=read_only)
        try:
            browser = BundleBrowser(bundle)
            choices = browser.filter_choices()
        except Exception:
            bundle.close()
            raise
        return bundle, browser, choices

    def open_in_background(self, location: str | Path) -> None:
        """:meth:`open_bundle` with the connecting done on a worker (a server that does not
        answer takes seconds to time out); a failure is shown as by
        :meth:`open_bundle_reporting`."""
        self.connecting = True
        self.statusBar().showMessage(f"Connecting to {display_location(location)}…")
        self.runner.run(
            lambda: self._load(location, self.read_only),
            lambda loaded: self._loaded(location, loaded),
            self._load_failed,
        )

    def _loaded(
        self, location: str | Path, loaded: tuple[Bundle, BundleBrowser, FilterChoices]
    ) -> None:
        self.connecting = False
        try:
            self._show_bundle(location, *loaded)
        except WorkbenchError as error:
            self.report_open_failure(error)

    def _load_failed(self, error: BaseException) -> None:
        self.connecting = False
        self._update_title()
        if isinstance(error, WorkbenchError):
            self.report_open_failure(error)
        else:
            log.error("opening a bundle failed", exc_info=error)
            self.show_error("Cannot open the bundle", str(error) or type(error).__name__)

    def _show_bundle(
        self,
        location: str | Path,
        bundle: Bundle,
        browser: BundleBrowser,
        choices: FilterChoices,
    ) -> None:
        self._close_bundle()
        self.bundle, self.browser, self.location = bundle, browser, location
        if not self.read_only:
            remember_location(bundle.path if bundle.path is not None else str(location))
        self.item_view.set_available_models(choices.models)
        self.item_list.set_browser(browser, choices)
        self.analysis.set_bundle(bundle)
        if self.item_list.judgment_total:  # judgments without items: the leaderboard shows them
            self.analysis.show_panel("leaderboard")
        self._update_title()
        if bundle.path is not None and self.auto_backup:
            self.back_up_in_background(bundle.path)

    def open_bundle_reporting(self, location: str | Path) -> bool:
        """:meth:`open_bundle`, with a failure shown in a message box (for a damaged file, the
        offer to restore its backup)."""
        try:
            self.open_bundle(location)
        except WorkbenchError as error:
            self.report_open_failure(error)
            return False
        return True

    def report_open_failure(self, error: WorkbenchError) -> QWidget:
        """Show why a bundle did not open: the restore dialog for a damaged file, else a
        message box."""
        if isinstance(error, BundleDamagedError):
            return self.show_damaged(error)
        return self.show_error("Cannot open the bundle", str(error))

    def show_damaged(self, error: BundleDamagedError) -> DamagedBundleDialog:
        dialog = DamagedBundleDialog(error, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.restored.connect(self._restored)
        dialog.destroyed.connect(lambda: setattr(self, "damaged_dialog", None))
        self.damaged_dialog = dialog
        dialog.open()
        return dialog

    def _restored(self, path: Path, aside: Path | None) -> None:
        if not self.open_bundle_reporting(path):
            return
        moved = f"The damaged file was moved to:\n{aside}" if aside else ""
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "Backup restored",
            f"{path.name} was restored from its backup and is open.\n\n{moved}".strip(),
            parent=self,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.open()
        self.restored_box = box
        where = f"; the damaged file is {aside}" if aside else ""
        self.statusBar().showMessage(f"Restored {path} from its backup{where}.")

    def choose_server_bundle(self) -> ServerDialog:
        """Ask for a server bundle's URL (and password), then open it."""
        last = next((entry for entry in recent_locations() if is_server(entry)), "")
        dialog = ServerDialog(last, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._open_from_server_dialog(dialog))
        dialog.destroyed.connect(lambda: setattr(self, "server_dialog", None))
        self.server_dialog = dialog
        dialog.open()
        return dialog

    def _open_from_server_dialog(self, dialog: ServerDialog) -> None:
        if dialog.location is not None:
            self.open_in_background(dialog.location)

    # --- automatic backups and live contact -----------------------------------------------------

    def back_up_in_background(self, path: Path) -> None:
        """Make the day's automatic backup of ``path`` on a worker, if one is due."""

        def work(control: JobControl) -> tuple[Path | None, int]:
            # cancelled, the copy is interrupted and leaves no backup file; none is pruned
            return automatic_backup(
                path,
                progress=control.reporter({"copying": "Copying the bundle…"}),
                cancel_requested=control.cancelled,
            )

        # a backup reads the bundle (VACUUM INTO a snapshot): it never waits behind an export
        job = self.jobs.submit(
            f"Automatic backup of {path.name}", "Backup", work, access=Access.READ
        )
        job.finished.connect(lambda: self._backup_ended(path, job))

    def _backup_ended(self, path: Path, job: Job) -> None:
        if job.status is JobStatus.CANCELLED:
            self.statusBar().showMessage(
                f"The automatic backup of {path.name} was cancelled; no backup file was left.",
                10_000,
            )
        elif job.status is JobStatus.FAILED:
            self._backup_failed(path, job.error)
        elif job.result[0] is None:
            # none was due (one a day at most): a check that did nothing is not listed
            self.jobs.forget(job)
        else:
            self._backed_up(job.result)
            job.set_outcome(f"Backed up to {job.result[0]}.")

    def _backed_up(self, result: tuple[Path | None, int]) -> None:
        backup, total = result
        if backup is not None:
            log.info("automatic backup written to %s", backup)
            self.statusBar().showMessage(
                f"Automatic backup written to {backup} ({describe_size(backup.stat().st_size)}; "
                f"all backups of this bundle: {describe_size(total)}; Settings > Backups…)",
                10_000,
            )
            self.first_backup_note = announce_first_backup(self, backup, total)

    def _backup_failed(self, path: Path, error: str) -> None:
        log.warning("the automatic backup of %s failed: %s", path, error)
        self.statusBar().showMessage(f"The automatic backup of {path.name} failed: {error}", 10_000)

    def _lost_contact(self, message: str) -> None:
        where = self.bundle.location if self.bundle is not None else "the bundle"
        self.statusBar().showMessage(f"Cannot reach {where} ({message}); retrying…")

    def _contact_back(self) -> None:
        if self.bundle is not None:
            self.statusBar().showMessage(f"{self.bundle.location} answers again.", 5000)

    def choose_bundle(self) -> None:
        name, _ = QFileDialog.getOpenFileName(
            self, "Open bundle", "", "Bundles (*.wbb);;All files (*)"
        )
        if name:
            self.open_bundle_reporting(Path(name))

    def reload_bundle(self) -> None:
        if self.bundle is not None and self.location is not None:
            current = self.selection.item_id
            self.open_bundle_reporting(self.location)
            self.selection.set_item(current)

    def _close_bundle(self, *, wait_for_reads: bool = True) -> None:
        """Close the open bundle. Before another is shown, the window's reads of this one (item
        queries, disagreement flags, image fetches) are let finish; a closing window
        (``wait_for_reads`` off) leaves them: they only read, their results are dropped (each
        checks that its browser is still shown), the engine's disposal leaves a connection in
        use to its reader, and after the last window the process ends without them."""
        self.annotation.end()
        if wait_for_reads:
            self.runner.wait()
            self.loader.clear()
        else:
            self.loader.forget()
        self.selection.set_item(None)
        self.selection.set_model_pair(None)  # another bundle may not have these models
        self.item_list.set_browser(None, None)
        self.analysis.set_bundle(None)
        if self.bundle is not None:
            self.bundle.close()
        self.bundle = self.browser = None
        self.location = None

    def _image_bytes(self, image_id: int) -> bytes | None:
        browser = self.browser
        return browser.image_bytes(image_id) if browser is not None else None

    def _update_title(self) -> None:
        if self.annotation.page == ANNOTATE_PAGE:
            self.annotation.update_title()
        elif self.bundle is None:
            self.setWindowTitle("VLM Workbench")
            self.statusBar().showMessage("No bundle open: File > Open bundle or File > Import.")
        else:
            bundle = self.bundle
            name = bundle.path.name if bundle.path is not None else bundle.location
            self.setWindowTitle(f"{name} — VLM Workbench")
            self.statusBar().showMessage(bundle.location)

    # --- items ----------------------------------------------------------------------------------

    def _ids_applied(self) -> None:
        ids = self.item_list.model.ids
        if ids and self.item_list.model.position_of(self.selection.item_id or -1) is None:
            self.selection.set_item(ids[0])

    def _show_item(self, item_id: int | None) -> None:
        browser = self.browser
        detail = (
            browser.item_detail(item_id, SQL_FLAGS) if browser and item_id is not None else None
        )
        self.item_view.show_item(detail)
        if detail is not None:
            self._prefetch_after(detail.id)
            if detail.judgments:  # the disagreement flag needs the statistics stack: a worker
                shown = detail.id
                self.item_list.after_first_paint(lambda: self._read_disagreement(shown))

    def _read_disagreement(self, item_id: int) -> None:
        browser = self.browser
        if browser is None:
            return

        def show(flagged: set[int]) -> None:
            if browser is self.browser and item_id in flagged:
                self.item_view.add_flag(item_id, ItemFlag.DISAGREEMENT)

        self.runner.run(lambda: browser.flagged_items(ItemFlag.DISAGREEMENT, [item_id]), show)

    def _prefetch_after(self, item_id: int) -> None:
        """Decode the next item's images while the user looks at this one."""
        following = self.item_list.neighbour(1)
        browser = self.browser
        if following is None or browser is None or following == item_id:
            return
        self.runner.run(
            lambda: browser.item_image_ids(following), self.loader.prefetch, kind="Read ahead"
        )

    def step(self, direction: int) -> None:
        target = self.item_list.neighbour(direction)
        if target is not None:
            self.selection.set_item(target)

    def go_to_item(self, text: str) -> bool:
        """Show the item named ``text`` (external id, source/id, or row id)."""
        if self.browser is None:
            return False
        item_id = self.browser.find_item(text)
        if item_id is None:
            self.statusBar().showMessage(f"No item {text!r} in this bundle.", 5000)
            return False
        self.selection.set_item(item_id)
        if not self.item_list.querying and self.item_list.model.position_of(item_id) is None:
            self.statusBar().showMessage(
                f"Item {text!r} is shown, but the list's filters hide it.", 5000
            )
        return True

    def ask_item(self) -> None:
        text, accepted = QInputDialog.getText(
            self, "Go to item", "Item id (as in the benchmark, source/id, or row number):"
        )
        if accepted and text.strip():
            self.go_to_item(text)

    def is_busy(self) -> bool:
        """Whether a query, an image decode or a pending item list update is still running."""
        return (
            self.item_list.querying
            or self.runner.busy
            or self.loader.pending > 0
            or self.item_view.images.loading()
            or self.analysis.busy
            or self.jobs.busy
            or self.connecting
            or self.annotation.view.busy
            or self.campaign_ops.monitor.reading
        )

    # --- dialogs and layout ---------------------------------------------------------------------

    def show_import_dialog(self) -> ImportDialog:
        if self.import_dialog is None:
            self.import_dialog = ImportDialog(self.location, self)
            self.import_dialog.imported.connect(self._imported)
        self.import_dialog.show()
        self.import_dialog.raise_()
        return self.import_dialog

    def _imported(self, location: str | Path) -> None:
        if self._close_when_idle:  # an import that landed as the window closes: not reopened
            return
        if self.location is not None and same_bundle(location, self.location):
            self.reload_bundle()
        else:
            self.open_bundle_reporting(location)

    def annotating(self) -> bool:
        """Whether the window is in annotator mode (the jobs list then names no file)."""
        return self.annotation.page == ANNOTATE_PAGE

    def show_jobs(self) -> JobsDialog:
        if self.jobs_dialog is None:
            self.jobs_dialog = JobsDialog(self.jobs, self, self.annotating)
        self.jobs_dialog.refresh()
        self.jobs_dialog.show()
        self.jobs_dialog.raise_()
        return self.jobs_dialog

    def _jobs_changed(self) -> None:
        if self._close_when_idle and not self.jobs.busy:
            self.close()

    def ask_to_stop_jobs(self) -> QMessageBox:
        """Closing with work running: cancel it and close once it stopped, or keep going."""
        active = self.jobs.active()
        kinds = ", ".join(sorted({job.kind.lower() for job in active}))
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Jobs are running",
            f"{len(active)} job(s) still running ({kinds}). Cancel them and close?\n\n"
            "A cancelled import, export or report changes nothing; a judge run keeps the "
            "answers it already has. A backup is let finish.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        yes = box.button(QMessageBox.StandardButton.Yes)
        box.buttonClicked.connect(
            lambda button: self._stop_jobs_and_close() if button is yes else None
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.destroyed.connect(lambda: setattr(self, "stop_jobs_box", None))
        self.stop_jobs_box = box
        box.open()
        return box

    def close_cancelling_jobs(self) -> None:
        """Close without asking, as after Yes to "Cancel them and close?": running jobs are
        cancelled and the window closes once they stopped, or after ``END_DEADLINE_MS`` if one
        does not stop (the app was asked to end, and must)."""
        if self.jobs.busy:
            self._stop_jobs_and_close()
            QTimer.singleShot(END_DEADLINE_MS, self._close_despite_jobs)
        else:
            self.close()

    def _close_despite_jobs(self) -> None:
        """A job that did not stop when the app was asked to end (a judge run whose start is
        stuck in a thread never reaches its cancel) does not keep it alive: the window closes,
        the process ends with it (gui.termination), and SQLite rolls back what the job had not
        committed, as after a kill."""
        if not self.isVisible() or not self.jobs.busy:
            return
        kinds = ", ".join(sorted({job.kind.lower() for job in self.jobs.active()}))
        log.warning("closing with jobs that did not stop after cancelling: %s", kinds)
        self._closing_despite_jobs = True
        self.close()

    def _stop_jobs_and_close(self) -> None:
        self._close_when_idle = True
        self.jobs.cancel_all()
        self.statusBar().showMessage("Stopping the running jobs, then closing…")
        self._jobs_changed()

    def show_shortcuts(self) -> ShortcutsDialog | None:
        if self.annotation.page == ANNOTATE_PAGE:
            self.annotation.view.toggle_help()  # the annotation keys, not the inspector's
            return None
        dialog = ShortcutsDialog(self.actions_with_shortcuts(), self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def show_error(self, title: str, message: str, details: str = "") -> QMessageBox:
        return show_problem(self, title, message, details, QMessageBox.Icon.Critical)

    def reset_layout(self) -> None:
        self.restoreState(self._default_state)
        self.item_dock.show()
        self.resizeDocks([self.item_dock], [ITEM_LIST_WIDTH], Qt.Orientation.Horizontal)

    def _restore_layout(self) -> bool:
        geometry, state = self.settings.window_geometry(), self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)
        return state is not None and self.restoreState(state)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._layout_restored:
            # dock sizes only take once the window is laid out, so the default is set here
            self._layout_restored = True
            self.resizeDocks([self.item_dock], [ITEM_LIST_WIDTH], Qt.Orientation.Horizontal)

    def save_layout(self) -> None:
        self.settings.save_window(QByteArray(self.saveGeometry()), QByteArray(self.saveState()))

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.jobs.busy and not self._closing_despite_jobs:
            event.ignore()
            if self.stop_jobs_box is None and not self._close_when_idle:
                self.ask_to_stop_jobs()
            return
        if self.persist_layout:
            self.annotation.show_page(ITEMS_PAGE)  # the inspector's layout is what is saved
            self.save_layout()
            self.settings.sync()
        self.analysis.stop_panel_computations()  # closing does not wait for a panel nobody will see
        self._close_bundle(wait_for_reads=False)
        super().closeEvent(event)
