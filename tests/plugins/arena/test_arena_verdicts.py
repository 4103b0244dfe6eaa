"""The five-level verdict labels: every written form, and extraction from a judge's text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from workbench_arena.verdicts import (
    VERDICT_LABELS,
    Verdict,
    labels_in_text,
    parse_verdict,
    verdict_from_text,
)

from workbench.domain import Outcome

from .arena_data import RawGame

EXPECTED = {
    "A>>B": (Outcome.A, 2),
    "A>B": (Outcome.A, 1),
    "A=B": (Outcome.TIE, 1),
    "B>A": (Outcome.B, 1),
    "B>>A": (Outcome.B, 2),
}


@pytest.mark.parametrize("label", VERDICT_LABELS)
def test_each_label_reads_as_its_outcome_and_strength(label: str) -> None:
    verdict = parse_verdict(label)
    assert verdict == EXPECTED[label]
    outcome, strength = verdict  # a plain (outcome, strength) pair
    assert (outcome, strength) == EXPECTED[label]
    assert verdict.label == label


@pytest.mark.parametrize("label", VERDICT_LABELS)
@pytest.mark.parametrize(
    "written", ["[[{}]]", " {} ", "\t[[ {} ]]\n", "[[{}]]  ", "{spaced}", "[[{spaced}]]"]
)
def test_brackets_and_whitespace_are_tolerated(label: str, written: str) -> None:
    spaced = " ".join(label)  # "A > > B"
    assert parse_verdict(written.format(label, spaced=spaced)) == EXPECTED[label]


@pytest.mark.parametrize(
    "text",
    [None, "", "   ", "A", "AB", "A>>>B", "A<B", "B<<A", "A==B", "B=A", "a>b", "[[A>B]", "[A>B]",
     "[[A>B]] [[B>A]]", "A>B."],
)  # fmt: skip
def test_anything_else_is_no_verdict(text: str | None) -> None:
    assert parse_verdict(text) is None


def test_a_non_string_is_no_verdict() -> None:
    assert parse_verdict(3) is None  # type: ignore[arg-type]  # a JSON number, passed on purpose


def test_the_verdict_is_read_from_the_end_of_a_judges_text() -> None:
    text = (
        "My own answer first...\n\nAssistant B is slightly better.\n\nMy final verdict is: [[B>A]]"
    )
    assert verdict_from_text(text) == Verdict(Outcome.B, 1)


def test_a_label_repeated_is_still_one_verdict() -> None:
    assert verdict_from_text("[[A>>B]] ... so again: [[A>>B]]") == Verdict(Outcome.A, 2)


def test_conflicting_labels_give_no_verdict_as_in_arena_hard() -> None:
    text = 'Example output: "My final verdict is tie: [[A=B]]". My final verdict is [[B>>A]]'
    assert labels_in_text(text) == ["A=B", "B>>A"]
    assert verdict_from_text(text) is None
    assert verdict_from_text(text, on_conflict="last") == Verdict(Outcome.B, 2)


@pytest.mark.parametrize("text", [None, "", "no label here", "[[C>D]]", "[[A]]", "[[]]"])
def test_texts_without_a_label_give_no_verdict(text: str | None) -> None:
    assert verdict_from_text(text) is None
    assert verdict_from_text(text, on_conflict="last") is None


@given(
    label=st.sampled_from(VERDICT_LABELS),
    before=st.text(alphabet=st.characters(blacklist_characters="[]")),
    after=st.text(alphabet=st.characters(blacklist_characters="[]")),
)
def test_one_label_anywhere_in_free_text_is_found(label: str, before: str, after: str) -> None:
    assert verdict_from_text(f"{before}[[{label}]]{after}") == parse_verdict(label)


@given(label=st.sampled_from(VERDICT_LABELS), gaps=st.lists(st.sampled_from(" \t\n"), max_size=6))
def test_whitespace_inside_a_label_does_not_matter(label: str, gaps: list[str]) -> None:
    padded = "".join(char + (gaps[i] if i < len(gaps) else "") for i, char in enumerate(label))
    assert parse_verdict(padded) == parse_verdict(label)


def test_published_scores_agree_with_the_labels_in_their_judgment_texts(
    raw_games: list[RawGame],
) -> None:
    """On WildVision-Bench, wherever the judge's text has a label, it is the published score."""
    pattern = re.compile(r"\[\[([AB<>=]+)\]\]")
    with_label = [game for game in raw_games if game.text and pattern.search(game.text)]
    assert with_label
    for game in with_label:
        assert verdict_from_text(game.text) == parse_verdict(game.score), (game.file, game.row)
