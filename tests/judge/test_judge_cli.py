"""``workbench judge`` and ``workbench judge-templates`` from the command line."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, cast

import pytest

import workbench.plugins
from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import FAKE_KEY, build_bundle, registry_with_all_templates
from tests.patience import HANG_GUARD_SECONDS
from workbench.cli import main
from workbench.judge.cost import default_prices

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def templates(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


@pytest.fixture(scope="module")
def small_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_bundle(tmp_path_factory.mktemp("cli"), 12, models=("m-one", "m-two", "m-three"))


def judge_args(bundle: Path | str, server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "judge",
        str(bundle),
        "--base-url",
        server.base_url,
        "--model",
        "gpt-4o-mini",
        "--template",
        "visit-bench-pairwise",
        *extra,
    ]


def test_dry_run_prints_the_estimate_and_sends_nothing(
    small_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeOpenAIServer() as server:
        assert main([*judge_args(small_bundle, server), "--dry-run", "--json"]) == 0
        assert main([*judge_args(small_bundle, server), "--dry-run", "--price", "1,2"]) == 0
        assert server.stats.requests == 0
    out = capsys.readouterr().out
    plan, _end = json.JSONDecoder().raw_decode(out)
    # 12 items x 3 model pairs, both orders
    assert plan["comparisons"] == 36 and plan["requests_total"] == 72
    estimate = plan["estimate"]
    assert estimate["requests"] == 72
    assert estimate["completion_tokens"] == 72 * 350
    assert estimate["cost_usd"] == pytest.approx(
        (estimate["prompt_tokens"] * 0.15 + estimate["completion_tokens"] * 0.60) / 1e6, abs=1e-6
    )
    assert "72 to send" in out and "$" in out


def test_dry_run_cites_the_price_list_or_says_the_user_s_price_overrides_it(
    small_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = default_prices().origin_for("gpt-4o-mini")
    assert listed is not None
    with FakeOpenAIServer() as server:
        assert main([*judge_args(small_bundle, server), "--dry-run"]) == 0
        cited = capsys.readouterr().out
        assert main([*judge_args(small_bundle, server), "--dry-run", "--price", "1,2"]) == 0
        overridden = capsys.readouterr().out
        assert main([*judge_args(small_bundle, server), "--dry-run", "--json"]) == 0
        as_json = json.loads(capsys.readouterr().out)
    assert f"list price as of {listed.as_of}, source {listed.source}" in cited
    assert "price given by you (--price), overriding the list price" in overridden
    assert f"as of {listed.as_of}" in overridden and "$1 input, $2 output" in overridden
    origin = as_json["estimate"]["price_origin"]
    assert (origin["as_of"], origin["source"], origin["by_user"]) == (
        listed.as_of,
        listed.source,
        False,
    )


def test_a_run_prints_its_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = build_bundle(tmp_path, 10)
    with FakeOpenAIServer(
        faults=Faults(rate_limit_every=7, retry_after_ms=10, malformed_share=0.2)
    ) as server:
        assert main([*judge_args(bundle, server), "--concurrency", "4"]) == 0
        assert main([*judge_args(bundle, server), "--json"]) == 0
    out = capsys.readouterr().out
    for line in (
        "verdicts        20",
        "parse failures",
        "retries",
        "tokens",
        "cost",
        "wall time",
        "position flips",
    ):
        assert line in out
    again = json.loads(out[out.index("{") :])
    assert again["already_judged"] == 20 and again["total"] == 0
    assert again["status"] == "completed"


def test_a_cost_limit_needs_a_price(small_bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer() as server:
        args = judge_args(small_bundle, server, "--max-cost", "1")
        args[args.index("gpt-4o-mini")] = "my-local-model"
        assert main(args) == 1
        assert main([*args, "--price", "0,0", "--dry-run"]) == 0
    assert "no price is known for my-local-model" in capsys.readouterr().err


def test_bad_settings_are_reported(small_bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer() as server:
        assert main([*judge_args(small_bundle, server), "--concurrency", "0"]) == 1
        assert main([*judge_args(small_bundle, server), "--template", "nope", "--dry-run"]) == 1
        assert main([*judge_args(small_bundle, server), "--price", "cheap"]) == 1
    err = capsys.readouterr().err
    assert "--concurrency must be at least 1" in err
    assert "unknown judge template 'nope'" in err
    assert "INPUT,OUTPUT" in err


def test_judge_templates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["judge-templates"]) == 0
    assert main(["judge-templates", "--show", "arena-five-level"]) == 0
    assert main(["judge-templates", "--show", "visit-bench-pairwise", "--json"]) == 0
    out = capsys.readouterr().out
    assert "convbench-direct@3" in out and "chirp-five-criteria@2" in out
    assert "[[A>>B]]" in out and "images sent: yes" in out
    record = json.loads(out[out.index('{\n  "name"') :])
    assert record["extraction"]["parser"]["name"] == "visit-bench-extracted-choice"
    assert main(["judge-templates", "--show", "convbench-direct"]) == 0
    shown = capsys.readouterr().out
    assert "--- overall pass, fed the turns' judgments (user) ---" in shown
    assert "{turn_judgments}" in shown


SUBPROCESS_CLI = """
import sys
import workbench.plugins
from tests.judge.helpers import registry_with_all_templates
registry = registry_with_all_templates()
workbench.plugins.registry = lambda: registry
from workbench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def verdict_count(bundle: Path) -> int:
    with sqlite3.connect(bundle, timeout=10) as connection:
        return cast("int", connection.execute("SELECT count(*) FROM judge_verdicts").fetchone()[0])


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_run_resumes_with_only_the_rest(tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path, 40)
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    # twenty answers, then the run waits on its next requests until it is killed
    with FakeOpenAIServer(faults=Faults(answer_then_hold=20)) as server:
        args = [*judge_args(bundle, server), "--concurrency", "4"]
        process = subprocess.Popen(
            [sys.executable, "-c", SUBPROCESS_CLI, *args],
            cwd=PROJECT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + HANG_GUARD_SECONDS
        while verdict_count(bundle) < 20 and process.poll() is None:
            assert time.monotonic() < deadline, "the run did not get going"
            time.sleep(0.02)  # between looks at the bundle
        process.send_signal(signal.SIGKILL)
        process.wait(HANG_GUARD_SECONDS)
        stored = verdict_count(bundle)
        assert 20 <= stored < 80
        server.faults = Faults(latency=0.05)
        server.reset_stats()
        assert main(args) == 0
        assert server.stats.requests == 80 - stored
    assert verdict_count(bundle) == 80


def test_the_http_stack_loads_while_the_run_is_planned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI imports openai in a thread while it plans, instead of after (about a
    second of a whole-process run); a dry run does not load it at all."""
    import threading

    # the names the command calls (it imports them from the runner at its top)
    from workbench.cli import judge_commands as runner
    from workbench.services.judging import runner as judging_runner

    preparing = threading.Event()
    planned = threading.Event()
    real_prepare, real_plan = judging_runner.prepare_runtime, judging_runner.plan_run

    def prepare() -> None:
        if threading.current_thread().name == "judge-runtime":
            preparing.set()
            planned.wait(10)  # still going when planning starts
        real_prepare()

    seen_while_planning: list[bool] = []

    def plan(*args: Any, **kwargs: Any) -> Any:
        seen_while_planning.append(preparing.wait(2))
        try:
            return real_plan(*args, **kwargs)
        finally:
            planned.set()

    monkeypatch.setattr(runner, "prepare_runtime", prepare)
    monkeypatch.setattr(runner, "plan_run", plan)
    bundle = build_bundle(tmp_path, 3)
    with FakeOpenAIServer() as server:
        assert main([*judge_args(bundle, server), "--dry-run"]) == 0
        assert seen_while_planning == [False]  # a dry run sends nothing: no HTTP stack
        preparing.clear()
        planned.clear()
        seen_while_planning.clear()
        assert main(judge_args(bundle, server)) == 0
    assert seen_while_planning == [True]


@pytest.mark.parametrize(
    ("template", "becomes", "counted"),
    [
        ("visit-bench-pairwise", "counted as ties", "all"),
        ("arena-five-level", "kept without an outcome, on no board", "parsed"),
    ],
)
def test_the_summary_says_what_unreadable_verdicts_became_and_the_board_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], template: str, becomes: str, counted: str
) -> None:
    bundle = build_bundle(tmp_path, 10)
    with FakeOpenAIServer(faults=Faults(malformed_share=0.3)) as server:
        args = judge_args(bundle, server, "--text-only", "--json")
        args[args.index("visit-bench-pairwise")] = template
        assert main(args) == 0, capsys.readouterr().err
        done = json.loads(capsys.readouterr().out)
        assert main(["judge", str(bundle), *args[2:-1], "--run", "again", "--no-cache"]) == 0
    text = capsys.readouterr().out
    unresolved = done["unresolved"]
    assert unresolved > 0  # the same answers, so the same count in the second run
    assert f"{unresolved} stored flagged: {becomes}" in text
    assert main(["leaderboard", str(bundle), "--judge-run", done["run"], "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    verdicts = done["verdicts"]
    assert board["battles"] == (verdicts if counted == "all" else verdicts - unresolved)
