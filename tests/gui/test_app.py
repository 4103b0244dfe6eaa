"""Starting the app: the offscreen screenshot of the CLI, fonts, and the compiled forms."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QFontDatabase, QImage
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from workbench.cli import build_parser
from workbench.errors import WorkbenchError
from workbench.gui.app import run_app
from workbench.gui.form_compiler import comparable, compile_ui, form_path, ui_files
from workbench.recent import recent_bundles

pytestmark = pytest.mark.gui


def dark_pixels(image: QImage) -> int:
    return sum(
        1
        for y in range(image.height())
        for x in range(image.width())
        if QColor(image.pixel(x, y)).lightness() < 100
    )


def test_screenshot_cli_renders_the_window_at_1600x1000(
    sample_bundle: Path, tmp_path: Path, isolated_home: Path
) -> None:
    target = tmp_path / "shot.png"
    environment = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM")}
    command = [
        sys.executable,
        "-c",
        "import sys; from workbench.cli import main; sys.exit(main())",
        *("open", str(sample_bundle), "--screenshot", str(target), "--page", "items"),
        *("--item", "a2"),
    ]
    completed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    image = QImage(str(target))
    assert (image.width(), image.height()) == (1600, 1000)
    assert dark_pixels(image.copy(0, 0, 1600, 200).scaled(400, 50)) > 20  # text was drawn
    # a screenshot writes nothing, not even the recent list that plain `workbench` opens from
    assert sample_bundle.resolve() not in recent_bundles()


def test_screenshot_of_a_missing_bundle_fails_with_a_message(
    qapp: QApplication, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = run_app(tmp_path / "absent.wbb", screenshot=tmp_path / "x.png")
    assert status == 1
    assert "no bundle at" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_screenshot_of_an_unknown_item_fails(
    qapp: QApplication, sample_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_app(sample_bundle, screenshot=tmp_path / "x.png", item="no-such-item") == 1
    assert "no item 'no-such-item'" in capsys.readouterr().err


def test_screenshot_in_process_selects_the_item(
    qapp: QApplication, sample_bundle: Path, tmp_path: Path
) -> None:
    target = tmp_path / "b1.png"
    assert run_app(sample_bundle, screenshot=target, item="beta/b1") == 0
    assert QImage(str(target)).size().toTuple() == (1600, 1000)


def test_fonts_exist_and_text_renders(qtbot: QtBot) -> None:
    assert QFontDatabase.families(), "no fonts: text would render as empty boxes"
    label = QLabel("Hamburgefonstiv 0123")
    label.setStyleSheet("background: white; color: black; font-size: 20px;")
    qtbot.addWidget(label)
    label.resize(320, 40)
    image = label.grab().toImage()
    assert dark_pixels(image) > 50
    blank = QLabel("")
    blank.setStyleSheet("background: white;")
    qtbot.addWidget(blank)
    blank.resize(320, 40)
    assert dark_pixels(blank.grab().toImage()) == 0


@pytest.mark.parametrize("ui_file", ui_files(), ids=lambda path: path.name)
def test_compiled_forms_are_current(ui_file: Path) -> None:
    committed = form_path(ui_file)
    assert committed.exists(), f"run: python -m workbench.gui.form_compiler ({committed} missing)"
    assert comparable(committed.read_text(encoding="utf-8")) == comparable(compile_ui(ui_file)), (
        f"{committed.name} is out of date: run python -m workbench.gui.form_compiler"
    )


def test_without_a_display_the_window_is_refused_clearly(
    sample_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(WorkbenchError, match="no display") as refused:
        run_app(sample_bundle)
    # the suggested command exists and renders offscreen (bare `workbench` has no --screenshot)
    suggested = re.search(r"`(workbench [^`]+)`", str(refused.value))
    assert suggested is not None
    args = build_parser().parse_args(shlex.split(suggested.group(1))[1:])
    assert args.command == "open" and args.screenshot
    assert Path(args.bundle) == sample_bundle


INTERACTIVE_SCRIPT = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from workbench.gui.app import run_app

app = QApplication(sys.argv[:1])

def look_and_quit():
    for window in QApplication.topLevelWidgets():
        for box in window.findChildren(QMessageBox):
            if box.isVisible():
                print("message:", box.text())
    app.quit()

QTimer.singleShot(500, look_and_quit)
sys.exit(run_app(sys.argv[1]))
"""


def test_interactively_a_bad_bundle_is_reported_in_a_message_box(tmp_path: Path) -> None:
    # In a process of its own: after a QApplication's exec() had returned, Python callables
    # started on thread pools no longer ran in the same process, breaking the tests that follow.
    broken = tmp_path / "broken.wbb"
    broken.write_text("not a database", encoding="utf-8")
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    completed = subprocess.run(
        [sys.executable, "-c", INTERACTIVE_SCRIPT, str(broken)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert "not a VLM Workbench bundle" in completed.stdout, completed.stdout


def test_open_reads_a_bundle_file_once_before_the_window(
    sample_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether the file is an offline pack is asked with plain sqlite3, so the bundle
    is opened (SQLAlchemy, schema check) once, by the window, not twice."""
    from workbench.storage import Bundle

    opened: list[object] = []
    real_open = Bundle.open  # Bundle has no subclass, so the bound class method is the same

    def counting_open(
        location: str | Path, *, migrate: bool = True, read_only: bool = False
    ) -> Bundle:
        opened.append(location)
        return real_open(location, migrate=migrate, read_only=read_only)

    monkeypatch.setattr(Bundle, "open", staticmethod(counting_open))
    assert run_app(sample_bundle, screenshot=tmp_path / "x.png") == 0
    assert len(opened) == 1, opened
