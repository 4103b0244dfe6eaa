"""Two items whose judge requests are byte-identical (look-alike questions, judged on text
alone) each get their verdict: the request is sent once, its answer serves both, and the run's
board counts both comparisons. A run stopped between the two resumes with the second and
re-asks neither; a bundle stored at schema 0009 (one verdict for both) keeps its verdicts on the
upgrade, and resuming its run adds the missing one from the cached answer."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from alembic import command
from workbench_visit_bench.judge_templates import REFERENCE_FREE

import workbench.plugins
from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer
from tests.judge.helpers import FAKE_KEY, registry_with_all_templates
from tests.judge.judging import judge, settings_for
from workbench.cli import main
from workbench.services.importing import import_files
from workbench.services.judging.worklist import JudgeScope
from workbench.storage import Bundle, head_revision
from workbench.storage.bundle import _alembic_config
from workbench.storage.dialects import make_engine, parse_location

MODELS = ("m-a", "m-b")


@pytest.fixture(autouse=True)
def templates(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = registry_with_all_templates()
    monkeypatch.setattr(workbench.plugins, "registry", lambda: registry)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)


def look_alike_bundle(folder: Path, alike: tuple[int, ...] = (0, 1), items: int = 3) -> Path:
    """The items numbered ``alike`` ask the same thing and get the same answers; the others
    differ."""
    lines = [
        item_line(
            f"q{n}",
            turns=[
                {"prompt": "What is this?" if n in alike else f"What is {n}?", "references": []}
            ],
            outputs=[{"model": "m-a", "text": "A cat."}, {"model": "m-b", "text": "A dog."}],
            judgments=[],
        )
        for n in range(items)
    ]
    bundle = folder / "alike.wbb"
    import_files(bundle, [write_jsonl(folder / "src", lines)], "jsonl")
    return bundle


def verdicts_per_item(bundle: Path) -> dict[str, int]:
    with sqlite3.connect(bundle) as connection:
        return dict(
            connection.execute(
                "SELECT items.external_id, count(*) FROM judge_verdicts "
                "JOIN items ON items.id = judge_verdicts.item_id GROUP BY items.external_id"
            ).fetchall()
        )


def battles(bundle: Path, run: str, capsys: pytest.CaptureFixture[str]) -> int:
    capsys.readouterr()
    args = ["leaderboard", str(bundle), "--judge-run", run, "--min-battles", "0", "--json"]
    assert main(args) == 0
    return int(json.loads(capsys.readouterr().out)["battles"])


def test_two_items_with_identical_requests_each_get_their_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = look_alike_bundle(tmp_path)
    with FakeOpenAIServer() as server:
        args = ["--base-url", server.base_url, "--model", "gpt-4o-mini", "--models", "m-a,m-b"]
        judging = ["judge", str(bundle), "--template", REFERENCE_FREE.name, *args]
        capsys.readouterr()
        assert main([*judging, "--dry-run", "--json"]) == 0
        plan = json.loads(capsys.readouterr().out)
        assert plan["requests_total"] == 6 and plan["identical_requests_sent_once"] == 2
        assert main([*judging, "--run", "r", "--yes"]) == 0
        # q1's two requests are q0's: sent once, the answer serving both items
        assert server.stats.requests == 4
    assert verdicts_per_item(bundle) == {"q0": 2, "q1": 2, "q2": 2}
    assert battles(bundle, "r", capsys) == 6


def test_a_run_stopped_between_two_identical_requests_resumes_with_the_second(
    tmp_path: Path,
) -> None:
    bundle = look_alike_bundle(tmp_path, alike=(0, 2))
    with FakeOpenAIServer() as server:
        # one order, one request at a time: q0, then q1 (stopped there), then q2, q0's twin
        settings = settings_for(
            server, REFERENCE_FREE, selection=JudgeScope(swap=False), concurrency=1
        )
        plan, first = judge(bundle, settings, REFERENCE_FREE, cancel_after=1)
        assert plan.total_units == 3 and first.status == "cancelled"
        assert verdicts_per_item(bundle) == {"q0": 1}

        server.reset_stats()
        plan, second = judge(bundle, settings, REFERENCE_FREE)
        # q2 is not taken for answered because q0's verdict has its request
        assert plan.already_judged == 1 and len(plan.pending) == 2
        assert second.status == "completed" and second.progress.cached == 1
        assert server.stats.requests == 1  # q1's; q0's cached answer serves q2
        assert verdicts_per_item(bundle) == {"q0": 1, "q1": 1, "q2": 1}

        server.reset_stats()
        plan, _ = judge(bundle, settings, REFERENCE_FREE)
        assert plan.already_judged == 3 and plan.pending == []
        assert server.stats.requests == 0
    assert verdicts_per_item(bundle) == {"q0": 1, "q1": 1, "q2": 1}


def test_a_bundle_at_0009_keeps_its_verdicts_and_its_run_resumes_with_the_missing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = look_alike_bundle(tmp_path)
    with FakeOpenAIServer() as server:
        settings = settings_for(server, REFERENCE_FREE, run_name="r")
        judge(bundle, settings, REFERENCE_FREE)
        sent = server.stats.requests
        # back to 0009, whose key has no item: q1's verdicts go, as that schema stored them
        engine = make_engine(parse_location(bundle))
        try:
            with engine.begin() as connection:
                command.downgrade(_alembic_config(connection), "0009")
        finally:
            engine.dispose()
        assert verdicts_per_item(bundle) == {"q0": 2, "q2": 2}
        with sqlite3.connect(bundle) as connection:
            before = connection.execute("SELECT * FROM judge_verdicts ORDER BY id").fetchall()

        with Bundle.open(bundle) as opened:
            assert opened.revision() == head_revision()
        with sqlite3.connect(bundle) as connection:
            after = connection.execute("SELECT * FROM judge_verdicts ORDER BY id").fetchall()
            (index,) = connection.execute(
                "SELECT sql FROM sqlite_master WHERE name = 'ux_judge_verdicts_request'"
            ).fetchone()
        assert after == before  # nothing lost, nothing added
        assert "item_id" in index
        assert battles(bundle, "r", capsys) == 4

        plan, resumed = judge(bundle, settings, REFERENCE_FREE)
        assert plan.already_judged == 4 and len(plan.pending) == 2
        assert resumed.status == "completed"
        assert server.stats.requests == sent  # answered from the cache
    assert verdicts_per_item(bundle) == {"q0": 2, "q1": 2, "q2": 2}
    assert battles(bundle, "r", capsys) == 6
