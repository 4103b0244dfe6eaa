"""``workbench leaderboard --json`` without filters takes the quick path (no pandas, no
SQLAlchemy) and prints exactly the document of the full service on the same bundle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gui.panel_bundle import build_panel_bundle
from tests.services.campaign_ops_bundle import build_ops_bundle
from workbench.cli import main
from workbench.demo import generate_demo_bundle
from workbench.services import analysis
from workbench.services.quick_leaderboard import NO_FILTERS, ONE_CAMPAIGN, quick_leaderboard
from workbench.stats.bradley_terry import Anchor
from workbench.stats.errors import StatsInputError
from workbench.storage import Bundle
from workbench.storage.judgments import OutcomeFilter


@pytest.fixture(scope="module", params=["demo", "panels", "campaign"])
def bundle_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp(request.param)
    if request.param == "demo":
        return generate_demo_bundle(folder / "demo.wbb")
    if request.param == "campaign":
        return build_ops_bundle(folder)[0]
    return build_panel_bundle(folder)


def service_json(bundle_path: Path, **switches: Any) -> Any:
    request = analysis.LeaderboardRequest(default_anchor=False, **switches)
    with Bundle.open(bundle_path) as bundle:
        return json.loads(json.dumps(analysis.leaderboard(bundle, request).to_json()))


@pytest.mark.parametrize(
    ("anchor", "bootstrap", "seed", "weight"),
    [(None, 0, 0, 3.0), (None, 40, 7, 3.0), ("m-b", 25, 0, 1.0)],
)
def test_the_quick_document_is_the_services(
    bundle_path: Path, anchor: str | None, bootstrap: int, seed: int, weight: float
) -> None:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        models = analysis.distinct_values(session, "model_a", OutcomeFilter())
    anchor = anchor if anchor in models else (models[0] if anchor else None)
    quick = quick_leaderboard(
        bundle_path,
        anchor=Anchor(anchor, 1000.0) if anchor else None,
        bootstrap=bootstrap,
        seed=seed,
        decisive_weight=weight,
    )
    expected = service_json(
        bundle_path, anchor=anchor, bootstrap=bootstrap, seed=seed, decisive_weight=weight
    )
    assert quick == expected


def test_an_unknown_anchor_is_refused_alike(bundle_path: Path) -> None:
    with pytest.raises(StatsInputError) as quick:
        quick_leaderboard(
            bundle_path, anchor=Anchor("nobody", 1.0), bootstrap=0, seed=0, decisive_weight=3.0
        )
    with pytest.raises(StatsInputError) as full:
        service_json(bundle_path, anchor="nobody", anchor_rating=1.0, bootstrap=0)
    assert str(quick.value) == str(full.value)


def test_no_filters_reads_as_the_filter_says() -> None:
    assert OutcomeFilter().describe() == NO_FILTERS
    assert OutcomeFilter(campaigns=("arena 1",)).describe() == ONE_CAMPAIGN.format("arena 1")


def test_one_campaigns_document_is_the_services(
    bundle_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        campaigns = analysis.distinct_values(session, "campaign", OutcomeFilter())
    if not campaigns:
        pytest.skip("this bundle has no campaign")
    expected = service_json(bundle_path, campaign=campaigns[0], bootstrap=15)
    monkeypatch.setattr(analysis, "leaderboard", None)  # the full path is not taken
    capsys.readouterr()
    argv = ["leaderboard", str(bundle_path), "--campaign", campaigns[0], "--bootstrap", "15"]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected


def test_the_command_takes_the_quick_path_only_without_filters(
    bundle_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = service_json(bundle_path, bootstrap=20)
    full_calls: list[Any] = []
    full = analysis.leaderboard

    def counted(*args: Any, **kwargs: Any) -> Any:
        full_calls.append(args)
        return full(*args, **kwargs)

    monkeypatch.setattr(analysis, "leaderboard", counted)
    capsys.readouterr()
    assert main(["leaderboard", str(bundle_path), "--bootstrap", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected
    assert full_calls == []
    assert main(["leaderboard", str(bundle_path), "--kind", "human", "--json"]) == 0
    assert len(full_calls) == 1


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
