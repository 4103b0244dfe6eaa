"""`workbench export --out` never replaces what is not an export: the bundle itself, another
bundle, a sidecar, a symlink, a FIFO or a device. Each is refused with one line and exit 1,
and the thing named stays as it was."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main
from workbench.export.options import ExportError
from workbench.export.target import check_export_target
from workbench.services.importing import import_files


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = tmp_path / "b.wbb"
    import_files(path, [write_jsonl(tmp_path / "src", [item_line("q1")])], "jsonl")
    return path


def export(bundle: Path, out: Path | str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["export", str(bundle), "--out", str(out), "--format", "jsonl"])
    return code, capsys.readouterr().err


def test_exporting_a_bundle_onto_itself_is_refused(
    bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = digest(bundle)
    code, err = export(bundle, bundle, capsys)
    assert code == 1 and "is the bundle being exported" in err
    assert err.count("\n") == 1
    assert digest(bundle) == before


def test_exporting_onto_another_bundle_or_a_sidecar_is_refused(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other.wbb"
    import_files(other, [write_jsonl(tmp_path / "src2", [item_line("q2")])], "jsonl")
    before = digest(other)
    code, err = export(bundle, other, capsys)
    assert code == 1 and "is a database" in err
    assert digest(other) == before
    code, err = export(bundle, bundle.with_name(bundle.name + "-wal"), capsys)
    assert code == 1 and "is the bundle being exported" in err


def test_a_symlink_is_refused_not_replaced(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text("keep me\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    code, err = export(bundle, link, capsys)
    assert code == 1 and "symbolic link" in err
    assert link.is_symlink() and real.read_text() == "keep me\n"
    to_bundle = tmp_path / "sneaky.jsonl"
    to_bundle.symlink_to(bundle)
    before = digest(bundle)
    assert export(bundle, to_bundle, capsys)[0] == 1
    assert digest(bundle) == before


def test_a_fifo_and_a_device_are_refused(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, err = export(bundle, fifo, capsys)
    assert code == 1 and "not a regular file" in err
    assert fifo.exists() and not fifo.is_file()
    with pytest.raises(ExportError, match="not a regular file"):
        check_export_target(Path("/dev/null"))


def test_a_new_path_and_an_earlier_export_are_written(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "items.jsonl"
    assert export(bundle, out, capsys)[0] == 0
    first = out.read_text()
    assert first
    assert export(bundle, out, capsys)[0] == 0  # replacing an earlier export is fine
    assert out.read_text() == first


def test_an_ordinary_file_that_is_not_an_export_is_replaced_only_with_force(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not an export\n")
    code, err = export(bundle, notes, capsys)
    assert code == 1
    assert "notes.txt exists and is not an earlier export" in err and "--force" in err
    assert notes.read_text() == "my notes, not an export\n"
    code = main(["export", str(bundle), "--out", str(notes), "--format", "jsonl", "--force"])
    assert code == 0
    assert '"format":"vlm-workbench/pairwise"' in notes.read_text()


@pytest.mark.parametrize("export_format", ["items", "jsonl", "csv", "arena"])
def test_an_earlier_export_of_every_format_is_recognised_and_replaced(
    bundle: Path, tmp_path: Path, export_format: str
) -> None:
    out = tmp_path / f"out.{export_format}"
    assert main(["export", str(bundle), "--out", str(out), "--format", export_format]) == 0
    assert main(["export", str(bundle), "--out", str(out), "--format", export_format]) == 0
    out.write_text("")  # an empty file holds nothing to lose
    assert main(["export", str(bundle), "--out", str(out), "--format", export_format]) == 0


def test_out_dash_is_refused_rather_than_creating_a_file_named_dash(
    bundle: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = export(bundle, "-", capsys)
    assert code == 1
    assert "--out -: exports are written to a file, not to standard output" in err
    assert not (tmp_path / "-").exists()
