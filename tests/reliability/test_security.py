"""The security promises of docs/RELIABILITY.md, each proved in one place:

- untrusted text (model outputs, instructions, captions, references, names) renders inert: no
  network request, no local file opened, no script, no followable link;
- the judge's API key reaches no file: bundle, logs, config and cache, exports and packs;
- plugins come only from installed entry points: a module named like a plugin beside the
  bundle, in the current folder or on a path the bundle names is never imported;
- a pseudonymized export holds no annotator handle, display name or expertise, and pseudonyms
  are stable under one key.

tests/gui/test_safe_text.py, tests/judge/test_secrets.py and tests/export/test_privacy.py prove
narrower cases of the same promises; this file widens them to every surface at once.
"""

from __future__ import annotations

import base64
import http.server
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from tests.patience import HANG_GUARD_MS

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PIL import Image

import workbench.plugins
from tests.importers.canonical_helpers import write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import build_bundle, registry_with_all_templates
from workbench.cli import main
from workbench.export.pseudonyms import KEY_VARIABLE as PSEUDONYM_KEY_VARIABLE
from workbench.paths import HOME_OVERRIDE
from workbench.services.importing import import_files

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WORKBENCH_COMMAND = Path(sys.executable).with_name("workbench")


# --- watchers: a web server that counts requests, a local file that notices being opened -------


class CountingServer:
    """An HTTP server on 127.0.0.1 that records every path requested of it."""

    def __init__(self) -> None:
        requests: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                self.wfile.write(png_bytes((8, 8)))

            def log_message(self, *args: Any) -> None:
                pass

        self.requests = requests
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        host, port = self.server.server_address[:2]
        assert isinstance(host, str)
        return f"http://{host}:{port}"

    def __enter__(self) -> CountingServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


#: the writer behind the watched file; a process of its own, because a reader blocked in Qt's C++
#: code holds the GIL and would starve a writer thread
PIPE_WRITER = """
import os, sys
pipe_path, log_path, data_path = sys.argv[1:4]
data = open(data_path, "rb").read()
while True:
    with open(pipe_path, "wb") as pipe:  # blocks until someone opens the path to read
        if os.path.exists(pipe_path + ".stop"):
            break
        with open(log_path, "a") as log:
            log.write("opened\\n")
        try:
            pipe.write(data)
        except BrokenPipeError:
            pass
"""


class OpenedFileWatch:
    """A named pipe standing in for a local image file: a writer process waits for any reader,
    so every open() of the path by anyone is noticed (and served an image)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path)
        self.log = path.with_name(path.name + ".log")
        data = path.with_name(path.name + ".data")
        data.write_bytes(png_bytes((900, 700)))
        self.writer = subprocess.Popen(
            [sys.executable, "-c", PIPE_WRITER, str(path), str(self.log), str(data)]
        )

    def was_opened(self) -> bool:
        """Whether anyone opened the file; stops the watch."""
        if self.writer.poll() is None:
            Path(str(self.path) + ".stop").touch()
            # open it ourselves so the writer wakes up and sees the stop file
            descriptor = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                self.writer.wait(timeout=10)
            finally:
                os.close(descriptor)
        return self.log.exists() and "opened" in self.log.read_text()


def png_bytes(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "purple").save(buffer, "PNG")
    return buffer.getvalue()


def hostile_texts(web: str, local: Path) -> list[str]:
    """Every way we know for text to ask a renderer to fetch, read or run something."""
    file_url = local.as_uri()
    return [
        f"<script>fetch('{web}/script')</script>",
        f"<img src={web}/img-tag.png>",
        f'<img src="{file_url}">',
        "<img src=file:///etc/passwd>",
        f"![markdown image]({web}/markdown.png)",
        f"![local markdown image]({file_url})",
        f"![relative image]({local.name})",
        f"[a link]({web}/link)",
        f"[a javascript link](javascript:fetch('{web}/javascript'))",
        '<a href="javascript:alert(1)">html javascript link</a>',
        f"<{web}/autolink>",
        f'<div style="background-image: url({web}/css.png)">css url</div>',
        f"<style>body {{ background: url({file_url}) }}</style>",
        f'<link rel="stylesheet" href="{web}/style.css">',
        f'<iframe src="{web}/iframe"></iframe>',
        f'<object data="{web}/object"></object>',
        f'<embed src="{file_url}">',
        f'<svg><image href="{web}/svg.png"/></svg>',
    ]


def image_count(document: Any) -> int:
    """Images left in a rendered document (the safe view replaces each with a label)."""
    count = 0
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            count += fragments.fragment().charFormat().isImageFormat()
            fragments += 1
        block = block.next()
    return count


#: tags that, reaching a rich-text renderer unescaped, could load or run something
ACTIVE_TAG = re.compile(r"<\s*(img|script|iframe|object|embed|link|style|svg|a)\b", re.IGNORECASE)


@pytest.fixture
def watchers() -> Iterator[tuple[CountingServer, OpenedFileWatch]]:
    if not hasattr(os, "mkfifo"):
        pytest.skip("the local-file watch needs named pipes")
    # a short folder: the watched file's URL goes whole into fields the bundle caps at 128
    # characters, which a test runner's per-worker temporary paths would overrun
    with CountingServer() as server, tempfile.TemporaryDirectory(prefix="wb") as folder:
        watch = OpenedFileWatch(Path(folder) / "secret.png")
        try:
            yield server, watch
        finally:
            watch.was_opened()


@pytest.mark.gui
def test_the_watchers_notice_a_fetch_and_a_read(
    qtbot: QtBot, watchers: tuple[CountingServer, OpenedFileWatch]
) -> None:
    """Without this the inert-rendering tests below could not fail."""
    from PySide6.QtGui import QTextDocument

    server, watch = watchers
    with urllib.request.urlopen(f"{server.base}/probe") as response:
        assert response.status == 200
    assert server.requests == ["/probe"]
    document = QTextDocument()  # Qt's own document reads local images
    document.setHtml(f'<img src="{watch.path.as_uri()}">')
    document.size()  # laying it out loads the image
    assert watch.was_opened()


@pytest.mark.gui
@pytest.mark.parametrize("raw", [False, True], ids=["markdown", "raw"])
def test_hostile_text_renders_inert_in_the_text_view(
    qtbot: QtBot, watchers: tuple[CountingServer, OpenedFileWatch], raw: bool
) -> None:
    from PySide6.QtCore import Qt

    from workbench.gui.safe_text import SafeTextView

    server, watch = watchers
    texts = hostile_texts(server.base, watch.path)
    view = SafeTextView()
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    for text in [*texts, "\n\n".join(texts)]:
        view.show_text(text, raw=raw)
        view.repaint()
        qtbot.wait(5)
        shown = view.toPlainText()
        for tag in ("<script>", "<img", "<iframe", "<object", "<embed", "<style>", "<link"):
            if tag in text:
                assert tag in shown, f"{tag} was interpreted, not shown, in {text!r}"
        assert image_count(view.document()) == 0, text
    flags = view.textInteractionFlags()
    assert not flags & Qt.TextInteractionFlag.LinksAccessibleByMouse
    assert not flags & Qt.TextInteractionFlag.LinksAccessibleByKeyboard
    assert not view.openLinks() and not view.openExternalLinks()
    qtbot.wait(200)  # time for a stray request to arrive
    assert server.requests == []
    assert not watch.was_opened()


#: the longest text the bundle keeps in its short fields (language, kinds)
SHORT = 64


def hostile_bundle(folder: Path, web: str, local: Path) -> Path:
    """Items whose every text field, and the models' names, carry the hostile texts."""
    texts = hostile_texts(web, local)
    models = ("model <img src=" + web + "/model.png>", "<b>model</b> two")
    lines = []
    for number, text in enumerate(texts):
        lines.append(
            {
                "format": "vlm-workbench/item",
                "format_version": 1,
                "source": f"src <script>{number}</script>",
                "id": f"item-{number} <img src={web}/id.png>",
                "family": f"<i>family</i> {text}",
                "category": text[:SHORT],
                "language": text[:SHORT],
                # a missing image's reference is shown as a tooltip over its slot
                "images": [{"path": "images/a.png"}, {"missing": f'<img src="{local}">{number}'}],
                "captions": [{"text": text, "kind": text[:SHORT], "source": text, "image": 0}],
                "turns": [
                    {
                        "prompt": text,
                        "focus_points": text,
                        "references": [{"text": text, "kind": text[:SHORT], "source": text}],
                    }
                ],
                "outputs": [
                    {"model": model, "text": f"{text}\n\n{texts[-1 - number]}"} for model in models
                ],
                "judgments": [],
            }
        )
    source = write_jsonl(folder / "src", lines)
    bundle = folder / "hostile.wbb"
    import_files(bundle, [source], "jsonl")
    return bundle


def rich_text_leaks(widget: Any) -> list[str]:
    """Labels that would render an active tag from the data."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import Qt as QtGui
    from PySide6.QtWidgets import QLabel

    leaks = []
    for label in widget.findChildren(QLabel):
        text = label.text()
        rich = label.textFormat() == Qt.TextFormat.RichText or (
            label.textFormat() == Qt.TextFormat.AutoText and QtGui.mightBeRichText(text)
        )
        if rich and ACTIVE_TAG.search(text):
            leaks.append(text)
    return leaks


@pytest.mark.gui
def test_hostile_items_render_inert_in_the_inspector_and_the_annotation_view(
    qtbot: QtBot, watchers: tuple[CountingServer, OpenedFileWatch], tmp_path: Path
) -> None:
    from workbench.gui.annotation.annotation_view import AnnotationView
    from workbench.gui.main_window import MainWindow
    from workbench.gui.safe_text import SafeTextView
    from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
    from workbench.services.voting import AnnotationSession
    from workbench.storage import Bundle

    server, watch = watchers
    bundle_path = hostile_bundle(tmp_path / "data", server.base, watch.path)
    items = len(hostile_texts(server.base, watch.path))

    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    window.open_bundle(bundle_path)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    assert window.item_list.model.total() == items
    seen = set()
    for _ in range(items):
        qtbot.waitUntil(lambda: window.item_view.detail is not None, timeout=HANG_GUARD_MS)
        assert window.item_view.detail is not None
        seen.add(window.item_view.detail.id)
        window.repaint()
        assert rich_text_leaks(window) == []
        assert sum(image_count(view.document()) for view in window.findChildren(SafeTextView)) == 0
        window.step(1)
        qtbot.wait(5)
    assert len(seen) == items

    with Bundle.open(bundle_path) as bundle:
        add_annotator(bundle, "ana")
        create_campaign(bundle, CampaignSpec("hostile", "arena-battle", seed=1))
        view = AnnotationView()
        qtbot.addWidget(view)
        view.resize(1400, 900)
        view.show()
        session = AnnotationSession(bundle, "hostile", "ana")
        view.start(session)
        for _ in range(items):
            task = session.next_task()
            if task is None:
                break
            view.repaint()
            qtbot.wait(5)
            assert rich_text_leaks(view) == []
            session.skip(task.token, "security test")
            view.start(AnnotationSession(bundle, "hostile", "ana"))
        view.close()
    window.close()
    qtbot.wait(200)
    assert server.requests == []
    assert not watch.was_opened()


def tooltips(widget: Any) -> list[str]:
    """Every tooltip and status tip under ``widget``, of widgets, actions, and the cells and
    headers of item views: the surfaces where Qt renders text that looks like HTML as HTML.
    (Window titles, menu entries, status-bar messages and cells are always plain text.)"""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QAbstractItemView, QWidget

    texts = []
    for child in [widget, *widget.findChildren(QWidget)]:
        texts += [child.toolTip(), child.statusTip()]
    for action in widget.findChildren(QAction):
        texts += [action.toolTip(), action.statusTip()]
    tip = Qt.ItemDataRole.ToolTipRole
    for view in widget.findChildren(QAbstractItemView):
        model = view.model()
        if model is None:
            continue
        for column in range(model.columnCount()):
            texts.append(model.headerData(column, Qt.Orientation.Horizontal, tip))
            for row in range(min(model.rowCount(), 50)):
                texts.append(model.data(model.index(row, column), tip))
    return [str(text) for text in texts if text]


def rich_tooltips(widget: Any) -> list[str]:
    from PySide6.QtGui import Qt as QtGui

    return [t for t in tooltips(widget) if QtGui.mightBeRichText(t) and ACTIVE_TAG.search(t)]


@pytest.mark.gui
def test_hostile_names_stay_plain_in_tooltips_titles_menus_headers_and_cells(
    qtbot: QtBot, watchers: tuple[CountingServer, OpenedFileWatch], tmp_path: Path
) -> None:
    """A hover over a missing image's reference or a model's name must not read a local file
    (``<img src="/dev/zero">`` once hung the app): each tooltip is shown for real, and the
    watched file is never opened."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QToolTip

    from workbench.gui.main_window import MainWindow

    server, watch = watchers
    bundle_path = hostile_bundle(tmp_path / "data", server.base, watch.path)
    window = MainWindow(persist_layout=False)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    window.open_bundle(bundle_path)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=HANG_GUARD_MS)
    shown = 0
    for _ in range(3):
        qtbot.waitUntil(lambda: window.item_view.detail is not None, timeout=HANG_GUARD_MS)
        qtbot.wait(20)
        assert rich_tooltips(window) == []
        for text in tooltips(window):
            QToolTip.showText(QPoint(20, 20), text, window)
            shown += 1
        QToolTip.hideText()
        window.step(1)
    assert shown > 0
    assert any(str(watch.path) in text for text in tooltips(window))  # the slot's tooltip
    # menus show a name as written, a '&' included (not as a shortcut marker)
    from workbench.gui.plain_text import menu_text

    entries = [action.text() for action in window.item_view.models_menu.actions()]
    assert menu_text("model <img src=" + server.base + "/model.png>") in entries
    assert menu_text("a & b") == "a && b"
    window.close()
    qtbot.wait(100)
    assert server.requests == []
    assert not watch.was_opened()


# --- the API key -------------------------------------------------------------------------------

#: not shaped like an OpenAI key, so only the app's registered-secret redaction can catch it;
#: '+', '/' and '=' make its URL-encoded form differ from it
API_KEY = "wbsec-Q7+k/9xZ=key-31337-uniq"


def encoded_forms(secret: str) -> dict[str, bytes]:
    """The key as bytes in the encodings a leak could take."""
    raw = secret.encode()
    forms = {
        "plain": raw,
        "url-encoded": urllib.parse.quote(secret, safe="").encode(),
        "url-encoded (plus)": urllib.parse.quote_plus(secret).encode(),
        "json": json.dumps(secret)[1:-1].encode(),
        "hex": raw.hex().encode(),
        "utf-16": secret.encode("utf-16-le"),
    }
    # base64 of the key inside a longer text depends on where it starts: the stable middle of
    # each of the three alignments
    for shift in range(3):
        encoded = base64.b64encode(b"x" * shift + raw)
        forms[f"base64+{shift}"] = encoded[4 : len(encoded) - 4]
        forms[f"base64url+{shift}"] = base64.urlsafe_b64encode(b"x" * shift + raw)[4:-4]
    return forms


def files_under(*folders: Path) -> dict[str, bytes]:
    return {
        str(path): path.read_bytes()
        for folder in folders
        for path in folder.rglob("*")
        if path.is_file()
    }


def test_the_api_key_reaches_no_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import logging

    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("WB_SECURITY_KEY", API_KEY)
    monkeypatch.setenv(HOME_OVERRIDE, str(isolated_home))
    folder = tmp_path / "work"
    folder.mkdir()
    bundle = build_bundle(folder, 8)
    judge = [
        "judge",
        str(bundle),
        "--model",
        "gpt-4o-mini",
        "--template",
        "visit-bench-pairwise",
        "--api-key-env",
        "WB_SECURITY_KEY",
        "--attempts",
        "2",
    ]
    with FakeOpenAIServer(faults=Faults(malformed_share=0.3)) as server:
        assert main(["-v", *judge, "--base-url", server.base_url, "--run", "first"]) == 0
        assert server.stats.authorization == {f"Bearer {API_KEY}"}  # the key was sent
    with FakeOpenAIServer(faults=Faults(refuse_key=True)) as refusing:
        # the endpoint echoes the key back in its error
        refused = ["--base-url", refusing.base_url, "--run", "refused", "--no-cache"]
        assert main(["-v", *judge, *refused]) == 1
    printed = capsys.readouterr()
    assert "[redacted]" in printed.err

    exports = folder / "exports"
    exports.mkdir()
    for export_format, images in (
        ("items", "embed"),
        ("jsonl", "paths"),
        ("csv", "none"),
        ("arena", "none"),
    ):
        out = exports / f"all.{export_format}"
        args = ["export", str(bundle), "--out", str(out), "--format", export_format]
        assert main([*args, "--with-images", images]) == 0
    assert main(["annotator", "add", str(bundle), "ana"]) == 0
    assert (
        main(["campaign", "create", str(bundle), "--name", "c1", "--protocol", "arena-battle"]) == 0
    )
    pack = exports / "pack.wbb"
    assert main(["pack", "export", str(bundle), "--campaign", "c1", "--annotator", "ana",
                 "--out", str(pack)]) == 0  # fmt: skip
    printed_later = capsys.readouterr()
    logging.shutdown()

    searched = {
        "stdout": (printed.out + printed_later.out).encode(),
        "stderr": (printed.err + printed_later.err).encode(),
        **files_under(folder, isolated_home),
    }
    assert any(name.endswith("workbench.log") for name in searched)
    assert any(name.endswith("pack.wbb") for name in searched)
    assert any(name.endswith("all.csv") for name in searched)
    with sqlite3.connect(bundle) as connection:
        assert connection.execute("SELECT count(*) FROM judge_verdicts").fetchone()[0] > 0
    leaks = [
        f"{form} in {name}"
        for name, data in searched.items()
        for form, needle in encoded_forms(API_KEY).items()
        if needle in data
    ]
    assert leaks == []


# --- plugins -----------------------------------------------------------------------------------

PLUGIN_CODE = """
from pathlib import Path
Path({marker!r}).write_text("imported")
from workbench.plugins import Plugin
plugin = Plugin({name!r}, "6.6.6", "code that must never run")
"""


def plant_plugin(folder: Path, name: str, markers: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(PLUGIN_CODE.format(marker=str(markers / name), name=name))


def test_plugins_come_only_from_installed_entry_points(tmp_path: Path) -> None:
    from importlib.metadata import entry_points

    markers = tmp_path / "markers"
    markers.mkdir()
    here = tmp_path / "cwd"
    bundle_folder = tmp_path / "bundles"
    named_path = tmp_path / "named-by-the-bundle"
    # a plugin-like module in each place, and one shadowing an installed plugin's module
    plant_plugin(here, "workbench_planted_cwd", markers)
    plant_plugin(here, "workbench_arena", markers)
    plant_plugin(bundle_folder, "workbench_planted_bundle", markers)
    plant_plugin(bundle_folder, "workbench_visit_bench", markers)
    plant_plugin(named_path, "workbench_planted_setting", markers)
    bundle = build_bundle(bundle_folder, 3)

    # the bundle names the path and the modules wherever it stores settings or names
    with sqlite3.connect(bundle) as connection:
        settings = json.dumps(
            {"plugin_path": str(named_path), "plugins": ["workbench_planted_setting:plugin"]}
        )
        connection.execute(
            "INSERT INTO bundle_info (key, value) VALUES ('plugin_path', ?), ('plugins', ?)",
            (str(named_path), "workbench_planted_setting:plugin"),
        )
        connection.execute(
            "INSERT INTO campaigns (name, protocol, seed, votes_per_pair, settings, status, "
            "created_at) VALUES ('c', 'workbench_planted_setting:plugin', 0, 1, ?, 'open', "
            "'2026-01-01 00:00:00')",
            (settings,),
        )

    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    commands = [
        ["plugins", "--json"],
        ["info", str(bundle), "--json"],
        ["campaign", "show", str(bundle), "c"],
        ["leaderboard", str(bundle)],
        ["open", str(bundle), "--screenshot", str(tmp_path / "shot.png")],
    ]
    results = [
        subprocess.run(
            [str(WORKBENCH_COMMAND), *command],
            cwd=here,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        for command in commands
    ]
    listed = json.loads(results[0].stdout)
    installed = {
        point.value.split(":")[0].split(".")[0] for point in entry_points(group="workbench.plugins")
    }
    assert listed["failures"] == []
    assert "6.6.6" not in results[0].stdout and "planted" not in results[0].stdout
    assert len(listed["plugins"]) == len(installed)
    assert results[1].returncode == 0, results[1].stderr
    assert results[4].returncode == 0, results[4].stderr  # the window opened the bundle
    assert "workbench_planted_setting" in results[2].stdout + results[2].stderr  # refused by name
    assert sorted(path.name for path in markers.iterdir()) == []

    # the markers work: importing a planted module by hand does write one
    subprocess.run(
        [sys.executable, "-c", "import workbench_planted_cwd"], cwd=here, env=env, check=True
    )
    assert [path.name for path in markers.iterdir()] == ["workbench_planted_cwd"]


# --- pseudonymized exports ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def voted_bundle(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, ...]]]:
    """A small synthetic bundle with campaign votes (bench/make_synthetic_bundle.py), its
    annotators given distinctive display names and expertise."""
    sys.path.insert(0, str(PROJECT_ROOT / "bench"))
    try:
        from make_synthetic_bundle import make_synthetic_bundle
    finally:
        sys.path.pop(0)
    bundle = tmp_path_factory.mktemp("voted") / "voted.wbb"
    make_synthetic_bundle(bundle, items=60, models=4, votes=300)
    with sqlite3.connect(bundle) as connection:
        connection.execute(
            "UPDATE annotators SET display_name = 'Dr Shown-Name ' || id || ' Qx', "
            "expertise = 'expertise-field-' || id || '-Zq'"
        )
        people = connection.execute(
            "SELECT handle, display_name, expertise FROM annotators WHERE id IN "
            "(SELECT annotator_id FROM votes)"
        ).fetchall()
    return bundle, people


def export(
    bundle: Path, out: Path, export_format: str, salt: str | None, monkeypatch: pytest.MonkeyPatch
) -> bytes:
    """``workbench export --pseudonymize`` with the key variable set to ``salt`` (or unset)."""
    if salt is None:
        monkeypatch.delenv(PSEUDONYM_KEY_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(PSEUDONYM_KEY_VARIABLE, salt)
    command = ["export", str(bundle), "--out", str(out), "--format", export_format]
    assert main([*command, "--pseudonymize"]) == 0
    return out.read_bytes()


@pytest.mark.parametrize("export_format", ["items", "jsonl", "csv", "arena"])
def test_pseudonymized_exports_name_no_annotator(
    voted_bundle: tuple[Path, list[tuple[str, ...]]],
    tmp_path: Path,
    export_format: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workbench.export import ExportOptions, export_bundle
    from workbench.export.pseudonyms import pseudonym

    bundle, people = voted_bundle
    plain = tmp_path / "plain"
    export_bundle(bundle, plain, ExportOptions(format=export_format))
    assert any(handle.encode() in plain.read_bytes() for handle, _, _ in people)

    first = export(bundle, tmp_path / "first", export_format, "salt-one", monkeypatch)
    again = export(bundle, tmp_path / "again", export_format, "salt-one", monkeypatch)
    other = export(bundle, tmp_path / "other", export_format, "salt-two", monkeypatch)
    unkeyed = export(bundle, tmp_path / "unkeyed", export_format, None, monkeypatch)
    for data in (first, other, unkeyed):
        for person in people:
            for value in person:
                assert value.encode() not in data
                assert value.encode("utf-16-le") not in data
        assert b"salt-one" not in data and b"salt-two" not in data
    assert first == again  # same key, same pseudonyms, same bytes
    pseudonyms = {pseudonym(handle, b"salt-one") for handle, _, _ in people}
    found = {name for name in pseudonyms if name.encode() in first}
    assert found and all(name.encode() not in other for name in pseudonyms)
    assert unkeyed != first
