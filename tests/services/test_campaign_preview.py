"""``create_campaign(..., dry_run=True)`` (the New campaign dialog's preview, ``campaign create
--dry-run``) draws the schedule the real creation stores and stores nothing; a campaign assigned
to named annotators refuses the others (in the app and for packs), counts only its own when it
finds stuck tasks, and takes in an annotator a stuck task is reassigned to."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.campaign_ops_bundle import PLUGINS, build_ops_bundle
from workbench.services.campaign_errors import CampaignError
from workbench.services.campaigns import (
    CampaignSpec,
    add_annotator,
    annotator_shares,
    create_campaign,
    list_campaigns,
)
from workbench.services.monitor import campaign_status
from workbench.services.packs import export_pack
from workbench.services.stuck_tasks import reassign_task
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle


def test_annotator_shares() -> None:
    # 10 ordinary tasks, 2 votes each, 3 annotators: 20 answers, 7 each; plus 2 checks, 1 practice
    assert annotator_shares(12, 2, 1, 2, ["a", "b", "c"]) == {"a": 10, "b": 10, "c": 10}
    # an annotator answers a task once: never more than every ordinary task
    assert annotator_shares(5, 0, 0, 3, ["a"]) == {"a": 5}
    assert annotator_shares(5, 0, 0, 1, []) == {}


def test_a_dry_run_stores_nothing_and_matches_the_creation(tmp_path: Path) -> None:
    path, _ = build_ops_bundle(tmp_path)
    spec = CampaignSpec("assigned", "arena-battle", seed=9, votes_per_pair=2,
                        annotators=["ann-a", "ann-c"])  # fmt: skip
    with Bundle.open(path) as bundle:
        before = list_campaigns(bundle)
        preview = create_campaign(bundle, spec, PLUGINS, dry_run=True)
        assert list_campaigns(bundle) == before
        assert preview.per_annotator == {"ann-a": 6, "ann-c": 6}
        created = create_campaign(bundle, spec, PLUGINS)
        assert created.schedule_sha256 == preview.schedule_sha256
        assert (created.tasks, created.per_annotator) == (preview.tasks, preview.per_annotator)
        with pytest.raises(CampaignError, match="--annotators: no annotator 'zed'"):
            create_campaign(bundle, CampaignSpec("x", "arena-battle", annotators=["zed"]), PLUGINS)
        # only the assigned annotators work on it
        with pytest.raises(CampaignError, match="'ann-b' is not assigned"):
            AnnotationSession(bundle, "assigned", "ann-b", PLUGINS)
        with pytest.raises(CampaignError, match="'ann-b' is not assigned"):
            export_pack(bundle, "assigned", "ann-b", tmp_path / "b.wbb")
        assert not (tmp_path / "b.wbb").exists()
        # ann-c skips a task: two assigned annotators for two votes, so it is stuck
        session = AnnotationSession(bundle, "assigned", "ann-c", PLUGINS)
        task = session.next_task()
        assert task is not None
        session.skip(task.token, "cannot read the chart")
        [stuck] = campaign_status(bundle, "assigned")["stuck_tasks"]
        assert "skipped by ann-c (cannot read the chart)" in stuck["reason"]
        # given to ann-b, who joins the campaign
        add_annotator(bundle, "ann-d")
        result = reassign_task(bundle, "assigned", stuck["task"], "ann-b")
        assert result["joined_campaign"]
        assert campaign_status(bundle, "assigned")["stuck_tasks"] == []
        AnnotationSession(bundle, "assigned", "ann-b", PLUGINS)
        with pytest.raises(CampaignError, match="'ann-d' is not assigned"):
            AnnotationSession(bundle, "assigned", "ann-d", PLUGINS)
