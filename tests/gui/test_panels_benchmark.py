"""The Benchmark panel: for each benchmark with a plugin (VisIT-Bench, ConvBench, CHIRP), the
page of a bundle of its source shows the tables ``workbench scores --json`` prints, number
for number, with that command on its request line; ConvBench's page adds its per-task
heatmap, and CHIRP's the distance correlation of Elo with size once a model attribute file is
given."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.importers.canonical_helpers import write_jsonl
from tests.patience import HANG_GUARD_MS
from workbench.cli import main
from workbench.services.importing import import_files
from workbench.services.to_json import jsonable, records

pytestmark = pytest.mark.gui

MODELS = ("m-small", "m-mid", "m-large")
SIZES = {"m-small": 7, "m-mid": 13, "m-large": 34}
#: VisIT-Bench's reference answer plays as the strongest contestant
STRENGTH = {**SIZES, "reference": 70}


def _line(source: str, number: int, judgments: list[dict], **extra: Any) -> dict:
    return {
        "format": "vlm-workbench/item",
        "format_version": 1,
        "source": source,
        "id": f"q-{number}",
        "turns": extra.pop("turns", [{"prompt": f"question {number}"}]),
        "judgments": judgments,
        **extra,
    }


def _pairs() -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(MODELS) for b in MODELS[i + 1 :]]


def _winner(draw: random.Random, a: str, b: str) -> str:
    """Mostly the larger model: a size effect with noise."""
    larger_a = STRENGTH[a] > STRENGTH[b]
    return ("a" if larger_a else "b") if draw.random() < 0.75 else ("b" if larger_a else "a")


def visit_bench_lines() -> list[dict]:
    draw = random.Random(3)
    lines = []
    for number in range(8):
        judgments = []
        for a, b in [*_pairs(), *((m, "reference") for m in MODELS)]:
            for rater in range(5):
                judgments.append(
                    {
                        "kind": "human",
                        "model_a": a,
                        "model_b": b,
                        "outcome": _winner(draw, a, b),
                        "rater": f"r{rater}",
                        "group": f"{number}-{a}-{b}",
                    }
                )
            judgments.append(
                {"kind": "judge", "model_a": a, "model_b": b, "outcome": _winner(draw, a, b)}
            )
        lines.append(_line("visit-bench", number, judgments, family="counting"))
    return lines


def convbench_lines() -> list[dict]:
    draw = random.Random(5)
    lines = []
    for number in range(6):
        judgments = []
        for model in MODELS:
            for turn in (1, 2, 3, None):
                judgment = {
                    "kind": "judge",
                    "model_a": model,
                    "score": float(draw.randint(2, 9)),
                    "rater": "gpt-judge",
                }
                if turn is not None:
                    judgment["turn"] = turn
                judgments.append(judgment)
        turns = [{"prompt": f"turn {t}", "category": f"skill-{t}"} for t in (1, 2, 3)]
        category = ("OCR", "humour", "charts")[number % 3]
        lines.append(_line("convbench", number, judgments, turns=turns, category=category))
    return lines


def chirp_lines() -> list[dict]:
    draw = random.Random(11)
    lines = []
    participant = 0
    for number in range(6):
        judgments = []
        for a, b in _pairs():
            participant += 1
            for kind, rater in (("human", f"p{participant}"), ("judge", "vlm-judge")):
                judgments.append(
                    {
                        "kind": kind,
                        "model_a": a,
                        "model_b": b,
                        "outcome": _winner(draw, a, b),
                        "rater": rater,
                    }
                )
        lines.append(_line("chirp", number, judgments))
    return lines


BENCHMARKS = {
    "visit-bench": visit_bench_lines,
    "convbench": convbench_lines,
    "chirp": chirp_lines,
}


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("benchmark-pages")
    made = {}
    for name, lines in BENCHMARKS.items():
        source = write_jsonl(folder / name, lines())
        made[name] = folder / f"{name}.wbb"
        import_files(made[name], [source], "jsonl")
    return made


@pytest.fixture
def window(qtbot) -> Iterator:  # type: ignore[no-untyped-def]
    from workbench.gui.main_window import MainWindow

    opened = MainWindow(persist_layout=False)
    qtbot.addWidget(opened)
    opened.show()
    try:
        yield opened
    finally:
        opened.close()


def _scores_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    capsys.readouterr()
    assert main(["scores", *argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _shown(panel, qtbot):  # type: ignore[no-untyped-def]
    qtbot.waitUntil(
        lambda: (panel.page is not None or panel.failure is not None) and not panel.busy,
        timeout=HANG_GUARD_MS,
    )
    assert panel.failure is None
    return panel.page


def _as_printed(panel, name: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return json.loads(json.dumps(jsonable(records(panel.table_frame(name)))))


@pytest.mark.parametrize("benchmark", list(BENCHMARKS))
def test_the_page_shows_what_workbench_scores_prints(
    qtbot,  # type: ignore[no-untyped-def]
    window,
    bundles: dict[str, Path],
    benchmark: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = bundles[benchmark]
    window.open_bundle(path)
    window.analysis.show_panel("benchmark")
    panel = window.analysis.benchmark
    page = _shown(panel, qtbot)
    assert page.benchmarks == [benchmark]
    printed = _scores_json(capsys, str(path), "--benchmark", benchmark)
    assert (
        panel.command()
        == printed["command"]
        == f"workbench scores BUNDLE --benchmark {benchmark} --json"
    )
    shown = {name for name, rows in printed["tables"].items() if rows}
    assert set(panel.tables) == shown
    for name in shown:
        assert _as_printed(panel, name) == printed["tables"][name], name
    expected = {
        "visit-bench": {"elo", "win_rate_vs_reference", "judge_human_agreement"},
        "convbench": {"scores", "by_instruction_category", "by_turn_category"},
        "chirp": {"elo", "kappa_with_human_survey", "cycles"},
    }[benchmark]
    assert expected <= shown
    if benchmark == "convbench":
        assert list(panel.figures) == ["per-task heatmap"]
        heatmap = panel.figures["per-task heatmap"]
        panel.tabs.setCurrentWidget(heatmap)  # a figure is drawn when its tab is shown
        qtbot.waitUntil(lambda: heatmap.pixmap is not None, timeout=HANG_GUARD_MS)
    panel.copy_command()
    from PySide6.QtWidgets import QApplication

    assert QApplication.clipboard().text() == printed["command"]


def test_chirp_with_model_sizes_adds_dcor(
    qtbot,  # type: ignore[no-untyped-def]
    window,
    bundles: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sizes = tmp_path / "sizes.csv"
    sizes.write_text("model,size\n" + "".join(f"{m},{s}\n" for m, s in SIZES.items()))
    window.open_bundle(bundles["chirp"])
    window.analysis.show_panel("benchmark")
    panel = window.analysis.benchmark
    _shown(panel, qtbot)
    panel.page = None
    panel.set_model_attributes(sizes)
    _shown(panel, qtbot)
    printed = _scores_json(
        capsys, str(bundles["chirp"]), "--benchmark", "chirp", "--model-attributes", str(sizes)
    )
    assert panel.command() == printed["command"]
    assert "--model-attributes" in printed["command"]
    for name in ("elo_distance_correlation", "prefers_larger_model"):
        assert _as_printed(panel, name) == printed["tables"][name]
    dcor = [
        row
        for row in printed["tables"]["elo_distance_correlation"]
        if row["criterion"] == "overall"
    ]
    assert {row["evaluator"] for row in dcor} == {"human survey", "vlm-judge"}
    assert all(0.0 <= row["dcor"] <= 1.0 for row in dcor)
