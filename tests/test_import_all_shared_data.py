"""Acceptance: all of ../shared/data imports into one bundle, and `workbench info --json`
counts what the raw files hold (expectations computed from the files, not constants)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from workbench.cli import main


def jsonl_gz(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def expected_counts(data: Path) -> dict[str, int]:
    visit_multi = pd.read_csv(data / "visit-bench" / "visit_bench_multi_images.csv")
    visit_single = pd.read_csv(data / "visit-bench" / "visit_fully_annotated_example.csv")
    visit_images = [
        url.rsplit("/", 1)[-1] for urls in visit_multi["images"] for url in json.loads(urls)
    ] + [url.rsplit("/", 1)[-1] for url in visit_single["image_url"]]
    visit_present = sum((data / "visit-bench" / "images" / name).is_file() for name in visit_images)

    conv = pd.read_excel(data / "convbench" / "ConvBench.xlsx")
    conv_present = sum((data / "convbench" / "images" / str(i)).is_file() for i in conv["image_id"])

    wild = data / "wildvision-bench"
    answers = [
        row
        for path in sorted((wild / "model_answers").glob("*.jsonl.gz"))
        for row in jsonl_gz(path)
    ]
    judgments = [
        row
        for path in sorted((wild / "model_judgements").glob("*.jsonl.gz"))
        for row in jsonl_gz(path)
    ]
    battles = jsonl_gz(wild / "vision_bench_battles.jsonl.gz")
    wild_items = len({row["question_id"] for row in answers})

    items = len(visit_multi) + len(visit_single) + len(conv) + wild_items
    slots = len(visit_images) + len(conv) + wild_items
    present = visit_present + conv_present
    return {
        "items": items,
        "turns": len(visit_multi) + len(visit_single) + 3 * len(conv) + wild_items,
        "image_slots": slots,
        "images_missing": slots - present,
        "models": len(
            {row["model"] for row in answers}
            | {b["model_a"] for b in battles}
            | {b["model_b"] for b in battles}
        ),
        "outputs": len(answers),
        "judgments": len(judgments) + 2 * len(battles),
        "judgments_without_item": len(battles),
    }


@pytest.mark.shared_data
def test_everything_imports_and_info_counts_match_the_raw_files(
    full_bundle: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info", str(full_bundle), "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)["totals"]
    expected = expected_counts(shared_data)
    assert {key: totals[key] for key in expected} == expected
    assert totals["images_stored"] <= totals["image_slots"] - totals["images_missing"]
