"""The leaderboard's kept battle counts: after each vote they equal a fresh read, a vote is
read incrementally, an undo forces a full read, and the ratings equal a full recompute."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests.services.campaign_helpers import build_campaign_bundle
from tests.services.campaign_ops_bundle import CAMPAIGN as OPS_CAMPAIGN
from tests.services.campaign_ops_bundle import PLUGINS, build_ops_bundle
from tests.stats.bundle_helpers import (
    add_campaign_votes,
    add_judge_verdicts,
    build_bundle,
    item_line,
)
from workbench.services.adjudication import disagreements, record_adjudication
from workbench.services.analysis import LeaderboardRequest, leaderboard
from workbench.services.analysis_request import RequestError
from workbench.services.battle_tally import BattleTally
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.judgments import ADJUDICATION, battle_counts

CAMPAIGN = "arena"


@pytest.fixture
def bundle(tmp_path: Path) -> Iterator[Bundle]:
    path = Path(build_campaign_bundle(tmp_path, items=3))
    with Bundle.open(path) as opened:
        add_annotator(opened, "ana")
        create_campaign(opened, CampaignSpec(CAMPAIGN, "arena-battle", seed=3))
        yield opened


def fresh(bundle: Bundle, request: LeaderboardRequest) -> list[tuple[str, str, str, float, int]]:
    with bundle.read_session() as session:
        return battle_counts(session, request.filters(), decisive_weight=request.decisive_weight)


def test_counts_after_each_vote_equal_a_fresh_read(bundle: Bundle) -> None:
    # the kind named, so the tally's filters are those the leaderboard resolves to
    request = LeaderboardRequest(kind="human", bootstrap=20, min_battles=0)
    tally = BattleTally(request.filters(), request.decisive_weight)
    assert tally.update(bundle) == fresh(bundle, request) == []
    session = AnnotationSession(bundle, CAMPAIGN, "ana")
    choices = ("a", "b", "tie", "a", "both_bad")
    votes = 0
    while (task := session.next_task()) is not None:
        session.cast(task.token, choices[votes % len(choices)])
        votes += 1
        assert tally.update(bundle) == fresh(bundle, request)
    assert votes >= 6
    assert (tally.full_reads, tally.incremental_reads) == (1, votes)
    # a vote into cells already counted updates their rows in place: no sort of all cells
    assert tally.row_sorts < 1 + votes

    # the ratings and intervals from the kept counts equal a full recompute
    kept = leaderboard(bundle, request, tally).table
    pd.testing.assert_frame_equal(kept, leaderboard(bundle, request).table)
    assert tally.incremental_reads == votes  # nothing new: nothing read

    # an undo retracts a vote: the counts are read again, not added to
    session.undo()
    assert tally.update(bundle) == fresh(bundle, request)
    assert tally.full_reads == 2


def test_a_tally_for_other_switches_is_not_used(bundle: Bundle) -> None:
    session = AnnotationSession(bundle, CAMPAIGN, "ana")
    task = session.next_task()
    assert task is not None
    session.cast(task.token, "a")
    judge_only = LeaderboardRequest(kind="judge", bootstrap=0)
    tally = BattleTally(LeaderboardRequest(kind="human").filters(), judge_only.decisive_weight)
    assert not tally.matches(judge_only.filters(), judge_only.decisive_weight)
    with pytest.raises(RequestError, match="--kind judge"):
        leaderboard(bundle, judge_only, tally)  # read afresh: no judge verdicts here
    assert tally.fingerprint is None


def test_counts_merged_across_stores_keep_the_stored_order(tmp_path: Path) -> None:
    """A vote on a triple first seen among judge verdicts moves it ahead (votes come before
    verdicts in stored order); the kept counts follow, as the bootstrap's numbering needs."""
    lines = [
        item_line(
            "q1",
            [{"kind": "human", "model_a": "x", "model_b": "y", "outcome": "a", "rater": "h1"}],
            category=None,
            language=None,
        ),
        item_line("q2", [], category=None),
    ]
    path = build_bundle(tmp_path / "stores", lines)
    add_judge_verdicts(path, "run-1", [("q2", "x", "y", "b"), ("q2", "y", "x", "a")])
    # votes and verdicts pooled: the counts merge across the stores
    request = LeaderboardRequest(kind="pooled", bootstrap=10, decisive_weight=1.0, min_battles=0)
    tally = BattleTally(request.filters(), request.decisive_weight)
    with Bundle.open(path) as bundle:
        assert tally.update(bundle) == fresh(bundle, request)
    add_campaign_votes(path, "pilot", [("ann", "q1", "y", "x", "a")])  # (y, x, a): a verdict's
    add_judge_verdicts(path, "run-2", [("q1", "x", "y", "tie")])
    with Bundle.open(path) as bundle:
        kept = tally.update(bundle)
        assert kept == fresh(bundle, request)
        assert [row[:3] for row in kept][:2] == [("x", "y", "a"), ("y", "x", "a")]
        assert (tally.full_reads, tally.incremental_reads) == (1, 1)
        pd.testing.assert_frame_equal(
            leaderboard(bundle, request, tally).table, leaderboard(bundle, request).table
        )


def test_a_settled_answer_replaced_in_place_is_read_again(tmp_path: Path) -> None:
    """Adjudications are replaced in place when a task is settled again: no new id, so only a
    full read (on the changed adjudication time) gives the right counts."""
    path, _ = build_ops_bundle(tmp_path)
    request = LeaderboardRequest(kind="human", origins=(ADJUDICATION,), bootstrap=0, min_battles=0)
    tally = BattleTally(request.filters(), request.decisive_weight)
    with Bundle.open(path) as bundle:
        tasks = [row["task"] for row in disagreements(bundle, OPS_CAMPAIGN)]
        assert tasks
        record_adjudication(bundle, OPS_CAMPAIGN, tasks[0], "b", "", "lead", plugins=PLUGINS)
        assert tally.update(bundle) == fresh(bundle, request) != []
        record_adjudication(bundle, OPS_CAMPAIGN, tasks[0], "a", "", "lead", plugins=PLUGINS)
        assert tally.update(bundle) == fresh(bundle, request)
        assert [row[2] for row in tally.rows()] == ["a"]
        assert tally.full_reads == 2
