"""Every command the report prints reproduces its section: the report is made through
``workbench report``, each section's printed command is run through the CLI's entry point, and
its output must show the section's numbers (to 1e-6), on the demo bundle, the shared
WildVision-Bench import (the session's one import), a bundle with a finished campaign, and the
report bundle with both kinds of evaluator pooled on request. Every section kind (leaderboards
and per-category boards, human vs judge agreement, inter-annotator agreement, both cycle
scopes, failure cases) is run on each bundle that has it; one a bundle lacks must be absent
from the report, with its reason.

The harness is general: :data:`COMPARISONS` holds, per kind of section (what its command
prints), how a section's document is checked against the command's output. A section the
report lists under ``reproduce`` in its data block is run; a kind without a comparison fails
the test, so a new section cannot slip past it."""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Callable
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from tests.services.campaign_helpers import build_campaign_bundle
from tests.services.report_bundle import build_report_bundle
from tests.shared_builds import copy_of
from workbench.cli import main
from workbench.services.analysis_request import POOLED_LABEL
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

TOLERANCE = 1e-6
#: the demo's categories where some models have ten human battles or more
DEMO_RATED_BY_DEFAULT = {"bar chart reading", "shape counting", "clock reading"}
#: how many battles a "much better" verdict counted as before every door used the one request:
#: the report's WildVision-Bench board then gave gpt-4o 1263.4
WILDVISION_GPT4O = 1365.8


def _close(shown: Any, printed: Any) -> bool:
    if shown is None or printed is None:
        return shown is printed
    return math.isclose(float(shown), float(printed), rel_tol=0.0, abs_tol=TOLERANCE)


def same_board(shown: dict[str, Any], printed: dict[str, Any]) -> None:
    """A leaderboard section against ``workbench leaderboard --json``: the same request, models
    in the same order, the same numbers, battles and models left out."""
    assert printed["request"] == shown["request"]
    assert printed["judgments"] == shown["judgments"]
    assert printed["anchor"] == shown["anchor"]
    assert printed["battles"] == shown["battles"]
    assert printed["left_out"] == shown["left_out"]
    assert [row["model"] for row in printed["models"]] == [row["model"] for row in shown["models"]]
    for mine, theirs in zip(shown["models"], printed["models"], strict=True):
        assert mine["n"] == theirs["n"], mine["model"]
        for key in mine.keys() - {"model", "n"}:
            assert _close(mine[key], theirs[key]), (mine["model"], key, mine[key], theirs[key])
    for name, value in (shown.get("style_coefficients") or {}).items():
        assert _close(value, printed["style_coefficients"][name]), name


def same_agreement(shown: dict[str, Any], printed: dict[str, Any]) -> None:
    """The human-vs-judge section against ``workbench agreement --json``."""
    assert printed["request"]["convention"] == shown["request"]["convention"]
    assert printed["request"]["command"] == shown["request"]["command"]
    for key in ("agreement", "ranks", "confusion"):
        assert printed[key] == shown[key], key


def same_cycles(shown: dict[str, Any], printed: dict[str, Any]) -> None:
    """A cycle count of the report against ``workbench contradictions --scope ... --json``."""
    assert printed["request"]["scope"] == shown["scope"]
    assert printed["cycles"] == shown["cycles"]
    assert printed["items_with_cycles"] == shown["items_with_cycles"]


def same_inter_annotator(shown: dict[str, Any], printed: dict[str, Any]) -> None:
    """A campaign's inter-annotator row against ``workbench campaign status --json``."""
    overall = printed["agreement"]["overall"]
    figures = ("raters", "comparisons", "fleiss_kappa", "fleiss_comparisons", "krippendorff_alpha")
    assert {key: overall[key] for key in figures} == {key: shown[key] for key in figures}
    assert printed["request"]["command"] == shown["command"]


def same_rank_comparison(shown: dict[str, Any], printed: dict[str, Any]) -> None:
    """A rank comparison of two boards against ``workbench compare-rankings --json``: the same
    two requests, models and figures."""
    for side in ("a", "b"):
        assert printed[side]["request"] == shown[side]["request"], side
        assert printed[side]["models"] == shown[side]["models"], side
    for key in ("shared_models", "only_a", "only_b", "confidence_agreement"):
        assert printed[key] == shown[key], key
    for key in ("spearman", "kendall_tau", "pearson"):
        assert _close(shown[key], printed[key]), key
    assert len(printed["ranks"]) == len(shown["ranks"])
    for mine, theirs in zip(shown["ranks"], printed["ranks"], strict=True):
        assert mine["model"] == theirs["model"]
        for key in ("rating_a", "rating_b", "rank_a", "rank_b"):
            assert _close(mine[key], theirs[key]), (mine["model"], key)


def same_group_agreement(shown: dict[str, Any], printed: dict[str, Any]) -> None:
    """An inter-annotator row (a campaign of a filtered report, or an imported benchmark's
    raters) against ``workbench agreement --inter-annotator --json``: its group, same figures."""
    figures = ("raters", "comparisons", "fleiss_kappa", "fleiss_comparisons", "krippendorff_alpha")
    groups = {row["group"]: row for row in printed["groups"]}
    assert shown["group"] in groups, (shown["group"], sorted(groups))
    row = groups[shown["group"]]
    assert {key: row[key] for key in figures} == {key: shown[key] for key in figures}
    assert printed["request"]["command"] == shown["command"]


def same_failures(shown: dict[str, Any], printed: dict[str, Any]) -> None:
    """A failure-case list of the gallery against ``workbench failures --json``: the same
    request and the same rows."""
    assert printed["request"] == shown["request"]
    assert printed["items"] == shown["items"]


#: per kind of section: how its document is checked against its command's output
COMPARISONS: dict[str, Callable[[dict[str, Any], dict[str, Any]], None]] = {
    "leaderboard": same_board,
    "compare-rankings": same_rank_comparison,
    "agreement": same_agreement,
    "cycles": same_cycles,
    "campaign status": same_inter_annotator,
    "inter-annotator": same_group_agreement,
    "failures": same_failures,
}
#: the report's key in ``missing`` of a section kind that a bundle may legitimately lack
ABSENT_KEYS = {
    "agreement": "agreement",
    "campaign status": "inter_annotator",
    "compare-rankings": "rank_comparison",
    "inter-annotator": "inter_annotator",
}


def run_printed(command: str, bundle: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    """Run a command as the report prints it (``workbench ... BUNDLE ...``) through the CLI's
    entry point, on ``bundle``, and read its JSON."""
    words = shlex.split(command)
    assert words[0] == "workbench" and "BUNDLE" in words
    capsys.readouterr()
    code = main([str(bundle) if word == "BUNDLE" else word for word in words[1:]])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def report_data(bundle: Path, out: Path, *options: str) -> tuple[dict[str, Any], str]:
    assert main(["report", str(bundle), "--out", str(out), *options]) == 0
    html = out.read_text(encoding="utf-8")
    found = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S
    )
    assert found is not None
    return json.loads(found.group(1)), unescape(re.sub(r"<[^>]+>", "", html))


def check_printed_commands(
    bundle: Path,
    out: Path,
    capsys: pytest.CaptureFixture[str],
    *options: str,
    absent: frozenset[str] = frozenset(),
    made: tuple[dict[str, Any], str] | None = None,
) -> dict[str, Any]:
    """Make the report (or take ``made``, the report of these options already made), run
    every command it prints for a section, compare; returns the data. Every kind of
    :data:`COMPARISONS` must be among the sections, except those in ``absent``: the bundle
    lacks them, and the report must say why rather than print a command."""
    data, html = made if made is not None else report_data(bundle, out, *options)
    sections = data["reproduce"]
    assert sections and sections[0]["section"] == "leaderboard"
    kinds = {section["kind"] for section in sections}
    assert kinds == COMPARISONS.keys() - absent, kinds
    for kind in absent:
        if ABSENT_KEYS[kind] == "inter_annotator" and data["inter_annotator"]:
            # the rows shown are of the other kind of group, each with its command
            for row in data["inter_annotator"]:
                assert row["command"] and not row["command"].startswith(f"workbench {kind}")
        else:
            assert data["missing"].get(ABSENT_KEYS[kind]), f"{kind} is absent without a reason"
    assert {section["section"] for section in sections} >= {
        "failures disagreement",
        "failures cycles",
        "cycles per-evaluator",
        "cycles pooled-per-item",
    }
    for section in sections:
        # the command is on the page, under its section, not only in the data block
        assert f"Reproduce: {section['command']}" in html, section["section"]
        assert section["kind"] in COMPARISONS, f"no comparison for {section['kind']!r}"
        printed = run_printed(section["command"], bundle, capsys)
        COMPARISONS[section["kind"]](section["document"], printed)
    # the board's own request block names the command printed beside it
    assert data["leaderboard"]["request"]["command"] + " --json" == sections[0]["command"]
    return data


# --- bundles ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory, demo_bundle_template: Path) -> Path:
    return copy_of(demo_bundle_template, tmp_path_factory.mktemp("demo"))


#: the demo's report without --exclude-refusal: a test compares its commands, another reads it
#: for the absence of the refusal notes
DEMO_UNFILTERED = ("--bootstrap", "0", "--min-battles", "3")


@pytest.fixture(scope="module")
def demo_unfiltered_report(
    demo_bundle: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], str]:
    """The demo's report at :data:`DEMO_UNFILTERED`, made once: the tests only read it."""
    out = tmp_path_factory.mktemp("unfiltered") / "demo.html"
    return report_data(demo_bundle, out, *DEMO_UNFILTERED)


@pytest.fixture(scope="module")
def campaign_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four models on eight one-turn items, every pair voted twice: a finished campaign."""
    path = Path(build_campaign_bundle(tmp_path_factory.mktemp("campaign"), items=8, turns=1))
    choices = ("a", "a", "b", "tie", "a", "b", "both_bad")
    cast = 0
    with Bundle.open(path) as bundle:
        for handle in ("ann1", "ann2"):
            add_annotator(bundle, handle)
        create_campaign(bundle, CampaignSpec("study", "arena-battle", seed=5, votes_per_pair=2))
        for handle in ("ann1", "ann2"):
            session = AnnotationSession(bundle, "study", handle)
            while (task := session.next_task()) is not None:
                session.cast(task.token, choices[cast % len(choices)])
                cast += 1
    assert cast == 8 * 6 * 2  # every task voted by both annotators: nothing left to do
    return path


@pytest.fixture(scope="module")
def report_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_report_bundle(tmp_path_factory.mktemp("report"))


# --- the tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [("--bootstrap", "20", "--seed", "3"), DEMO_UNFILTERED],
    ids=["default-minimum", "categories-rated"],
)
def test_the_demos_printed_commands_reproduce_the_report(
    demo_bundle: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    options: tuple[str, ...],
    request: pytest.FixtureRequest,
) -> None:
    made = request.getfixturevalue("demo_unfiltered_report") if options == DEMO_UNFILTERED else None
    data = check_printed_commands(
        demo_bundle,
        tmp_path / "demo.html",
        capsys,
        *options,
        absent=frozenset({"campaign status"}),
        made=made,
    )
    # the demo's imported raters agree among themselves, and a command prints it
    assert [row["group"] for row in data["inter_annotator"]] == ["imported raters of demo"]
    # the demo has imported human judgments and judge verdicts: the board counts the humans
    assert data["leaderboard"]["judgments"] == "human"
    # and both boards compared by rank, the section's command printing its figures
    compared = data["rank_comparisons"]["human vs judge"]
    assert compared["a"]["request"]["judgments"]["kind"] == "human"
    assert compared["b"]["request"]["judgments"]["kind"] == "judge"
    assert compared["shared_models"] == len(data["leaderboard"]["models"])
    rated, unrated = data["categories"], data["categories_unrated"]
    if "--min-battles" in options:
        assert len(rated) > len(DEMO_RATED_BY_DEFAULT)
    else:
        # the small categories are shown as small: models under ten battles are left out and
        # listed, a category with no such model is not rated, with the reason
        assert set(rated) == DEMO_RATED_BY_DEFAULT
        assert any(board["left_out"] for board in rated.values())
        assert unrated and all("--min-battles" in reason for reason in unrated.values())


@pytest.mark.shared_data
def test_the_wildvision_reports_commands_reproduce_it(
    wildvision_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # judge verdicts only: no human side to agree with, no raters to agree among
    data = check_printed_commands(
        wildvision_bundle,
        tmp_path / "wv.html",
        capsys,
        "--bootstrap",
        "20",
        absent=frozenset({"agreement", "campaign status", "compare-rankings", "inter-annotator"}),
    )
    # GPT-4o's verdicts, "much better" counted three times at every door: the published scale
    board = {row["model"]: row for row in data["leaderboard"]["models"]}
    assert data["leaderboard"]["judgments"] == "judge"
    assert data["leaderboard"]["anchor"]["model"] == "claude-3-sonnet-20240229"
    assert board["gpt-4o"]["rating"] == pytest.approx(WILDVISION_GPT4O, abs=0.05)
    # the default command (no flags at all) gives the report's number
    plain = run_printed("workbench leaderboard BUNDLE --json", wildvision_bundle, capsys)
    assert {row["model"]: row["rating"] for row in plain["models"]}["gpt-4o"] == pytest.approx(
        board["gpt-4o"]["rating"], abs=TOLERANCE
    )


def test_a_finished_campaigns_printed_commands_reproduce_the_report(
    campaign_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # campaign votes only: no judge to agree with
    data = check_printed_commands(
        campaign_bundle,
        tmp_path / "campaign.html",
        capsys,
        "--bootstrap",
        "30",
        "--seed",
        "1",
        absent=frozenset({"agreement", "compare-rankings", "inter-annotator"}),
    )
    assert data["leaderboard"]["judgments"] == "human"
    assert data["leaderboard"]["battles"] == 96


def test_a_pooled_reports_commands_are_labelled_and_reproduce_it(
    report_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = ("--kind", "all", "--pool-kinds", "--bootstrap", "10", "--min-battles", "5")
    # a campaign, no imported raters
    data = check_printed_commands(
        report_bundle,
        tmp_path / "pooled.html",
        capsys,
        *options,
        absent=frozenset({"inter-annotator"}),
    )
    assert data["leaderboard"]["judgments"] == POOLED_LABEL
    for section in data["reproduce"]:
        if section["kind"] != "leaderboard":
            continue  # agreement, cycles and failures read both kinds by definition
        if section["section"] == "prediction-powered":
            # a question of its own: the human votes powered by the judge, never pooled
            assert "--method ppi" in section["command"] and "--pool-kinds" not in section["command"]
            continue
        assert "--kind all --pool-kinds" in section["command"]
        assert section["document"]["request"]["judgments"]["label"] == POOLED_LABEL
    html = (tmp_path / "pooled.html").read_text(encoding="utf-8")
    assert f"judgments: {POOLED_LABEL}" in unescape(html)


def test_exclude_refusal_reaches_every_board_and_every_other_section_says_why(
    demo_bundle: Path,
    demo_unfiltered_report: tuple[dict[str, Any], str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from workbench.services.report import REFUSAL_APPLIED, REFUSAL_NOT_APPLIED
    from workbench.services.report_html import REFUSAL_KEYS

    data = check_printed_commands(
        demo_bundle,
        tmp_path / "refusal.html",
        capsys,
        "--exclude-refusal",
        *DEMO_UNFILTERED,
        absent=frozenset({"campaign status"}),
    )
    notes = data["exclude_refusal"]
    assert (
        set(notes) == set(REFUSAL_APPLIED) | set(REFUSAL_NOT_APPLIED) == set(REFUSAL_KEYS.values())
    )
    assert all(notes[key].startswith("applied") for key in REFUSAL_APPLIED)
    assert all(notes[key].startswith("not applied: ") for key in REFUSAL_NOT_APPLIED)
    boards = [section for section in data["reproduce"] if section["kind"] == "leaderboard"]
    assert any(section["section"].startswith("category ") for section in boards)
    for section in boards:
        if section["section"] == "prediction-powered":
            # its method takes no refusal filter: the section says so instead
            assert "--exclude-refusal" not in section["command"]
            continue
        assert "--exclude-refusal" in section["command"], section["section"]
        assert section["document"]["request"]["boards"]["exclude_refusal"]
    compared = [s for s in data["reproduce"] if s["kind"] == "compare-rankings"]
    assert compared
    for section in compared:
        assert section["command"].count("--exclude-refusal") == 2
        for side in ("a", "b"):
            assert section["document"][side]["request"]["boards"]["exclude_refusal"]
    html = (tmp_path / "refusal.html").read_text(encoding="utf-8")
    assert html.count("Exclude refusal: ") == len(REFUSAL_KEYS)
    # without the flag (the same report otherwise) no section speaks of it
    _, plain = demo_unfiltered_report
    assert "Exclude refusal: " not in plain


def test_a_filtered_reports_campaign_rows_print_the_agreement_command(
    campaign_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # campaign status reads the whole campaign; a filtered row is printed with the selection
    data, html = report_data(
        campaign_bundle, tmp_path / "filtered.html", "--kind", "human", "--bootstrap", "0"
    )
    rows = data["inter_annotator"]
    assert [row["group"] for row in rows] == ["campaign study"]
    command = "workbench agreement BUNDLE --inter-annotator --kind human --json"
    assert rows[0]["command"] == command and f"Reproduce: {command}" in html
    assert any(section["command"] == command for section in data["reproduce"])
    same_group_agreement(rows[0], run_printed(command, campaign_bundle, capsys))


def test_agreement_takes_two_sides_or_the_groups_not_both(
    demo_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agreement", str(demo_bundle), "--inter-annotator", "--a", "human"]) == 2
    assert "leave out --a" in capsys.readouterr().err
    assert (
        main(["agreement", str(demo_bundle), "--inter-annotator", "--convention", "mt-bench"]) == 2
    )
    assert "leave out --convention" in capsys.readouterr().err
    assert main(["agreement", str(demo_bundle), "--a", "human"]) == 2
    assert "--inter-annotator" in capsys.readouterr().err
    # the text names each group with its figures, as the JSON has them
    printed = run_printed(
        "workbench agreement BUNDLE --inter-annotator --json", demo_bundle, capsys
    )
    assert main(["agreement", str(demo_bundle), "--inter-annotator"]) == 0
    text = capsys.readouterr().out
    for row in printed["groups"]:
        assert f"{row['group']}: {row['raters']} raters on {row['comparisons']}" in text
