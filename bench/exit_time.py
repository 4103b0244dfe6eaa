"""How long the app takes to exit once asked to close, whatever its workers are doing: the goal
is 2 s from the request to the process being gone.

    QT_QPA_PLATFORM=offscreen python bench/exit_time.py [--runs 5] [--cases idle,panel,judge,export]

Each run starts the app as ``workbench open`` does (``workbench.gui.app.run_app``) on a copy of
the demo bundle, in a child process with a home folder of its own. Once the window is shown the
child starts one long piece of work through the window's own controls and reports when it is
running:

- ``idle``: nothing;
- ``panel``: the Leaderboard panel with 2,000 bootstrap rounds (in its worker process);
- ``judge``: an LLM judge run from the judge dialog against an endpoint that accepts
  connections and never answers (every request is waiting);
- ``export``: an export of every item with embedded images from the export dialog.

The parent then sends SIGTERM, which the app takes as its user closing the last window and
agreeing to cancel what runs, and times until the process has exited (``waitpid``). Prints the
median, the maximum, whether the work was still running when the close was asked, and the exit
status, per case. The demo bundle is generated once into a temporary folder.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

GOAL_SECONDS = 2.0
CASES = ("idle", "panel", "judge", "export")
#: how long a child may take to start its work before the run is given up
START_TIMEOUT_S = 120.0


# --- the child: the app, and one long piece of work started through its controls -------------


def _child(case: str, bundle: Path, endpoint: str, out: Path) -> int:
    from PySide6.QtCore import QTimer

    from workbench.export.options import ImageMode
    from workbench.gui.app import _application, run_app
    from workbench.gui.main_window import MainWindow

    app = _application()
    state: dict[str, Any] = {}

    def window() -> MainWindow | None:
        found = [w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        return found[0] if found else None

    def report(text: str) -> None:
        print(text, flush=True)

    def start() -> None:
        main = window()
        if main is None or main.bundle is None:
            QTimer.singleShot(50, start)
            return
        if case == "idle":
            report("running idle")
        elif case == "panel":
            main.analysis.show_panel("leaderboard")
            panel = main.analysis.panel("leaderboard")
            panel.rounds.setValue(2000)  # type: ignore[attr-defined]
            panel.refresh()  # type: ignore[attr-defined]
            state["busy"] = lambda: main.analysis.busy
            watch()
        elif case == "export":
            dialog = main.tools.show_export_dialog()
            assert dialog is not None
            dialog.out_edit.setText(str(out))
            dialog.set_choice(dialog.images_combo, ImageMode.EMBED)
            dialog.start_export()
            state["busy"] = lambda: dialog.running
            watch()
        elif case == "judge":
            judge = main.tools.show_judge_dialog()
            assert judge is not None
            judge.base_url_edit.setText(endpoint)
            judge.model_combo.setCurrentText("gpt-4o-mini")  # a model with a known price
            judge.concurrency_spin.setValue(8)
            judge.estimate_button.click()
            state["dialog"] = judge
            state["busy"] = lambda: judge.run_job is not None and judge.run_job.active
            start_judge_when_planned()

    def start_judge_when_planned() -> None:
        dialog = state["dialog"]
        if dialog.plan is None:
            state["waits"] = state.get("waits", 0) + 1
            if state["waits"] % 200 == 0:  # every 10 s: say what the dialog shows
                box = dialog.message_box
                shown = box.text() if box is not None and box.isVisible() else ""
                print(f"judge dialog: {dialog.estimate_label.text()} {shown}", file=sys.stderr)
            QTimer.singleShot(50, start_judge_when_planned)
            return
        dialog.start()
        if dialog.confirm_box is not None:  # above the default limits: agree
            dialog._confirmation_closed(dialog.confirm_box.StandardButton.Yes)
        watch()

    def watch() -> None:
        if state["busy"]():
            report(f"running {case}")
            return
        QTimer.singleShot(20, watch)

    QTimer.singleShot(0, start)
    return run_app(bundle)


# --- the parent ----------------------------------------------------------------------------------


class SilentEndpoint:
    """A loopback server that accepts connections, reads what is sent and never answers."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.held: list[socket.socket] = []
        #: set once a request is waiting
        self.connected = threading.Event()
        self.accepting = threading.Thread(target=self._accept, daemon=True)
        self.accepting.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.held.append(connection)
            self.connected.set()

    def close(self) -> None:
        # closing the socket does not wake an accept() blocked in another thread (Linux);
        # shutting it down does, so the accepting thread ends here instead of outliving us
        with contextlib.suppress(OSError):  # systems that refuse to shut down a listener
            self.server.shutdown(socket.SHUT_RDWR)
        self.accepting.join()
        self.server.close()
        for connection in self.held:
            connection.close()


def _read_lines(child: subprocess.Popen[str], lines: queue.Queue[str]) -> None:
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith("running"):
            lines.put(line)
    lines.put("")  # the child ended


def one_run(case: str, demo: Path, endpoint: str, folder: Path) -> dict[str, Any]:
    run_folder = Path(tempfile.mkdtemp(prefix=f"exit-{case}-", dir=folder))
    bundle = run_folder / "demo.wbb"
    shutil.copyfile(demo, bundle)
    environment = {
        **os.environ,
        "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
        "VLM_WORKBENCH_HOME": str(run_folder / "home"),
        "MPLCONFIGDIR": str(run_folder / "mpl"),
    }
    errors_file = run_folder / "stderr.txt"
    with errors_file.open("w") as errors_out:
        child = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--child",
                case,
                "--bundle",
                str(bundle),
                "--endpoint",
                endpoint,
                "--out",
                str(run_folder / "export.jsonl"),
            ],
            stdout=subprocess.PIPE,
            stderr=errors_out,
            text=True,
            env=environment,
        )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_read_lines, args=(child, lines), daemon=True).start()
    try:
        line = lines.get(timeout=START_TIMEOUT_S)
    except queue.Empty:
        line = ""
    if not line.startswith("running"):
        child.kill()
        child.wait()
        errors = errors_file.read_text(errors="replace")
        raise SystemExit(f"{case}: the app did not start its work: {errors[-2000:]}")
    print(f"  {case}: {line.strip()}; asking it to close", file=sys.stderr, flush=True)
    asked = time.perf_counter()
    child.send_signal(signal.SIGTERM)
    status = child.wait()
    seconds = time.perf_counter() - asked
    errors = errors_file.read_text(errors="replace")
    shutil.rmtree(run_folder, ignore_errors=True)
    return {"seconds": seconds, "status": status, "errors": errors[-400:]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--child", choices=CASES, help=argparse.SUPPRESS)
    parser.add_argument("--bundle", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--endpoint", default="", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args.child, args.bundle, args.endpoint, args.out)

    cases = [case for case in args.cases.split(",") if case]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    from workbench.demo import generate_demo_bundle

    endpoint = SilentEndpoint()
    with tempfile.TemporaryDirectory(prefix="exit-time-") as temporary:
        folder = Path(temporary)
        demo = generate_demo_bundle(folder / "demo.wbb")
        print(
            f"{'case':<8}{'median s':>10}{'max s':>8}  exit statuses  (goal {GOAL_SECONDS} s)",
            flush=True,
        )
        worst = 0.0
        for case in cases:
            runs = [one_run(case, demo, endpoint.base_url, folder) for _ in range(args.runs)]
            seconds = [run["seconds"] for run in runs]
            worst = max(worst, statistics.median(seconds))
            statuses = sorted({run["status"] for run in runs})
            print(
                f"{case:<8}{statistics.median(seconds):>10.2f}{max(seconds):>8.2f}  {statuses}",
                flush=True,
            )
            for run in runs:
                if run["status"] != 0:
                    print(f"  exit {run['status']}: {run['errors']}", flush=True)
    endpoint.close()
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores")
    return 0 if worst <= GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
