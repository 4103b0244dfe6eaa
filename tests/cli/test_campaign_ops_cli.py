"""``workbench campaign status|disagreements|adjudicate``: each prints what its service returns
(JSON equal to the service's result), and bad input is one line, exit 1, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.services.campaign_ops_bundle import CAMPAIGN, build_ops_bundle
from workbench.cli import main
from workbench.services.adjudication import disagreements
from workbench.services.monitor import campaign_status
from workbench.storage import Bundle


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return build_ops_bundle(tmp_path)[0]


def test_status_json_is_the_service_result(
    bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "campaign", "status", bundle, CAMPAIGN, "--json")
    with Bundle.open(bundle) as opened:
        expected = campaign_status(opened, CAMPAIGN)
    assert code == 0 and json.loads(out) == json.loads(json.dumps(expected))
    code, out, _ = run(capsys, "campaign", "status", bundle, CAMPAIGN)
    assert code == 0 and "ann-b" in out and "agreement overall" in out and "none" in out


def test_disagreements_then_adjudicate(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "campaign", "disagreements", bundle, CAMPAIGN, "--json")
    with Bundle.open(bundle) as opened:
        expected = disagreements(opened, CAMPAIGN)
    assert code == 0 and json.loads(out) == expected
    task = expected[0]["task"]
    code, out, _ = run(
        capsys,
        "campaign",
        "adjudicate",
        bundle,
        CAMPAIGN,
        "--task",
        task,
        "--answer",
        "b",
        "--note",
        "miscount on the left",
        "--adjudicator",
        "lead",
    )
    assert code == 0 and f"task {task}" in out and "lead" in out
    code, out, _ = run(capsys, "campaign", "disagreements", bundle, CAMPAIGN)
    assert code == 0 and "settled b by lead" in out


def test_a_bad_answer_is_one_line_and_writes_nothing(
    bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys,
        "campaign",
        "adjudicate",
        bundle,
        CAMPAIGN,
        "--task",
        "1",
        "--answer",
        "left",
        "--note",
        "n",
        "--adjudicator",
        "lead",
    )
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "choose one of" in err
    with Bundle.open(bundle) as opened:
        assert all(row["adjudication"] is None for row in disagreements(opened, CAMPAIGN))
