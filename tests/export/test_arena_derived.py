"""The arena export of a WildVision-Bench import answers the leaderboard's question: GPT-4o's
verdicts, without the battles derived from them unless asked for. FastChat's rules, run over
the file as its tools read it, give the bundle's online Elo and its bootstrap intervals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.export.fastchat_rules import (
    fastchat_bootstrap,
    fastchat_mle_elo,
    fastchat_newton_fit,
    fastchat_online_elo,
    interval_widths,
    read_as_fastchat,
)
from workbench.cli import main
from workbench.export import ExportOptions, export_bundle
from workbench.export.options import ExportError

BASELINE = "claude-3-sonnet-20240229"
#: bootstrap rounds on each side: the 95% interval's width then scatters by about 3% a side
ROUNDS = 2000


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def leaderboard(capsys: pytest.CaptureFixture[str], bundle: Path, *flags: str) -> Any:
    return json.loads(run(capsys, "leaderboard", str(bundle), *flags, "--json"))


@pytest.mark.shared_data
def test_the_default_export_leaves_derived_battles_out_and_says_so(
    wildvision_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "battles.json"
    printed = run(capsys, "export", str(wildvision_bundle), "--format", "arena", "--out", str(out))
    battles = json.loads(out.read_text("utf-8"))
    # 4,697 "much better" verdicts written three times, 6,277 other verdicts once
    assert len(battles) == 20_368
    assert not any(battle.get("judge") == "wildvision-battles" for battle in battles)
    assert "left out: 19644 derived judgments" in printed
    assert "derived judgments: left out" in printed

    both = tmp_path / "both.json"
    printed = run(
        capsys,
        *("export", str(wildvision_bundle), "--format", "arena", "--out", str(both)),
        "--include-derived",
    )
    assert len(json.loads(both.read_text("utf-8"))) == 20_368 + 19_644
    assert "included on request: 19644 derived judgments" in printed
    assert "derived judgments: included" in printed
    summary = json.loads(
        run(
            capsys,
            *("export", str(wildvision_bundle), "--format", "arena", "--out", str(out)),
            "--json",
        )
    )
    assert summary["derived_judgments"] == "left out"
    assert summary["left_out"]["derived_judgments"] == 19_644


@pytest.mark.shared_data
def test_fastchat_reads_the_bundles_online_elo_and_bootstrap_from_the_export(
    wildvision_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "battles.json"
    export_bundle(wildvision_bundle, out, ExportOptions(format="arena"))
    battles = read_as_fastchat(out)

    printed = leaderboard(capsys, wildvision_bundle, "--method", "elo", "--bootstrap", "0")
    bundle_elo = {row["model"]: row["rating"] for row in printed["models"]}
    fastchat_elo = fastchat_online_elo(battles)
    assert sorted(fastchat_elo) == sorted(bundle_elo)
    # every board pins its anchor (here the model in most battles, the baseline) at 1000;
    # FastChat's online Elo starts every model at 1000 and pins none: the same ratings, shifted
    anchor_model = printed["request"]["anchor"]["model"]
    shift = 1000.0 - fastchat_elo[anchor_model]
    for model, rating in bundle_elo.items():
        assert fastchat_elo[model] + shift == pytest.approx(rating, abs=1e-6), model

    anchor = f"{BASELINE}=1000"
    printed = leaderboard(capsys, wildvision_bundle, "--anchor", anchor, "--bootstrap", str(ROUNDS))
    board = pd.DataFrame(printed["models"]).set_index("model")
    point = fastchat_mle_elo(battles, BASELINE, 1000.0)
    assert (fastchat_newton_fit(battles, BASELINE, 1000.0) - point).abs().max() < 1e-4
    assert (board["rating"] - point[board.index]).abs().max() < 1e-3

    samples = fastchat_bootstrap(battles, ROUNDS, seed=0, anchor=BASELINE, anchor_rating=1000.0)
    theirs = interval_widths(samples).drop(BASELINE)
    ours = (board["ci_upper"] - board["ci_lower"]).drop(BASELINE)
    ratio = ours / theirs[ours.index]
    assert ratio.between(0.9, 1.1).all(), ratio.sort_values()


def test_only_the_arena_format_takes_include_derived(voted_bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    with pytest.raises(ExportError, match="--include-derived"):
        export_bundle(voted_bundle, out, ExportOptions(format="jsonl", include_derived=True))
    assert not out.exists()
