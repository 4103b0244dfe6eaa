"""The Agreement, Graph and Failures panels' jobs in the worker process keep their judgments:
after a vote the jobs read only the new rows (one incremental read per kept frame, no full
read), show what the services show from a fresh read, and an undo reads everything again."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.test_panel_process import run_and_wait
from tests.services.campaign_helpers import MODELS, build_campaign_bundle
from tests.services.test_judgment_cache import add_conversation_verdicts
from workbench.gui import panel_computations
from workbench.gui.panel_computations import JudgmentReads, bundle_ref
from workbench.gui.panel_process import PanelProcess
from workbench.services.analysis import (
    LOSES_TO_ALL,
    agreement,
    failure_cases,
    item_graph,
    items_by_cycles,
)
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Item

pytestmark = pytest.mark.gui

CAMPAIGN = "arena"
FIRST, SECOND, THIRD = MODELS[:3]


@pytest.fixture
def process(qapp: QApplication) -> Iterator[PanelProcess]:
    process = PanelProcess()
    yield process
    process.shutdown()


@pytest.fixture
def bundle(tmp_path: Path) -> Iterator[Bundle]:
    path = Path(build_campaign_bundle(tmp_path, items=3, turns=1))
    # every pair of every item, so the first vote has a verdict to agree with; earlier models
    # win, except THIRD over FIRST on q000 (a cycle)
    verdicts: list[tuple[str, str, str, str | None]] = [
        (item, first, second, "b" if (item, first, second) == ("q000", FIRST, THIRD) else "a")
        for item in ("q000", "q001", "q002")
        for first, second in combinations(MODELS, 2)
    ]
    add_conversation_verdicts(path, "judge-1", verdicts)
    with Bundle.open(path) as opened:
        add_annotator(opened, "ana")
        create_campaign(opened, CampaignSpec(CAMPAIGN, "arena-battle", seed=3))
        yield opened


def run(qtbot: QtBot, process: PanelProcess, job: Callable[[], Any]) -> Any:
    results, errors = run_and_wait(qtbot, process, job)
    assert not errors, errors
    return results[0]


def panels(qtbot: QtBot, process: PanelProcess, bundle: Bundle, item: int) -> dict[str, Any]:
    """The three panels' results as the worker computes them."""
    ref = bundle_ref(bundle)
    graph = run(
        qtbot, process, partial(panel_computations.preference_graph, ref, item, None, "all", "t")
    )
    return {
        "cycles": run(qtbot, process, partial(panel_computations.cycles, ref, "all")),
        "losers": list(
            run(qtbot, process, partial(panel_computations.failures, ref, LOSES_TO_ALL, FIRST))
        ),
        "agreement": run(
            qtbot, process, partial(panel_computations.agreement, ref, "human", "judge")
        ).result.to_json(),
        "graph": graph.edges,
    }


def fresh(bundle: Bundle, item: int) -> dict[str, Any]:
    return {
        "cycles": items_by_cycles(bundle),
        "losers": list(failure_cases(bundle, LOSES_TO_ALL, FIRST)),
        "agreement": agreement(bundle, "human", "judge").to_json(),
        "graph": [
            (loser, winner, data["votes"], data["consensus"])
            for loser, winner, data in sorted(item_graph(bundle, item).edges(data=True))
        ],
    }


def test_a_vote_is_read_incrementally_by_the_worker(
    qtbot: QtBot, process: PanelProcess, bundle: Bundle
) -> None:
    with bundle.read_session() as session:
        item = session.query(Item).filter(Item.external_id == "q000").one().id
    annotator = AnnotationSession(bundle, CAMPAIGN, "ana")

    def vote(choice: str) -> None:
        task = annotator.next_task()
        assert task is not None
        annotator.cast(task.token, choice)

    vote("a")  # a human side for the agreement panel
    assert panels(qtbot, process, bundle, item) == fresh(bundle, item)
    # three frames kept: the pooled judgments, and each agreement side
    assert run(qtbot, process, panel_computations.judgment_reads).full_reads == 3

    for choice in ("b", "tie"):
        vote(choice)
        assert panels(qtbot, process, bundle, item) == fresh(bundle, item)
    reads: JudgmentReads = run(qtbot, process, panel_computations.judgment_reads)
    assert (reads.full_reads, reads.incremental_reads) == (3, 6)  # each frame once a vote

    annotator.undo()
    assert panels(qtbot, process, bundle, item) == fresh(bundle, item)
    assert run(qtbot, process, panel_computations.judgment_reads).full_reads == 6
