"""VisIT-Bench's human-vs-judge agreement by majority (Figure 9), end to end through the command
line: the published instances imported, a preference file in the published schema imported
(``image_url, instruction, A, B, A_model, B_model, model_selection.A, model_selection.B`` and one
column per rater, five forced choices per tuple), a judge run against a local fake endpoint,
then ``workbench agreement`` and ``workbench scores --benchmark visit-bench``.

The answers compared are published texts of each instance: GPT-4's caption-based answer
(``gpt4_prediction``) and BLIP-2's captions of the images (``images_blip2_captions``, joined),
and, for a few tuples, the human-verified reference, which the paper's figure leaves out. No
rater choices are published here: each rater prefers the longer answer four times in five,
drawn by a seeded generator. The fake judge prefers the longer answer too, and gives no
readable verdict on a tenth of its requests (the follow-up then answers "Unknown", a tie)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
import pytest
from workbench_visit_bench.agreement import TIE_CREDIT

import workbench.plugins
from tests.judge.fake_openai_server import FakeOpenAIServer, message_text, stable_share
from tests.judge.helpers import FAKE_KEY, registry_with_all_templates
from tests.plugins.visit_bench.visit_bench_helpers import MULTI_IMAGE_CSV, write_csv
from workbench.cli import main

pytestmark = pytest.mark.shared_data

GPT4, BLIP2, REFERENCE = "gpt4-from-captions", "blip2-caption", "reference"
RATERS = [f"worker_{n}" for n in range(1, 6)]
#: tuples of GPT-4's answer against the reference: in the file, left out of the figure
AGAINST_REFERENCE = 10
UNREADABLE_SHARE = 0.1
RESPONSE = re.compile(r"Response A:\n(?P<a>.*)\n\nResponse B:\n(?P<b>.*)\Z", re.DOTALL)


class LongerAnswerJudge:
    """A fake judge that prefers the longer response and records what it decided per display
    order (None: it gave no readable verdict)."""

    def __init__(self) -> None:
        self.decisions: dict[tuple[str, str], str | None] = {}

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        system, user = message_text(messages, "system"), message_text(messages, "user")
        if "report the decision" in system:
            return "Unknown"
        shown = RESPONSE.search(user)
        assert shown is not None, user
        a, b = shown["a"].strip(), shown["b"].strip()
        if stable_share(user) < UNREADABLE_SHARE:
            self.decisions[(a, b)] = None
            return "Both responses have merits and I will not choose."
        winner = "A" if len(a) >= len(b) else "B"
        self.decisions[(a, b)] = winner
        return f"Response {winner} says more.\nOverall, Response {winner} is better."


def preference_file(published: pd.DataFrame, seed: int = 9) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    usable = published[published["reference_output"].notna()].reset_index(drop=True)
    for index, source in usable.iterrows():
        against_reference = index < AGAINST_REFERENCE
        captions = [text.strip() for text in json.loads(source["images_blip2_captions"])]
        answers = {
            GPT4: str(source["gpt4_prediction"]).strip(),
            # one caption per image, as BLIP-2 described them (some are published empty)
            BLIP2: " / ".join(text for text in captions if text),
            REFERENCE: str(source["reference_output"]).strip(),
        }
        if not answers[BLIP2]:
            continue
        first, second = (GPT4, REFERENCE) if against_reference else (GPT4, BLIP2)
        if index % 2:  # the side each model is shown on varies, as in the published file
            first, second = second, first
        longer = "A" if len(answers[first]) >= len(answers[second]) else "B"
        other = "B" if longer == "A" else "A"
        choices = [longer if rng.random() < 0.8 else other for _ in RATERS]
        votes_for_a = choices.count("A")
        rows.append(
            {
                "image_url": json.loads(source["images"])[0],
                "instruction": source["instruction"],
                "A": answers[first],
                "B": answers[second],
                "A_model": first,
                "B_model": second,
                "model_selection.A": votes_for_a > len(RATERS) / 2,
                "model_selection.B": votes_for_a < len(RATERS) / 2,
                **dict(zip(RATERS, choices, strict=True)),
            }
        )
    return pd.DataFrame(rows)


def expected_agreement(
    preferences: pd.DataFrame, decisions: dict[tuple[str, str], str | None]
) -> dict[str, tuple[int, float]]:
    """The paper's rule computed here from the file and the judge's decisions: per majority
    level, the model-vs-model comparisons and the mean credit (1 for the majority's model,
    TIE_CREDIT for a tie: orders that differ or an unreadable verdict, 0 otherwise)."""
    credits: dict[str, list[float]] = defaultdict(list)
    for _, row in preferences.iterrows():
        if REFERENCE in (row["A_model"], row["B_model"]):
            continue
        votes_for_a = sum(row[rater] == "A" for rater in RATERS)
        majority = row["A_model"] if votes_for_a > 2 else row["B_model"]
        level = f"{max(votes_for_a, 5 - votes_for_a)}/5"
        picked = set()
        for a_model, b_model, a, b in (
            (row["A_model"], row["B_model"], row["A"], row["B"]),
            (row["B_model"], row["A_model"], row["B"], row["A"]),
        ):
            decision = decisions[(a.strip(), b.strip())]
            picked.add(None if decision is None else a_model if decision == "A" else b_model)
        answer = picked.pop() if len(picked) == 1 else None
        credit = TIE_CREDIT if answer is None else float(answer == majority)
        credits[level].append(credit)
        credits["all"].append(credit)
    return {level: (len(found), float(np.mean(found))) for level, found in credits.items()}


@pytest.fixture
def judge_server() -> Iterator[tuple[FakeOpenAIServer, LongerAnswerJudge]]:
    judge = LongerAnswerJudge()
    with FakeOpenAIServer(responder=judge) as server:
        yield server, judge


@pytest.fixture(autouse=True)
def templates_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


def test_agreement_by_majority_from_the_files_and_a_judge_run(
    bundle_copy: Path,
    visit_bench_folder: Path,
    tmp_path: Path,
    judge_server: tuple[FakeOpenAIServer, LongerAnswerJudge],
    capsys: pytest.CaptureFixture[str],
) -> None:
    server, judge = judge_server
    preferences = preference_file(pd.read_csv(visit_bench_folder / MULTI_IMAGE_CSV))
    csv = write_csv(preferences, tmp_path / "prefs", "preferences.csv")
    bundle = str(bundle_copy)
    assert main(["import", str(csv), "--format", "visit-bench-preferences", "--into", bundle]) == 0
    judged = [
        "judge",
        bundle,
        "--base-url",
        server.base_url,
        "--model",
        "gpt-4o-mini",
        "--template",
        "visit-bench-pairwise",
        "--models",
        f"{GPT4},{BLIP2}",
        "--yes",
    ]
    assert main(judged) == 0, capsys.readouterr().err
    capsys.readouterr()
    model_pairs = int(
        ((preferences["A_model"] != REFERENCE) & (preferences["B_model"] != REFERENCE)).sum()
    )
    assert len(judge.decisions) == 2 * model_pairs  # both orders of every model pair
    assert any(decision is None for decision in judge.decisions.values())

    # the imported panels and the judge run judged the same comparisons (the whole item)
    agreement = _json(capsys, "agreement", bundle, "--a", "human", "--b", "judge")
    assert agreement

    scores = _json(capsys, "scores", bundle, "--benchmark", "visit-bench")
    table = pd.DataFrame(scores["tables"]["judge_human_agreement"]).set_index("majority")
    expected = expected_agreement(preferences, judge.decisions)
    assert set(table.index) == set(expected)
    for level, (comparisons, share) in expected.items():
        assert table.loc[level, "comparisons"] == comparisons
        assert table.loc[level, "agreement"] == pytest.approx(share)
    assert table.loc["all", "comparisons"] == model_pairs
    print(table.to_string())

    # the report shows the same table, with the command that prints it
    report = tmp_path / "report.html"
    assert main(["report", bundle, "--out", str(report), "--bootstrap", "10"]) == 0
    html = report.read_text()
    section = html[html.index('<section id="scores">') :]
    section = section[: section.index("</section>")]
    assert "judge_human_agreement" in section and "5/5" in section
    assert "workbench scores BUNDLE --benchmark visit-bench" in section
    shown = f"{table.loc['5/5', 'agreement']:.2f}"
    assert shown in section
