"""The report of a bundle where one side rates every model the same (humans who voted only
ties) is written, with the undefined rank correlation shown as a dash: it ended in an internal
error (``np.isnan(None)``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main
from workbench.services.importing import import_files

MODELS = ("model-one", "model-two", "model-three")


def ties_only_bundle(folder: Path) -> Path:
    lines = []
    for n in range(12):
        a, b = MODELS[n % 3], MODELS[(n + 1) % 3]
        lines.append(
            item_line(
                f"q{n}",
                outputs=[{"model": a, "text": "x"}, {"model": b, "text": "y"}],
                judgments=[
                    {"kind": "human", "model_a": a, "model_b": b, "outcome": "tie", "rater": "r1"},
                    {
                        "kind": "judge",
                        "model_a": a,
                        "model_b": b,
                        "outcome": "a" if n % 2 else "b",
                        "rater": "judge-model",
                    },
                ],
            )
        )
    bundle = folder / "b.wbb"
    import_files(bundle, [write_jsonl(folder / "in", lines)], "jsonl")
    return bundle


def test_a_report_where_humans_voted_only_ties_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = ties_only_bundle(tmp_path)
    out = tmp_path / "report.html"
    assert main(["report", str(bundle), "--out", str(out)]) == 0, capsys.readouterr().err
    assert "internal error" not in capsys.readouterr().err
    assert out.read_text(encoding="utf-8").startswith("<!")


def test_the_scatter_shows_an_undefined_correlation_as_a_dash() -> None:
    import pandas as pd

    from workbench.stats.agreement_plots import rating_scatter

    ratings = pd.DataFrame(
        {"model": ["x", "y"], "rating_a": [1000.0, 1000.0], "rating_b": [900.0, 1100.0]}
    )
    figure = rating_scatter(ratings, "humans", "judges", None, None)
    assert "Spearman –, Kendall's tau –" in figure.axes[0].get_title()


def test_a_right_to_left_override_in_a_model_name_is_isolated_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """U+202E in a name reversed the rest of its paragraph; isolated, it ends with the name."""
    hostile = "model-\u202eowt"
    line = item_line(
        "q1",
        outputs=[{"model": hostile, "text": "x"}, {"model": "model-y", "text": "y"}],
        judgments=[{"kind": "human", "model_a": hostile, "model_b": "model-y", "outcome": "a"}],
    )
    bundle = tmp_path / "b.wbb"
    import_files(bundle, [write_jsonl(tmp_path / "in", [line])], "jsonl")
    out = tmp_path / "report.html"
    assert main(["report", str(bundle), "--out", str(out)]) == 0, capsys.readouterr().err
    shown = out.read_text(encoding="utf-8").split("<script")[0]  # the data block is not shown
    assert hostile in shown
    assert shown.count(hostile) == shown.count(f"\u2068{hostile}")  # every one isolated
