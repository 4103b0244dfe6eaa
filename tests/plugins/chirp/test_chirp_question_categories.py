"""CHIRP's "median Elo per model and category": questions of three categories (canonical JSONL,
as CHIRP's human judgments are not published), a human survey of one participant per matchup
and a five-criteria judge run against a local fake endpoint, then ``workbench scores
--benchmark chirp`` (JSON and text), the page's heatmaps and the report. Each rated cell is
checked against the Elo bootstrap run directly on that category's comparisons alone; the
category of one question is too small and is named as not rated with its reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from workbench_chirp.figures import (
    NOT_RATED,
    category_figures,
    category_heatmap_name,
    category_matrix,
)
from workbench_chirp.protocols import CRITERIA
from workbench_chirp.scores import ELO_ROUNDS, ELO_SEED, MIN_CATEGORY_COMPARISONS

import workbench.plugins
from tests.importers.canonical_helpers import write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer
from tests.judge.helpers import FAKE_KEY, registry_with_all_templates
from workbench.cli import main
from workbench.services.outcomes import OutcomeFilter, judgments_frame
from workbench.stats.bootstrap import median_online_elo
from workbench.storage import Bundle

from .test_chirp_end_to_end import MODELS, fake_judge

#: questions per category: four give 12 comparisons per evaluator and criterion (rated), one
#: gives 3 (fewer than the minimum: not rated)
CATEGORIES = {"Visual Reasoning": 4, "Humor": 4, "Poetry": 1}
#: the survey's participants prefer the larger model in the first category, the smaller one
#: elsewhere: the two categories' heatmap columns rank the models in opposite orders
LARGER_WINS = "Visual Reasoning"


def question_lines() -> tuple[list[dict[str, Any]], list[tuple[str, str, str, str]]]:
    """The canonical lines, and the survey's battles in file order (category, a, b, outcome)."""
    lines, battles = [], []
    participant = 0
    for category, count in CATEGORIES.items():
        for number in range(count):
            question = f"{category[:4].lower()}-{number}"
            judgments = []
            for small, large in ((0, 1), (1, 2), (0, 2)):
                winner, loser = (
                    (MODELS[large], MODELS[small])
                    if category == LARGER_WINS
                    else (MODELS[small], MODELS[large])
                )
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
                battles.append((category, winner, loser, "a"))
            prompt = f"What is going on in scene {question}?"
            lines.append(
                {
                    "format": "vlm-workbench/item",
                    "format_version": 1,
                    "source": "chirp",
                    "id": question,
                    "category": category,
                    "images": [{"path": "images/a.png"}],
                    "turns": [{"prompt": prompt}],
                    "outputs": [
                        {"model": model, "text": f"{model} describes scene {question}."}
                        for model in MODELS
                    ],
                    "judgments": judgments,
                }
            )
    return lines, battles


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=fake_judge) as running:
        yield running


@pytest.fixture(autouse=True)
def templates_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def test_median_elo_per_question_category_equals_the_bootstrap_of_each_category_alone(
    tmp_path: Path, server: FakeOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = str(tmp_path / "chirp.wbb")
    lines, survey = question_lines()
    source = write_jsonl(tmp_path / "questions", lines)
    assert main(["import", str(source), "--format", "jsonl", "--into", bundle]) == 0
    judged = [
        *("judge", bundle, "--base-url", server.base_url, "--model", "gpt-4o-mini"),
        *("--template", "chirp-five-criteria", "--no-swap", "--yes"),
    ]
    assert main(judged) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["scores", bundle, "--benchmark", "chirp", "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)["tables"]
    per_category = pd.DataFrame(tables["elo_per_question_category"])
    not_rated = pd.DataFrame(tables["question_categories_not_rated"])
    evaluators = set(per_category["evaluator"])
    assert "human survey" in evaluators and len(evaluators) == 2
    judge_run = next(name for name in evaluators if name != "human survey")

    # the survey's cells: its own battles of that category, bootstrapped directly
    human = per_category[per_category["evaluator"] == "human survey"]
    assert set(human["criterion"]) == {"overall"}
    for category in ("Visual Reasoning", "Humor"):
        battles = pd.DataFrame(
            [row[1:] for row in survey if row[0] == category],
            columns=["model_a", "model_b", "outcome"],
        )
        expected = median_online_elo(battles, ELO_ROUNDS, ELO_SEED).set_index("model")
        found = human[human["category"] == category].set_index("model")
        assert len(battles) == 12 and set(found.index) == set(MODELS)
        for column in ("elo", "lower", "upper", "battles"):
            assert found[column].to_dict() == pytest.approx(expected[column].to_dict())
    ranked = human[human["category"] == LARGER_WINS].sort_values("elo", ascending=False)
    assert list(ranked["model"]) == list(reversed(MODELS))
    ranked = human[human["category"] == "Humor"].sort_values("elo", ascending=False)
    assert list(ranked["model"]) == list(MODELS)

    # the judge's cells: its comparisons of that category and criterion from the read model
    # (the bundle's judgments, in their order), bootstrapped directly
    with Bundle.open(bundle, read_only=True) as opened, opened.read_session() as session:
        stored = judgments_frame(session, OutcomeFilter(kinds=("judge",)))
    judge_cells = per_category[per_category["evaluator"] == judge_run]
    assert set(judge_cells["criterion"]) == {criterion.name for criterion in CRITERIA}
    for (criterion, category), cells in judge_cells.groupby(["criterion", "category"]):
        mine = stored[(stored["criterion"] == criterion) & (stored["category"] == category)]
        battles = mine[["model_a", "model_b", "outcome"]].reset_index(drop=True)
        expected = median_online_elo(battles, ELO_ROUNDS, ELO_SEED).set_index("model")
        assert len(battles) == 12
        assert cells.set_index("model")["elo"].to_dict() == pytest.approx(expected["elo"].to_dict())

    # the one-question category: not a number anywhere, named with its reason
    assert "Poetry" not in set(per_category["category"])
    poetry = not_rated[not_rated["category"] == "Poetry"]
    assert set(poetry["evaluator"]) == evaluators
    assert set(poetry["comparisons"]) == {3}
    assert set(poetry["reason"]) == {f"3 comparisons, fewer than {MIN_CATEGORY_COMPARISONS}"}

    # the text output prints both tables
    assert main(["scores", bundle, "--benchmark", "chirp"]) == 0
    text = capsys.readouterr().out
    assert "[elo_per_question_category]" in text and "[question_categories_not_rated]" in text
    assert f"3 comparisons, fewer than {MIN_CATEGORY_COMPARISONS}" in text

    # the page's and the report's heatmap per evaluator: models by category on the overall
    # criterion, each rated cell the table's Elo, the small category's cells "n/r"
    frames = {
        "elo_per_question_category": per_category,
        "question_categories_not_rated": not_rated,
    }
    figures = category_figures(frames)
    assert set(figures) == {category_heatmap_name(name) for name in evaluators}
    overall = per_category[
        (per_category["evaluator"] == "human survey") & (per_category["criterion"] == "overall")
    ]
    unrated = not_rated[
        (not_rated["evaluator"] == "human survey") & (not_rated["criterion"] == "overall")
    ]
    matrix = category_matrix(overall, unrated)
    assert list(matrix.columns) == sorted(CATEGORIES)
    assert matrix["Poetry"].isna().all()
    texts = [
        text.get_text() for text in figures[category_heatmap_name("human survey")].axes[0].texts
    ]
    assert texts.count(NOT_RATED) == len(MODELS)
    rated = {f"{value:.0f}" for value in overall["elo"]}
    assert rated <= set(texts)
    axes = figures[category_heatmap_name("human survey")].axes[0]
    assert "Poetry: 3 comparisons" in axes.get_xlabel()

    report = tmp_path / "report.html"
    assert main(["report", bundle, "--out", str(report)]) == 0
    html = report.read_text()
    assert "elo_per_question_category" in html and "question_categories_not_rated" in html
    assert category_heatmap_name("human survey") in html
