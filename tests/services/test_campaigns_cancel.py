"""Cancelling the creation of a campaign: at whichever step it is asked, the one transaction
is rolled back, so no campaign, scheduled task or counter row is left and the same campaign
can be created afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from tests.services.campaign_helpers import build_campaign_bundle, registry_with_all_protocols
from workbench.progress import WorkCancelledError
from workbench.services import campaigns
from workbench.services.campaigns import CREATE_STEPS, CampaignSpec, create_campaign
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle

#: every table a new campaign writes to
CAMPAIGN_TABLES = (
    "campaigns",
    "scheduled_pairs",
    "campaign_counts",
    "campaign_pair_counts",
    "campaign_annotator_counts",
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = build_campaign_bundle(tmp_path_factory.mktemp("cancel-campaigns"), items=8)
    assert isinstance(path, Path)
    return path


@pytest.fixture
def bundle_path(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "work.wbb"
    copy_bundle(template, path)
    return path


def rows(bundle: Bundle) -> dict[str, int]:
    with bundle.read_session() as session:
        return {
            table: session.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in CAMPAIGN_TABLES
        }


# "done" is the check after the last step, just before the transaction commits
@pytest.mark.parametrize("at", [*CREATE_STEPS, "done"])
def test_a_cancelled_campaign_creation_stores_nothing(bundle_path: Path, at: str) -> None:
    plugins = registry_with_all_protocols()
    spec = CampaignSpec("cancelled", "arena-battle", seed=3, votes_per_pair=2)
    seen: list[str] = []
    stop = False

    def progress(step: str, _done: int, _total: int) -> None:
        nonlocal stop
        seen.append(step)
        stop = stop or step == at

    with Bundle.open(bundle_path) as bundle:
        create_campaign(bundle, CampaignSpec("kept", "arena-battle", seed=1), plugins)
        before = rows(bundle)
        assert before["scheduled_pairs"] > 0 and before["campaign_counts"] > 0
        # the last check comes after the "counters" step, which stops it already
        cancel_at = "counters" if at == "done" else at
        calls = 0

        def cancel_requested() -> bool:
            nonlocal calls
            calls += 1
            if at == "done":  # only the very last check, after every step ran
                return seen[-1:] == ["counters"] and calls == len(CREATE_STEPS) + 1
            return stop

        with pytest.raises(WorkCancelledError, match="nothing was stored"):
            create_campaign(
                bundle, spec, plugins, progress=progress, cancel_requested=cancel_requested
            )
        assert seen[-1] == cancel_at
        assert rows(bundle) == before
        # nothing half-made stands in the way of the same campaign
        summary = create_campaign(bundle, spec, plugins)
        assert summary.tasks > 0 and rows(bundle)["campaigns"] == before["campaigns"] + 1


def test_campaign_creation_reports_each_step(
    bundle_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(campaigns, "PAIRS_PER_STEP", 10)
    seen: list[tuple[str, int, int]] = []
    with Bundle.open(bundle_path) as bundle:
        summary = create_campaign(
            bundle,
            CampaignSpec("c", "arena-battle"),
            registry_with_all_protocols(),
            progress=lambda step, done, total: seen.append((step, done, total)),
        )
    total, tasks = len(CREATE_STEPS), summary.tasks
    assert tasks > 20
    assert seen == [
        *((step, index, total) for index, step in enumerate(CREATE_STEPS[:3])),
        *(("storing", stored, tasks) for stored in range(0, tasks, 10)),
        ("counters", 4, total),
        ("done", total, total),
    ]


def test_a_campaign_cancelled_while_its_tasks_are_stored_stores_none(
    bundle_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(campaigns, "PAIRS_PER_STEP", 10)
    seen: list[tuple[str, int, int]] = []
    with Bundle.open(bundle_path) as bundle:
        before = rows(bundle)
        with pytest.raises(WorkCancelledError):
            create_campaign(
                bundle,
                CampaignSpec("c", "arena-battle"),
                registry_with_all_protocols(),
                progress=lambda step, done, total: seen.append((step, done, total)),
                # two chunks of tasks are flushed into the transaction before the cancel
                cancel_requested=lambda: seen[-1][:2] == ("storing", 20),
            )
        assert seen[-1][:2] == ("storing", 20)
        assert rows(bundle) == before
