"""Editing a plugin's judge template: the edit is checked against the placeholders a case fills
and the template needs, gets a version of its own, and a run with it stores its exact text."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.judge.fake_openai_server import FakeOpenAIServer
from tests.judge.helpers import build_bundle
from tests.judge.judging import judge, settings_for
from workbench.errors import WorkbenchError
from workbench.judge.cases import PLACEHOLDERS
from workbench.judge.templates import JudgeTemplate, TemplateError, edited_template
from workbench.plugins import registry
from workbench.services.judging.runner import default_run_name, plan_run
from workbench.storage import Bundle
from workbench.storage.models import JudgeRun

TEMPLATE = "visit-bench-pairwise"
EDIT = "Be especially strict about made-up details."


@pytest.fixture(scope="module")
def original() -> JudgeTemplate:
    return registry().judge_template(TEMPLATE)


def digest(system: str, user: str) -> str:
    return hashlib.sha256(f"{system}\0{user}".encode()).hexdigest()[:8]


def test_an_edit_is_a_version_of_its_own(original: JudgeTemplate) -> None:
    user = f"{original.user}\n{EDIT}"
    edited = edited_template(original, original.system, user)
    assert edited.version == f"{original.version}+edited.{digest(original.system, user)}"
    assert (edited.system, edited.user) == (original.system, user)
    # everything else is the original's
    assert edited.parse is original.parse and edited.extraction == original.extraction
    assert edited.criteria == original.criteria and edited.mode is original.mode
    record = json.loads(edited.as_text())
    assert record["user"] == user and record["version"] == edited.version


def test_the_same_text_is_the_original(original: JudgeTemplate) -> None:
    assert edited_template(original, original.system, original.user) is original


def test_editing_an_edit_versions_it_from_the_original(original: JudgeTemplate) -> None:
    once = edited_template(original, original.system, f"{original.user}\n{EDIT}")
    twice = edited_template(once, f"{original.system} Be brief.", once.user)
    assert re.fullmatch(re.escape(original.version) + r"\+edited\.[0-9a-f]{8}", twice.version)
    assert twice.version.endswith(digest(twice.system, twice.user))


def test_a_placeholder_may_move_between_the_messages(original: JudgeTemplate) -> None:
    system = f"{original.system}\nThe image shows: {{caption}}"
    user = original.user.replace("{caption}", "(see the system message)")
    edited = edited_template(original, system, user)
    assert edited.placeholders() == original.placeholders()


def test_a_known_placeholder_may_be_added(original: JudgeTemplate) -> None:
    edited = edited_template(original, original.system, f"{original.user}\nTurns: {{turn_count}}")
    assert "turn_count" in edited.placeholders()


def test_an_unknown_placeholder_is_refused_by_name(original: JudgeTemplate) -> None:
    user = f"{original.user}\nAlso consider {{responce_c}}."
    with pytest.raises(TemplateError) as refused:
        edited_template(original, original.system, user)
    message = str(refused.value)
    assert isinstance(refused.value, WorkbenchError)
    assert "unknown placeholder(s) {responce_c}" in message
    assert all(f"{{{name}}}" in message for name in PLACEHOLDERS)  # says what is allowed
    assert TEMPLATE in message


def test_a_placeholder_the_template_needs_cannot_be_removed(original: JudgeTemplate) -> None:
    user = original.user.replace("{response_b}", "(no second answer)")
    with pytest.raises(TemplateError, match=r"needs \{response_b\}, which the edit removed"):
        edited_template(original, original.system, user)


def test_every_problem_is_named_at_once(original: JudgeTemplate) -> None:
    user = original.user.replace("{response_a}", "{response_z}")
    with pytest.raises(TemplateError) as refused:
        edited_template(original, original.system, user)
    assert "{response_z}" in str(refused.value) and "{response_a}" in str(refused.value)


@pytest.mark.parametrize(
    ("system", "user", "expected"),
    [
        ("Judge {", None, "the system text: unbalanced braces"),
        (None, "{instruction!r} {caption} {response_a} {response_b}", "must be a plain name"),
        (None, "{instruction:>10} {caption} {response_a} {response_b}", "must be a plain name"),
        (None, "  \n", "the user text is empty"),
    ],
)
def test_malformed_text_is_refused(
    original: JudgeTemplate, system: str | None, user: str | None, expected: str
) -> None:
    with pytest.raises(TemplateError, match=re.escape(expected)):
        edited_template(
            original, original.system if system is None else system, user or original.user
        )


def test_literal_braces_may_be_written_doubled(original: JudgeTemplate) -> None:
    user = f"{original.user}\nAnswer as {{{{'verdict': 'A'}}}}."
    edited = edited_template(original, original.system, user)
    assert edited.placeholders() == original.placeholders()


def test_a_run_with_an_edit_sends_and_stores_the_edited_text(
    tmp_path: Path, original: JudgeTemplate
) -> None:
    bundle = build_bundle(tmp_path, 3, models=("m-a", "m-b"))
    edited = edited_template(original, original.system, f"{original.user}\n{EDIT}")
    with FakeOpenAIServer() as server:
        settings = settings_for(server, edited)
        assert plan_run(bundle, settings, template=original).run_name != default_run_name(
            settings, edited
        )
        plan, summary = judge(bundle, settings, edited)
        sent = [text for _, text in server.stats.arrivals]
    assert plan.template is edited and summary.status == "completed"
    assert len(sent) == 6 and all(text.rstrip().endswith(EDIT) for text in sent)
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        (run,) = session.scalars(select(JudgeRun)).all()
    assert (run.template_name, run.template_version) == (original.name, edited.version)
    assert json.loads(run.template_text)["user"] == edited.user


def test_a_run_name_of_the_original_refuses_the_edit(
    tmp_path: Path, original: JudgeTemplate
) -> None:
    bundle = build_bundle(tmp_path, 2, models=("m-a", "m-b"))
    edited = edited_template(original, original.system, f"{original.user}\n{EDIT}")
    with FakeOpenAIServer() as server:
        plan, _ = judge(bundle, settings_for(server, original), original)
        settings = settings_for(server, edited, run_name=plan.run_name)
        with pytest.raises(WorkbenchError, match=re.escape(f"used {original.label} with")):
            plan_run(bundle, settings, template=edited)
