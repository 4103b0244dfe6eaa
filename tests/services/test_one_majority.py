"""One definition of a majority and a disagreement (workbench.stats.agreement
.disagreeing_comparisons), per criterion with a split counted as a tie, shared by the
inspector's flag, the Failures panel and the Agreement panel."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from tests.stats.bundle_helpers import build_bundle, item_line
from workbench.services import analysis
from workbench.services.browse import ItemFlag, item_flags, item_rows
from workbench.storage import Bundle


def _judgment(
    kind: str, rater: str, a: str, b: str, outcome: str, criterion: str = "overall"
) -> dict[str, Any]:
    return {
        "kind": kind,
        "rater": rater,
        "model_a": a,
        "model_b": b,
        "outcome": outcome,
        "criterion": criterion,
    }


@pytest.fixture
def bundle_path(tmp_path: Path) -> Path:
    lines = [
        # two humans split 1:1 (a tie); the judge is decisive: a disagreement
        item_line(
            "split",
            [
                _judgment("human", "h1", "x", "y", "a"),
                _judgment("human", "h2", "x", "y", "b"),
                _judgment("judge", "j", "x", "y", "a"),
            ],
        ),
        # humans and the judge differ, but on different criteria: no comparison in common
        item_line(
            "criteria",
            [
                _judgment("human", "h1", "x", "y", "a", "overall"),
                _judgment("judge", "j", "x", "y", "b", "style"),
            ],
        ),
        # same preference shown in the other order: agreement
        item_line(
            "agree",
            [
                _judgment("human", "h1", "x", "y", "a"),
                _judgment("judge", "j", "y", "x", "b"),
            ],
            category=None,
        ),
    ]
    return cast("Path", build_bundle(tmp_path / "majority", lines))


def test_flag_failures_and_agreement_find_the_same_disagreements(bundle_path: Path) -> None:
    with Bundle.open(bundle_path) as bundle:
        with bundle.read_session() as session:
            flags = item_flags(session)
            labels = {row.id: row.external_id for row in item_rows(session, sorted(flags))}
        flagged = {labels[item] for item, found in flags.items() if ItemFlag.DISAGREEMENT in found}
        failures = {
            row.label.split("/", 1)[1]
            for row in analysis.failure_cases(bundle, analysis.DISAGREEMENT)
        }
        result = analysis.agreement(bundle, "human", "judge")
    assert flagged == failures == {"split"}
    # the agreement panel compares the same two comparisons and disagrees on one of them
    assert result.summary.comparisons == 2
    assert result.summary.agreement_with_ties == pytest.approx(0.5)
    confusion = result.confusion
    assert confusion.loc["tie", "first"] == 1  # the split humans against the decisive judge
