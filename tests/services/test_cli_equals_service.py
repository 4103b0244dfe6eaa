"""One path per use case: for every analysis, ``workbench ... --json`` prints exactly the
service result's ``to_json()`` on the same bundle (the panels show those results)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from workbench_convbench.score_manifest import CONVBENCH_SCORES

from tests.gui.panel_bundle import build_panel_bundle
from tests.stats.bundle_helpers import build_bundle, item_line
from workbench.cli import main
from workbench.cli.arguments import FAILURE_KIND_NAMES, FAILURES_KIND_FLAG
from workbench.services import analysis
from workbench.services.outcomes import OutcomeFilter
from workbench.storage import Bundle


@pytest.fixture(scope="module")
def bundle_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_panel_bundle(tmp_path_factory.mktemp("cli-equals-service"))


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def same(result: Any) -> Any:
    """The service's JSON as the CLI's output reads back (tuples become lists)."""
    return json.loads(json.dumps(result.to_json()))


def test_leaderboard(bundle_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printed = cli_json(
        capsys, "leaderboard", str(bundle_path), "--bootstrap", "20", "--kind", "human"
    )
    request = analysis.LeaderboardRequest(kind="human", bootstrap=20)
    assert request.decisive_weight == 3  # the CLI's default, as the panel's
    with Bundle.open(bundle_path) as bundle:
        assert printed == same(analysis.leaderboard(bundle, request))


def test_agreement(bundle_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printed = cli_json(
        capsys, "agreement", str(bundle_path), "--a", "human", "--b", "judge", "--bootstrap", "10"
    )
    with Bundle.open(bundle_path) as bundle:
        result = analysis.agreement(bundle, "human", "judge", OutcomeFilter(), bootstrap=10)
    assert printed == same(result)


def test_contradictions(bundle_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    printed = cli_json(capsys, "contradictions", str(bundle_path), "--by-criterion")
    with Bundle.open(bundle_path) as bundle:
        result = analysis.contradictions(bundle, OutcomeFilter(), by_criterion=True)
    assert printed["cycles"] >= 1
    assert printed == same(result)


@pytest.mark.parametrize("kind", ["disagreement", "cycles"])
def test_failures(bundle_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    printed = cli_json(capsys, "failures", str(bundle_path), "--kind", kind)
    with Bundle.open(bundle_path) as bundle:
        assert printed == same(analysis.failure_cases(bundle, kind))
    assert set(FAILURE_KIND_NAMES) == set(analysis.FAILURE_KINDS)
    assert FAILURES_KIND_FLAG == analysis.FAILURES_KIND_FLAG


def test_failures_read_the_selection_they_are_given(
    bundle_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ("--kind", "cycles", FAILURES_KIND_FLAG, "judge", "--json")
    printed = cli_json(capsys, "failures", str(bundle_path), *flags)
    judge = OutcomeFilter(kinds=("judge",))
    with Bundle.open(bundle_path) as bundle:
        assert printed == same(analysis.failure_cases(bundle, "cycles", filters=judge))
    assert printed["request"]["command"].endswith(f"{FAILURES_KIND_FLAG} judge --json")
    # a question of every judgment's item flags refuses a selection, naming it
    assert main(["failures", str(bundle_path), "--kind", "disagreement", "--source", "x"]) == 1
    assert "source=x" in capsys.readouterr().err


def test_scores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grades = [
        {"kind": "judge", "model_a": "m1", "score": score, "turn": turn, "rater": "conv-eval"}
        for turn, score in ((1, 8.0), (2, 6.0), (3, 4.0), (None, 5.0))
    ]
    path = build_bundle(tmp_path / "conv", [item_line("c1", grades, source="convbench", turns=3)])
    printed = cli_json(capsys, "scores", str(path), "--benchmark", "convbench")
    with Bundle.open(path) as bundle:
        assert printed == same(analysis.scores(bundle, CONVBENCH_SCORES))
