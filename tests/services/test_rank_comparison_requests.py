"""``workbench compare-rankings`` with a request per side: two boards of one bundle (human
against judge, a category against the whole) compared through the service the Leaderboard
panel and the report call. Each side's board must be the one ``workbench leaderboard`` prints
for its flags, and the command the result names must print the same document."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def printed_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    status, out, err = run(capsys, *args)
    assert status == 0, err
    return json.loads(out)


def test_each_sides_board_is_the_leaderboard_of_its_flags(
    demo_bundle_template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = str(demo_bundle_template)
    flags = {"a": "--kind human --bootstrap 20", "b": "--kind judge --bootstrap 20"}
    found = printed_json(
        capsys,
        "compare-rankings",
        bundle,
        bundle,
        f"--a-request={flags['a']}",
        f"--b-request={flags['b']}",
        "--json",
    )
    # the same numbers as comparing the two boards `workbench leaderboard` prints, as files
    files = []
    for side in ("a", "b"):
        board = printed_json(capsys, "leaderboard", bundle, *shlex.split(flags[side]), "--json")
        assert found[side]["request"] == board["request"]
        path = tmp_path / f"{side}.json"
        path.write_text(json.dumps(board), "utf-8")
        files.append(str(path))
    by_files = printed_json(capsys, "compare-rankings", *files, "--json")
    for key in ("spearman", "kendall_tau", "pearson", "confidence_agreement", "ranks"):
        assert found[key] == by_files[key], key
    assert found["a"]["request"]["judgments"]["kind"] == "human"
    assert found["b"]["request"]["judgments"]["kind"] == "judge"
    assert by_files["a"]["request"] is None  # a file of ratings answers no request of ours
    assert found["spearman"] is not None and found["confidence_agreement"] is not None
    # the command the result names prints the same document
    words = shlex.split(found["command"])
    assert words[:4] == ["workbench", "compare-rankings", bundle, bundle]
    assert printed_json(capsys, *words[1:]) == found


def test_the_report_and_panel_path_on_an_open_bundle_equals_the_cli(
    demo_bundle_template: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.services.analysis_request import AnalysisRequest
    from workbench.services.rank_comparison import BUNDLE_WORD, compare_requests
    from workbench.storage import Bundle

    human = AnalysisRequest(kind="human", bootstrap=10)
    category = AnalysisRequest(kind="human", bootstrap=10, categories=("shape counting",))
    with Bundle.open(demo_bundle_template, read_only=True) as bundle:
        result = compare_requests(bundle, human, category)
    command = result.command()
    assert command.startswith(f"workbench compare-rankings {BUNDLE_WORD} {BUNDLE_WORD} ")
    words = [
        str(demo_bundle_template) if word == BUNDLE_WORD else word for word in shlex.split(command)
    ]
    printed = printed_json(capsys, *words[1:])
    shown = json.loads(json.dumps(result.to_json()))
    for key in ("spearman", "kendall_tau", "pearson", "confidence_agreement", "ranks"):
        assert printed[key] == shown[key], key
    assert printed["b"]["request"]["items"]["categories"] == ["shape counting"]


def test_bad_side_requests_are_refused_naming_the_option(
    demo_bundle_template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = str(demo_bundle_template)
    status, out, err = run(capsys, "compare-rankings", bundle, bundle, "--a-request=--kind x")
    assert status == 2 and not out and "--a-request" in err and "--kind" in err
    status, _, err = run(
        capsys, "compare-rankings", bundle, bundle, "--b-request=--kind all --bootstrap 0"
    )
    assert status == 2 and "--b-request" in err and "--pool-kinds" in err
    status, _, err = run(
        capsys, "compare-rankings", bundle, bundle, "--b-request=--category nowhere --bootstrap 0"
    )
    assert status == 1 and "category=nowhere" in err
    board = tmp_path / "board.json"
    board.write_text(json.dumps({"models": [{"model": "x", "rating": 1.0}]}), "utf-8")
    status, _, err = run(
        capsys, "compare-rankings", str(board), bundle, "--a-request=--kind human --bootstrap 0"
    )
    assert status == 1 and "board.json is a file of ratings" in err
