"""A judge run whose requests all fail (no server listening) fails: exit status 1, a message
naming the endpoint, and a run marked failed that the next command does not "resume"."""

from __future__ import annotations

import json
import socket
import sqlite3
from pathlib import Path

import pytest

import workbench.plugins
from tests.judge.fake_openai_server import FakeOpenAIServer
from tests.judge.helpers import FAKE_KEY, build_bundle, registry_with_all_templates
from workbench.cli import main


@pytest.fixture(autouse=True)
def templates(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def closed_port_url() -> str:
    """An endpoint on this machine where nothing listens (a port just released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def judge(bundle: Path, url: str, *extra: str) -> list[str]:
    return [
        *("judge", str(bundle), "--base-url", url, "--model", "gpt-4o-mini"),
        *("--template", "visit-bench-pairwise", "--attempts", "1", *extra),
    ]


def stored_runs(bundle: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(bundle) as connection:
        return connection.execute("SELECT name, status FROM judge_runs").fetchall()


@pytest.mark.parametrize("limit", [[], ["--max-requests", "2", "--yes"]])
def test_a_run_whose_every_request_failed_exits_1_names_the_url_and_is_marked_failed(
    limit: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = build_bundle(tmp_path, 2)
    url = closed_port_url()
    capsys.readouterr()
    # with a request limit the run also stops on its budget, which alone would be success
    assert main([*judge(bundle, url, "--json"), *limit]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == "failed"
    assert summary["done"] == 0 and summary["failed"] > 0
    assert url in summary["stop_reason"]
    assert url in summary["first_failure"]
    assert [status for _name, status in stored_runs(bundle)] == ["failed"]

    capsys.readouterr()
    assert main([*judge(bundle, url, "--dry-run", "--json")]) == 0
    assert json.loads(capsys.readouterr().out)["resumes_existing_run"] is False
    capsys.readouterr()
    assert main([*judge(bundle, url, "--dry-run")]) == 0
    assert "resumes" not in capsys.readouterr().out


def test_a_run_with_answers_stays_resumable_and_failed_requests_still_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = build_bundle(tmp_path, 2)
    once = ["--max-requests", "1", "--yes"]
    with FakeOpenAIServer() as server:
        assert main([*judge(bundle, server.base_url), *once]) == 0
    assert [status for _name, status in stored_runs(bundle)] == ["budget_exhausted"]
    # the same run against an endpoint that is gone: it has verdicts, so it is kept (marked
    # failed, and resumable), and the exit status says its requests failed
    url = closed_port_url()
    capsys.readouterr()
    assert main([*judge(bundle, url), *once]) == 1
    assert url in capsys.readouterr().out
    assert [status for _name, status in stored_runs(bundle)] == ["failed"]
    capsys.readouterr()
    assert main([*judge(bundle, url, "--dry-run", "--json")]) == 0
    assert json.loads(capsys.readouterr().out)["resumes_existing_run"] is True
