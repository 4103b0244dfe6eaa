"""Annotation protocols: a definition that contradicts itself is refused; the built-in ones are
what the benchmarks' papers describe; the registry finds them by name."""

from __future__ import annotations

from typing import Any

import pytest

from tests.services.campaign_helpers import ALL_PROTOCOLS
from workbench.domain import AnnotationProtocol, Choice, Criterion, Display, GradeScale
from workbench.domain.protocols import ProtocolError
from workbench.errors import WorkbenchError
from workbench.plugins import Plugin, Registry, UnknownProtocolError, load_registry

PICK = (Choice("a", "Response 1", "1"), Choice("b", "Response 2", "2"))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"choices": ()}, "either choices or a grade scale"),
        ({"grade_scale": GradeScale(0, 10)}, "either choices or a grade scale"),
        ({"choices": (*PICK, Choice("tie", "Tie", "1"))}, "unique"),
        ({"choices": (Choice("a", "A", "ctrl+z"), PICK[1])}, "one digit or capital letter"),
        ({"criteria": (Criterion("x", "X"), Criterion("x", "Y"))}, "criterion names repeat"),
        ({"comment_required_for": ("c",)}, "unknown choices"),
        ({"reference_as_response": True, "shows_reference": True}, "would reveal"),
        ({"display": Display.SINGLE, "reference_as_response": True}, "only a pair"),
        ({"display": Display.NONE}, "must show the reference or caption"),
    ],
)
def test_contradictory_protocols_are_refused(fields: dict[str, Any], message: str) -> None:
    definition: dict[str, Any] = {
        "name": "p",
        "title": "P",
        "description": "",
        "display": Display.PAIR,
    }
    definition["choices"] = PICK
    with pytest.raises(ProtocolError, match=message):
        AnnotationProtocol(**(definition | fields))


def test_grade_scale() -> None:
    scale = GradeScale(0, 10)
    assert scale.values() == tuple(float(n) for n in range(11))
    assert scale.contains(0) and scale.contains(10) and scale.contains(7.0)
    assert not scale.contains(10.5) and not scale.contains(-1) and not scale.contains(3.3)
    assert not scale.contains(float("nan"))
    assert GradeScale(1, 2, 0.5).values() == (1.0, 1.5, 2.0)
    with pytest.raises(ProtocolError):
        GradeScale(5, 5)


def test_keys_are_case_insensitive() -> None:
    (battle,) = [p for p in ALL_PROTOCOLS if p.name == "arena-battle"]
    tie, both_bad = battle.choice_for_key("t"), battle.choice_for_key("X")
    assert tie is not None and tie.value == "tie"
    assert both_bad is not None and both_bad.label == "Both bad"
    assert battle.choice_for_key("q") is None
    assert battle.response_labels == ("Response 1", "Response 2")


def test_the_built_in_protocols() -> None:
    by_name = {protocol.name: protocol for protocol in ALL_PROTOCOLS}
    chirp = by_name["chirp-five-criteria"]
    assert [c.label for c in chirp.criteria] == [
        "Overall",
        "Relevance and completeness",
        "Understanding and reasoning",
        "Hallucination",
        "Detail",
    ]
    assert [c.value for c in chirp.choices] == ["a", "b", "tie"]
    arena = by_name["arena-battle"]
    assert [(c.value, c.key) for c in arena.choices] == [
        ("a", "A"),
        ("b", "B"),
        ("tie", "T"),
        ("both_bad", "X"),
    ]
    forced = by_name["visit-bench-preference"]
    assert [c.label for c in forced.choices] == ["Response 1", "Response 2"]
    assert by_name["visit-bench-preference-with-reference"].shows_reference
    verification = by_name["visit-bench-verification"]
    assert verification.display is Display.NONE and verification.shows_caption
    assert set(verification.comment_required_for) == {"problem_in_caption", "problem_in_reference"}
    grade = by_name["convbench-turn-grade"]
    assert grade.per_turn and grade.shows_reference and grade.grade_scale == GradeScale(0, 10)
    pairwise = by_name["convbench-turn-pairwise"]
    assert pairwise.per_turn and pairwise.reference_as_response and not pairwise.shows_reference
    assert len(by_name) == len(ALL_PROTOCOLS) == 7


def test_registry_finds_protocols_and_refuses_clashes() -> None:
    registry = Registry()
    registry.add(Plugin("one", "1", "", protocols=ALL_PROTOCOLS[:2]))
    assert registry.protocol(ALL_PROTOCOLS[1].name) is ALL_PROTOCOLS[1]
    assert registry.protocols() == list(ALL_PROTOCOLS[:2])
    with pytest.raises(UnknownProtocolError, match=r"unknown annotation protocol 'x'.*known"):
        registry.protocol("x")
    with pytest.raises(WorkbenchError, match="already taken"):
        registry.add(Plugin("two", "1", "", protocols=ALL_PROTOCOLS[1:3]))
    with pytest.raises(WorkbenchError, match="already taken"):
        registry.add(Plugin("twice", "1", "", protocols=(ALL_PROTOCOLS[4], ALL_PROTOCOLS[4])))
    assert len(registry.protocols()) == 2


def test_chirp_plugin_contributes_its_protocol() -> None:
    names = {protocol.name for protocol in load_registry().protocols()}
    assert "chirp-five-criteria" in names
