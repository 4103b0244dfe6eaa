"""Exports stream: the judgments are read once, as they are written (one item's judgments at a
time where a format groups them by item), sorted runs spill to disk without changing a byte,
and the memory an export holds does not grow with the number of judgments."""

from __future__ import annotations

import heapq
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from workbench.export import (
    ExportOptions,
    canonical_json,
    export_bundle,
    external_sort,
    pairwise,
    service,
)
from workbench.export import judgments as export_judgments
from workbench.export.arena import is_battle, repeats
from workbench.export.judgments import Judgment
from workbench.export.options import ImageMode

PROJECT = Path(__file__).resolve().parents[2]


class CountingReader:
    """Wraps ``iter_judgments``: counts the calls and the judgments handed out, and at each
    one calls ``on_pull`` (to look at what the writer has done with those before it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, on_pull: Any = None) -> None:
        self.real = export_judgments.iter_judgments
        self.calls = 0
        self.pulled: list[Judgment] = []
        self.on_pull = on_pull or (lambda: None)
        monkeypatch.setattr(service, "iter_judgments", self)

    def __call__(self, *args: Any, **kwargs: Any) -> Iterator[Judgment]:
        self.calls += 1
        for judgment in self.real(*args, **kwargs):
            self.on_pull()
            self.pulled.append(judgment)
            yield judgment


def test_arena_writes_each_battle_before_reading_the_next_judgment(
    voted_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = Counter[str]()
    real_dumps = canonical_json.dumps

    def counting_dumps(value: Any) -> str:
        written["battles"] += 1
        return real_dumps(value)

    monkeypatch.setattr(service, "dumps", counting_dumps)
    lags: list[int] = []

    def on_pull() -> None:
        # every battle of the judgments handed out so far is already in the file
        owed = sum(repeats(j) for j in reader.pulled if is_battle(j))
        lags.append(owed - written["battles"])

    reader = CountingReader(monkeypatch, on_pull)
    summary = export_bundle(voted_bundle, tmp_path / "battles.json", ExportOptions(format="arena"))
    assert reader.calls == 1 and len(reader.pulled) > 10
    assert set(lags) == {0}
    assert summary.records == written["battles"]
    not_battles = sum(1 for judgment in reader.pulled if not is_battle(judgment))
    assert not_battles > 0
    assert summary.left_out == {"judgments_not_pairwise": not_battles}


@pytest.mark.parametrize("aggregate", [False, True])
def test_pairwise_holds_one_item_of_judgments_ahead_of_the_sort(
    voted_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, aggregate: bool
) -> None:
    monkeypatch.setattr(pairwise, "_ITEM_CHUNK", 1)
    sorted_records = Counter[str]()

    def counting(name: str, module: Any) -> None:
        real = getattr(module, name)

        def wrapper(entries: Any) -> Iterator[str]:
            def counted() -> Iterator[Any]:
                for entry in entries:
                    sorted_records["taken"] += 1
                    yield entry

            return cast("Iterator[str]", real(counted()))

        monkeypatch.setattr(module, name, wrapper)

    from workbench.export import aggregate as aggregate_module

    counting("sorted_texts", pairwise)
    real_pairs = aggregate_module._pairs

    def summing(records: list[dict[str, Any]]) -> Any:
        # an item's records are handed over when its pairs are summed
        sorted_records["taken"] += len(records)
        return real_pairs(records)

    monkeypatch.setattr(aggregate_module, "_pairs", summing)
    held: list[int] = []
    reader: CountingReader
    reader = CountingReader(
        monkeypatch, lambda: held.append(len(reader.pulled) - sorted_records["taken"])
    )
    export_bundle(voted_bundle, tmp_path / "pairs.jsonl", ExportOptions(aggregate=aggregate))
    per_item = Counter(judgment.item_id for judgment in reader.pulled)
    assert reader.calls == 1 and len(reader.pulled) > 2 * max(per_item.values())
    # the judgments read but not yet handed to the sort: at most one item's (a pair sum per
    # item when aggregating is handed over once the item is summed)
    assert max(held) <= max(per_item.values())


@pytest.mark.parametrize(
    "options",
    [
        ExportOptions(format="jsonl"),
        ExportOptions(format="jsonl", aggregate=True),
        ExportOptions(format="csv"),
        ExportOptions(format="csv", aggregate=True),
        ExportOptions(format="items", images=ImageMode.PATHS),
    ],
    ids=["jsonl", "jsonl-aggregate", "csv", "csv-aggregate", "items"],
)
def test_spilled_runs_write_the_same_bytes(
    voted_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: ExportOptions
) -> None:
    in_memory = tmp_path / "memory" / "out"
    export_bundle(voted_bundle, in_memory, options)
    merges = Counter[str]()
    real_merge = heapq.merge

    def counting_merge(*iterables: Any, **kwargs: Any) -> Any:
        merges["runs"] += len(iterables)
        return real_merge(*iterables, **kwargs)

    monkeypatch.setattr(heapq, "merge", counting_merge)
    monkeypatch.setattr(external_sort, "SORT_RUN", 3)
    spilled = tmp_path / "spilled" / "out"
    export_bundle(voted_bundle, spilled, options)
    assert merges["runs"] > 2
    assert spilled.read_bytes() == in_memory.read_bytes()


def test_items_count_the_judgments_they_leave_out_while_streaming(
    voted_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = CountingReader(monkeypatch)
    summary = export_bundle(voted_bundle, tmp_path / "items.jsonl", ExportOptions(format="items"))
    without = sum(1 for judgment in reader.pulled if judgment.item_id is None)
    assert reader.calls == 1
    assert summary.left_out == ({"judgments_without_item": without} if without else {})


@pytest.fixture(scope="module")
def synthetic_bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """Bundles of 6 models and 10 campaign votes per item, with 150 and 600 items: four times
    the judgments, each item as large. Made in this process (bench/make_synthetic_bundle.py),
    not in a child that imports the app again."""
    sys.path.insert(0, str(PROJECT / "bench"))
    try:
        from make_synthetic_bundle import make_synthetic_bundle
    finally:
        sys.path.pop(0)
    folder = tmp_path_factory.mktemp("synthetic")
    bundles: dict[int, Path] = {}
    for votes in (1_500, 6_000):
        bundles[votes] = folder / f"votes-{votes}.wbb"
        make_synthetic_bundle(bundles[votes], votes // 10, 6, votes=votes)
    return bundles


#: the formats whose memory is measured, each in the one process of :func:`traced_peaks`
MEASURED_FORMATS = ("jsonl", "arena", "items")

#: Measures, in a process of its own, the memory one export holds. tracemalloc counts every
#: thread's allocations, and a pytest worker still runs threads left by earlier tests; and the
#: cycles an earlier export left are freed whenever the collector happens to run, which moved
#: a peak by 150 KB either way (more than the growth allowed), so each export starts collected.
#: One process measures every format (the app imported once): each format is warmed by an
#: export of its own first, and only the growth between its two bundles is compared, which an
#: earlier format's leftovers do not change.
_PEAKS_OF_EXPORTS = """
import gc, json, sys, tracemalloc
from pathlib import Path
from workbench.export import ExportOptions, export_bundle, external_sort, items, judgments, pairwise

# a batch of rows, a chunk of items and a run of records far smaller than the bundles, so
# what each holds is about the same for both
judgments._BATCH = 100
pairwise._ITEM_CHUNK = 10
items.ITEMS_PER_QUERY = 10
external_sort.SORT_RUN = 100
formats, out, *bundles = sys.argv[1:]
peaks = {}
for export_format in formats.split(","):
    options = ExportOptions(format=export_format)
    folder = Path(out) / export_format
    export_bundle(Path(bundles[0]), folder / "warm", options)  # imports, caches
    peaks[export_format] = []
    for number, bundle in enumerate(bundles):
        gc.collect()
        tracemalloc.start()
        start, _ = tracemalloc.get_traced_memory()
        export_bundle(Path(bundle), folder / f"export-{number}", options)
        peaks[export_format].append(tracemalloc.get_traced_memory()[1] - start)
        tracemalloc.stop()
print(json.dumps(peaks))
"""


@pytest.fixture(scope="module")
def traced_peaks(
    synthetic_bundles: dict[int, Path], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, list[int]]]:
    """The folder of each format's exports, and per format the peak memory of exporting the
    small and the large bundle."""
    out = tmp_path_factory.mktemp("peaks")
    bundles = [synthetic_bundles[1_500], synthetic_bundles[6_000]]
    finished = subprocess.run(
        [sys.executable, "-c", _PEAKS_OF_EXPORTS, ",".join(MEASURED_FORMATS), str(out)]
        + [str(bundle) for bundle in bundles],
        capture_output=True,
        text=True,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    peaks = json.loads(finished.stdout)
    return out, {name: [int(peak) for peak in found] for name, found in peaks.items()}


@pytest.mark.parametrize("export_format", MEASURED_FORMATS)
def test_memory_does_not_grow_with_the_judgments(
    traced_peaks: tuple[Path, dict[str, list[int]]], export_format: str
) -> None:
    out, peaks = traced_peaks
    small, large = peaks[export_format]
    record = (out / export_format / "export-1").stat().st_size / 6_000
    # held per extra judgment: a list of them (or of their records) costs more than a record
    per_judgment = (large - small) / (6_000 - 1_500)
    assert per_judgment < record / 4, (small, large, record)


def test_progress_counts_the_judged_items_while_streaming(
    voted_bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pairwise, "_ITEM_CHUNK", 2)
    reader = CountingReader(monkeypatch)
    seen: list[tuple[str, int, int]] = []
    export_bundle(
        voted_bundle,
        tmp_path / "pairs.jsonl",
        ExportOptions(),
        progress=lambda phase, done, total: seen.append((phase, done, total)),
    )
    judged = len({judgment.item_id for judgment in reader.pulled} - {None})
    items_steps = [(done, total) for phase, done, total in seen if phase == "items"]
    # one step before each chunk of two items, with the total known before the first
    assert items_steps == [(done, judged) for done in range(0, judged, 2)]
