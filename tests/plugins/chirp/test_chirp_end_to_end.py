"""CHIRP end to end through the command line: questions and answers in the Robin suite's layout
(a JSON list of ``question_id``/``text``/``image``; JSON lines of ``question_id``, ``prompt``,
``text``, ``answer_id``, ``model_id``, ``metadata``), a human survey with one participant per
matchup (canonical JSONL, as CHIRP's human judgments are not published), a five-criteria judge
run against a local fake endpoint, then ``workbench scores --benchmark chirp``.

No copy of CHIRP is reachable here, so the files are a fixture in the published layout: three
questions about small drawn images, three models' answers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from PIL import Image

import workbench.plugins
from tests.importers.canonical_helpers import write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer, message_text
from tests.judge.helpers import FAKE_KEY, registry_with_all_templates
from workbench.cli import main
from workbench.importers.base import ImportRejectedError
from workbench.services.importing import import_files

MODELS = ("robin-llava-7b", "robin-llava-13b", "robin-llava-34b")
QUESTIONS = ("q-001", "q-002", "q-003")
ANSWER = re.compile(r"Answer A:\n(?P<a>.*)\n\nAnswer B:\n(?P<b>.*)\Z", re.DOTALL)
#: the fake judge's order of preference: the larger model wins every criterion
RANK = {model: rank for rank, model in enumerate(MODELS)}
#: a training loss per model for the attribute file (CHIRP publishes none: fixture values)
LOSSES = (2.31, 2.02, 1.87)


def robin_files(folder: Path) -> Path:
    images = folder / "images"
    images.mkdir(parents=True)
    questions = []
    for number, question in enumerate(QUESTIONS):
        name = f"chirp_{number}.png"
        Image.new("RGB", (48, 32), (40 * number, 90, 160)).save(images / name)
        questions.append(
            {
                "question_id": question,
                "text": f"What could happen next in picture {number}?",
                "image": name,
            }
        )
    (folder / "chirp_questions.json").write_text(json.dumps(questions))
    for model in MODELS:
        lines = [
            {
                "question_id": question,
                "prompt": f"What could happen next in picture {number}?",
                "text": f"{model} thinks about picture {number} at length.",
                "answer_id": f"{model}-{question}",
                "model_id": model,
                "metadata": {},
            }
            for number, question in enumerate(QUESTIONS)
        ]
        (folder / f"{model}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


LABELS = (
    "Overall",
    "Relevance and completeness",
    "Understanding and reasoning",
    "Hallucination",
    "Detail",
)
IN_WORDS = re.compile(r"My choice on every criterion: (?P<winner>[AB])\b")


def lines(winner: str) -> str:
    return "\n".join(f"{label}: [[{winner}]]" for label in LABELS)


def fake_judge(messages: list[dict[str, Any]]) -> str:
    """Prefers the larger model on every criterion; on the third question it says so in words
    without the five lines, and the final-choice follow-up restates them."""
    user = message_text(messages, "user")
    if "report the final choices" in message_text(messages, "system"):
        said = IN_WORDS.search(user)
        return lines(said["winner"]) if said else "[[unknown]]"
    shown = ANSWER.search(user)
    assert shown is not None
    a = next(model for model in MODELS if shown["a"].startswith(model))
    b = next(model for model in MODELS if shown["b"].startswith(model))
    winner = "A" if RANK[a] > RANK[b] else "B"
    if "picture 2" in user:
        return f"My choice on every criterion: {winner} ({a} against {b})."
    return lines(winner)


def survey(cyclic_question: str) -> list[dict[str, Any]]:
    """One participant per matchup: on one question they prefer the larger model each time,
    on ``cyclic_question`` their three choices go round in a circle."""
    lines = []
    participant = 0
    for question in QUESTIONS:
        matchups = [(MODELS[1], MODELS[0]), (MODELS[2], MODELS[1]), (MODELS[2], MODELS[0])]
        if question == cyclic_question:
            matchups[2] = (MODELS[0], MODELS[2])
        judgments = []
        for winner, loser in matchups:
            participant += 1
            judgments.append(
                {
                    "kind": "human",
                    "model_a": winner,
                    "model_b": loser,
                    "outcome": "a",
                    "criterion": "overall",
                    "rater": f"participant-{participant}",
                }
            )
        lines.append(
            {
                "format": "vlm-workbench/item",
                "format_version": 1,
                "source": "chirp",
                "id": question,
                "turns": [{"prompt": "as published"}],
                "judgments": judgments,
            }
        )
    return lines


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=fake_judge) as running:
        yield running


@pytest.fixture(autouse=True)
def templates_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def test_the_robin_layout_imports_questions_images_and_answers(tmp_path: Path) -> None:
    source = robin_files(tmp_path / "robin")
    result = import_files(tmp_path / "b.wbb", [source], "chirp-robin")
    assert result.rejections == [] and result.warnings == []
    assert result.counts["items_added"] == len(QUESTIONS)
    assert result.counts["images_added"] == len(QUESTIONS)
    assert result.counts["outputs_added"] == len(QUESTIONS) * len(MODELS)


def test_a_bad_row_is_rejected_naming_its_file_row_and_field(tmp_path: Path) -> None:
    source = robin_files(tmp_path / "robin")
    with (source / f"{MODELS[0]}.jsonl").open("a") as extra:
        extra.write(json.dumps({"question_id": "q-001", "text": "again", "model_id": MODELS[0]}))
        extra.write("\n" + json.dumps({"question_id": "q-002", "model_id": MODELS[0]}) + "\n")
    with pytest.raises(ImportRejectedError) as rejected:
        import_files(tmp_path / "b.wbb", [source], "chirp-robin")
    found = {(p.file, p.row, p.field): p.reason for p in rejected.value.problems}
    name = f"{MODELS[0]}.jsonl"
    assert found[(name, 4, "model_id")] == f"{MODELS[0]} answered question q-001 at {name}, row 1"
    assert found[(name, 5, "text")] == "lacks text"
    assert not (tmp_path / "b.wbb").exists()  # nothing landed


def test_kappa_bands_and_pooled_cycles_from_the_files_and_a_judge_run(
    tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = str(tmp_path / "chirp.wbb")
    source = robin_files(tmp_path / "robin")
    assert main(["import", str(source), "--format", "chirp-robin", "--into", bundle]) == 0
    humans = write_jsonl(tmp_path / "survey", survey(QUESTIONS[1]))
    assert main(["import", str(humans), "--format", "jsonl", "--into", bundle]) == 0
    judged = [
        "judge",
        bundle,
        "--base-url",
        server.base_url,
        "--model",
        "gpt-4o-mini",
        "--template",
        "chirp-five-criteria",
        "--no-swap",
        "--yes",
    ]
    assert main(judged) == 0, capsys.readouterr().err
    capsys.readouterr()
    # nine requests, and a final-choice follow-up for each of the third question's three
    assert server.stats.requests == 9 + 3
    assert main(["scores", bundle, "--benchmark", "chirp", "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)["tables"]

    cycles = pd.DataFrame(tables["cycles"]).set_index(["evaluator", "criterion"])
    assert cycles.loc[("human survey", "overall"), "cycles"] == 1
    assert cycles.loc[("human survey", "overall"), "questions"] == len(QUESTIONS)
    judge_rows = cycles.drop(index="human survey", level=0)
    assert len(judge_rows) == 5 and set(judge_rows["cycles"]) == {0}

    kappa = pd.DataFrame(tables["kappa_with_human_survey"]).set_index("criterion")
    overall = kappa.loc["overall"]
    # the judge agrees with the survey on 8 of its 9 matchups (all but the circle's last)
    assert overall["comparisons"] == 9
    assert overall["agreement"] == pytest.approx(8 / 9)
    assert overall["band"] in ("slight", "fair", "moderate", "substantial", "almost perfect")

    # sizes from a model attribute file: the judge always prefers the larger model, the survey
    # on 8 of its 9 matchups
    sizes = tmp_path / "sizes.csv"
    rows = "".join(
        f"{m},{s},{loss}\n" for m, s, loss in zip(MODELS, (7, 13, 34), LOSSES, strict=True)
    )
    sizes.write_text("model,size,training_loss\n" + rows)
    with_sizes = ["scores", bundle, "--benchmark", "chirp", "--model-attributes", str(sizes)]
    assert main([*with_sizes, "--json"]) == 0
    larger = pd.DataFrame(json.loads(capsys.readouterr().out)["tables"]["prefers_larger_model"])
    larger = larger[larger["criterion"] == "overall"].set_index("evaluator")
    assert larger.loc["human survey", "prefers_larger"] == pytest.approx(8 / 9)
    judge_run = next(name for name in larger.index if name != "human survey")
    assert larger.loc[judge_run, "prefers_larger"] == pytest.approx(1.0)

    # Elo, the median of 500 bootstrap rounds: the judge ranks the models by size
    elo = pd.DataFrame(tables["elo"])
    judge_elo = elo[(elo["evaluator"] == judge_run) & (elo["criterion"] == "overall")]
    assert list(judge_elo["model"]) == list(reversed(MODELS))
    assert (judge_elo["lower"] <= judge_elo["elo"]).all()
    assert (judge_elo["elo"] <= judge_elo["upper"]).all()
    # and the distance correlation of that Elo with size, recomputed here by the other form
    # of Székely's dCov²: mean(a·b) + mean(a)·mean(b) - 2·mean_k(mean_l a_kl · mean_l b_kl)
    assert main([*with_sizes, "--json"]) == 0
    every_dcor = pd.DataFrame(
        json.loads(capsys.readouterr().out)["tables"]["elo_distance_correlation"]
    )
    dcor = every_dcor[(every_dcor["criterion"] == "overall") & (every_dcor["attribute"] == "size")]
    found = dcor.set_index("evaluator").loc[judge_run]
    size = judge_elo["model"].map(dict(zip(MODELS, (7, 13, 34), strict=True)))
    assert found["models"] == len(MODELS)
    assert found["dcor"] == pytest.approx(
        independent_dcor(judge_elo["elo"].to_numpy(), size.to_numpy(dtype=float))
    )

    # any numeric column of the file: a training loss (a fixture's values: CHIRP's models'
    # losses are not published here) gets its own row, computed the same way
    by_loss = every_dcor[
        (every_dcor["criterion"] == "overall") & (every_dcor["attribute"] == "training_loss")
    ]
    loss = judge_elo["model"].map(dict(zip(MODELS, LOSSES, strict=True)))
    assert by_loss.set_index("evaluator").loc[judge_run, "dcor"] == pytest.approx(
        independent_dcor(judge_elo["elo"].to_numpy(), loss.to_numpy(dtype=float))
    )

    # the page's and the report's heatmap: per evaluator, models by criterion, each cell the
    # Elo table's median
    from workbench_chirp.figures import criterion_matrix, heatmap_name, score_figures

    figures = score_figures({"elo": elo})
    assert set(figures) == {heatmap_name(name) for name in elo["evaluator"].unique()}
    matrix = criterion_matrix(elo[elo["evaluator"] == judge_run])
    assert list(matrix.index) == list(reversed(MODELS)) and matrix.columns[0] == "overall"
    assert len(matrix.columns) == 5
    for row in elo[elo["evaluator"] == judge_run].itertuples():
        assert matrix.loc[row.model, row.criterion] == pytest.approx(row.elo)
    shown = {text.get_text() for text in figures[heatmap_name(judge_run)].axes[0].texts}
    assert shown == {f"{value:.0f}" for value in matrix.to_numpy().ravel()}

    sizes.write_text(f"model,size\n{MODELS[0]},seven\n")
    assert main(with_sizes) == 1
    error = capsys.readouterr().err
    assert "--model-attributes" in error and "row 2, column 'size'" in error


def independent_dcor(x: np.ndarray, y: np.ndarray) -> float:
    """dCor from the expansion of dCov² in plain distances (Székely, Rizzo & Bakirov 2007),
    not through double-centred matrices as the app computes it."""

    def dcov2(u: np.ndarray, v: np.ndarray) -> float:
        a, b = np.abs(u[:, None] - u[None, :]), np.abs(v[:, None] - v[None, :])
        return float((a * b).mean() + a.mean() * b.mean() - 2 * (a.mean(1) * b.mean(1)).mean())

    return float(np.sqrt(dcov2(x, y) / np.sqrt(dcov2(x, x) * dcov2(y, y))))


def test_the_simple_variant_asks_for_the_choices_alone() -> None:
    from workbench_chirp.judge_templates import FIVE_CRITERIA, FIVE_CRITERIA_SIMPLE

    assert "Explain" in FIVE_CRITERIA.system and "Explain" not in FIVE_CRITERIA_SIMPLE.system
    assert "Give no\nexplanation" in FIVE_CRITERIA_SIMPLE.system
    assert FIVE_CRITERIA_SIMPLE.parse is FIVE_CRITERIA.parse
    assert FIVE_CRITERIA_SIMPLE.extraction is FIVE_CRITERIA.extraction is not None
    assert workbench.plugins.registry().judge_template("chirp-five-criteria-simple")


def test_a_judge_run_limited_to_the_matchups_the_humans_saw(
    tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = str(tmp_path / "chirp.wbb")
    assert (
        main(
            [
                "import",
                str(robin_files(tmp_path / "robin")),
                "--format",
                "chirp-robin",
                "--into",
                bundle,
            ]
        )
        == 0
    )
    lines = survey(cyclic_question="none")
    for line in lines:  # the survey sampled one matchup of each question
        line["judgments"] = line["judgments"][:1]
    humans = write_jsonl(tmp_path / "survey", lines)
    assert main(["import", str(humans), "--format", "jsonl", "--into", bundle]) == 0
    judged = [
        "judge",
        bundle,
        "--base-url",
        server.base_url,
        "--model",
        "gpt-4o-mini",
        "--template",
        "chirp-five-criteria",
        "--no-swap",
        "--yes",
        "--matchups-of",
        "human",
    ]
    assert main(judged) == 0, capsys.readouterr().err
    assert server.stats.requests == len(QUESTIONS) + 1  # one each, a follow-up on the third
    capsys.readouterr()
    assert main([*judged[:-1], "nobody:x"]) == 1
    assert "--matchups-of" in capsys.readouterr().err
