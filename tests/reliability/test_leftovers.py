"""What SIGKILL leaves behind is cleaned on the next run: the temporary files of a backup, a
restore, an export and a new bundle whose writer was killed are removed by the next run of the
same step, while one whose writer is still running is kept. And Ctrl-C while the command line
starts ends with one line, never a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main
from workbench.services.importing import import_files
from workbench.storage.backups import make_backup, restore_backup
from workbench.storage.leftovers import STALE_AFTER_SECONDS, writer_tag

WORKBENCH_COMMAND = Path(sys.executable).with_name("workbench")

#: a process that names temporary files as the app does, writes them, and waits to be killed
WRITER = """
import sys, time
from pathlib import Path
from workbench.storage.leftovers import writer_tag
tag = writer_tag()
for line in sys.argv[1:]:
    folder, prefix, suffix = line.split("|")
    (Path(folder) / f"{prefix}{tag}{suffix}").write_bytes(b"x" * 100_000)
print("written", flush=True)
time.sleep(60)
"""


def killed_writer(*names: tuple[Path, str, str]) -> list[Path]:
    """Start a writer of the temporary files ``names`` (folder, prefix, suffix), SIGKILL it
    once they are written, and return their paths."""
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, *("|".join(map(str, name)) for name in names)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "written"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    tag = f"pid{process.pid}"
    return [folder / f"{prefix}{tag}{suffix}" for folder, prefix, suffix in names]


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = tmp_path / "b.wbb"
    import_files(path, [write_jsonl(tmp_path / "src", [item_line("q1")])], "jsonl")
    return path


def test_the_next_backup_restore_export_and_create_remove_what_a_kill_left(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = bundle.parent
    left = killed_writer(
        (folder, ".b.backup-manual-20260101T000000000000Z.wbb.", ".partial"),
        (folder, ".b.wbb.", ".restoring"),
        (folder, ".out.jsonl.", ".abc123.partial"),
        (folder, ".creating-new.wbb.", ".0123456789ab"),
    )
    mine = folder / ".b.wbb.pid1.restoring"  # a writer still running (init never ends)
    mine.write_bytes(b"in progress")
    unknown_old = folder / ".out.jsonl.legacy.partial"
    unknown_old.write_bytes(b"old")
    old = time.time() - STALE_AFTER_SECONDS - 60
    os.utime(unknown_old, (old, old))
    unknown_new = folder / ".out.jsonl.recent.partial"
    unknown_new.write_bytes(b"new")
    assert all(path.exists() for path in left)

    backup = make_backup(bundle)
    assert not left[0].exists()
    restore_backup(bundle, backup)
    assert not left[1].exists() and mine.exists()
    assert main(["export", str(bundle), "--out", str(folder / "out.jsonl")]) == 0
    assert not left[2].exists() and not unknown_old.exists() and unknown_new.exists()
    import_files(folder / "new.wbb", [write_jsonl(tmp_path / "src2", [item_line("q2")])], "jsonl")
    assert not left[3].exists()
    capsys.readouterr()


def test_temporary_names_carry_their_writer(bundle: Path) -> None:
    backup = make_backup(bundle)
    assert backup.exists() and not list(bundle.parent.glob(".*.partial"))
    assert writer_tag() == f"pid{os.getpid()}"


@pytest.mark.parametrize("delay", [0.3, 0.6, 1.0, 1.5])
def test_ctrl_c_while_the_command_line_starts_prints_one_line(bundle: Path, delay: float) -> None:
    """From the moment the interpreter runs our first line (it takes about 0.1 s to get
    there, out of our hands) to the end of the command."""
    process = subprocess.Popen(
        [str(WORKBENCH_COMMAND), "info", str(bundle)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert "Traceback" not in err
    assert process.returncode in (0, 130)
    if process.returncode == 130:
        assert err.strip() == "workbench: interrupted"
