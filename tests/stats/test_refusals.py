"""Refusal detection on WildVision-Bench's published answers, and VisionArena's Exclude Refusal
board drawn from it (the published data does not tag refusals)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from workbench.cli import main
from workbench.services.outcomes import refusals_per_model
from workbench.stats.refusals import OPENING_CHARACTERS, is_refusal
from workbench.storage.bundle import Bundle

BASELINE = "claude-3-sonnet-20240229"


def answers(wildvision_dir: Path, model: str) -> pd.Series:
    """One model's published answers by question id."""
    path = wildvision_dir / "model_answers" / f"{model.replace('/', '_')}.jsonl.gz"
    frame = pd.read_json(path, lines=True)
    return pd.Series(frame["output"].to_numpy(), index=frame["question_id"])


def test_the_rule_reads_only_the_opening() -> None:
    assert is_refusal("I'm sorry, but I can't identify the person in the image.")
    assert is_refusal("  As an AI language model, I cannot rank images.")
    assert is_refusal("Unfortunately, I am unable to read the text.")
    assert not is_refusal("The chart shows three bars.")
    assert not is_refusal("")
    late = "A full answer. " * (OPENING_CHARACTERS // 10) + "I'm sorry if this is unclear."
    assert not is_refusal(late)


@pytest.mark.shared_data
def test_real_wildvision_answers(wildvision_dir: Path) -> None:
    qwen = answers(wildvision_dir, "Qwen/Qwen-VL-Chat")
    # "I'm sorry, but I cannot determine what the diagnosis is from the image alone. ..."
    assert is_refusal(qwen["bc580b4e76d4406abfbc5181ee790a7a"])
    gpt4o = answers(wildvision_dir, "gpt-4o")
    # a hedge inside a real answer ("While I cannot confirm if this specific image ...")
    assert not is_refusal(gpt4o["786015a12c4c4d4aa37f1d9b1fd4e1eb"])
    counts = {
        model: int(answers(wildvision_dir, model).map(is_refusal).sum())
        for model in ("Qwen/Qwen-VL-Chat", "gpt-4-vision-preview", "gpt-4o")
    }
    # Qwen-VL-Chat declines to identify people far more often than GPT-4o
    assert counts["Qwen/Qwen-VL-Chat"] > counts["gpt-4-vision-preview"] > counts["gpt-4o"] > 0


@pytest.mark.shared_data
def test_exclude_refusal_board_on_wildvision(
    wildvision_bundle: Path, wildvision_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = str(wildvision_bundle)
    flags = ["--bootstrap", "0", "--anchor", BASELINE, "--json"]
    assert main(["leaderboard", bundle, *flags]) == 0
    everything = json.loads(capsys.readouterr().out)
    assert main(["leaderboard", bundle, *flags, "--exclude-refusal"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["request"]["boards"]["exclude_refusal"] is True
    assert "--exclude-refusal" in board["request"]["command"]
    assert "refusals excluded" in board["filters"]
    assert board["battles"] < everything["battles"]
    # gpt-4o's battles are its 500 verdicts against the baseline, less those where either
    # published answer refuses
    baseline, gpt4o = answers(wildvision_dir, BASELINE), answers(wildvision_dir, "gpt-4o")
    refusing = gpt4o.map(is_refusal) | baseline[gpt4o.index].map(is_refusal)
    n = {entry["model"]: entry["n"] for entry in board["models"]}
    assert n["gpt-4o"] == 500 - int(refusing.sum())
    with Bundle.open(wildvision_bundle) as opened, opened.read_session() as session:
        counts = refusals_per_model(session, ["gpt-4o", BASELINE])
    assert counts == {
        "gpt-4o": int(gpt4o.map(is_refusal).sum()),
        BASELINE: int(baseline.map(is_refusal).sum()),
    }


@pytest.mark.shared_data
def test_categories_counts_refusals_per_model(
    wildvision_bundle: Path, wildvision_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["categories", str(wildvision_bundle), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    rows = {row["model"]: row for row in document["refusals"]}
    qwen = answers(wildvision_dir, "Qwen/Qwen-VL-Chat")
    assert rows["Qwen/Qwen-VL-Chat"]["answers"] == len(qwen)
    assert rows["Qwen/Qwen-VL-Chat"]["refusals"] == int(qwen.map(is_refusal).sum())
    assert document["refusals"][0]["model"] == "Qwen/Qwen-VL-Chat"  # most refusing first
    assert main(["categories", str(wildvision_bundle)]) == 0
    assert "refusing answers per model" in capsys.readouterr().out
