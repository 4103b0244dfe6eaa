"""The template type: placeholders, rendering, versioned edits, what a run stores; and the
registry's judge templates."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.judge.helpers import ALL_TEMPLATES, registry_with_all_templates
from workbench.errors import WorkbenchError
from workbench.judge.cases import PLACEHOLDERS, CaseTurn, JudgeCase
from workbench.judge.parsing import SentenceParser
from workbench.judge.templates import JudgeMode, JudgeTemplate, TemplateError, placeholders_in
from workbench.plugins import Plugin, Registry, UnknownJudgeTemplateError

PARSER = SentenceParser("p", "test", r"(?P<choice>[AB]) wins")


def template(**overrides: Any) -> JudgeTemplate:
    fields: dict[str, Any] = {
        "name": "t",
        "version": "1",
        "title": "T",
        "description": "test template",
        "system": "Judge fairly.",
        "user": "Q: {instruction}\nA: {response_a}\nB: {response_b}\nRef: {reference}",
        "parse": PARSER,
    }
    fields.update(overrides)
    return JudgeTemplate(**fields)


CASE = JudgeCase(
    "src",
    "q1",
    (
        CaseTurn(1, "First?", "ref one", None, ("a1", "b1")),
        CaseTurn(2, "Second {not a field}?", "ref two", "cover X", ("a2", "b2")),
    ),
    captions=((0, "left image"), (1, "right image")),
)


def test_render_fills_the_judged_turn_and_keeps_braces_in_values() -> None:
    system, user = template().render(CASE)
    assert system == "Judge fairly."
    assert user == "Q: Second {not a field}?\nA: a2\nB: b2\nRef: ref two"


def test_context_has_every_documented_placeholder() -> None:
    context = CASE.context()
    assert set(context) == set(PLACEHOLDERS)
    assert context["caption"] == "Image 1: left image\nImage 2: right image"
    assert context["transcript_b"].startswith("[Turn 1]\nInstruction: First?\nAnswer: b1")
    assert "Reference answer: ref two\nAnswer to grade: a2" in context["graded_transcript"]
    assert context["focus_points"] == "Turn 2: cover X"


def test_unknown_placeholders_are_refused() -> None:
    with pytest.raises(TemplateError, match=r"\{image_path\}"):
        template(user="{image_path}")
    with pytest.raises(TemplateError, match="plain name"):
        template(user="{instruction!r}")
    with pytest.raises(TemplateError, match="braces"):
        template(user="{instruction")
    assert placeholders_in("{{literal}} {caption}") == {"caption"}


def test_contradictory_options_are_refused() -> None:
    with pytest.raises(TemplateError, match="single-output"):
        template(mode=JudgeMode.SINGLE, reference_as_response=True)
    with pytest.raises(TemplateError, match="tie"):
        template(mode=JudgeMode.SINGLE, unparsed="tie")
    with pytest.raises(TemplateError, match="fixed side"):
        template(fixed_side_key="side")


def test_an_edit_gets_its_own_version() -> None:
    original = template()
    edited = original.edited(user=original.user + "\nBe brief.")
    assert edited.version.startswith("1+edited.") and len(edited.version) == len("1+edited.") + 8
    assert edited.edited(system="Judge harshly.").version.startswith("1+edited.")
    assert original.edited(user=original.user) is original
    with pytest.raises(TemplateError):
        original.edited(user="{nope}")


def test_the_stored_record_names_the_parser() -> None:
    record = json.loads(template().as_text())
    assert record["parser"] == {"name": "p", "description": "test"}
    assert record["user"] == template().user
    assert record["version"] == "1"


def test_expected_slots() -> None:
    assert template().expected_slots([1, 2], None) == [("overall", None)]
    per_turn = template(criteria=("overall", "detail"), turn_verdicts=True)
    assert per_turn.expected_slots([1, 2], None) == [
        ("overall", None),
        ("detail", None),
        ("overall", 1),
        ("overall", 2),
    ]


def test_every_built_in_template_is_valid_and_registered() -> None:
    registry = registry_with_all_templates()
    names = {t.name for t in registry.judge_templates()}
    assert {t.name for t in ALL_TEMPLATES} <= names
    for built_in in ALL_TEMPLATES:
        assert registry.judge_template(built_in.name).label == built_in.label
        assert built_in.placeholders() <= set(PLACEHOLDERS)
        system, _user = built_in.render(CASE)
        assert "{" not in system


def test_unknown_template_and_clashes() -> None:
    registry = Registry()
    registry.add(Plugin("one", "1", "first", judge_templates=(template(),)))
    with pytest.raises(UnknownJudgeTemplateError, match="known templates: t"):
        registry.judge_template("missing")
    with pytest.raises(WorkbenchError, match="already taken"):
        registry.add(Plugin("two", "1", "second", judge_templates=(template(),)))
    with pytest.raises(WorkbenchError, match="already taken"):
        Registry().add(Plugin("three", "1", "twice", judge_templates=(template(), template())))
