"""Two imports aimed at the same new bundle path at once (two terminals, a script run twice).

A failed or interrupted import may remove only what it created and no one else wrote to: the
other import's committed rows survive. And two concurrent creates both land, in one bundle.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import select

from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.patience import HANG_GUARD_SECONDS
from workbench.domain import ItemRecord, Origin, OutputRecord, TurnRecord
from workbench.importers.base import Importer, ImportReport, Record
from workbench.plugins import Plugin, Registry
from workbench.storage import Bundle
from workbench.storage.models import Item

#: spawn, not fork: the workers import the app fresh, as a second `workbench import` would
CONTEXT = multiprocessing.get_context("spawn")


class LateFailingImporter(Importer):
    """Many items, then an output for an item that exists nowhere: a rejection only the writer
    finds, after it has written for a while into the bundle it created."""

    name = "late-failing"
    version = "1"
    description = "test importer"

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        for number in range(3000):
            yield ItemRecord(
                source="late",
                external_id=f"late-{number}",
                turns=(TurnRecord(1, "What?"),),
                origin=Origin("late.txt", number + 1),
            )
        yield OutputRecord(
            source="late",
            item_external_id="nowhere",
            model="m",
            text="x",
            origin=Origin("late.txt"),
        )


def _import_when_told(bundle: str, source: str, go: str, marker: str, results: Any) -> None:
    """Wait for the ``go`` file, import, and report ("ok", counts) or ("error", message)."""
    from workbench.services.importing import import_files

    def progress(phase: str, _done: int, _total: int) -> None:
        if phase == "writing":
            Path(marker).touch()

    Path(marker + ".ready").touch()
    while not Path(go).exists():
        time.sleep(0.005)
    registry = None
    if source.endswith("late.txt"):
        registry = Registry()
        registry.add(Plugin("late", "1", "test", importers=(LateFailingImporter(),)))
    try:
        result = import_files(
            bundle,
            [source],
            "late-failing" if registry else "jsonl",
            progress=progress,
            plugins=registry,
        )
        results.put((source, "ok", result.counts))
    except BaseException as error:  # the test wants to see whatever happened
        results.put((source, "error", f"{type(error).__name__}: {error}"))


def _wait_for(path: Path, seconds: float = HANG_GUARD_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def _start(bundle: Path, source: Path, go: Path, name: str, results: Any) -> Any:
    marker = str(go.parent / name)
    process = CONTEXT.Process(
        target=_import_when_told, args=(str(bundle), str(source), str(go), marker, results)
    )
    process.start()
    _wait_for(Path(marker + ".ready"))
    return process


def _items(bundle: Path) -> set[str]:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return set(session.scalars(select(Item.external_id)))


def _sources(tmp_path: Path, name: str, count: int) -> Path:
    lines = [item_line(f"{name}-{number}", source=name) for number in range(count)]
    return write_jsonl(tmp_path / name, lines)


def test_an_interrupted_import_keeps_the_bundle_another_import_wrote(tmp_path: Path) -> None:
    bundle = tmp_path / "shared.wbb"
    big, small = _sources(tmp_path, "big", 3000), _sources(tmp_path, "small", 2)
    go_big, go_small = tmp_path / "go-big", tmp_path / "go-small"
    results = CONTEXT.Queue()
    slow = _start(bundle, big, go_big, "big", results)
    quick = _start(bundle, small, go_small, "small", results)
    go_big.touch()
    _wait_for(tmp_path / "big")
    # the big import has created its bundle file (at the path, or under a private name)
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while not (bundle.exists() or any(tmp_path.glob(".creating-*"))):
        assert time.monotonic() < deadline
        time.sleep(0.005)
    go_small.touch()
    _wait_for(tmp_path / "small")
    time.sleep(0.3)
    if slow.is_alive():
        os.kill(slow.pid, signal.SIGINT)  # Ctrl-C in the big import's terminal
    quick.join(HANG_GUARD_SECONDS)
    slow.join(HANG_GUARD_SECONDS)
    reported = [results.get(timeout=HANG_GUARD_SECONDS) for _ in range(2)]
    outcomes = {Path(source).parent.name: (status, detail) for source, status, detail in reported}
    assert outcomes["small"][0] == "ok", outcomes["small"]
    assert bundle.exists(), "the interrupted import removed a bundle the other one wrote"
    assert {"small-0", "small-1"} <= _items(bundle)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".creating-")]


def test_a_failed_import_keeps_the_bundle_another_import_wrote(tmp_path: Path) -> None:
    """The late-failing import creates the bundle and writes for a while; the other import
    lands meanwhile; then the first fails and must not take the other's rows with it."""
    bundle = tmp_path / "shared.wbb"
    late = tmp_path / "late" / "late.txt"
    late.parent.mkdir()
    late.write_text("anything")
    small = _sources(tmp_path, "small", 2)
    go_late, go_small = tmp_path / "go-late", tmp_path / "go-small"
    results = CONTEXT.Queue()
    failing = _start(bundle, late, go_late, "late-marker", results)
    quick = _start(bundle, small, go_small, "small-marker", results)
    go_late.touch()
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    # the failing import has created its bundle file (at the path, or under a private name)
    while not (bundle.exists() or any(tmp_path.glob(".*creating*"))):
        assert time.monotonic() < deadline
        time.sleep(0.002)
    go_small.touch()
    quick.join(HANG_GUARD_SECONDS)
    failing.join(HANG_GUARD_SECONDS)
    reported = [results.get(timeout=HANG_GUARD_SECONDS) for _ in range(2)]
    outcomes = {Path(source).parent.name: (status, detail) for source, status, detail in reported}
    assert outcomes["late"][0] == "error" and "no item 'nowhere'" in outcomes["late"][1]
    assert outcomes["small"][0] == "ok", outcomes["small"]
    assert bundle.exists(), "the failed import removed a bundle the other one wrote"
    assert _items(bundle) == {"small-0", "small-1"}
    assert not [p.name for p in tmp_path.iterdir() if "creating" in p.name]


def test_two_imports_creating_one_bundle_both_land(tmp_path: Path) -> None:
    first, second = _sources(tmp_path, "first", 3), _sources(tmp_path, "second", 3)
    for round_number in range(3):
        bundle = tmp_path / f"round-{round_number}.wbb"
        go = tmp_path / f"go-{round_number}"
        results = CONTEXT.Queue()
        processes = [
            _start(bundle, source, go, f"{source.parent.name}-{round_number}", results)
            for source in (first, second)
        ]
        go.touch()
        for process in processes:
            process.join(HANG_GUARD_SECONDS)
        outcomes = [results.get(timeout=HANG_GUARD_SECONDS) for _ in processes]
        assert all(status == "ok" for _source, status, _detail in outcomes), outcomes
        assert _items(bundle) == {f"{name}-{n}" for name in ("first", "second") for n in range(3)}
