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
from typing import TYPE_CHECKING, Any, cast

import pytest
from pytestqt.qtbot import QtBot

from tests.importers.canonical_helpers import write_jsonl
from tests.patience import HANG_GUARD_MS
from workbench.cli import main
from workbench.services.importing import import_files
from workbench.services.to_json import jsonable, records

if TYPE_CHECKING:
    from workbench.gui.main_window import MainWindow
    from workbench.gui.panel_computations import BenchmarkPage
    from workbench.gui.panels.benchmark_panel import BenchmarkPanel


pytestmark = pytest.mark.gui

MODELS = ("m-small", "m-mid", "m-large")
SIZES = {"m-small": 7, "m-mid": 13, "m-large": 34}
#: VisIT-Bench's reference answer plays as the strongest contestant
STRENGTH = {**SIZES, "reference": 70}


def _line(
    source: str, number: int, judgments: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
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


def visit_bench_lines() -> list[dict[str, Any]]:
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


def convbench_lines() -> list[dict[str, Any]]:
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


def chirp_lines() -> list[dict[str, Any]]:
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
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    from workbench.gui.main_window import MainWindow

    opened = MainWindow(persist_layout=False)
    qtbot.addWidget(opened)
    opened.show()
    try:
        yield opened
    finally:
        opened.close()


def _scores_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["scores", *argv, "--json"]) == 0, capsys.readouterr().err
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


def _shown(panel: BenchmarkPanel, qtbot: QtBot) -> BenchmarkPage:
    qtbot.waitUntil(
        lambda: (panel.page is not None or panel.failure is not None) and not panel.busy,
        timeout=HANG_GUARD_MS,
    )
    assert panel.failure is None
    assert panel.page is not None  # what the wait above ends on when nothing failed
    return panel.page


def _as_printed(panel: BenchmarkPanel, name: str) -> list[dict[str, Any]]:
    return cast(
        "list[dict[str, Any]]", json.loads(json.dumps(jsonable(records(panel.table_frame(name)))))
    )


@pytest.mark.parametrize("benchmark", list(BENCHMARKS))
def test_the_page_shows_what_workbench_scores_prints(
    qtbot: QtBot,
    window: MainWindow,
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
    if benchmark == "chirp":
        # the median Elo per model and criterion, one heatmap per evaluator
        assert list(panel.figures) == [
            "Elo per criterion (human survey)",
            "Elo per criterion (vlm-judge)",
        ]
    if benchmark == "convbench":
        assert list(panel.figures) == ["per-task heatmap"]
        heatmap = panel.figures["per-task heatmap"]
        panel.tabs.setCurrentWidget(heatmap)  # a figure is drawn when its tab is shown
        qtbot.waitUntil(lambda: heatmap.pixmap is not None, timeout=HANG_GUARD_MS)
    panel.copy_command()
    from PySide6.QtWidgets import QApplication

    assert QApplication.clipboard().text() == printed["command"]


def test_the_report_draws_the_pages_figures(bundles: dict[str, Path], tmp_path: Path) -> None:
    # (the ConvBench fixture holds grades only: no board, so no report to draw in)
    benchmark = "chirp"
    figures = ["Elo per criterion (human survey)", "Elo per criterion (vlm-judge)"]
    out = tmp_path / "report.html"
    argv = ["report", str(bundles[benchmark]), "--out", str(out), "--bootstrap", "10"]
    assert main([*argv, "--min-battles", "0"]) == 0
    html = out.read_text(encoding="utf-8")
    section = html[html.index(f"<h3>{benchmark}</h3>") :]
    for number, name in enumerate(figures):
        assert f"<h4>{name}</h4>" in section
        assert f'id="scores-{benchmark}-figure-{number}"' in section
    assert f'id="scores-{benchmark}-figure-{len(figures)}"' not in section


def test_chirp_with_model_sizes_adds_dcor(
    qtbot: QtBot,
    window: MainWindow,
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


#: VisionArena voters' battles among four of WildVision-Bench's models, stronger first (a
#: fixture in the published VisionArena-Battle schema: no VisionArena battles are published
#: here), so that the bundle holds a benchmark's board (GPT-4o's verdicts) and an arena's
ARENA_MODELS = ("gpt-4o", "gpt-4-vision-preview", "Reka-Flash", "llava-1.5-7b-hf")
ARENA_TAGS = (("ocr",), ("captioning", "ocr"), ("diagram",), ("captioning",))


def vision_arena_rows() -> list[dict[str, Any]]:
    from tests.plugins.arena.hf_tables import flags, messages, png_bytes

    draw = random.Random(17)
    rows: list[dict[str, Any]] = []
    image = {"bytes": png_bytes("red"), "path": "shared.png"}
    for conversation, tags in enumerate(ARENA_TAGS):
        for a_index, model_a in enumerate(ARENA_MODELS):
            for b_index, model_b in enumerate(ARENA_MODELS):
                if a_index == b_index:
                    continue
                for vote in range(3):
                    prompts = [f"Read sign {conversation}"]
                    if conversation == 0:
                        prompts.append("And the small print?")
                    luck = draw.random()
                    stronger = "model_a" if a_index < b_index else "model_b"
                    weaker = "model_b" if a_index < b_index else "model_a"
                    winner = (
                        stronger
                        if luck < 0.6
                        else weaker
                        if luck < 0.8
                        else "tie"
                        if luck < 0.9
                        else "tie (bothbad)"
                    )
                    rows.append(
                        {
                            "question_id": f"arena-{conversation}",
                            "tstamp": 1718000000.0 + 10 * len(rows),
                            "model_a": model_a,
                            "model_b": model_b,
                            "winner": winner,
                            "judge_hash": f"voter-{vote}",
                            "conversation_a": messages(
                                *[(prompt, f"{model_a}: {prompt}") for prompt in prompts]
                            ),
                            "conversation_b": messages(
                                *[(prompt, f"{model_b}: {prompt}") for prompt in prompts]
                            ),
                            "turn": len(prompts),
                            "anony": True,
                            "language": "English",
                            "images": [image],
                            "categories": flags(*tags),
                        }
                    )
    return rows


@pytest.fixture(scope="module")
def arena_and_benchmark(wildvision_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared WildVision-Bench import with VisionArena battles added."""
    from tests.plugins.arena.hf_tables import VISION_ARENA_BATTLE, write_parquet
    from tests.shared_builds import copy_of

    folder = tmp_path_factory.mktemp("arena-and-benchmark")
    bundle = copy_of(wildvision_bundle, folder)
    shard = write_parquet(
        folder / "data" / "train-00000-of-00001.parquet", vision_arena_rows(), VISION_ARENA_BATTLE
    )
    import_files(bundle, [shard], "arena-battles")
    return bundle


#: the arena pages' bootstrap rounds: the tables are compared between the page and the command at
#: equal rounds and seed, which holds at any number of rounds (the rounds asked for reach the
#: boards: test_the_page_boards_use_the_rounds_asked_for); the default 100 made each page's
#: style-controlled board alone about 6 CPU s more
ARENA_ROUNDS = 10


def _opened_at_arena_rounds(window: MainWindow, bundle: Path) -> BenchmarkPanel:
    """The Benchmark panel of ``window`` on ``bundle``, its boards at :data:`ARENA_ROUNDS`."""
    panel = window.analysis.benchmark
    panel.rounds.setValue(ARENA_ROUNDS)
    window.open_bundle(bundle)
    window.analysis.show_panel("benchmark")
    return panel


ARENA_TABLES = {
    "boards",
    "board_battles",
    "refusals",
    "style_control",
    "verdicts",
    "unavailable",
}


def test_the_wildvision_page_shows_what_workbench_scores_prints(
    qtbot: QtBot,
    window: MainWindow,
    wildvision_bundle: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    panel = _opened_at_arena_rounds(window, wildvision_bundle)
    page = _shown(panel, qtbot)
    assert page.benchmarks == ["wildvision-bench"]
    rounds = ("--bootstrap", str(ARENA_ROUNDS))
    printed = _scores_json(
        capsys, str(wildvision_bundle), "--benchmark", "wildvision-bench", *rounds
    )
    assert panel.command() == printed["command"]
    tables = printed["tables"]
    shown = {name for name, rows in tables.items() if rows}
    assert shown == ARENA_TABLES and set(panel.tables) == shown
    for name in shown:
        assert _as_printed(panel, name) == tables[name], name
    battles = {row["board"]: row["battles"] for row in tables["board_battles"]}
    # the published release: 10,974 battles counted, 9,990 without ties, 10,483 without an
    # answer that refuses; no conversation of two user turns, no category, no human vote
    assert battles == {
        "overall": 10974,
        "exclude ties": 9990,
        "exclude refusal": 10483,
        "style control": 10974,
    }
    assert {row["table"] for row in tables["unavailable"]} == {
        "board: multi-turn",
        "categories",
        "rank correlation",
    }
    gpt4o = next(row for row in tables["verdicts"] if row["model"] == "gpt-4o")
    # elo_leaderboard.md's row: 255 much better, 148 better, 14 ties, 72 worse, 11 much worse
    assert [gpt4o[key] for key in ("much_better", "better", "tie", "worse", "much_worse")] == [
        255,
        148,
        14,
        72,
        11,
    ]
    # every board's ratings are the leaderboard command's own: a Bradley-Terry board's ratings
    # are its fit on all battles whatever the bootstrap rounds (they give the intervals, not
    # compared here), so the command runs without them (the style-controlled board's 100
    # rounds took 7.7 CPU s, 1.6 without)
    for row in tables["board_battles"]:
        asked = f"--bootstrap {ARENA_ROUNDS}"
        assert "--method bt" in row["command"] and asked in row["command"]
        command = row["command"].replace(asked, "--bootstrap 0")
        argv = command.replace("BUNDLE", str(wildvision_bundle)).split()[1:]
        capsys.readouterr()
        assert main(argv) == 0
        board = json.loads(capsys.readouterr().out)
        styled = row["board"] == "style control"
        source = tables["style_control"] if styled else tables["boards"]
        ours = {
            line["model"]: line["rating"]
            for line in source
            if styled or line["board"] == row["board"]
        }
        assert ours == {line["model"]: line["rating"] for line in board["models"]}, row["board"]
    style = {row["model"]: row for row in tables["style_control"]}
    assert all(
        row["rank_change"] == row["rank_without_style_control"] - row["rank"]
        for row in style.values()
    )


def test_the_visionarena_page_adds_categories_multi_turn_and_the_rank_correlation(
    qtbot: QtBot,
    window: MainWindow,
    arena_and_benchmark: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from workbench.services.rank_comparison import compare_rankings

    panel = _opened_at_arena_rounds(window, arena_and_benchmark)
    _shown(panel, qtbot)
    assert panel.page is not None
    assert panel.page.benchmarks == ["wildvision-bench", "visionarena"]
    panel.page = None
    panel.choose("visionarena")
    _shown(panel, qtbot)
    printed = _scores_json(
        capsys,
        str(arena_and_benchmark),
        *("--benchmark", "visionarena", "--bootstrap", str(ARENA_ROUNDS)),
    )
    tables = printed["tables"]
    shown = {name for name, rows in tables.items() if rows}
    # every table is there: nothing unavailable
    assert shown == (ARENA_TABLES - {"unavailable"}) | {"categories", "rank_correlation"}
    assert set(panel.tables) == shown
    for name in shown:
        assert _as_printed(panel, name) == tables[name], name
    boards = {row["board"] for row in tables["board_battles"]}
    assert {"overall", "multi-turn", "exclude ties", "exclude refusal"} <= boards
    votes = vision_arena_rows()
    categories = {row["category"]: row for row in tables["categories"]}
    for name in ("ocr", "captioning", "diagram"):
        tagged = [row for row in votes if row["categories"][name]]
        assert categories[name]["battles"] == len(tagged)
        both_bad = sum(row["winner"] == "tie (bothbad)" for row in tagged)
        assert categories[name]["both_bad_share"] == pytest.approx(both_bad / len(tagged))
    # the correlation is compare-rankings' on the two boards its row names
    (correlation,) = tables["rank_correlation"]
    sides: list[Any] = []
    for command in (correlation["benchmark"], correlation["arena"]):
        capsys.readouterr()
        argv = command.replace("BUNDLE", str(arena_and_benchmark)).split()[1:]
        assert main(argv) == 0
        path = Path(str(arena_and_benchmark) + f".{len(sides)}.json")
        path.write_text(capsys.readouterr().out)
        sides.append(path)
    expected = compare_rankings(*sides).to_json()
    assert correlation["shared_models"] == expected["shared_models"] == len(ARENA_MODELS)
    for key in ("spearman", "kendall_tau", "pearson"):
        assert correlation[key] == pytest.approx(expected[key]), key
    assert correlation["confidence_agreement"] == pytest.approx(
        expected["confidence_agreement"]["share"]
    )


def test_the_page_boards_use_the_rounds_asked_for(
    qtbot: QtBot,
    window: MainWindow,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.plugins.arena.hf_tables import VISION_ARENA_BATTLE, write_parquet
    from tests.plugins.arena.test_arena_categories import battle_rows

    shard = write_parquet(tmp_path / "train.parquet", battle_rows(), VISION_ARENA_BATTLE)
    bundle = tmp_path / "arena.wbb"
    import_files(bundle, [shard], "arena-battles")
    window.open_bundle(bundle)
    window.analysis.show_panel("benchmark")
    panel = window.analysis.benchmark
    _shown(panel, qtbot)
    panel.page = None
    panel.rounds.setValue(7)
    panel.rounds.editingFinished.emit()
    _shown(panel, qtbot)
    printed = _scores_json(capsys, str(bundle), "--benchmark", "visionarena", "--bootstrap", "7")
    assert panel.command() == printed["command"]
    assert set(panel.table_frame("board_battles")["bootstrap_rounds"]) == {7}
    assert _as_printed(panel, "boards") == printed["tables"]["boards"]
