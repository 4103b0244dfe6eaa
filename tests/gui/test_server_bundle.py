"""Server bundles in the GUI: the Open server bundle dialog (password kept or remembered, never
written), the window on a PostgreSQL bundle (title, recent list, dialogs without a file path),
live refresh from the server, and polls that run off the GUI thread one at a time."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox
from pytest import MonkeyPatch, TempPathFactory
from pytestqt.qtbot import QtBot
from sqlalchemy.engine import make_url

from tests.backends import PostgresBackend, postgres_admin_url
from tests.gui.panel_bundle import _item, _vote, panel_lines, write_jsonl
from tests.keyrings import MemoryKeyring
from tests.patience import HANG_GUARD_MS
from workbench.gui.panels import watcher as watcher_module
from workbench.gui.panels.watcher import SERVER_POLL_INTERVAL_MS, JudgmentWatcher
from workbench.gui.server_dialog import ServerDialog
from workbench.recent import recent_locations
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.credentials import KEYRING_SERVICE, keyring_username

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow


pytestmark = pytest.mark.gui

SECRET = "correct-horse-battery-staple"


def files_under(folder: Path) -> str:
    """Every readable byte under ``folder``, as text, to search for a secret."""
    return "".join(
        path.read_bytes().decode("utf-8", "replace") for path in folder.rglob("*") if path.is_file()
    )


def test_recent_entries_are_locations_without_passwords(
    tmp_path: Path, isolated_home: Path
) -> None:
    from workbench.recent import is_server_location, most_recent_location, remember_location

    bundle = tmp_path / "local.wbb"
    bundle.write_bytes(b"")
    remember_location(bundle)
    remember_location(f"postgresql://ana:{SECRET}@db.example:5433/lab?sslmode=require")
    assert recent_locations() == [
        "postgresql://ana@db.example:5433/lab?sslmode=require",
        str(bundle.resolve()),
    ]
    assert most_recent_location() == recent_locations()[0]
    assert SECRET not in files_under(isolated_home)
    assert is_server_location("postgres://db/lab") and not is_server_location(str(bundle))
    assert not is_server_location("sqlite:///x.wbb") and not is_server_location(bundle)


# --- the dialog ---------------------------------------------------------------------------------


def test_dialog_refuses_what_is_not_a_server_url(qtbot: QtBot) -> None:
    dialog = ServerDialog("/tmp/some.wbb")
    qtbot.addWidget(dialog)
    dialog.accept()
    assert dialog.location is None and dialog.result() == 0
    assert "postgresql://" in dialog.problem_label.text()


def test_a_password_not_remembered_stays_in_memory(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    dialog = ServerDialog("postgresql://ana@db.example:5433/lab")
    qtbot.addWidget(dialog)
    assert not dialog.remember_box.isEnabled()
    dialog.password_edit.setText(SECRET)
    assert dialog.remember_box.isEnabled()
    dialog.accept()
    assert dialog.location is not None
    assert make_url(dialog.location).password == SECRET
    assert memory_keyring.passwords == {}


def test_a_remembered_password_goes_to_the_keyring_only(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    url = "postgresql://ana@db.example:5433/lab"
    dialog = ServerDialog(url)
    qtbot.addWidget(dialog)
    dialog.password_edit.setText(SECRET)
    dialog.remember_box.setChecked(True)
    dialog.accept()
    assert dialog.location == url  # Bundle.open finds the password in the keyring
    assert memory_keyring.passwords == {(KEYRING_SERVICE, keyring_username(url)): SECRET}


def test_without_a_keyring_the_dialog_says_so_and_stays_open(
    qtbot: QtBot, no_keyring: None
) -> None:
    dialog = ServerDialog("postgresql://ana@db.example/lab")
    qtbot.addWidget(dialog)
    dialog.password_edit.setText(SECRET)
    dialog.remember_box.setChecked(True)
    dialog.accept()
    assert dialog.location is None
    assert "no system keyring" in dialog.problem_label.text()


def test_an_unreachable_server_is_one_message(qtbot: QtBot) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.show()
    dialog = window.choose_server_bundle()
    # a port nothing listens on: the connection is refused at once
    dialog.url_edit.setText("postgresql://nobody@127.0.0.1:9/none")
    dialog.accept()
    assert window.connecting  # on a worker: the window is not blocked meanwhile
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    (box,) = window.findChildren(QMessageBox)
    assert box.isVisible() and "127.0.0.1" in box.text()
    assert "Traceback" not in box.text() and "\n" not in box.text().strip()
    assert window.bundle is None and window.windowTitle() == "VLM Workbench"
    box.close()


# --- watching: off the GUI thread, one poll at a time ------------------------------------------


def test_polls_never_overlap_and_failures_are_reported_once(
    qtbot: QtBot, monkeypatch: MonkeyPatch, sample_bundle: Path
) -> None:
    running, most, calls = 0, 0, 0
    guard = threading.Lock()
    failing = threading.Event()
    gui_thread = threading.get_ident()
    threads: set[int] = set()

    def slow_activity(bundle: Bundle) -> tuple[int, ...]:
        nonlocal running, most, calls
        threads.add(threading.get_ident())
        with guard:
            running += 1
            calls += 1
            most = max(most, running)
        time.sleep(0.15)  # longer than the interval: a naive timer would pile polls up
        with guard:
            running -= 1
        if failing.is_set():
            raise OSError("server closed the connection unexpectedly\nmore detail")
        return (calls,)

    watcher = JudgmentWatcher()
    failures: list[str] = []
    recoveries: list[bool] = []
    watcher.pollFailed.connect(failures.append)
    watcher.pollRecovered.connect(lambda: recoveries.append(True))
    with Bundle.open(sample_bundle) as bundle:
        monkeypatch.setattr(watcher_module, "judgment_activity", slow_activity)
        watcher.set_bundle(bundle)  # the baseline is read by the first poll, on the worker
        threads.clear()
        watcher.timer.setInterval(10)
        qtbot.waitUntil(lambda: watcher.polls >= 4, timeout=HANG_GUARD_MS)
        assert most == 1
        assert threads and gui_thread not in threads
        failing.set()
        qtbot.waitUntil(lambda: watcher.failing, timeout=HANG_GUARD_MS)
        polls = watcher.polls
        qtbot.waitUntil(lambda: watcher.polls >= polls + 3, timeout=HANG_GUARD_MS)  # still retrying
        assert failures == ["server closed the connection unexpectedly"]  # once, first line
        failing.clear()
        qtbot.waitUntil(lambda: not watcher.failing, timeout=HANG_GUARD_MS)
        assert recoveries == [True]
        watcher.set_bundle(None)
    assert most == 1


def test_a_failing_poll_shows_in_the_status_bar_without_a_dialog(
    qtbot: QtBot, monkeypatch: MonkeyPatch, open_window: MainWindow
) -> None:
    watcher = open_window.analysis.watcher

    def refuse(bundle: Bundle) -> tuple[int, ...]:
        raise OSError("could not connect to server")

    monkeypatch.setattr(watcher_module, "judgment_activity", refuse)
    watcher.timer.setInterval(10)
    polls = watcher.polls
    qtbot.waitUntil(lambda: watcher.polls >= polls + 3, timeout=HANG_GUARD_MS)
    message = open_window.statusBar().currentMessage()
    assert "could not connect to server" in message and "retrying" in message
    dialogs = [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.isModal()]
    assert dialogs == []


# --- a bundle on the PostgreSQL server ----------------------------------------------------------


@pytest.fixture(scope="module")
def server_backend() -> Iterator[PostgresBackend]:
    backend = PostgresBackend(postgres_admin_url())
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def panel_server_template(
    server_backend: PostgresBackend, tmp_path_factory: TempPathFactory
) -> str:
    url = server_backend.new_location()
    source = write_jsonl(tmp_path_factory.mktemp("server-source") / "items.jsonl", panel_lines())
    import_files(url, [source], "jsonl")
    return url


@pytest.fixture
def server_url(server_backend: PostgresBackend, panel_server_template: str) -> Iterator[str]:
    url = server_backend.copy(panel_server_template)
    yield url
    server_backend.discard(url)


def with_secret(url: str) -> str:
    # trust authentication on the test server ignores it; the app must still never write it
    return make_url(url).set(password=SECRET).render_as_string(hide_password=False)


@pytest.mark.postgres
def test_window_on_a_server_bundle(
    qtbot: QtBot, server_url: str, isolated_home: Path, tmp_path: Path
) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False, auto_backup=True)
    qtbot.addWidget(window)
    window.open_bundle(with_secret(server_url))
    window.analysis.show_panel("leaderboard")
    window.show()
    qtbot.waitUntil(lambda: window.analysis.leaderboard.result is not None, timeout=HANG_GUARD_MS)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    masked = make_url(with_secret(server_url)).render_as_string(hide_password=True)
    assert window.bundle is not None
    assert window.bundle.path is None and window.bundle.location == masked
    assert window.windowTitle() == f"{masked} — VLM Workbench"
    assert window.analysis.watcher.timer.interval() == SERVER_POLL_INTERVAL_MS
    # no password at all (a masked one would be sent as the password when opened again)
    assert recent_locations()[0] == server_url
    window._fill_recent_menu()
    assert window.ui.recentMenu.actions()[0].text() == server_url

    # the dialogs that used to need a file path
    importer = window.show_import_dialog()
    assert importer.ui.targetEdit.text() == masked
    assert importer.target() == with_secret(server_url)  # connects as the user did
    exporter = window.tools.show_export_dialog()
    assert exporter is not None
    assert exporter.bundle_label.text() == masked
    assert exporter.out_edit.text() == "" and SECRET not in exporter.bundle_label.text()
    from workbench.gui.locations import default_output

    database = make_url(server_url).database
    assert window.location is not None
    assert default_output(window.location, ".jsonl") == Path.home() / f"{database}-export.jsonl"

    # another annotator votes on the server: the leaderboard follows within a poll or two
    board = window.analysis.leaderboard
    before = board.result
    assert before is not None
    late = [_vote("m-d", other, f"late{n}") for n, other in enumerate(("m-a", "m-b", "m-c"))]
    import_files(server_url, [write_jsonl(tmp_path / "late.jsonl", [_item("late", late)])], "jsonl")
    qtbot.waitUntil(lambda: board.result is not before and not board.busy, timeout=HANG_GUARD_MS)
    assert board.result is not None
    assert board.result.board.table["n"].sum() > before.board.table["n"].sum()

    window.close()
    assert SECRET not in files_under(isolated_home)  # settings, recent list, log
    assert not list(tmp_path.glob("*.backup-*"))  # no file, no automatic file backup


@pytest.mark.postgres
def test_the_server_dialog_opens_the_bundle(
    qtbot: QtBot, server_url: str, memory_keyring: MemoryKeyring
) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.show()
    dialog = window.choose_server_bundle()
    dialog.url_edit.setText(server_url)
    dialog.password_edit.setText(SECRET)
    dialog.remember_box.setChecked(True)
    dialog.accept()
    qtbot.waitUntil(
        lambda: window.bundle is not None and not window.is_busy(), timeout=HANG_GUARD_MS
    )
    assert window.location == server_url  # the password is found in the keyring
    assert window.item_list.model.ids  # the items are listed
    assert window.windowTitle().startswith(server_url)
    window.close()


@pytest.mark.postgres
def test_open_command_takes_a_url(server_url: str, tmp_path: Path, isolated_home: Path) -> None:
    import os
    import subprocess
    import sys

    from PySide6.QtGui import QImage

    target = tmp_path / "server.png"
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM")}
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from workbench.cli import main; sys.exit(main())",
            *("open", with_secret(server_url), "--screenshot", str(target)),
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert QImage(str(target)).width() == 1600
    assert SECRET not in completed.stderr + completed.stdout
    # a screenshot opens the bundle read-only: it adds nothing, not even a recent entry
    assert recent_locations() == []
    assert SECRET not in files_under(isolated_home)


@pytest.mark.postgres
def test_a_server_that_goes_away_is_a_status_message_and_retries(
    qtbot: QtBot, server_backend: PostgresBackend, server_url: str
) -> None:
    from workbench.gui.main_window import MainWindow

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.open_bundle(server_url)
    window.show()
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    watcher = window.analysis.watcher
    watcher.timer.setInterval(50)  # the 2 s of a server, shortened for the test
    server_backend.discard(server_url)  # the database is dropped under the open window
    qtbot.waitUntil(lambda: watcher.failing, timeout=HANG_GUARD_MS)
    polls = watcher.polls
    qtbot.waitUntil(lambda: watcher.polls >= polls + 2, timeout=HANG_GUARD_MS)  # still retrying
    message = window.statusBar().currentMessage()
    assert window.bundle is not None
    assert message.startswith(f"Cannot reach {window.bundle.location}") and "retrying" in message
    assert [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.isModal()] == []
    window.close()
