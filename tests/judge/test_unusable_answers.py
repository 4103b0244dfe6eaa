"""A 200 answer without a usable completion (a gateway's HTML page, ``{}``, an SSE stream, a
message without content) is a failed request: retried, then reported; never cached, never a
verdict. Content given as a list of parts is read. ``--no-cache`` really asks again."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from workbench_visit_bench.judge_templates import REFERENCE_FREE

from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import build_bundle
from tests.judge.judging import QUICK_RETRY, judge, settings_for
from workbench.judge.client import UnusableAnswer, completion_text
from workbench.services.judging.worklist import JudgeScope

VERDICT = "Response A follows the description better.\nOverall, Response A is better."


def completion(content: object) -> bytes:
    return json.dumps(
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    ).encode()


UNUSABLE = {
    "html page": ("text/html", b"<html><body><h1>502 Bad Gateway</h1></body></html>"),
    "empty object": ("application/json", b"{}"),
    "sse stream": (
        "text/event-stream",
        b'data: {"choices":[{"delta":{"content":"Overall"}}]}\n\ndata: [DONE]\n\n',
    ),
    "null content": ("application/json", completion(None)),
    "broken json": ("application/json", b'{"choices": [{"message": '),
}


def rows(bundle: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(bundle) as connection:
        return connection.execute(sql).fetchall()


@pytest.fixture(scope="module")
def four_items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(tmp_path_factory.mktemp("four"), 4)


@pytest.fixture
def bundle(four_items: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.wbb"
    copy.write_bytes(four_items.read_bytes())
    return copy


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(responder=lambda _messages: VERDICT) as running:
        yield running


@pytest.mark.parametrize("kind", sorted(UNUSABLE))
def test_an_unusable_answer_is_retried_then_reported_never_stored(
    bundle: Path, server: FakeOpenAIServer, kind: str
) -> None:
    server.faults = Faults(raw_reply=lambda _number: UNUSABLE[kind])
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=1))
    _, summary = judge(bundle, settings, REFERENCE_FREE)
    assert summary.status == "failed"  # every request failed
    assert summary.progress.failed == 2 and summary.progress.verdicts == 0
    # both orders' requests, each tried every time it may be
    assert server.stats.requests == 2 * QUICK_RETRY.max_attempts
    assert rows(bundle, "SELECT count(*) FROM judge_verdicts") == [(0,)]
    assert rows(bundle, "SELECT count(*) FROM response_cache") == [(0,)]


def test_an_unusable_answer_then_a_good_one_gives_the_verdict(
    bundle: Path, server: FakeOpenAIServer
) -> None:
    server.faults = Faults(raw_reply=lambda number: UNUSABLE["html page"] if number <= 2 else None)
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=1), concurrency=1)
    _, summary = judge(bundle, settings, REFERENCE_FREE)
    assert summary.status == "completed" and summary.progress.failed == 0
    assert summary.progress.retries == 2
    assert rows(bundle, "SELECT DISTINCT raw_text FROM judge_verdicts") == [(VERDICT,)]


def test_content_given_as_parts_is_read(bundle: Path, server: FakeOpenAIServer) -> None:
    parts = [
        {"type": "text", "text": "Response A follows the description better.\n"},
        {"type": "image_url", "image_url": {"url": "data:,"}},
        {"type": "text", "text": "Overall, Response A is better."},
    ]
    server.faults = Faults(raw_reply=lambda _number: ("application/json", completion(parts)))
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=1))
    _, summary = judge(bundle, settings, REFERENCE_FREE)
    assert summary.status == "completed" and summary.progress.parse_failures == 0
    assert rows(bundle, "SELECT DISTINCT raw_text FROM judge_verdicts") == [(VERDICT,)]
    assert completion_text({"choices": [{"message": {"content": parts}}]}) == VERDICT


def test_no_usable_completion_is_named() -> None:
    body: str | dict[str, Any]
    for body in ("<html>", {}, {"choices": []}, {"choices": [{"message": None}]}):
        with pytest.raises(UnusableAnswer):
            completion_text(body)
    with pytest.raises(UnusableAnswer, match="no text part"):
        completion_text({"choices": [{"message": {"content": [{"type": "image_url"}]}}]})


def test_no_cache_asks_again_and_replaces_the_earlier_verdicts(
    bundle: Path, server: FakeOpenAIServer
) -> None:
    server.responder = lambda _messages: "I cannot decide."
    settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=2), run_name="r")
    _, first = judge(bundle, settings, REFERENCE_FREE)
    assert first.progress.unresolved > 0
    sent = server.stats.requests
    server.responder = lambda _messages: VERDICT
    again = settings_for(
        server, REFERENCE_FREE, selection=JudgeScope(limit=2), run_name="r", use_cache=False
    )
    plan, second = judge(bundle, again, REFERENCE_FREE)
    assert plan.replaces == 4 and plan.estimate.requests == 4
    assert server.stats.requests > sent and second.progress.unresolved == 0
    assert rows(bundle, "SELECT count(*), count(DISTINCT request_hash) FROM judge_verdicts") == [
        (4, 4)
    ]
    assert rows(bundle, "SELECT DISTINCT raw_text FROM judge_verdicts") == [(VERDICT,)]
    assert rows(
        bundle,
        "SELECT DISTINCT response_text FROM response_cache "
        "WHERE request_hash IN (SELECT request_hash FROM judge_verdicts)",
    ) == [(VERDICT,)]
    # and with the cache again, nothing is asked: the new answers are what it holds
    sent = server.stats.requests
    plan, _ = judge(bundle, settings, REFERENCE_FREE)
    assert plan.estimate.requests == 0 and server.stats.requests == sent
