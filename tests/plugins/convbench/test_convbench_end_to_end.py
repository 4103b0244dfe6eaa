"""ConvBench end to end through the command line: the published folder imported, a model's
answers in the standard conversation and in both ablations (perfect perception: the reference
in place of its turn-1 answer; perfect perception and reasoning: references for turns 1 and 2),
judge runs against a local fake endpoint (direct and pairwise grading each ask a conversation's
S0 in a second request fed its turn judgments J1..J3), then ``workbench scores --benchmark
convbench``.

ConvBench publishes no model answers here, so the model's answers are written by the test
(canonical JSONL onto the imported conversations). The fake judge grades by the context it
reads in the answers, so the ablation deltas are known in advance."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
import pytest

import workbench.plugins
from tests.importers.canonical_helpers import write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer, message_text
from tests.judge.helpers import FAKE_KEY, registry_with_all_templates
from workbench.cli import main

pytestmark = pytest.mark.shared_data

MODEL = "llava-test"
CONVERSATIONS = 6
STANDARD, PERCEPTION, REASONING = "standard", "perfect_perception", "perfect_perception_reasoning"
#: the fake judge's grades (turn 1, 2, 3, overall) per context it reads in the answers
GRADES = {STANDARD: (4, 4, 4, 4), PERCEPTION: (9, 6, 5, 6), REASONING: (9, 9, 7, 8)}
ORDINALS = ("first", "second", "third")


#: the fake judge's choice per turn in pairwise requests
PAIRWISE_TURNS = ("B", "B", "A")
#: the per-turn answer's judgments J1..J3, then a stray overall choice the template did not ask
#: for: the overall pass's choice (B) must win over it
PAIRWISE_VERDICT = "\n".join(
    [
        *(
            f"Turn {turn} judgment: J{turn} of the pair\nTurn {turn}: [[{choice}]]"
            for turn, choice in enumerate(PAIRWISE_TURNS, start=1)
        ),
        "Overall: [[A]]",
    ]
)


def pairwise_overall(user: str) -> str:
    """S0 from the pairwise overall pass: B when the request carries the three turns' choices
    under its judgments, else A (as the stray choice)."""
    judgments = user.split("Judgments of the turns:")[-1]
    fed = all(
        f"Turn {turn}: [[{choice}" in judgments
        for turn, choice in enumerate(PAIRWISE_TURNS, start=1)
    )
    return f"The turns were compared.\nOverall: [[{'B' if fed else 'A'}]]"


class FakeJudge:
    """Grades by the context it reads in the answers; prefers Assistant B in pairwise
    requests, and answers the one showing ``malformed`` (a conversation's text) without its
    verdict lines, which the extraction step's follow-up then restates."""

    def __init__(self) -> None:
        self.malformed: str | None = None

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        user = message_text(messages, "user")
        system = message_text(messages, "system")
        if "report the decisions" in system:
            return PAIRWISE_VERDICT
        if "compare two assistants' whole" in system:
            return pairwise_overall(user)
        if "compare two assistants" in system:
            if self.malformed is not None and self.malformed in user:
                return "B is better throughout, and overall too."
            return PAIRWISE_VERDICT
        if "whole multi-turn conversation" in system:
            return overall_grade(user)
        return graded(user)


def context_of(user: str) -> str:
    found = re.findall(rf"{MODEL} \(([a-z_]+)\)", user)
    return max(found, key=len) if found else STANDARD


#: the overall grade a per-turn answer slips in; the overall pass's grade must win over it
STRAY_OVERALL = 1


def graded(user: str) -> str:
    """The per-turn judgments J1..J3, each naming its turn and context, then a stray overall
    grade the template did not ask for."""
    context = context_of(user)
    lines = []
    for turn, grade in enumerate(GRADES[context][:3], start=1):
        lines += [f"Turn {turn} judgment: J{turn} of {context}", f"Turn {turn} score: [[{grade}]]"]
    return "\n".join([*lines, f"Overall score: [[{STRAY_OVERALL}]]"])


def overall_grade(user: str) -> str:
    """S0 from the overall pass: the context's overall grade when the request carries the
    conversation's three judgments with their grades, else 0."""
    context = context_of(user)
    judgments = user.split("Judgments of the turns:")[-1]
    fed = all(
        f"J{turn} of {context}" in judgments and f"Turn {turn} score: [[{grade}]]" in judgments
        for turn, grade in enumerate(GRADES[context][:3], start=1)
    )
    return f"The turns were judged.\nOverall score: [[{GRADES[context][3] if fed else 0}]]"


@pytest.fixture
def judge() -> FakeJudge:
    return FakeJudge()


@pytest.fixture
def server(judge: FakeJudge) -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=judge, keep_bodies=True) as running:
        yield running


@pytest.fixture(autouse=True)
def templates_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def answers(sheet: pd.DataFrame) -> list[dict[str, Any]]:
    """The model's answers to the first conversations: its own in the standard context; in
    each ablation the references in place of the turns it fixes, and new answers after them."""
    lines = []
    for _, row in sheet.head(CONVERSATIONS).iterrows():
        references = [str(row[f"{ordinal}_turn_answer"]) for ordinal in ORDINALS]
        own = {
            context: [f"{MODEL} ({context}) answers turn {turn}." for turn in (1, 2, 3)]
            for context in GRADES
        }
        given = {
            STANDARD: own[STANDARD],
            PERCEPTION: [references[0], *own[PERCEPTION][1:]],
            REASONING: [*references[:2], own[REASONING][2]],
        }
        lines.append(
            {
                "format": "vlm-workbench/item",
                "format_version": 1,
                "source": "convbench",
                "id": str(row["ID"]),
                "turns": [{"prompt": "as published"} for _ in ORDINALS],
                "outputs": [
                    {"model": MODEL, "turn": turn, "text": text, "context": context}
                    for context, texts in given.items()
                    for turn, text in enumerate(texts, start=1)
                ],
            }
        )
    return lines


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


def test_ablation_deltas_and_one_pairwise_query_per_conversation(
    shared_data: Path,
    tmp_path: Path,
    server: FakeOpenAIServer,
    judge: FakeJudge,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = shared_data / "convbench"
    bundle = str(tmp_path / "convbench.wbb")
    assert main(["import", str(folder), "--format", "convbench", "--into", bundle]) == 0
    sheet = pd.read_excel(folder / "ConvBench.xlsx", sheet_name="multi_turn_benchmark")
    source = write_jsonl(tmp_path / "answers", answers(sheet))
    assert main(["import", str(source), "--format", "jsonl", "--into", bundle]) == 0
    capsys.readouterr()
    judged = ["judge", bundle, "--base-url", server.base_url, "--model", "gpt-4o-mini", "--yes"]
    # the estimate counts both requests of each conversation
    dry = [*judged, "--template", "convbench-direct", "--models", MODEL, "--dry-run", "--json"]
    estimate = _json(capsys, *dry[:-1])["estimate"]
    assert estimate["requests"] == 2 * CONVERSATIONS
    assert server.stats.requests == 0
    for context in GRADES:
        direct = [*judged, "--template", "convbench-direct", "--context", context]
        assert main([*direct, "--models", MODEL]) == 0, capsys.readouterr().err
    # per conversation, the per-turn request and the overall pass fed its judgments J1..J3
    assert server.stats.requests == 2 * len(GRADES) * CONVERSATIONS
    overall_requests = [
        message_text(json.loads(body)["messages"], "user")
        for body in server.stats.bodies
        if "whole multi-turn conversation" in message_text(json.loads(body)["messages"], "system")
    ]
    assert len(overall_requests) == len(GRADES) * CONVERSATIONS
    for user in overall_requests:
        assert "[Judgment of turn 3]" in user
        assert overall_grade(user) != "The turns were judged.\nOverall score: [[0]]"

    first_answers = [str(text) for text in sheet.head(CONVERSATIONS)["first_turn_answer"]]
    judge.malformed = first_answers[0].strip()
    pairwise = [*judged, "--template", "convbench-pairwise", "--models", f"{MODEL},reference"]
    capsys.readouterr()
    estimate = _json(capsys, *pairwise, "--dry-run")["estimate"]
    assert estimate["requests"] == 2 * CONVERSATIONS
    assert main(pairwise) == 0, capsys.readouterr().err
    capsys.readouterr()
    # one query per conversation, the model on the side pairwise.npy gives it, its overall
    # pass on the same sides, and one follow-up for the answer without verdict lines
    assert server.stats.requests == (2 * len(GRADES) + 2) * CONVERSATIONS + 1
    sides = np.load(folder / "pairwise.npy")[:CONVERSATIONS]
    model_first: dict[str, dict[int, bool]] = {"turns": {}, "overall": {}}
    for body in server.stats.bodies:
        messages = json.loads(body)["messages"]
        system = message_text(messages, "system")
        if "compare two assistants" not in system:
            continue
        user = message_text(messages, "user")
        (conversation,) = [n for n, text in enumerate(first_answers) if text.strip() in user]
        request = "overall" if "compare two assistants' whole" in system else "turns"
        assert conversation not in model_first[request]
        model_first[request][conversation] = MODEL in user.split("=== Assistant B ===")[0]
        if request == "overall":
            assert pairwise_overall(user).endswith("[[B]]"), user
    published = {n: bool(side == 0) for n, side in enumerate(sides)}
    assert model_first == {"turns": published, "overall": published}

    tables = _json(capsys, "scores", bundle, "--benchmark", "convbench")["tables"]
    deltas = pd.DataFrame(tables["ablation_deltas"])
    direct = deltas[deltas["grading"] == "direct"].set_index("model")
    assert len(direct) == 1
    expected = {
        "S2_perception_gain": 6 - 4,
        "S3_perception_gain": 5 - 4,
        "S0_perception_gain": 6 - 4,
        "S3_reasoning_gain": 7 - 5,
        "S0_reasoning_gain": 8 - 6,
    }
    for column, value in expected.items():
        assert direct.loc[MODEL, column] == pytest.approx(value)
    scores = pd.DataFrame(tables["scores"])
    assert set(scores["context"]) == set(GRADES)
    # S0 is the overall pass's grade (not the stray one of the per-turn answer), and R2, R1
    # follow from it
    graded_scores = scores[scores["grading"] == "direct"].set_index("context")
    for context, (one, two, three, whole) in GRADES.items():
        row = graded_scores.loc[context]
        assert row["S0"] == pytest.approx(whole)
        assert row["R2"] == pytest.approx((one + two + three) / 3)
        assert row["R1"] == pytest.approx(((one + two + three) / 3 + whole) / 2)
    pairwise_scores = scores[scores["grading"] == "pairwise"].set_index("model")
    # the overall pass always picks Assistant B (the stray choice of the per-turn answer is A):
    # the model wins S0 where pairwise.npy put it at B
    assert float(np.mean(sides == 1)) != float(np.mean(sides == 0))
    assert pairwise_scores.loc[MODEL, "S0"] == pytest.approx(100 * float(np.mean(sides == 1)))
    # turn 3's choice is A: the model wins it where it was shown first
    assert pairwise_scores.loc[MODEL, "S3"] == pytest.approx(100 * float(np.mean(sides == 0)))
    # the official scorer's convention: the same wins over all 577 conversations
    official = pd.DataFrame(tables["pairwise_official"]).set_index("model")
    assert official.loc[MODEL, "S0"] == pytest.approx(100 * int(np.sum(sides == 1)) / 577)
