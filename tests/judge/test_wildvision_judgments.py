"""The arena template's parser on the real WildVision-Bench judgments: every verdict it reads
gives the same battles as the published ``vision_bench_battles.jsonl.gz`` (a decisive ``>>``
counts as three battles, ``>`` as one, ``=`` as one tie), and the judgments it cannot read are
reported, each with a reason."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from workbench_arena.judge_templates import ANCHORED_FIVE_LEVEL

from workbench.domain import Outcome

pytestmark = pytest.mark.shared_data

WINNER = {Outcome.A: "model_a", Outcome.B: "model_b", Outcome.TIE: "tie"}


def battles_of(outcome: Outcome, strength: int) -> Counter[str]:
    return Counter({WINNER[outcome]: 3 if strength == 2 else 1})


def battles_of_score(score: str) -> Counter[str]:
    """The published derivation, from the judgment's own ``score`` field."""
    winner = "tie" if "=" in score else "model_a" if score.startswith("A") else "model_b"
    return Counter({winner: 3 if ">>" in score else 1})


@pytest.fixture(scope="module")
def judgments(shared_data: Path) -> list[dict[str, Any]]:
    rows = []
    for path in sorted((shared_data / "wildvision-bench" / "model_judgements").glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                for game in row["games"]:
                    rows.append(
                        {
                            "question_id": row["question_id"],
                            "model": row["model"],
                            "text": game.get("judgment", game.get("judgement")),
                            "score": game.get("score"),
                        }
                    )
    return rows


@pytest.fixture(scope="module")
def published(shared_data: Path) -> dict[tuple[str, str], Counter[str]]:
    battles: dict[tuple[str, str], Counter[str]] = {}
    path = shared_data / "wildvision-bench" / "vision_bench_battles.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            battles.setdefault((row["question_id"], row["model_b"]), Counter())[row["winner"]] += 1
    return battles


def test_parsed_verdicts_give_the_published_battles(
    judgments: list[dict[str, Any]], published: dict[tuple[str, str], Counter[str]]
) -> None:
    in_battles = {model for _, model in published}
    parsed = malformed = 0
    reasons: Counter[str] = Counter()
    derived_total = 0
    for row in judgments:
        if row["model"] not in in_battles:  # aria: judged, but left out of the battles file
            continue
        key = (row["question_id"], row["model"])
        result = ANCHORED_FIVE_LEVEL.parse(row["text"] or "")
        if result.verdicts:
            (verdict,) = result.verdicts
            assert verdict.outcome is not None
            assert verdict.label == row["score"], key
            assert battles_of(verdict.outcome, verdict.strength) == published.get(key, Counter())
            parsed += 1
            derived_total += sum(battles_of(verdict.outcome, verdict.strength).values())
            continue
        # Reported as malformed, with a reason. Where the release still published battles, they
        # come from its score field alone, which the judge's text does not support.
        malformed += 1
        assert result.problems, key
        reasons[result.problems[0].split(":")[0]] += 1
        expected = battles_of_score(row["score"]) if key in published else Counter()
        assert published.get(key, Counter()) == expected, key
        derived_total += sum(expected.values())
    assert parsed > 0.9 * (parsed + malformed)
    assert derived_total == sum(sum(c.values()) for c in published.values())
    print(f"\nparsed {parsed}, malformed {malformed}: {dict(reasons)}")


def test_every_published_score_label_agrees_with_the_text_when_both_exist(
    judgments: list[dict[str, Any]],
) -> None:
    disagreements = [
        (row["question_id"], row["model"])
        for row in judgments
        if (verdicts := ANCHORED_FIVE_LEVEL.parse(row["text"] or "").verdicts)
        and verdicts[0].label != row["score"]
    ]
    assert disagreements == []
