"""The report's agreement, inter-annotator and cycles sections print the command that reproduces
them, and that command prints the section's numbers: run on the demo bundle (agreement and both
cycle scopes) and on a bundle with a finished campaign (``workbench campaign status``)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.services.campaign_ops_bundle import CAMPAIGN, build_ops_bundle
from tests.shared_builds import copy_of
from workbench.cli import main
from workbench.services.analysis_request import AnalysisRequest
from workbench.services.report import ReportContent, ReportRequest, build_report
from workbench.stats.cycle_scopes import DEFAULT_CYCLE_SCOPE, POOLED_PER_ITEM
from workbench.storage import Bundle

ROUNDS = 20


@pytest.fixture(scope="module")
def demo(
    tmp_path_factory: pytest.TempPathFactory, demo_bundle_template: Path
) -> tuple[Path, ReportContent]:
    path = copy_of(demo_bundle_template, tmp_path_factory.mktemp("demo"))
    with Bundle.open(path) as bundle:
        return path, build_report(bundle, ReportRequest(AnalysisRequest(bootstrap=ROUNDS)))


def run_printed(capsys: pytest.CaptureFixture[str], command: str, bundle: Path) -> Any:
    """Run a command as the report prints it (``workbench ... BUNDLE ...``) on ``bundle``."""
    argv = shlex.split(command)
    assert argv[0] == "workbench" and "BUNDLE" in argv and "--json" in argv
    argv = [str(bundle) if word == "BUNDLE" else word for word in argv[1:]]
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_the_agreement_command_prints_the_sections_numbers(
    demo: tuple[Path, ReportContent], capsys: pytest.CaptureFixture[str]
) -> None:
    path, content = demo
    assert content.agreement is not None
    section = content.agreement.document
    command = content.commands["agreement"]
    assert "--convention majority" in command
    printed = run_printed(capsys, command, path)
    assert printed["request"]["convention"] == section["request"]["convention"] == "majority"
    assert printed["agreement"] == section["agreement"]
    assert printed["ranks"] == section["ranks"]
    assert printed["confusion"] == section["confusion"]
    # what the section's result says reproduces it is the command the report prints
    assert section["request"]["command"] == command


def test_both_cycle_commands_print_the_sections_counts(
    demo: tuple[Path, ReportContent], capsys: pytest.CaptureFixture[str]
) -> None:
    path, content = demo
    per_evaluator = run_printed(capsys, content.commands["cycles"], path)
    pooled = run_printed(capsys, content.commands["cycles_pooled"], path)
    assert per_evaluator["request"]["scope"] == content.cycle_scope == DEFAULT_CYCLE_SCOPE
    assert pooled["request"]["scope"] == POOLED_PER_ITEM
    assert per_evaluator["cycles"] == content.cycle_count
    assert per_evaluator["items_with_cycles"] == content.cycle_items
    assert pooled["cycles"] == content.pooled_cycle_count
    assert pooled["items_with_cycles"] == content.pooled_cycle_items
    # the demo's raters are each consistent, but pooled they form cycles on some items: the
    # two scopes answer different questions, and both are stated
    assert content.cycle_count == 0 and content.pooled_cycle_items > 0
    assert per_evaluator["request"]["command"] == content.commands["cycles"]
    assert pooled["request"]["command"] == content.commands["cycles_pooled"]


def test_campaign_status_gives_the_reports_inter_annotator_agreement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _cast = build_ops_bundle(tmp_path)
    with Bundle.open(path) as bundle:
        content = build_report(bundle, ReportRequest(AnalysisRequest(bootstrap=0)))
    (row,) = [row for row in content.inter_annotator if row["group"] == f"campaign {CAMPAIGN}"]
    status = run_printed(capsys, row["command"], path)
    overall = status["agreement"]["overall"]
    figures = ("raters", "comparisons", "fleiss_kappa", "fleiss_comparisons", "krippendorff_alpha")
    assert {key: overall[key] for key in figures} == {key: row[key] for key in figures}
    assert overall["fleiss_kappa"] is not None and overall["krippendorff_alpha"] is not None
    assert status["request"]["command"] == row["command"]
    assert "attention checks" in status["agreement"]["definition"]
