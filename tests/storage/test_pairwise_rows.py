"""Battle counts read the narrow pairwise rows (only the joins their columns need) when the
filters allow; they must count exactly what the wide read model's rows give."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.gui.panel_bundle import build_panel_bundle
from tests.shared_builds import copy_of
from workbench.storage import Bundle
from workbench.storage.judgments import (
    OutcomeFilter,
    _pairwise_will_do,
    battle_counts,
    read_judgments,
)


@pytest.fixture(scope="module", params=["demo", "panels"])
def bundle_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp(request.param)
    if request.param == "demo":
        return copy_of(request.getfixturevalue("demo_bundle_template"), folder)
    return build_panel_bundle(folder)


def counted_from_wide_rows(session: Any, filters: OutcomeFilter, weight: float) -> list[Any]:
    """battle_counts computed in Python from the wide rows, in first-appearance order."""
    _names, rows = read_judgments(
        session, filters, columns=("model_a", "model_b", "outcome", "strength"), pairwise=True
    )
    cells: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    for a, b, outcome, strength in rows:
        cell = cells[(a, b, outcome)]
        decisive = outcome in ("a", "b") and strength is not None and strength >= 2
        cell[0] += weight if decisive else 1.0
        cell[1] += 1
    return [(a, b, outcome, total, count) for (a, b, outcome), (total, count) in cells.items()]


def campaigns_of(bundle_path: Path) -> tuple[str, ...]:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        _names, rows = read_judgments(session, OutcomeFilter(), columns=("campaign",))
    return tuple(sorted({campaign for (campaign,) in rows if campaign is not None}))[:1]


@pytest.mark.parametrize(
    "make_filter",
    [
        lambda campaigns: OutcomeFilter(),
        lambda campaigns: OutcomeFilter(include_derived=True),
        lambda campaigns: OutcomeFilter(kinds=("human",)),
        lambda campaigns: OutcomeFilter(origins=("imported", "judge-run")),
        lambda campaigns: OutcomeFilter(origins=("adjudication",)),
        lambda campaigns: OutcomeFilter(campaigns=campaigns or ("none",)),
    ],
    ids=["none", "derived", "human", "origins", "adjudication", "campaign"],
)
@pytest.mark.parametrize("weight", [3.0, 1.0])
def test_narrow_counts_equal_the_wide_rows(
    bundle_path: Path, make_filter: Any, weight: float
) -> None:
    filters = make_filter(campaigns_of(bundle_path))
    assert _pairwise_will_do([filters])
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        counted = battle_counts(session, filters, decisive_weight=weight)
        expected = counted_from_wide_rows(session, filters, weight)
    assert counted == expected


def test_a_filter_on_another_column_reads_the_wide_rows() -> None:
    assert not _pairwise_will_do([OutcomeFilter(sources=("x",))])
    assert not _pairwise_will_do([OutcomeFilter(), OutcomeFilter(turns=(1,))])
