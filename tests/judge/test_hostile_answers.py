"""Whatever a judge answer holds, it gives a stored verdict or a recorded failure, never a crash,
and the run never stays "running": absurd usage numbers, lone surrogates, a plugin parser that
raises on an answer, and rows the bundle refuses."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from workbench_visit_bench.judge_templates import REFERENCE_FREE

from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import build_bundle
from tests.judge.judging import judge, settings_for
from workbench.judge.parsing import CallbackParser, ParseResult
from workbench.services.judging.worklist import JudgeScope

VERDICT = "Response A follows the description better.\nOverall, Response A is better."


def rows(bundle: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(bundle) as connection:
        return connection.execute(sql).fetchall()


def answer(body: str) -> tuple[str, bytes]:
    return "application/json", body.encode()


@pytest.fixture(scope="module")
def six_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(tmp_path_factory.mktemp("six"), 6)


@pytest.fixture
def bundle(six_items: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.wbb"
    copy.write_bytes(six_items.read_bytes())
    return copy


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=lambda _messages: VERDICT) as running:
        yield running


def test_absurd_usage_numbers_keep_the_verdict(bundle: Path, server: FakeOpenAIServer) -> None:
    body = json.dumps(
        {
            "choices": [{"message": {"role": "assistant", "content": VERDICT}}],
            "usage": {"prompt_tokens": 10**30, "completion_tokens": -5},
        }
    )
    server.faults = Faults(raw_reply=lambda _number: answer(body))
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=2))
    _, summary = judge(bundle, settings, REFERENCE_FREE)
    assert summary.status == "completed" and summary.progress.verdicts == 4
    assert rows(bundle, "SELECT DISTINCT prompt_tokens, completion_tokens FROM judge_verdicts") == [
        (None, None)
    ]
    assert rows(bundle, "SELECT status FROM judge_runs") == [("completed",)]


def test_a_lone_surrogate_is_stored_replaced(bundle: Path, server: FakeOpenAIServer) -> None:
    body = '{"choices": [{"message": {"content": "Overall, Response A is better. \\ud800!"}}]}'
    server.faults = Faults(raw_reply=lambda _number: answer(body))
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=2))
    _, summary = judge(bundle, settings, REFERENCE_FREE)
    assert summary.status == "completed" and summary.progress.verdicts == 4
    assert rows(bundle, "SELECT DISTINCT raw_text, outcome FROM judge_verdicts") == [
        ("Overall, Response A is better. \ufffd!", "a")
    ]


def test_a_parser_that_raises_fails_that_request_only(
    bundle: Path, server: FakeOpenAIServer
) -> None:
    def fragile(text: str) -> ParseResult:
        if "poison" in text:
            raise IndexError("the plugin's parser did not expect this")
        return REFERENCE_FREE.parse(text)

    template = dataclasses.replace(
        REFERENCE_FREE, parse=CallbackParser("fragile", "raises on poison", fragile)
    )
    server.responder = lambda messages: (
        VERDICT + (" poison" if "q0001" in json.dumps(messages) else "")
    )
    settings = settings_for(server, template, selection=JudgeScope(limit=3), concurrency=1)
    _, summary = judge(bundle, settings, template)
    assert summary.status == "incomplete"
    assert summary.progress.failed == 2 and summary.progress.verdicts == 4
    assert rows(bundle, "SELECT count(*) FROM judge_verdicts") == [(4,)]
    assert rows(bundle, "SELECT status FROM judge_runs") == [("incomplete",)]


def test_rows_the_bundle_refuses_are_failures_and_the_run_is_closed(
    bundle: Path, server: FakeOpenAIServer
) -> None:
    with sqlite3.connect(bundle) as connection:
        connection.execute(
            "CREATE TRIGGER refuse_poison BEFORE INSERT ON judge_verdicts "
            "WHEN NEW.raw_text LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    server.responder = lambda messages: (
        VERDICT + (" poison" if "q0002" in json.dumps(messages) else "")
    )
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=4))
    _, summary = judge(bundle, settings, REFERENCE_FREE)
    assert summary.status == "incomplete"
    assert summary.progress.failed == 2 and summary.progress.done == 6
    assert rows(bundle, "SELECT count(*) FROM judge_verdicts") == [(6,)]
    assert rows(bundle, "SELECT status, finished_at IS NOT NULL FROM judge_runs") == [
        ("incomplete", 1)
    ]


# beyond the list: other shapes a broken or hostile endpoint gives
OTHER_SHAPES = {
    # usage of the wrong types: the verdict is kept, the usage treated as unreported
    "usage as text": (
        '{"choices": [{"message": {"content": "Overall, Response A is better."}}], '
        '"usage": {"prompt_tokens": "lots", "completion_tokens": true}}',
        "stored",
    ),
    "usage as a list": (
        '{"choices": [{"message": {"content": "Overall, Response A is better."}}], '
        '"usage": [1, 2]}',
        "stored",
    ),
    # a NUL, which PostgreSQL refuses in text: stored replaced
    "nul character": (
        '{"choices": [{"message": {"content": "Overall, Response A is better.\\u0000"}}]}',
        "stored",
    ),
    # content of the wrong type, choices of the wrong type: failed requests
    "content as a number": ('{"choices": [{"message": {"content": 42}}]}', "failed"),
    "choices as an object": ('{"choices": {"message": {"content": "A"}}}', "failed"),
    "a json string": ('"Overall, Response A is better."', "failed"),
}


@pytest.mark.parametrize("shape", sorted(OTHER_SHAPES))
def test_other_answer_shapes_give_a_verdict_or_a_failure(
    bundle: Path, server: FakeOpenAIServer, shape: str
) -> None:
    body, expected = OTHER_SHAPES[shape]
    server.faults = Faults(raw_reply=lambda _number: answer(body))
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=1))
    _, summary = judge(bundle, settings, REFERENCE_FREE)
    if expected == "stored":
        assert summary.status == "completed" and summary.progress.verdicts == 2
        (text,) = {row[0] for row in rows(bundle, "SELECT raw_text FROM judge_verdicts")}
        assert text.startswith("Overall, Response A is better.") and "\x00" not in text
    else:
        # every request failed: the run failed
        assert summary.status == "failed" and summary.progress.failed == 2
        assert summary.progress.failure_reasons == {"no usable completion": 2}
        assert rows(bundle, "SELECT count(*) FROM response_cache") == [(0,)]
    assert rows(bundle, "SELECT status FROM judge_runs") == [(summary.status,)]
