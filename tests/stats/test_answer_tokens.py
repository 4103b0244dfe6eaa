"""The leaderboard's mean answer tokens column against WildVision-Bench's published "Avg Tokens"
(the mean ``token_len`` of each model's 500 answers, written as an integer)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from workbench.cli import main


@pytest.mark.shared_data
def test_mean_answer_tokens_are_the_published_avg_tokens(
    wildvision_bundle: Path, wildvision_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    published = {}
    for line in (wildvision_dir / "elo_leaderboard.md").read_text().splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        published[cells[0]] = int(cells[-1])
    capsys.readouterr()
    assert main(["leaderboard", str(wildvision_bundle), "--answer-tokens", "--json"]) == 0
    ours = {
        row["model"]: row["mean_answer_tokens"]
        for row in json.loads(capsys.readouterr().out)["models"]
    }
    assert set(ours) == set(published) and len(ours) == 22
    # show_results.py writes the mean cut to an integer
    assert {model: math.floor(value) for model, value in ours.items()} == published
    capsys.readouterr()
    assert main(["leaderboard", str(wildvision_bundle), "--answer-tokens"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert any(line.startswith("  #") and line.endswith("tokens") for line in printed)
    assert any(line.split()[1:2] == ["gpt-4o"] and line.endswith(" 143") for line in printed)
