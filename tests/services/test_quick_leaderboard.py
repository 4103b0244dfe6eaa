"""``workbench leaderboard --json`` without filters takes the quick path (no pandas, no
SQLAlchemy) and prints exactly the document of the full service on the same bundle."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.backends import BundleBackend
from tests.gui.panel_bundle import build_panel_bundle
from tests.importers.canonical_helpers import write_jsonl
from tests.services.campaign_ops_bundle import build_ops_bundle
from tests.shared_builds import copy_of
from tests.storage.counted_bundle import build_counted_bundle
from tests.storage.test_judgment_counts import source_lines
from workbench.cli import main, stats_commands
from workbench.services import analysis
from workbench.services.analysis_request import AnalysisRequest, RequestError
from workbench.services.quick_leaderboard import NO_FILTERS, ONE_CAMPAIGN, quick_leaderboard
from workbench.storage import Bundle
from workbench.storage.judgments import OutcomeFilter


@pytest.fixture(scope="module", params=["demo", "panels", "campaign"])
def bundle_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp(request.param)
    if request.param == "demo":
        return copy_of(request.getfixturevalue("demo_bundle_template"), folder)
    if request.param == "campaign":
        return build_ops_bundle(folder)[0]
    return build_panel_bundle(folder)


def service_json(bundle_path: Path | str, request: AnalysisRequest) -> Any:
    with Bundle.open(bundle_path) as bundle:
        return json.loads(json.dumps(analysis.leaderboard(bundle, request).to_json()))


def models_of(bundle_path: Path) -> list[str]:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        return analysis.distinct_values(session, "model_a", OutcomeFilter())


@pytest.mark.parametrize(
    "settings",
    [
        {"bootstrap": 0},
        {"bootstrap": 40, "seed": 7},
        {"anchor": "m-b", "bootstrap": 25, "decisive_weight": 1.0},
        {"kind": "judge", "bootstrap": 10, "min_battles": 0},
        {"ties": "drop", "bootstrap": 10, "min_battles": 5},
        {"min_battles": 10_000_000, "bootstrap": 0},
    ],
)
def test_the_quick_document_is_the_services(bundle_path: Path, settings: dict[str, Any]) -> None:
    models = models_of(bundle_path)
    if "anchor" in settings:
        settings = {**settings, "anchor": models[0]}
    request = AnalysisRequest(**settings)
    quick = quick_leaderboard(bundle_path, request)
    try:
        expected = service_json(bundle_path, request)
    except (RequestError, analysis.AnalysisError):
        assert quick is None  # the full path answers with its explanation
        return
    assert quick is not None and quick == expected
    # the request block names what was counted and the command that prints it
    assert quick["request"]["judgments"]["kind"] in ("human", "judge")
    assert quick["request"]["anchor"]["model"] == quick["anchor"]["model"]


def test_an_unknown_anchor_is_left_to_the_full_path(
    bundle_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = AnalysisRequest(anchor="nobody", anchor_rating=1.0, bootstrap=0)
    assert quick_leaderboard(bundle_path, request) is None
    with pytest.raises(RequestError, match="--anchor nobody: not a model"):
        service_json(bundle_path, request)
    assert main(["leaderboard", str(bundle_path), "--anchor", "nobody=1", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "--anchor" in captured.err


def test_no_filters_reads_as_the_filter_says() -> None:
    assert OutcomeFilter().describe() == NO_FILTERS
    assert OutcomeFilter(campaigns=("arena 1",)).describe() == ONE_CAMPAIGN.format("arena 1")
    assert AnalysisRequest().selection_text() == NO_FILTERS
    assert AnalysisRequest(campaigns=("arena 1",)).selection_text() == ONE_CAMPAIGN.format(
        "arena 1"
    )


def test_one_campaigns_document_is_the_services(
    bundle_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        campaigns = analysis.distinct_values(session, "campaign", OutcomeFilter())
    if not campaigns:
        pytest.skip("this bundle has no campaign")
    request = AnalysisRequest(campaigns=(campaigns[0],), bootstrap=15, min_battles=0)
    expected = service_json(bundle_path, request)
    monkeypatch.setattr(stats_commands, "leaderboard", None)  # the full path is not taken
    capsys.readouterr()
    argv = ["leaderboard", str(bundle_path), "--campaign", campaigns[0], "--bootstrap", "15"]
    assert main([*argv, "--min-battles", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected


def test_the_command_takes_the_quick_path_only_without_filters(
    bundle_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = service_json(bundle_path, AnalysisRequest(bootstrap=20, min_battles=0))
    full_calls: list[Any] = []
    full = analysis.leaderboard

    def counted(*args: Any, **kwargs: Any) -> Any:
        full_calls.append(args)
        return full(*args, **kwargs)

    monkeypatch.setattr(stats_commands, "leaderboard", counted)  # the full path's service
    capsys.readouterr()
    argv = ["leaderboard", str(bundle_path), "--min-battles", "0"]
    assert main([*argv, "--bootstrap", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected
    assert full_calls == []
    assert main([*argv, "--category", "none-such", "--json"]) == 1
    assert len(full_calls) == 1


def test_the_printed_command_prints_the_same_document(
    bundle_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The request block's command, run, gives the same numbers (quick path and full)."""
    capsys.readouterr()
    assert main(["leaderboard", str(bundle_path), "--min-battles", "0", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    argv = shlex.split(document["request"]["command"])[1:]
    argv[1] = str(bundle_path)
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == document
    assert main([*argv, "--json", "--csv", str(bundle_path.with_suffix(".csv"))]) == 0
    assert json.loads(capsys.readouterr().out) == document


def test_the_command_loads_no_pandas_scipy_or_sqlalchemy(bundle_path: Path) -> None:
    code = (
        "import sys; from workbench.cli import main; "
        f"code = main(['leaderboard', {str(bundle_path)!r}, '--bootstrap', '10', '--json']); "
        "print(sorted(m for m in ('pandas', 'scipy', 'sqlalchemy', 'alembic') "
        "if m in sys.modules), file=sys.stderr); sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["filters"] == NO_FILTERS
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_a_server_bundles_command_prints_the_services_document_without_sqlalchemy(
    bundle_backend: BundleBackend, tmp_path: Path
) -> None:
    """On a server bundle too, the command reads the counts through the driver alone (the
    server aggregates them) and prints what the full service gives on the same bundle."""
    location = bundle_backend.new_location()
    build_counted_bundle(location, write_jsonl(tmp_path, source_lines()))
    request = AnalysisRequest(bootstrap=12, seed=3, min_battles=0)
    expected = service_json(location, request)
    code = (
        "import sys; from workbench.cli import main; "
        f"code = main(['leaderboard', {str(location)!r}, '--bootstrap', '12', '--seed', '3', "
        "'--min-battles', '0', '--json']); "
        "print(sorted(m for m in ('pandas', 'scipy', 'sqlalchemy', 'alembic') "
        "if m in sys.modules), file=sys.stderr); sys.exit(code)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == "[]"
    assert json.loads(done.stdout) == expected
