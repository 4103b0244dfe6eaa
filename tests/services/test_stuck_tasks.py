"""The ways out for a task that cannot finish: the campaign of ``campaign_ops_bundle`` needs three
votes a task from its three annotators and ann-b skipped one task, so that task is stuck. It is
unstuck by giving it to a new annotator, by giving it back to ann-b, or by asking two votes of
it; through the service functions and the ``campaign reassign`` / ``lower-votes`` commands, with
the counters (``campaign status``) following, and bad requests refused with nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.services.campaign_ops_bundle import CAMPAIGN, PLUGINS, SKIP_REASON, build_ops_bundle
from workbench.cli import main
from workbench.services.campaign_errors import CampaignError
from workbench.services.campaigns import add_annotator
from workbench.services.monitor import campaign_status
from workbench.services.stuck_tasks import lower_votes_needed, reassign_task
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle


@pytest.fixture
def stuck_bundle(tmp_path: Path) -> Path:
    path, _ = build_ops_bundle(tmp_path)
    return path


def stuck_task(bundle: Bundle) -> int:
    [stuck] = campaign_status(bundle, CAMPAIGN)["stuck_tasks"]
    return int(stuck["task"])


def test_a_new_annotator_takes_the_task_and_the_campaign_finishes(stuck_bundle: Path) -> None:
    with Bundle.open(stuck_bundle) as bundle:
        task = stuck_task(bundle)
        add_annotator(bundle, "ann-d")
        result = reassign_task(bundle, CAMPAIGN, task, "ann-d")
        assert result["withdrawn_skips"] == [] and result["votes"] == 2
        status = campaign_status(bundle, CAMPAIGN)
        assert status["stuck_tasks"] == []
        assert status["active_leases"] == 1  # reserved for ann-d
        session = AnnotationSession(bundle, CAMPAIGN, "ann-d", PLUGINS)
        shown = session.next_task()
        assert shown is not None
        session.cast(shown.token, "a")
        status = campaign_status(bundle, CAMPAIGN)
    assert status["complete_tasks"] == status["tasks"] - status["gold_tasks"]


def test_the_skipper_gets_it_back_through_the_cli(
    stuck_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Bundle.open(stuck_bundle) as bundle:
        task = stuck_task(bundle)
    command = ["campaign", "reassign", str(stuck_bundle), CAMPAIGN, "--task", str(task)]
    assert main([*command, "--to", "ann-b", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["withdrawn_skips"] == [SKIP_REASON]
    with Bundle.open(stuck_bundle) as bundle:
        status = campaign_status(bundle, CAMPAIGN)
        assert status["stuck_tasks"] == []
        assert {row["annotator"]: row["skipped"] for row in status["annotators"]}["ann-b"] == 0
        session = AnnotationSession(bundle, CAMPAIGN, "ann-b", PLUGINS)
        assert session.next_task() is not None  # the task is in ann-b's queue again


def test_fewer_votes_complete_the_task(
    stuck_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Bundle.open(stuck_bundle) as bundle:
        task = stuck_task(bundle)
        before = campaign_status(bundle, CAMPAIGN)
    command = ["campaign", "lower-votes", str(stuck_bundle), CAMPAIGN, "--task", str(task)]
    assert main([*command, "--votes", "2"]) == 0
    assert "now needs 2 vote(s) (was 3); it has 2: complete" in capsys.readouterr().out
    with Bundle.open(stuck_bundle) as bundle:
        after = campaign_status(bundle, CAMPAIGN)
    assert after["stuck_tasks"] == []
    assert after["complete_tasks"] == before["complete_tasks"] + 1
    assert after["complete_tasks"] == after["tasks"] - after["gold_tasks"]


def test_bad_requests_change_nothing(
    stuck_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Bundle.open(stuck_bundle) as bundle:
        task = stuck_task(bundle)
        before = campaign_status(bundle, CAMPAIGN)
        with pytest.raises(CampaignError, match="ann-a has answered task"):
            reassign_task(bundle, CAMPAIGN, task, "ann-a")
        with pytest.raises(CampaignError, match="no annotator 'nobody'"):
            reassign_task(bundle, CAMPAIGN, task, "nobody")
        with pytest.raises(CampaignError, match="--votes must be from 2"):
            lower_votes_needed(bundle, CAMPAIGN, task, 1)
        with pytest.raises(CampaignError, match=r"--votes must be from 2 .* to 2"):
            lower_votes_needed(bundle, CAMPAIGN, task, 3)
        done = next(n for n in range(1, before["tasks"] + 1) if n != task)
        with pytest.raises(CampaignError, match=r"already|attention check"):
            lower_votes_needed(bundle, CAMPAIGN, done, 1)
        with pytest.raises(CampaignError, match="has no task 999"):
            reassign_task(bundle, CAMPAIGN, 999, "ann-b")
        assert campaign_status(bundle, CAMPAIGN) == before
    command = ["campaign", "lower-votes", str(stuck_bundle), CAMPAIGN, "--task", str(task)]
    assert main([*command, "--votes", "0"]) == 1
    assert "--votes must be from 2" in capsys.readouterr().err
