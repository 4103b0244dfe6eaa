"""The per-turn judgments J1..Jn cut out of a judge's answer for the overall pass, and what an
overall pass may and must show."""

from __future__ import annotations

import pytest
from workbench_convbench.judge_templates import DIRECT, OVERALL_SCORE

from workbench.judge.parsing import ParsedVerdict
from workbench.judge.templates import OverallPass, TemplateError
from workbench.judge.turn_judgments import NO_JUDGMENT, turn_judgments_text, turn_sections

ANSWER = """Let me look at each turn.
**Turn 1 judgment:** the objects are named correctly.
It misses the clock.
Turn 1 score: [[7]]
Turn 2 judgment: the reasoning is wrong.
Turn 2 score: [[3]]
Overall score: [[5]]
A closing remark."""


def test_each_turn_gets_its_own_lines_and_the_preamble_and_overall_none() -> None:
    sections = turn_sections(ANSWER)
    assert sections == {
        1: "Turn 1 judgment: the objects are named correctly.\nIt misses the clock.\n"
        "Turn 1 score: [[7]]",
        2: "Turn 2 judgment: the reasoning is wrong.\nTurn 2 score: [[3]]",
    }


def test_a_turn_without_lines_shows_its_verdict_or_that_there_was_none() -> None:
    verdicts = [ParsedVerdict(turn_index=3, label="8", score=8.0)]
    text = turn_judgments_text("Turn 1: [[6]]\nturn 3 was fine", verdicts, [1, 2, 3])
    blocks = text.split("\n\n")
    assert blocks[0] == "[Judgment of turn 1]\nTurn 1: [[6]]"
    assert blocks[1] == f"[Judgment of turn 2]\n{NO_JUDGMENT}"
    assert blocks[2] == "[Judgment of turn 3]\nturn 3 was fine"
    only_verdict = turn_judgments_text("no turn lines", verdicts, [3])
    assert only_verdict == "[Judgment of turn 3]\nTurn 3: [[8]]"


def test_an_overall_pass_must_show_the_turn_judgments_and_knows_no_other_names() -> None:
    with pytest.raises(TemplateError, match="turn_judgments"):
        OverallPass(system="grade", user="{graded_transcript}", parse=OVERALL_SCORE)
    with pytest.raises(TemplateError, match="secret"):
        OverallPass(system="grade", user="{turn_judgments} {secret}", parse=OVERALL_SCORE)


def test_convbench_direct_asks_the_turns_first_and_s0_in_the_pass() -> None:
    assert DIRECT.expected_slots([1, 2, 3], None) == [
        ("overall", 1),
        ("overall", 2),
        ("overall", 3),
    ]
    assert DIRECT.overall_slots() == [("overall", None)]
    assert "overall_pass" in DIRECT.as_record()
