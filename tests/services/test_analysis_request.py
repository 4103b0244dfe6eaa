"""The one analysis request (workbench/services/analysis_request.py): one set of defaults for
every door, its parsers, its canonical command (which parses back to the same request), the
refusal of a pooled request without ``--pool-kinds``, and its counting rules."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.gui.panel_bundle import build_panel_bundle
from workbench.cli import build_parser, main
from workbench.services.analysis_request import (
    DEFAULT_ANCHOR_RATING,
    DEFAULT_BOOTSTRAP_ROUNDS,
    DEFAULT_DECISIVE_WEIGHT,
    DEFAULT_MIN_BATTLES,
    POOLED,
    POOLED_LABEL,
    AnalysisRequest,
    RequestError,
    most_battles,
    parse_anchor,
    too_few_battles,
    without_ties,
)
from workbench.services.report import ReportRequest


def parsed(command: str) -> argparse.Namespace:
    """The namespace ``workbench`` parses from ``command`` (its words after ``workbench``)."""
    return build_parser().parse_args(shlex.split(command)[1:])


def test_every_door_starts_from_the_same_defaults() -> None:
    cli = AnalysisRequest.from_args(parsed("workbench leaderboard my.wbb"))
    report = AnalysisRequest.from_args(parsed("workbench report my.wbb --out r.html"))
    panel = AnalysisRequest.from_pickers({"kind": "auto", "category": None, "bootstrap": 100})
    assert cli == report == panel == ReportRequest().analysis == AnalysisRequest()
    default = AnalysisRequest()
    assert default.kind == "auto" and default.anchor is None
    assert default.decisive_weight == DEFAULT_DECISIVE_WEIGHT == 3
    assert default.anchor_rating == DEFAULT_ANCHOR_RATING == 1000
    assert default.bootstrap == DEFAULT_BOOTSTRAP_ROUNDS == 100 and default.seed == 0
    assert default.min_battles == DEFAULT_MIN_BATTLES and default.ties == "half"


@pytest.mark.parametrize(
    "request_",
    [
        AnalysisRequest(kind="human", anchor="gpt-4o", bootstrap=7, seed=3),
        AnalysisRequest(kind=POOLED, categories=("ocr", "chart"), ties="drop", min_battles=0),
        AnalysisRequest(
            kind="judge",
            judge_runs=("run 1",),
            raters=("gpt-4o",),
            origins=("judge-run",),
            turns=(2,),
            include_derived=True,
            method="elo",
            k_factor=8.0,
            anchor="a=b",
            anchor_rating=1200.5,
            decisive_weight=1.0,
        ),
        AnalysisRequest(campaigns=("pilot",), style_control=True, criteria=("overall",)),
    ],
)
def test_the_canonical_command_parses_back_to_the_request(request_: AnalysisRequest) -> None:
    assert AnalysisRequest.from_args(parsed(request_.to_command())) == request_
    # the report's command names the same request (it fits Bradley-Terry itself)
    if request_.method == "bt" and not request_.style_control:
        report = request_.to_command(command="report", output="--out r.html")
        assert AnalysisRequest.from_args(parsed(report)) == request_


def test_a_pooled_request_needs_the_explicit_flag(tmp_path: Path) -> None:
    for kinds in ("--kind all", "--kind human --kind judge"):
        with pytest.raises(RequestError, match="needs --pool-kinds"):
            AnalysisRequest.from_args(parsed(f"workbench leaderboard b.wbb {kinds}"))
    pooled = AnalysisRequest.from_args(
        parsed("workbench leaderboard b.wbb --kind all --pool-kinds")
    )
    assert pooled.kind == POOLED and pooled.kind_label == POOLED_LABEL
    assert "judgments: pooled: human + judge" in pooled.describe()
    assert "--kind all --pool-kinds" in pooled.to_command()
    with pytest.raises(RequestError, match="--pool-kinds pools"):
        AnalysisRequest.from_args(parsed("workbench leaderboard b.wbb --kind human --pool-kinds"))


def test_a_pooled_command_without_the_flag_is_one_line_exit_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = build_panel_bundle(tmp_path)
    csv = tmp_path / "board.csv"
    before = bundle.read_bytes()
    code = main(["leaderboard", str(bundle), "--kind", "all", "--csv", str(csv)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.strip().count("\n") == 0 and "--pool-kinds" in captured.err
    assert not csv.exists() and bundle.read_bytes() == before
    # with the flag: a board of both kinds, labelled so in text and JSON
    assert main(["leaderboard", str(bundle), "--kind", "all", "--pool-kinds"]) == 0
    assert f"battles of {POOLED_LABEL} judgments" in capsys.readouterr().out
    assert main(["leaderboard", str(bundle), "--kind", "all", "--pool-kinds", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["judgments"] == POOLED_LABEL
    assert document["request"]["judgments"]["label"] == POOLED_LABEL


@pytest.mark.parametrize(
    ("flags", "option"),
    [
        ("--anchor nobody", "--anchor nobody"),
        ("--judge-run nothing", "--judge-run 'nothing'"),
        ("--campaign nowhere", "--campaign 'nowhere'"),
        ("--bootstrap -1", "--bootstrap"),
        ("--decisive-weight 0", "--decisive-weight"),
        ("--method elo --style-control", "--style-control"),
        ("--min-battles 100000", "--min-battles"),
    ],
)
def test_bad_requests_name_their_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: str, option: str
) -> None:
    bundle = build_panel_bundle(tmp_path)
    assert main(["leaderboard", str(bundle), *shlex.split(flags)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert option in captured.err


def test_counting_rules() -> None:
    rows = [
        ("a", "b", "a", 3.0, 12),
        ("a", "b", "tie", 1.0, 3),
        ("b", "c", "b", 1.0, 4),
        ("c", "c", "tie", 1.0, 50),  # a model against itself: no battle for the minimum
    ]
    assert without_ties(rows, "half") == rows
    assert without_ties(rows, "drop") == [rows[0], rows[2]]
    triples = [(a, b, n) for a, b, _o, _w, n in rows]
    # c has 4 battles; leaving it out leaves b with 15, still enough
    assert too_few_battles(triples, 10) == {"c": 4}
    # at 16, a falls short too, and b then has no one left to play: the rule repeats
    assert too_few_battles(triples, 16) == {"c": 4, "a": 15, "b": 0}
    assert too_few_battles(triples, 0) == {}
    # the default anchor counts every row a model is on (its self-battles too), ties by name
    assert most_battles(triples) == "c"
    assert most_battles([("x", "y", 2), ("z", "w", 2)]) == "w"
    assert parse_anchor("gpt-4o") == ("gpt-4o", 1000.0)
    assert parse_anchor("gpt-4o=1200") == ("gpt-4o", 1200.0)
    assert parse_anchor("a=b") == ("a=b", 1000.0)
    with pytest.raises(RequestError, match="MODEL=VALUE"):
        parse_anchor("=3")


def test_the_request_is_immutable_and_checked() -> None:
    request = AnalysisRequest()
    with pytest.raises(AttributeError):
        request.bootstrap = 5  # type: ignore[misc]  # a frozen field, written on purpose
    with pytest.raises(RequestError, match="--ties"):
        replace(request, ties="third")


def test_the_request_module_imports_neither_pandas_nor_sqlalchemy() -> None:
    code = (
        "import sys, workbench.services.analysis_request, workbench.services.quick_leaderboard; "
        "print(sorted(m for m in ('pandas', 'sqlalchemy', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
