"""The simulated judge's verdicts (drawn at random) are left out of boards unless asked: the
read model's selection leaves them out, the quick path too, every output says how many it left
out, and ``--include-simulated`` counts them, with the same numbers on both paths."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.judge.helpers import build_bundle
from workbench.cli import main
from workbench.domain.judgments import SIMULATED_JUDGE_MODEL
from workbench.services.analysis import leaderboard
from workbench.services.analysis_request import AnalysisRequest
from workbench.services.quick_leaderboard import quick_leaderboard
from workbench.storage import Bundle

MODELS = ("m1", "m2", "m3")
#: 12 items, three pairs each, judged in both orders
VERDICTS_PER_RUN = 72


def _judge(bundle: Path, run: str) -> None:
    argv = ["judge", str(bundle), "--simulated", "--template", "visit-bench-pairwise"]
    assert main([*argv, "--run", run, "--no-cache", "--yes", "--json"]) == 0


@pytest.fixture(scope="module")
def simulated_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Judge verdicts only, all of one simulated run."""
    bundle = build_bundle(tmp_path_factory.mktemp("simulated"), 12, models=MODELS)
    _judge(bundle, "simulated")
    return bundle


@pytest.fixture(scope="module")
def beside_a_real_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated run beside another judge's run (made by the simulated endpoint, then given
    another judge model: what is left out depends on the run's model, not its verdicts)."""
    bundle = build_bundle(tmp_path_factory.mktemp("both"), 12, models=MODELS)
    _judge(bundle, "local")
    with sqlite3.connect(bundle) as connection:
        connection.execute("UPDATE judge_runs SET judge_model = 'local-judge' WHERE name = 'local'")
    _judge(bundle, "simulated")
    with sqlite3.connect(bundle) as connection:
        models = dict(connection.execute("SELECT name, judge_model FROM judge_runs").fetchall())
    assert models == {"local": "local-judge", "simulated": SIMULATED_JUDGE_MODEL}
    return bundle


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _both_paths(bundle: Path, request: AnalysisRequest) -> dict[str, Any]:
    """The quick path's document, checked against the full service's."""
    quick = quick_leaderboard(bundle, request)
    assert quick is not None, "the quick path did not answer"
    with Bundle.open(bundle, read_only=True) as opened:
        full = leaderboard(opened, request).to_json()
    assert json.loads(json.dumps(quick)) == json.loads(json.dumps(full))
    return quick


def test_a_board_of_simulated_verdicts_only_needs_the_flag(
    simulated_only: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "leaderboard", str(simulated_only), "--json")
    assert code == 2 and not out
    assert "only simulated verdicts" in err and "--include-simulated" in err
    assert f"{VERDICTS_PER_RUN} verdicts" in err
    # nothing of it on the quick path either: it hands the request to the full one
    assert quick_leaderboard(simulated_only, AnalysisRequest()) is None
    # the report refuses the same way
    code, _out, err = _run(
        capsys, "report", str(simulated_only), "--out", str(simulated_only.with_suffix(".html"))
    )
    assert code != 0 and "--include-simulated" in err
    flags = ("--include-simulated", "--min-battles", "1", "--bootstrap", "5")
    code, out, err = _run(capsys, "leaderboard", str(simulated_only), *flags, "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["battles"] == VERDICTS_PER_RUN and document["simulated_left_out"] == 0
    assert document["request"]["judgments"]["include_simulated"] is True
    assert "--include-simulated" in document["request"]["command"]
    assert "simulated judge included" in document["filters"]
    request = AnalysisRequest(include_simulated=True, min_battles=1, bootstrap=5)
    assert _both_paths(simulated_only, request)["models"] == document["models"]


def test_simulated_verdicts_beside_a_real_run_are_left_out_and_counted(
    beside_a_real_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    default = _both_paths(beside_a_real_run, AnalysisRequest(min_battles=1, bootstrap=5))
    assert default["battles"] == VERDICTS_PER_RUN
    assert default["simulated_left_out"] == VERDICTS_PER_RUN
    assert "--include-simulated" not in default["request"]["command"]
    included = _both_paths(
        beside_a_real_run, AnalysisRequest(min_battles=1, bootstrap=5, include_simulated=True)
    )
    assert included["battles"] == 2 * VERDICTS_PER_RUN and included["simulated_left_out"] == 0
    # both runs judged every pair of every item: each model's battles double
    alone = {row["model"]: row["n"] for row in default["models"]}
    assert {row["model"]: row["n"] for row in included["models"]} == {
        model: 2 * n for model, n in alone.items()
    }
    # the terminal says what it left out
    code, out, _err = _run(capsys, "leaderboard", str(beside_a_real_run), "--min-battles", "1")
    assert code == 0
    assert f"left out: {VERDICTS_PER_RUN} verdicts of the simulated judge left out" in out
    # naming the simulated run selects it by name
    named = AnalysisRequest(judge_runs=("simulated",), min_battles=1, bootstrap=5)
    with Bundle.open(beside_a_real_run, read_only=True) as opened:
        result = leaderboard(opened, named).to_json()
    assert result["battles"] == VERDICTS_PER_RUN and result["simulated_left_out"] == 0
    # agreement and cycles read the same selection: the simulated run is not a judge side
    code, out, err = _run(
        capsys, "contradictions", str(beside_a_real_run), "--json", "--scope", "pooled-per-item"
    )
    assert code == 0, err
    pooled_default = json.loads(out)
    code, out, err = _run(
        capsys,
        "contradictions",
        str(beside_a_real_run),
        "--json",
        "--scope",
        "pooled-per-item",
        "--include-simulated",
    )
    assert code == 0, err
    assert json.loads(out)["request"] != pooled_default["request"]


@pytest.fixture(scope="module")
def two_runs_and_a_simulated_one(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two judges' runs to compare, and a simulated run beside them."""
    bundle = build_bundle(tmp_path_factory.mktemp("agreement"), 12, models=MODELS)
    for run in ("local", "other"):
        _judge(bundle, run)
        with sqlite3.connect(bundle) as connection:
            connection.execute(
                "UPDATE judge_runs SET judge_model = ? WHERE name = ?", (f"{run}-judge", run)
            )
    _judge(bundle, "simulated")
    return bundle


def test_agreement_says_how_many_simulated_verdicts_it_left_out(
    two_runs_and_a_simulated_one: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = str(two_runs_and_a_simulated_one)
    sides = ("--a", "run:local", "--b", "judge")
    code, out, err = _run(capsys, "agreement", bundle, *sides, "--bootstrap", "0", "--json")
    assert code == 0, err
    document = json.loads(out)
    # side b, every judge, would have selected the simulated run's verdicts too
    assert document["simulated_left_out"] == VERDICTS_PER_RUN
    code, text, err = _run(capsys, "agreement", bundle, *sides, "--bootstrap", "0")
    assert code == 0, err
    assert f"{VERDICTS_PER_RUN} verdicts of the simulated judge left out" in text
    counted = json.loads(
        _run(capsys, "agreement", bundle, *sides, "--include-simulated", "--bootstrap", "0",
             "--json")[1]
    )  # fmt: skip
    assert counted["simulated_left_out"] == 0
    assert counted["agreement"]["comparisons"] == document["agreement"]["comparisons"]
    # two named runs select no simulated verdict: nothing was left out
    named = ("--a", "run:local", "--b", "run:other", "--bootstrap", "0", "--json")
    assert json.loads(_run(capsys, "agreement", bundle, *named)[1])["simulated_left_out"] == 0
