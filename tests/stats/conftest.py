"""Fixtures for the statistics tests: the published WildVision-Bench files, read with pandas
straight from the shared data folder (never copied), and parsers for its published results."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from workbench.stats.battles import battles_from_fastchat
from workbench.stats.bradley_terry import Anchor

WILDVISION_ANCHOR = Anchor("claude-3-sonnet-20240229", 1000.0)


@pytest.fixture(scope="session")
def wildvision_dir(shared_data: Path) -> Path:
    return shared_data / "wildvision-bench"


@pytest.fixture(scope="session")
def wildvision_raw_battles(wildvision_dir: Path) -> pd.DataFrame:
    """The published battle file as FastChat reads it (``winner`` column, stored order)."""
    return pd.read_json(wildvision_dir / "vision_bench_battles.jsonl.gz", lines=True)


@pytest.fixture(scope="session")
def wildvision_battles(wildvision_raw_battles: pd.DataFrame) -> pd.DataFrame:
    return battles_from_fastchat(wildvision_raw_battles)


@pytest.fixture(scope="session")
def published_bootstrap(wildvision_dir: Path) -> pd.DataFrame:
    """bootstrapping_results.jsonl: row 0 the fit on all battles, rows 1.. bootstrap rounds."""
    lines = (wildvision_dir / "bootstrapping_results.jsonl").read_text().splitlines()
    return pd.DataFrame([json.loads(line) for line in lines if line.strip()])


@pytest.fixture(scope="session")
def published_leaderboard(wildvision_dir: Path) -> pd.DataFrame:
    """elo_leaderboard.md as a frame: model, score (%), ci_low, ci_high (score offsets)."""
    rows = []
    lines = (wildvision_dir / "elo_leaderboard.md").read_text().splitlines()
    header = [cell.strip() for cell in lines[0].strip().strip("|").split("|")]
    for line in lines[2:]:
        if not line.startswith("|"):
            continue
        cells = dict(
            zip(header, (cell.strip() for cell in line.strip().strip("|").split("|")), strict=True)
        )
        low, high = (float(value) for value in re.findall(r"-?\d+(?:\.\d+)?", cells["95% CI"]))
        rows.append(
            {
                "model": cells["Model"],
                "score": float(cells["Score"]),
                "ci_low": low,
                "ci_high": high,
            }
        )
    return pd.DataFrame(rows).set_index("model")
