"""One record per judged pair: the per-judgment export summed per pair, in either order."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.export import ExportOptions, export_bundle


def test_aggregated_pairs_sum_the_judgments(voted_bundle: Path, tmp_path: Path) -> None:
    single, summed = tmp_path / "single.jsonl", tmp_path / "pairs.jsonl"
    export_bundle(voted_bundle, single, ExportOptions())
    export_bundle(voted_bundle, summed, ExportOptions(aggregate=True))
    records = [json.loads(line) for line in single.read_text("utf-8").splitlines()]
    pairs = [json.loads(line) for line in summed.read_text("utf-8").splitlines()]

    expected: Counter[tuple[Any, ...]] = Counter()
    for r in records:
        if r["outcome"] is None or r["model_b"] is None:
            continue
        winner = r["winner"] if r["outcome"] in ("a", "b") else r["outcome"]
        key = (r["source"], r["item_id"], r["turn"], r["criterion"], r["context"])
        expected[(*key, *sorted((r["model_a"], r["model_b"])), winner)] += 1
    found: Counter[tuple[Any, ...]] = Counter()
    for p in pairs:
        key = (p["source"], p["item_id"], p["turn"], p["criterion"], p["context"])
        assert p["model_a"] < p["model_b"] and p["format_version"] == 1
        assert p["judgments"] == p["wins_a"] + p["wins_b"] + p["ties"] + p["both_bad"]
        for winner, count in (
            (p["model_a"], p["wins_a"]),
            (p["model_b"], p["wins_b"]),
            ("tie", p["ties"]),
            ("both_bad", p["both_bad"]),
        ):
            if count:
                found[(*key, p["model_a"], p["model_b"], winner)] += count
    assert found == expected and len(pairs) < sum(expected.values())

    table = tmp_path / "pairs.csv"
    export_bundle(voted_bundle, table, ExportOptions(format="csv", aggregate=True))
    frame = pd.read_csv(table)
    assert len(frame) == len(pairs) and frame["judgments"].sum() == sum(expected.values())
