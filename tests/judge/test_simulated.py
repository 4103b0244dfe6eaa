"""The simulated judge: for every built-in template its answer is read back, by the template's
own parser, as a verdict on every slot the runner expects; the same request gets the same
answer; the endpoint serves it over HTTP to the real client; ``workbench judge --simulated``
stores a run named as simulated and remembers no endpoint."""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.judge.helpers import ALL_TEMPLATES, build_bundle
from workbench.cli import main
from workbench.judge.cases import CaseTurn, JudgeCase
from workbench.judge.parsing import CallbackParser, ParseResult
from workbench.judge.simulated import (
    DISCLAIMER,
    SIMULATED_MODEL,
    NotSimulable,
    SimulatedResponder,
    simulable,
    simulated_answer,
    turns_shown,
)
from workbench.judge.simulated_endpoint import SimulatedJudgeServer
from workbench.judge.templates import JudgeTemplate


def case(turns: int) -> JudgeCase:
    return JudgeCase(
        "src",
        "q1",
        tuple(
            CaseTurn(n, f"Question {n}?", f"Reference {n}.", "Mention it.", ("left", "right"))
            for n in range(1, turns + 1)
        ),
        captions=((0, "A photo."),),
    )


@pytest.mark.parametrize("template", ALL_TEMPLATES, ids=lambda t: t.name)
@pytest.mark.parametrize("turns", [1, 3])
def test_every_template_reads_the_simulated_answer_on_every_expected_slot(
    template: JudgeTemplate, turns: int
) -> None:
    _system, user = template.render(case(turns))
    answer = simulated_answer(template, user, seed=3)
    assert answer.startswith(DISCLAIMER)
    parsed = template.parse(answer)
    shown = turns_shown(user) if template.turn_verdicts else []
    found = {
        verdict.slot for verdict in parsed.verdicts if verdict.outcome or verdict.score is not None
    }
    for judged in (None, turns):
        expected = template.expected_slots(shown, judged if template.turn_verdicts else None)
        assert parsed.missing(expected) == [] and set(expected) <= found, template.name
    assert simulated_answer(template, user, seed=3) == answer  # a pure function of the request


def test_turns_are_read_from_the_transcript_headings_only() -> None:
    template = next(t for t in ALL_TEMPLATES if t.turn_verdicts)
    _system, user = template.render(case(3))
    assert turns_shown(user) == [1, 2, 3]
    assert turns_shown("an answer that mentions [Turn 7] in passing") == []


def test_a_parser_that_cannot_write_its_format_is_refused() -> None:
    unknown = CallbackParser("opaque", "reads a private format", lambda text: ParseResult())
    template = JudgeTemplate(
        name="opaque", version="1", title="t", description="d", system="s", user="u", parse=unknown
    )
    with pytest.raises(NotSimulable, match="opaque"):
        simulated_answer(template, "u")
    assert list(simulable([template, *ALL_TEMPLATES])) == list(ALL_TEMPLATES)


def test_the_endpoint_answers_known_prompts_and_refuses_others() -> None:
    template = ALL_TEMPLATES[0]
    system, user = template.render(case(1))
    with SimulatedJudgeServer(SimulatedResponder(tuple(ALL_TEMPLATES))) as server:
        with urllib.request.urlopen(f"{server.base_url}/models") as response:
            assert json.load(response)["data"][0]["id"] == SIMULATED_MODEL

        def ask(system_text: str) -> urllib.request.Request:
            body = {
                "model": SIMULATED_MODEL,
                "messages": [
                    {"role": "system", "content": system_text},
                    {"role": "user", "content": [{"type": "text", "text": user}]},
                ],
            }
            return urllib.request.Request(
                f"{server.base_url}/chat/completions",
                data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"},
            )

        with urllib.request.urlopen(ask(system)) as response:
            reply = json.load(response)
        text = reply["choices"][0]["message"]["content"]
        assert text == simulated_answer(template, user) and reply["model"] == SIMULATED_MODEL
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(ask("You are some other judge."))
        assert refused.value.code == 400
        assert "installed templates" in json.load(refused.value)["error"]["message"]
        assert server.answered == 1


def test_judge_simulated_stores_a_named_run_and_remembers_no_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.judge.last_used import load_last_used

    bundle = build_bundle(tmp_path, 4)
    argv = ["judge", str(bundle), "--simulated", "--template", "visit-bench-pairwise", "--yes"]
    assert main([*argv, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["verdicts"] == 8 and summary["failed"] == 0
    assert summary["parse_failures"] == 0
    with sqlite3.connect(bundle) as connection:
        [(name, model)] = connection.execute("SELECT name, judge_model FROM judge_runs").fetchall()
    assert model == SIMULATED_MODEL and SIMULATED_MODEL in name
    assert load_last_used().base_url is None
    assert main([*argv, "--base-url", "http://127.0.0.1:9/v1"]) == 1
    assert "leave out --base-url" in capsys.readouterr().err


OVERALL_PASS_TEMPLATES = [t for t in ALL_TEMPLATES if t.overall_pass is not None]


@pytest.mark.parametrize("template", OVERALL_PASS_TEMPLATES, ids=lambda t: t.name)
def test_the_overall_pass_is_answered_in_its_own_format(template: JudgeTemplate) -> None:
    step = template.overall_pass
    assert step is not None and template in simulable([template])
    system, user = step.render(case(3), "[Judgment of turn 1]\nTurn 1: [[A]]")
    answer = SimulatedResponder((template,), seed=3).answer(system, user)
    assert answer.startswith(DISCLAIMER)
    found = step.parse(answer).by_slot()
    for slot in template.overall_slots():
        assert found[slot].outcome is not None or found[slot].score is not None, slot


def test_both_convbench_templates_ask_s0_in_a_pass_of_their_own() -> None:
    names = {template.name for template in OVERALL_PASS_TEMPLATES}
    assert {"convbench-pairwise", "convbench-direct"} <= names
