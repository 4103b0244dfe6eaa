"""The report's content (workbench/services/report.py) and ``workbench report``: its numbers equal
``workbench leaderboard --json`` and ``workbench agreement --json`` on the same bundle, both in
the embedded JSON and in the visible tables; the bundle is only read; sections without data say
why."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from html import escape as html_escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pytest

from tests.services.report_bundle import MODELS, build_report_bundle
from tests.stats.bundle_helpers import (
    add_campaign_votes,
    add_judge_verdicts,
    build_bundle,
    item_line,
)
from workbench.cli import main
from workbench.services.analysis_request import AnalysisRequest
from workbench.services.report import ReportRequest, build_report, upper_bound_ranks
from workbench.storage import Bundle

ROUNDS = ("--bootstrap", "20", "--seed", "3")


@pytest.fixture(scope="module")
def report_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_report_bundle(tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def anchored_report(report_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Tables:
    """The report at :data:`ROUNDS` anchored on bravo, made once (about 4 CPU s) for the tests
    that compare it with a command's output; the bundle's digest before and after it is kept
    on it for the test that the report only reads."""
    before = digest(report_bundle)
    report = make_report(
        tmp_path_factory.mktemp("anchored"), report_bundle, *ROUNDS, "--anchor", "bravo"
    )
    report.bundle_digests = (before, digest(report_bundle))
    return report


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


class Tables(HTMLParser):
    """The text of every cell of the tables with an id, by table id."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.current: str | None = None
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.data_json = ""
        self.in_data = False
        #: the bundle's SHA-256 before and after the report was made, where it was measured
        self.bundle_digests: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "table" and (table_id := attributes.get("id")):
            self.current = table_id
            self.tables[table_id] = []
        elif tag == "tr" and self.current:
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = []
        elif tag == "script" and attributes.get("id") == "report-data":
            self.in_data = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.current = None
        elif tag == "tr" and self.current and self.row:
            self.tables[self.current].append(self.row)
            self.row = None
        elif tag == "td" and self.cell is not None and self.row is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "script":
            self.in_data = False

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)
        if self.in_data:
            self.data_json += data


def parse_report(path: Path) -> Tables:
    parser = Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def make_report(tmp_path: Path, bundle: Path, *extra: str) -> Tables:
    out = tmp_path / "report.html"
    assert main(["report", str(bundle), "--out", str(out), *extra]) == 0
    return parse_report(out)


@pytest.mark.parametrize("filters", [(), ("--category", "ocr"), ("--judge-run", "judge-1")])
def test_report_leaderboard_equals_the_leaderboard_command(
    report_bundle: Path,
    anchored_report: Tables,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    filters: tuple[str, ...],
) -> None:
    expected = run_json(
        capsys, "leaderboard", str(report_bundle), *ROUNDS, "--anchor", "bravo=1000", *filters
    )
    if filters:
        report = make_report(tmp_path, report_bundle, *ROUNDS, "--anchor", "bravo", *filters)
    else:
        report = anchored_report
    capsys.readouterr()
    data = json.loads(report.data_json)
    assert data["leaderboard"] == expected
    visible = report.tables["leaderboard-table"]
    assert [row[1] for row in visible] == [entry["model"] for entry in expected["models"]]
    assert [row[2] for row in visible] == [f"{entry['rating']:.1f}" for entry in expected["models"]]
    assert [row[3] for row in visible] == [
        f"{entry['ci_lower']:.1f} .. {entry['ci_upper']:.1f}" for entry in expected["models"]
    ]
    assert [row[5] for row in visible] == [str(entry["n"]) for entry in expected["models"]]


def test_report_style_controlled_board_equals_the_leaderboard_command(
    report_bundle: Path, anchored_report: Tables, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = run_json(
        capsys,
        "leaderboard",
        str(report_bundle),
        *ROUNDS,
        "--anchor",
        "bravo=1000",
        "--style-control",
    )
    data = json.loads(anchored_report.data_json)
    style = dict(data["style_leaderboard"])
    assert style.pop("battles_without_answers", 0) == expected.pop("battles_without_answers")
    assert style == expected
    assert [row[1] for row in anchored_report.tables["style-table"]] == [
        entry["model"] for entry in expected["models"]
    ]


def test_report_agreement_equals_the_agreement_command(
    report_bundle: Path, anchored_report: Tables, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = run_json(
        capsys, "agreement", str(report_bundle), "--a", "human", "--b", "judge", *ROUNDS
    )
    # the agreement section takes the report's rounds and seed; the anchor is the boards' only
    report = anchored_report
    data = json.loads(report.data_json)["agreement"]
    # the whole section is the agreement service's result: per-matchup kappa, confusion,
    # majorities, categories, rank agreement with its interval order, position bias
    assert data == expected
    matchups = {row[0] + " / " + row[1]: row for row in report.tables["per-matchup"]}
    for row in expected["by_model_pair"]:
        cells = matchups[f"{row['first']} / {row['second']}"]
        assert cells[2] == str(row["comparisons"])
    figures = {row[0]: row[1] for row in report.tables["agreement-table"]}
    summary = expected["agreement"]
    assert figures["comparisons judged by both"] == str(summary["comparisons"])
    assert figures["agreement with ties"] == f"{100 * summary['agreement_with_ties']:.1f}%"
    assert figures["Cohen's kappa"] == f"{summary['cohen_kappa']:.3f}"
    assert figures["CHIRP's matchup kappa"] == f"{summary['chirp_kappa']:.3f}"
    assert figures["Spearman (leaderboards)"] == f"{expected['ranks']['spearman']:.3f}"
    confusion = report.tables["confusion"]
    assert sum(int(value) for row in confusion for value in row[1:]) == summary["comparisons"]


def test_report_category_boards_equal_the_leaderboard_command(
    report_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = make_report(tmp_path, report_bundle, "--bootstrap", "0", "--anchor", "charlie")
    capsys.readouterr()
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    data = json.loads(report.data_json)["categories"]
    # the overall request with the category: its command spells every setting out
    command = data["chart"]["request"]["command"]
    assert command.startswith("workbench leaderboard BUNDLE --kind human --category chart ")
    assert "--anchor charlie=1000 --bootstrap 0 " in command
    assert html_escape(command + " --json") in html
    expected = run_json(capsys, "leaderboard", str(report_bundle), *shlex.split(command)[3:])
    assert data["chart"]["models"] == expected["models"]
    assert "they count on the overall board only (no filter selects them)" in html


def test_report_covers_items_without_a_category_and_overlapping_annotators(
    report_bundle: Path,
) -> None:
    with Bundle.open(report_bundle) as bundle:
        content = build_report(bundle, ReportRequest(AnalysisRequest(bootstrap=0)))
    # items without a category count on the overall board; no filter makes a board of them
    assert {entry.category for entry in content.category_boards} == {"ocr", "chart"}
    assert content.uncategorised_battles > 0
    assert [row["group"] for row in content.inter_annotator] == ["campaign pilot"]
    assert content.inter_annotator[0]["raters"] == 2
    assert content.cycles is None or set(content.cycles.columns) >= {"item", "cycle"}
    assert content.provenance["judge_runs"][0]["both_orders"] is True
    assert content.provenance["campaigns"][0]["seed"] == 0
    assert content.provenance["imports"][0]["files"][0]["sha256"]


@pytest.fixture
def majority_comparisons(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per comparison of human and judge majorities made while the test runs."""
    import workbench.stats.agreement as agreement_module

    compare = agreement_module.disagreeing_comparisons
    calls: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return compare(*args, **kwargs)

    monkeypatch.setattr(agreement_module, "disagreeing_comparisons", counted)
    return calls


def test_the_gallery_compares_majorities_once_not_once_per_case(
    report_bundle: Path, majority_comparisons: list[int]
) -> None:
    """The failure list already says why an item is a case: showing more cases must not
    compare each case's human and judge majorities again."""
    counts, sizes = [], []
    with Bundle.open(report_bundle) as bundle:
        for shown in (1, 12):
            majority_comparisons.clear()
            request = ReportRequest(AnalysisRequest(bootstrap=0), gallery_items=shown)
            sizes.append(len(build_report(bundle, request).gallery))
            counts.append(len(majority_comparisons))
    assert sizes[0] == 1 and sizes[1] > 1
    assert counts[0] == counts[1] > 0


def test_only_the_disagreement_list_compares_majorities(
    report_bundle: Path, majority_comparisons: list[int]
) -> None:
    """Labelling a failure list's items, or finding the flagged references, needs no
    comparison of human and judge majorities; the disagreement list needs one."""
    from workbench.services import analysis

    with Bundle.open(report_bundle) as bundle:
        cycles = analysis.failure_cases(bundle, analysis.CYCLES)
        assert cycles.to_json()["items"]  # items to label, each judged by humans and a judge
        analysis.failure_cases(bundle, analysis.REFERENCE_FLAGGED)
        assert majority_comparisons == []
        assert analysis.failure_cases(bundle, analysis.DISAGREEMENT).to_json()["items"]
    assert len(majority_comparisons) == 1


def test_upper_bound_rank_treats_overlapping_intervals_as_ties() -> None:
    table = pd.DataFrame(
        {
            "rating": [1100.0, 1080.0, 1000.0, 900.0],
            "ci_lower": [1070.0, 1040.0, 980.0, 850.0],
            "ci_upper": [1130.0, 1110.0, 1030.0, 950.0],
        }
    )
    # b overlaps a; c is below both lower bounds; d below all three
    assert upper_bound_ranks(table) == [1, 1, 3, 4]
    no_intervals = table.assign(ci_lower=float("nan"), ci_upper=float("nan"))
    assert upper_bound_ranks(no_intervals) == [1, 2, 3, 4]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_report_never_writes_to_the_bundle(anchored_report: Tables) -> None:
    # the module's one report made through the command: the bundle's bytes are unchanged by it
    assert anchored_report.bundle_digests is not None
    before, after = anchored_report.bundle_digests
    assert after == before


def test_an_empty_selection_is_one_error_line_and_writes_nothing(
    report_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    code = main(["report", str(report_bundle), "--out", str(out), "--category", "nowhere"])
    error = capsys.readouterr().err
    assert code == 1
    # one error line after the phases reached (piped progress writes one line per phase)
    lines = error.strip().splitlines()
    assert all(line.endswith("...") for line in lines[:-1])
    assert lines[-1] == "workbench: no pairwise judgments match category=nowhere"
    assert not out.exists()
    # a bad request is bad usage, named by its option
    assert main(["report", str(report_bundle), "--out", str(out), "--anchor", "zulu"]) == 2
    assert "--anchor zulu: not a model of this selection" in capsys.readouterr().err
    assert not out.exists()


def test_sections_without_data_say_why(tmp_path: Path) -> None:
    """Imported human judgments only: no judge, no campaign, no category, no answers."""
    lines = []
    for index in range(4):
        line = item_line(
            f"x{index}",
            [
                {"kind": "human", "model_a": "m1", "model_b": "m2", "outcome": "a"},
                {"kind": "human", "model_a": "m2", "model_b": "m3", "outcome": "b"},
            ],
        )
        del line["category"]
        lines.append(line)
    bundle = build_bundle(tmp_path / "plain", lines)
    report = tmp_path / "plain.html"
    # every model here is in fewer battles than the default minimum: rate them anyway
    argv = ["report", str(bundle), "--out", str(report), "--bootstrap", "0", "--min-battles", "0"]
    assert main(argv) == 0
    text = report.read_text(encoding="utf-8")
    data = json.loads(parse_report(report).data_json)
    assert set(data["missing"]) >= {"style", "categories", "agreement", "inter_annotator"}
    assert data["agreement"] is None
    assert "Human vs judge needs human and judge judgments" in text
    assert "Style control needs the answers" in text
    assert re.search(r"No judged item has a category", text)


def test_cycles_are_listed_with_links_to_their_failure_case(tmp_path: Path) -> None:
    outputs = {model: f"answer of {model}" for model in ("m1", "m2", "m3", "base")}
    lines = [item_line(f"c{index}", [], outputs=outputs) for index in range(2)]
    bundle = build_bundle(tmp_path / "cycles", lines)
    add_campaign_votes(
        bundle,
        "cyclic",
        [
            ("ann", "c0", "m1", "m2", "a"),  # m1 > m2 > m3 > m1 on c0
            ("ann", "c0", "m2", "m3", "a"),
            ("ann", "c0", "m3", "m1", "a"),
            # c1 compares a baseline with every model: a star, which holds no cycle
            ("ann", "c1", "base", "m1", "a"),
            ("ann", "c1", "m2", "base", "a"),
            ("ann", "c1", "base", "m3", "b"),
        ],
    )
    out = tmp_path / "cycles.html"
    assert main(["report", str(bundle), "--out", str(out), "--bootstrap", "0"]) == 0
    report = parse_report(out)
    assert [row[0] for row in report.tables["cycles"]] == ["tests/c0"]
    assert report.tables["cycles"][0][2] == "m1 < m3 < m2"  # m3 beat m1, m2 beat m3, m1 beat m2
    html = out.read_text(encoding="utf-8")
    with Bundle.open(bundle) as opened:
        content = build_report(opened, ReportRequest(AnalysisRequest(bootstrap=0)))
    (case,) = content.gallery
    assert (case.label, case.reason) == ("tests/c0", "preference cycle")
    assert f'href="#item-{case.item}"' in html and f'id="item-{case.item}"' in html


def test_position_bias_only_for_evaluators_with_randomized_positions(tmp_path: Path) -> None:
    bundle = build_report_bundle(tmp_path / "bias", items=6)
    # a judge that always sees alpha first, as WildVision-Bench's baseline is always A
    add_judge_verdicts(
        bundle,
        "fixed-judge",
        [(f"q{index}", "alpha", other, "a") for index in range(6) for other in MODELS[1:]],
    )
    with Bundle.open(bundle) as opened:
        content = build_report(opened, ReportRequest(AnalysisRequest(bootstrap=0)))
    assert content.agreement is not None
    assert content.agreement.not_randomized == ["fixed-judge"]
    assert set(content.agreement.position_bias["evaluator"]) == {"ann1", "ann2", "judge-1"}


def test_a_board_of_too_few_battles_is_a_section_that_says_so(tmp_path: Path) -> None:
    """Every model in fewer battles than the minimum: the report is made, its leaderboard
    section says why there is no board and names the option."""
    lines = [
        item_line(
            f"x{index}", [{"kind": "human", "model_a": "m1", "model_b": "m2", "outcome": "a"}]
        )
        for index in range(3)
    ]
    bundle = build_bundle(tmp_path / "few", lines)
    out = tmp_path / "few.html"
    assert main(["report", str(bundle), "--out", str(out), "--bootstrap", "0"]) == 0
    data = json.loads(parse_report(out).data_json)
    assert data["leaderboard"] is None
    assert [one for one in data["reproduce"] if one["kind"] == "leaderboard"] == []
    assert "--min-battles" in data["missing"]["leaderboard"]
    assert "m1 3, m2 3" in data["missing"]["leaderboard"]
