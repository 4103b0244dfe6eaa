"""Asked to end (SIGTERM, as at a logout), the app closes its window and the process exits
with status 0, whatever runs: a judge run waiting on an endpoint that never answers is
cancelled, and a read of the bundle that never ends (an item query's first import of the
statistics stack, on a loaded machine) is not waited for. It neither dies by the signal nor
waits for the work. How long that takes is measured by ``bench/exit_time.py``, not here."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.judge.helpers import build_bundle
from tests.patience import HANG_GUARD_MS

pytestmark = pytest.mark.gui

BENCH = Path(__file__).resolve().parents[2] / "bench" / "exit_time.py"


def silent_endpoint() -> Any:
    sys.path.insert(0, str(BENCH.parent))
    try:
        from exit_time import SilentEndpoint
    finally:
        sys.path.remove(str(BENCH.parent))
    return SilentEndpoint()


def test_the_silent_endpoint_s_thread_ends_when_it_is_closed() -> None:
    endpoint = silent_endpoint()
    with socket.create_connection(("127.0.0.1", endpoint.port)):
        assert endpoint.connected.wait(timeout=HANG_GUARD_MS / 1000)
        endpoint.close()
    assert not endpoint.accepting.is_alive()


def test_asked_to_end_with_a_judge_run_waiting_the_app_cancels_it_and_exits(
    tmp_path: Path,
) -> None:
    endpoint = silent_endpoint()
    bundle = build_bundle(tmp_path, 6, models=("m-a", "m-b"))
    environment = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "VLM_WORKBENCH_HOME": str(tmp_path / "home"),
    }
    child = subprocess.Popen(
        [
            sys.executable,
            str(BENCH),
            "--child",
            "judge",
            "--bundle",
            str(bundle),
            "--endpoint",
            endpoint.base_url,
            "--out",
            str(tmp_path / "unused.jsonl"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    try:
        started = lines.get(timeout=HANG_GUARD_MS / 1000)
        assert started.startswith("running judge"), child.stderr and child.stderr.read()
        # the run's requests are waiting on the silent endpoint
        assert endpoint.connected.wait(timeout=HANG_GUARD_MS / 1000)
        child.send_signal(signal.SIGTERM)
        status = child.wait(timeout=HANG_GUARD_MS / 1000)
    finally:
        if child.poll() is None:
            child.kill()
        endpoint.close()
    assert status == 0, child.stderr.read() if child.stderr else ""


def test_asked_to_end_while_a_read_of_the_bundle_never_ends_the_app_exits_without_it(
    tmp_path: Path,
) -> None:
    bundle = build_bundle(tmp_path, 6, models=("m-a", "m-b"))
    # the item list's disagreement flags (a read on a worker, after the first paint) block
    # until the process ends
    child_script = textwrap.dedent(
        f"""
        import sys
        import threading
        from pathlib import Path

        sys.path.insert(0, {str(BENCH.parent)!r})
        import exit_time
        from workbench.services.browse import BundleBrowser

        def never_ending_read(self, *args, **kwargs):
            print("read started", flush=True)
            threading.Event().wait()

        BundleBrowser.flagged_items = never_ending_read
        sys.exit(exit_time._child("idle", Path({str(bundle)!r}), "", Path("unused.jsonl")))
        """
    )
    environment = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "VLM_WORKBENCH_HOME": str(tmp_path / "home"),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", child_script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=tmp_path,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=read, daemon=True).start()
    try:
        seen: set[str] = set()
        while not {"running idle", "read started"} <= seen:
            line = lines.get(timeout=HANG_GUARD_MS / 1000)
            assert line, child.stderr.read() if child.stderr else "the app ended early"
            seen.add(line.strip())
        child.send_signal(signal.SIGTERM)
        status = child.wait(timeout=HANG_GUARD_MS / 1000)
    finally:
        if child.poll() is None:
            child.kill()
    assert status == 0, child.stderr.read() if child.stderr else ""
