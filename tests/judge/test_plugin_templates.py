"""The benchmarks' judge templates read the verdict formats their protocols define."""

from __future__ import annotations

from workbench_arena.judge_templates import ANCHORED_FIVE_LEVEL, read_five_level
from workbench_chirp.judge_templates import FIVE_CRITERIA
from workbench_chirp.protocols import CRITERIA
from workbench_convbench.judge_templates import DIRECT, PAIRWISE
from workbench_visit_bench.judge_templates import (
    ANSWER_EXTRACTION,
    REFERENCE_BACKED,
    REFERENCE_FREE,
)

from workbench.domain import Outcome
from workbench.judge.parsing import ParseResult


def outcome_of(result: ParseResult) -> Outcome | None:
    verdicts = result.verdicts
    return verdicts[0].outcome if verdicts else None


def test_visit_bench_verdict_sentence() -> None:
    parse = REFERENCE_FREE.parse
    assert outcome_of(parse("Step 1 ... Step 3.\nOverall, Response B is better.")) is Outcome.B
    assert outcome_of(parse("**Overall, response (A) is better.**")) is Outcome.A
    # the last sentence counts when the judge restates the format first
    text = 'I must end with "Overall, Response A is better." ... Overall, Response B is better.'
    assert outcome_of(parse(text)) is Outcome.B
    assert outcome_of(parse("Both are fine.")) is None
    assert REFERENCE_BACKED.needs_reference and "{reference}" in REFERENCE_BACKED.user


def test_visit_bench_answer_extraction() -> None:
    _system, user = ANSWER_EXTRACTION.render("A long evaluation {with braces}")
    assert "A long evaluation {with braces}" in user
    parse = ANSWER_EXTRACTION.parse
    assert outcome_of(parse("B")) is Outcome.B
    assert outcome_of(parse("Answer: A.")) is Outcome.A
    assert outcome_of(parse("Unknown")) is None
    assert outcome_of(parse("I am not sure.")) is None
    assert REFERENCE_FREE.unparsed == "tie" and REFERENCE_FREE.extraction is ANSWER_EXTRACTION


def test_arena_five_levels() -> None:
    for label, outcome, strength in (
        ("A>>B", Outcome.A, 2),
        ("A>B", Outcome.A, 1),
        ("A=B", Outcome.TIE, 1),
        ("B>A", Outcome.B, 1),
        ("B>>A", Outcome.B, 2),
    ):
        (verdict,) = read_five_level(f"My answer...\nMy final verdict is: [[{label}]]").verdicts
        assert (verdict.outcome, verdict.strength, verdict.label) == (outcome, strength, label)
    assert read_five_level("[[A>B]] or maybe [[B>A]]").problems[0].startswith("different")
    assert read_five_level("no label").problems == ("no [[...]] verdict label",)
    assert read_five_level("").problems == ("empty answer",)
    assert ANCHORED_FIVE_LEVEL.send_images and ANCHORED_FIVE_LEVEL.unparsed == "missing"


def test_convbench_pairwise_and_direct() -> None:
    answer = "Turn 1: [[A]]\nTurn 2: [[B]]\nTurn 3: [[B]]\nOverall: [[B]]"
    found = PAIRWISE.parse(answer).by_slot()
    assert [found[("overall", t)].outcome for t in (1, 2, 3, None)] == [
        Outcome.A,
        Outcome.B,
        Outcome.B,
        Outcome.B,
    ]
    assert PAIRWISE.parse("Overall: [[tie]]").verdicts == ()  # forced choice
    grades = DIRECT.parse(
        "Turn 1 score: [[8]]\nTurn 2 score: [[6]]\nTurn 3 score: [[9]]\nOverall score: [[7]]"
    ).by_slot()
    assert [grades[("overall", t)].score for t in (1, 2, 3, None)] == [8, 6, 9, 7]
    assert PAIRWISE.fixed_side_key == "pairwise_model_side" and PAIRWISE.reference_as_response


def test_chirp_five_criteria() -> None:
    answer = (
        "Overall: [[A]]\nRelevance and completeness: [[tie]]\n"
        "**Understanding & reasoning:** [[B]]\nHallucination: [[A]]\nDetail: [[B]]"
    )
    found = FIVE_CRITERIA.parse(answer).by_slot()
    assert {criterion for criterion, _ in found} == {criterion.name for criterion in CRITERIA}
    assert found[("relevance_completeness", None)].outcome is Outcome.TIE
    assert found[("understanding_reasoning", None)].outcome is Outcome.B
    assert FIVE_CRITERIA.criteria == tuple(criterion.name for criterion in CRITERIA)
