"""A judge run whose requests fail says why: counts per failure reason and the first message,
in the CLI's summary (also when the run stops early) and its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import workbench.plugins
from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import FAKE_KEY, build_bundle, registry_with_all_templates
from tests.judge.test_judge_cli import judge_args
from workbench.cli import main

HTML = ("text/html", b"<html><body>502 Bad Gateway</body></html>")


@pytest.fixture(autouse=True)
def templates(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def test_an_incomplete_run_prints_its_failure_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = build_bundle(tmp_path, 2)
    with FakeOpenAIServer(faults=Faults(server_error_every=1)) as server:
        assert main([*judge_args(bundle, server), "--attempts", "2"]) == 1
        assert main([*judge_args(bundle, server), "--attempts", "2", "--json"]) == 1
    out = capsys.readouterr().out
    text, _, json_text = out.partition("{")
    # every request failed: the run failed, and says where it sent them
    assert "': failed in" in text and "failed          4" in text
    assert f"every request to {server.base_url} failed" in text
    assert "why           4 HTTP 500; the first: InternalServerError" in text
    record = json.loads("{" + json_text)
    assert record["failure_reasons"] == {"HTTP 500": 4}
    assert record["first_failure"].startswith("InternalServerError")


def test_a_run_stopped_by_failures_in_a_row_prints_them_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = build_bundle(tmp_path, 10)
    with FakeOpenAIServer(faults=Faults(raw_reply=lambda _number: HTML)) as server:
        code = main([*judge_args(bundle, server), "--attempts", "1", "--concurrency", "1"])
    assert code == 1
    output = capsys.readouterr()
    assert "failed          10" in output.out
    assert "why           10 no usable completion; the first: UnusableAnswer" in output.out
    assert "502 Bad Gateway" in output.out
    assert "10 judge requests failed in a row" in output.err
