"""The campaign monitor: per-annotator progress, time, skip reasons and attention checks, and
agreement between annotators overall and per category (items without one are "none")."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.orm import aliased

from tests.services.campaign_ops_bundle import (
    ANNOTATORS,
    CAMPAIGN,
    SKIP_REASON,
    build_ops_bundle,
)
from workbench.services.campaign_errors import UnknownCampaignError
from workbench.services.monitor import NO_CATEGORY, agreement, campaign_status
from workbench.stats.kappa import fleiss_kappa
from workbench.storage import Bundle
from workbench.storage.models import Item, Model, ScheduledPair


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[tuple[int, str], str]]:
    return build_ops_bundle(tmp_path_factory.mktemp("monitor"))


def test_progress_skips_and_checks_per_annotator(
    ops: tuple[Path, dict[tuple[int, str], str]],
) -> None:
    path, cast = ops
    with Bundle.open(path) as bundle:
        status = campaign_status(bundle, CAMPAIGN)
    rows = {row["annotator"]: row for row in status["annotators"]}
    assert sorted(rows) == list(ANNOTATORS)
    for handle in ANNOTATORS:
        mine = [answer for (_, who), answer in cast.items() if who == handle]
        assert rows[handle]["answered"] == sum(answer != "skip" for answer in mine)
        assert rows[handle]["skipped"] == sum(answer == "skip" for answer in mine)
        assert rows[handle]["median_seconds_per_task"] is not None
    assert rows["ann-b"]["skip_reasons"] == {SKIP_REASON: 1}
    assert rows["ann-a"]["skip_reasons"] == {}
    # the attention check expects "a" (left = first model): ann-a always answers "a"
    assert rows["ann-a"]["gold"] == {"answered": 1, "correct": 1, "accuracy": 1.0}
    assert status["gold_tasks"] == 1 and status["tasks"] == 7
    assert status["skipped"] == 1
    assert status["answered"] == sum(answer != "skip" for answer in cast.values())


def test_agreement_overall_and_per_category_including_none(
    ops: tuple[Path, dict[tuple[int, str], str]],
) -> None:
    path, cast = ops
    with Bundle.open(path) as bundle:
        status = campaign_status(bundle, CAMPAIGN)
        with bundle.read_session() as read:
            left, right = aliased(Model), aliased(Model)
            info = {
                sequence: (gold is not None, category, shown_left, shown_right)
                for sequence, gold, category, shown_left, shown_right in read.execute(
                    select(
                        ScheduledPair.sequence,
                        ScheduledPair.gold_choice,
                        Item.category,
                        left.name,
                        right.name,
                    )
                    .join(Item, Item.id == ScheduledPair.item_id)
                    .join(left, left.id == ScheduledPair.left_model_id)
                    .join(right, right.id == ScheduledPair.right_model_id)
                )
            }
    # the expected table, built from what was cast (attention checks and skips left out), each
    # answer named by the model it preferred (first or second of the pair in name order), not
    # by the side it was shown on
    labels: dict[int, dict[str, str]] = defaultdict(dict)
    for (sequence, handle), answer in cast.items():
        gold, _category, shown_left, shown_right = info[sequence]
        if answer != "skip" and not gold:
            preferred = shown_left if answer == "a" else shown_right
            labels[sequence][handle] = (
                "first" if preferred == min(shown_left, shown_right) else "second"
            )
    agreement_rows = status["agreement"]
    assert set(agreement_rows["by_category"]) == {"counting", NO_CATEGORY}
    sizes = Counter(len(raters) for raters in labels.values())
    usual = max(sizes, key=lambda size: (sizes[size], size))
    table = np.array(
        [
            [list(raters.values()).count(choice) for choice in ("first", "second")]
            for raters in labels.values()
            if len(raters) == usual
        ]
    )
    overall = agreement_rows["overall"]
    assert overall["comparisons"] == len(labels)
    assert overall["fleiss_comparisons"] == len(table)
    assert overall["fleiss_kappa"] == pytest.approx(fleiss_kappa(table), abs=1e-9)
    assert overall["krippendorff_alpha"] is not None
    per_category = sum(row["comparisons"] for row in agreement_rows["by_category"].values())
    assert per_category == overall["comparisons"]


def test_agreement_of_raters_who_always_agree_is_one_and_of_one_label_is_undefined() -> None:
    perfect: dict[int, dict[int, str | float]] = {
        1: {1: "a", 2: "a"},
        2: {1: "b", 2: "b"},
        3: {1: "a", 2: "a"},
    }
    result = agreement(perfect)
    assert result["fleiss_kappa"] == pytest.approx(1.0)
    assert result["krippendorff_alpha"] == pytest.approx(1.0)
    # a single label throughout: no variation, so neither coefficient is defined
    same = agreement({1: {1: "a", 2: "a"}, 2: {1: "a", 2: "a"}})
    assert same["comparisons"] == 2
    assert agreement({1: {1: "a"}}) == {
        "raters": 0,
        "comparisons": 0,
        "fleiss_kappa": None,
        "fleiss_comparisons": 0,
        "krippendorff_alpha": None,
    }


def test_a_campaign_that_does_not_exist_is_one_clear_error(
    ops: tuple[Path, dict[tuple[int, str], str]],
) -> None:
    path, _ = ops
    with Bundle.open(path) as bundle, pytest.raises(UnknownCampaignError, match="nope"):
        campaign_status(bundle, "nope")
