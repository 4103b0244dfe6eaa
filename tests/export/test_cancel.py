"""A cancelled export stops at its next step and leaves nothing behind: no file, no temporary
file, no image file it wrote, and an existing export unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.export import ExportOptions, ImageMode, export_bundle
from workbench.export.images import IMAGE_FOLDER
from workbench.progress import WorkCancelledError


class CancelAt:
    """Progress and cancel callbacks that ask to stop once ``phase`` is reported."""

    def __init__(self, phase: str, folder: Path | None = None) -> None:
        self.phase = phase
        self.folder = folder
        self.seen: list[tuple[str, int, int]] = []
        self.stop = False
        #: the files in ``folder`` when the cancel was asked: proof it stopped mid-way
        self.present: list[str] = []

    def progress(self, phase: str, done: int, total: int) -> None:
        self.seen.append((phase, done, total))
        if phase == self.phase and not self.stop:
            self.stop = True
            if self.folder is not None:
                self.present = sorted(
                    str(p.relative_to(self.folder)) for p in self.folder.rglob("*")
                )

    def cancelled(self) -> bool:
        return self.stop


@pytest.mark.parametrize(
    ("export_format", "phase"),
    [
        ("items", "items"),
        ("items", "writing"),
        ("jsonl", "items"),
        ("jsonl", "judgments"),
        ("csv", "writing"),
        ("arena", "writing"),
    ],
)
def test_a_cancelled_export_leaves_no_file(
    voted_bundle: Path, tmp_path: Path, export_format: str, phase: str
) -> None:
    target = tmp_path / "out" / f"export.{export_format}"
    cancel = CancelAt(phase)
    with pytest.raises(WorkCancelledError, match="no file was written"):
        export_bundle(
            voted_bundle,
            target,
            ExportOptions(format=export_format),
            progress=cancel.progress,
            cancel_requested=cancel.cancelled,
        )
    assert cancel.seen[-1][0] == phase
    # cancelled before the first write, the folder was never made
    assert not target.parent.exists() or list(target.parent.iterdir()) == []


def test_a_cancelled_export_keeps_the_previous_file(voted_bundle: Path, tmp_path: Path) -> None:
    target = tmp_path / "pairs.jsonl"
    export_bundle(voted_bundle, target, ExportOptions())
    before = target.read_bytes()
    cancel = CancelAt("writing")
    with pytest.raises(WorkCancelledError):
        export_bundle(
            voted_bundle,
            target,
            ExportOptions(),
            progress=cancel.progress,
            cancel_requested=cancel.cancelled,
        )
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["pairs.jsonl"]


def test_a_cancelled_export_removes_the_images_it_wrote(voted_bundle: Path, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    target = folder / "items.jsonl"
    cancel = CancelAt("writing", folder)
    with pytest.raises(WorkCancelledError):
        export_bundle(
            voted_bundle,
            target,
            ExportOptions(format="items", images=ImageMode.PATHS),
            progress=cancel.progress,
            cancel_requested=cancel.cancelled,
        )
    # the images were written (and the export was under way) when Cancel came
    assert any(name.startswith(f"{IMAGE_FOLDER}/") for name in cancel.present)
    assert list(folder.iterdir()) == []


def test_a_cancelled_export_keeps_images_an_earlier_export_wrote(
    voted_bundle: Path, tmp_path: Path
) -> None:
    options = ExportOptions(format="items", images=ImageMode.PATHS)
    export_bundle(voted_bundle, tmp_path / "first.jsonl", options)
    images = sorted((tmp_path / IMAGE_FOLDER).iterdir())
    assert images
    cancel = CancelAt("writing")
    with pytest.raises(WorkCancelledError):
        export_bundle(
            voted_bundle,
            tmp_path / "second.jsonl",
            options,
            progress=cancel.progress,
            cancel_requested=cancel.cancelled,
        )
    assert sorted((tmp_path / IMAGE_FOLDER).iterdir()) == images
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.jsonl", IMAGE_FOLDER]


def test_an_export_not_cancelled_reports_its_steps(voted_bundle: Path, tmp_path: Path) -> None:
    cancel = CancelAt("never")
    summary = export_bundle(
        voted_bundle,
        tmp_path / "items.jsonl",
        ExportOptions(format="items"),
        progress=cancel.progress,
        cancel_requested=cancel.cancelled,
    )
    phases = [phase for phase, _, _ in cancel.seen]
    assert phases[0] == "judgments" and "items" in phases and "writing" in phases
    assert summary.records > 0 and (tmp_path / "items.jsonl").is_file()
