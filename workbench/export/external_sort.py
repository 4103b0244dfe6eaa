"""Sorting more export records than memory should hold: sorted runs of JSON text spilled to a
temporary folder and merged, so an export holds one run, not the bundle."""

from __future__ import annotations

import heapq
import json
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from operator import itemgetter
from pathlib import Path
from typing import Any

from workbench.export.canonical_json import dumps

#: records sorted in memory at once; more are sorted in runs on disk and merged
SORT_RUN = 100_000
#: characters of records held before a run is spilled, whatever their number: what bounds the
#: memory of a sort (a pairwise record with its answers is a few kilobytes, an item with
#: embedded images far more)
SORT_RUN_CHARS = 32_000_000


def sorted_texts(texts: Iterable[str]) -> Iterator[str]:
    """The JSON texts (one record each, no newline inside: JSON escapes control characters) in
    string order, which for canonical JSON is the records' content order."""
    yield from _sorted(((text, text) for text in texts), keyed=False)


def sorted_by_key(entries: Iterable[tuple[Any, str]]) -> Iterator[str]:
    """The texts of ``(key, text)`` entries in the order of their keys (JSON values: strings,
    numbers or lists of them, compared as Python compares them); equal keys keep no order."""
    yield from _sorted(entries, keyed=True)


def _sorted(entries: Iterable[tuple[Any, str]], *, keyed: bool) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="workbench-export-") as folder:
        runs: list[Path] = []
        pending: list[tuple[Any, str]] = []
        held = 0

        def spill() -> None:
            pending.sort(key=itemgetter(0))
            run = Path(folder) / f"run-{len(runs)}.jsonl"
            with run.open("w", encoding="utf-8", newline="\n") as handle:
                for key, text in pending:
                    handle.write((dumps([key, text]) if keyed else text) + "\n")
            runs.append(run)
            pending.clear()

        for key, text in entries:
            pending.append((key, text))
            held += len(text)
            if len(pending) >= SORT_RUN or held >= SORT_RUN_CHARS:
                spill()
                held = 0
        if not runs:
            pending.sort(key=itemgetter(0))
            yield from (text for _, text in pending)
            return
        if pending:
            spill()
        with ExitStack() as stack:
            files = [stack.enter_context(run.open(encoding="utf-8", newline="\n")) for run in runs]
            if not keyed:
                yield from (line[:-1] for line in heapq.merge(*files))
                return
            decoded = [(json.loads(line) for line in handle) for handle in files]
            yield from (text for _, text in heapq.merge(*decoded, key=itemgetter(0)))
