"""Judge verdict parsers under arbitrary text: they never raise, return no verdict or a valid
one, and find a verdict embedded in noise where the protocol puts it, whichever side it favours.
An answer whose verdict cannot be read becomes a flagged tie where the protocol says so
(VisIT-Bench) and no outcome elsewhere.

CI runs a bounded number of examples; ``pytest -m long`` runs many more.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from workbench_arena.judge_templates import FIVE_LEVEL
from workbench_arena.verdicts import (
    BRACKETED_LABEL,
    VERDICT_LABELS,
    Verdict,
    labels_in_text,
    parse_verdict,
    verdict_from_text,
)
from workbench_chirp.judge_templates import FIVE_CRITERIA_CHOICES
from workbench_convbench.judge_templates import DIRECT_SCORES, PAIRWISE_CHOICES
from workbench_visit_bench.judge_templates import (
    EXTRACTED_CHOICE,
    REFERENCE_FREE,
    VERDICT_SENTENCE,
)

from tests.reliability.fuzz_cases import VERDICT_PIECES
from workbench.domain import Outcome
from workbench.judge.parsing import ParseResult, VerdictParser, plain
from workbench.judge.templates import JudgeTemplate
from workbench.plugins import registry
from workbench.services.judging.verdicts import UNKNOWN_LABEL, resolve

CI_EXAMPLES = 60
LONG_EXAMPLES = 5_000

#: text as judges and damaged responses produce it: any characters, with the markup and words
#: verdict formats are made of mixed in so the parsers' patterns are actually exercised
VERDICT_WORDS = st.sampled_from(VERDICT_PIECES)
JUDGE_TEXT = st.lists(st.text(max_size=20) | VERDICT_WORDS, max_size=30).map("".join)


def _template_parsers() -> list[tuple[str, VerdictParser, JudgeTemplate]]:
    parsers = []
    for template in registry().judge_templates():
        parsers.append((template.name, template.parse, template))
        if template.extraction is not None:
            parsers.append((template.name + ":extraction", template.extraction.parse, template))
    return parsers


TEMPLATE_PARSERS = _template_parsers()


def _check_result(result: ParseResult, template: JudgeTemplate) -> None:
    assert isinstance(result, ParseResult)
    assert all(isinstance(problem, str) and problem for problem in result.problems)
    for verdict in result.verdicts:
        assert verdict.outcome is None or isinstance(verdict.outcome, Outcome)
        assert verdict.strength in (1, 2)
        if verdict.score is not None:
            scale = getattr(template.parse, "scale", (0.0, 10.0))
            assert scale[0] <= verdict.score <= scale[1]
        else:
            assert verdict.outcome is not None


def _no_label(text: str) -> bool:
    return not BRACKETED_LABEL.search(text)


def test_every_template_parser_is_fuzzed() -> None:
    names = {name for name, _parser, _template in TEMPLATE_PARSERS}
    assert {
        "visit-bench-pairwise",
        "visit-bench-pairwise:extraction",
        "convbench-pairwise",
        "convbench-direct",
        "arena-five-level",
        "chirp-five-criteria",
    } <= names


def _any_text_gives_a_valid_result_or_none(text: str) -> None:
    for _name, parser, template in TEMPLATE_PARSERS:
        _check_result(parser(text), template)
    verdict = parse_verdict(text)
    if verdict is not None:
        assert verdict.label in VERDICT_LABELS
        assert parse_verdict(verdict.label) == verdict
    for rule in ("none", "last"):
        found = verdict_from_text(text, on_conflict=rule)
        assert found is None or isinstance(found, Verdict)


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(JUDGE_TEXT)
def test_any_text_gives_a_valid_verdict_or_none(text: str) -> None:
    _any_text_gives_a_valid_result_or_none(text)


@pytest.mark.long
@settings(max_examples=LONG_EXAMPLES, deadline=None)
@given(JUDGE_TEXT)
def test_any_text_gives_a_valid_verdict_or_none_long(text: str) -> None:
    _any_text_gives_a_valid_result_or_none(text)


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(st.binary(max_size=200))
def test_bytes_decoded_any_way_never_break_a_parser(data: bytes) -> None:
    for encoding in ("utf-8", "latin-1", "utf-16"):
        _any_text_gives_a_valid_result_or_none(data.decode(encoding, errors="replace"))


# --- five-level labels (WildVision-Bench, Arena-Hard) ------------------------------------------


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(st.text(), st.sampled_from(VERDICT_LABELS), st.text())
def test_a_label_in_noise_is_found_in_both_orders(before: str, label: str, after: str) -> None:
    """One label anywhere in the text is the verdict, whichever side it favours; the label with
    the sides exchanged gives the exchanged outcome."""
    if not (_no_label(before) and _no_label(after)):
        return
    text = f"{before}My final verdict is: [[{label}]]{after}"
    expected = parse_verdict(label)
    assert expected is not None
    assert labels_in_text(text) == [label]
    assert verdict_from_text(text) == expected
    assert [(v.outcome, v.strength) for v in FIVE_LEVEL(text).verdicts] == [expected]
    mirrored = "A=B" if label == "A=B" else label.translate(str.maketrans("AB", "BA"))
    swapped = verdict_from_text(f"{before}[[{mirrored}]]{after}")
    assert swapped == Verdict(expected.outcome.swapped(), expected.strength)


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(st.text(), st.sampled_from(VERDICT_LABELS), st.sampled_from(VERDICT_LABELS), st.text())
def test_two_different_labels_give_no_verdict_unless_the_last_is_asked_for(
    before: str, first: str, second: str, after: str
) -> None:
    if not (_no_label(before) and _no_label(after)):
        return
    text = f"{before}[[{first}]] ... [[{second}]]{after}"
    if first == second:
        assert verdict_from_text(text) == parse_verdict(first)
    else:
        assert verdict_from_text(text) is None
        assert not FIVE_LEVEL(text).verdicts
    assert verdict_from_text(text, on_conflict="last") == parse_verdict(second)


# --- VisIT-Bench: the verdict sentence, and a tie when it cannot be read -----------------------

SENTENCES = st.builds(
    lambda choice, bold, case, comma: (
        choice,
        case(f"{bold}Overall{comma} Response {choice} is better.{bold}"),
    ),
    st.sampled_from(["A", "B"]),
    st.sampled_from(["", "**"]),
    st.sampled_from([str, str.lower, str.upper]),
    st.sampled_from([",", ""]),
)


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(st.text(), SENTENCES, st.text(alphabet=st.characters(blacklist_characters="oO")))
def test_the_last_visit_bench_sentence_is_the_verdict(
    before: str, sentence: tuple[str, str], after: str
) -> None:
    """Whatever comes before (judges restate the format), the last sentence counts."""
    choice, text = sentence
    result = VERDICT_SENTENCE(before + "\n" + text + after)
    assert [v.outcome for v in result.verdicts] == [Outcome(choice.lower())]


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(JUDGE_TEXT)
def test_an_unreadable_visit_bench_answer_is_a_flagged_tie(text: str) -> None:
    regex = re.compile(VERDICT_SENTENCE.pattern, VERDICT_SENTENCE.flags)
    found = VERDICT_SENTENCE(text)
    readable = bool(regex.search(plain(text)))
    resolution = resolve(REFERENCE_FREE, [("overall", None)], found.verdicts, found.problems)
    (verdict,) = resolution.verdicts
    if readable:
        assert verdict.outcome in (Outcome.A, Outcome.B)
        assert not resolution.unresolved
    else:
        assert (verdict.outcome, verdict.label) == (Outcome.TIE, UNKNOWN_LABEL)
        assert resolution.unresolved == {("overall", None)}
        assert found.problems


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(blacklist_characters="ABU")), st.sampled_from(["A", "B"]))
def test_the_follow_up_answer_is_read_and_unknown_is_no_verdict(noise: str, choice: str) -> None:
    assert [v.outcome for v in EXTRACTED_CHOICE(f"{noise} {choice}").verdicts] == [
        Outcome(choice.lower())
    ]
    assert not EXTRACTED_CHOICE(f"{noise} Unknown").verdicts


def test_a_five_level_answer_without_a_label_has_no_outcome() -> None:
    arena = next(t for t in registry().judge_templates() if t.name == "arena-five-level")
    found = FIVE_LEVEL("I cannot decide between them.")
    resolution = resolve(arena, [("overall", None)], found.verdicts, found.problems)
    assert [v.outcome for v in resolution.verdicts] == [None]


# --- labelled fields: ConvBench per turn, CHIRP per criterion -------------------------------------

NOISE_LINE = st.text(
    alphabet=st.characters(blacklist_characters="[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
)


def _noise_free_of(words: tuple[str, ...]) -> st.SearchStrategy[str]:
    return NOISE_LINE.filter(lambda line: not any(w in line.lower() for w in words))


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(["A", "B"]), min_size=4, max_size=4),
    st.lists(_noise_free_of(("turn", "overall")), min_size=5, max_size=5),
)
def test_convbench_turn_choices_are_found_between_noise_lines(
    choices: list[str], noise: list[str]
) -> None:
    lines = [noise[0]]
    for turn, choice in enumerate(choices[:3], start=1):
        lines += [f"Turn {turn}: [[{choice}]]", noise[turn]]
    lines += [f"**Overall:** [[{choices[3]}]]", noise[4]]
    found = PAIRWISE_CHOICES("\n".join(lines)).by_slot()
    expected: dict[tuple[str, int | None], Outcome] = {
        ("overall", turn): Outcome(c.lower()) for turn, c in enumerate(choices[:3], 1)
    }
    expected[("overall", None)] = Outcome(choices[3].lower())
    assert {slot: verdict.outcome for slot, verdict in found.items()} == expected


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(
    st.lists(st.integers(0, 20), min_size=4, max_size=4),
    st.lists(_noise_free_of(("turn", "overall")), min_size=5, max_size=5),
)
def test_convbench_scores_are_read_within_0_to_10_only(scores: list[int], noise: list[str]) -> None:
    lines = [noise[0]]
    for turn, score in enumerate(scores[:3], start=1):
        lines += [f"Turn {turn} score: [[{score}]]", noise[turn]]
    lines += [f"Overall score: [[{scores[3]}]]", noise[4]]
    result = DIRECT_SCORES("\n".join(lines))
    found = {slot: verdict.score for slot, verdict in result.by_slot().items()}
    slots = [("overall", 1), ("overall", 2), ("overall", 3), ("overall", None)]
    expected = {slot: float(s) for slot, s in zip(slots, scores, strict=True) if s <= 10}
    assert found == expected
    assert len(result.problems) == sum(s > 10 for s in scores)


CHIRP_LINES = {
    "overall": "Overall",
    "relevance_completeness": "Relevance and completeness",
    "understanding_reasoning": "Understanding and reasoning",
    "hallucination": "Hallucination",
    "detail": "Detail",
}


@settings(max_examples=CI_EXAMPLES, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from(["A", "B", "tie"]), min_size=5, max_size=5),
    st.lists(
        _noise_free_of(("overall", "relevance", "understanding", "hallucination", "detail")),
        min_size=5,
        max_size=5,
    ),
)
def test_chirp_criteria_choices_are_found_between_noise_lines(
    choices: list[str], noise: list[str]
) -> None:
    lines = []
    for label, choice, filler in zip(CHIRP_LINES.values(), choices, noise, strict=True):
        lines += [filler, f"{label}: [[{choice}]]"]
    found = FIVE_CRITERIA_CHOICES("\n".join(lines)).by_slot()
    expected = {
        (criterion, None): {"A": Outcome.A, "B": Outcome.B, "tie": Outcome.TIE}[choice]
        for criterion, choice in zip(CHIRP_LINES, choices, strict=True)
    }
    assert {slot: verdict.outcome for slot, verdict in found.items()} == expected
