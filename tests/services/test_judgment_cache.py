"""The panels' kept judgments (services/judgment_cache.py): after votes, an undo and an
adjudication, on items with no category, family or language, every analysis the Agreement,
Graph and Failures panels show equals the one computed from a fresh read; a vote is read
incrementally and re-examines only the items it touched; an undo or an adjudication makes a
full read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sqlalchemy import update

from tests.importers.canonical_helpers import write_jsonl
from tests.services.campaign_helpers import MODELS, campaign_item
from tests.services.campaign_ops_bundle import PLUGINS
from tests.stats.bundle_helpers import add_judge_verdicts
from workbench.services.adjudication import disagreements, record_adjudication
from workbench.services.analysis import (
    CYCLES,
    LOSES_TO_ALL,
    AnalysisError,
    agreement,
    edge_judgments,
    failure_cases,
    item_graph,
    items_by_cycles,
)
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.services.judgment_cache import JudgmentCache
from workbench.services.outcomes import OutcomeFilter, judgments_frame
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Item, JudgeVerdict

CAMPAIGN = "arena"
FIRST, SECOND, THIRD = MODELS[:3]
ITEMS = ("q000", "q001", "q002")


@pytest.fixture
def bundle(tmp_path: Path) -> Iterator[Bundle]:
    lines = []
    for external in ITEMS:
        line = campaign_item(external, (FIRST, SECOND, THIRD), turns=1)
        for attribute in ("category", "family", "language"):
            line.pop(attribute, None)  # WildVision-Bench items have none of them
        lines.append(line)
    path = tmp_path / "bundle.wbb"
    import_files(path, [write_jsonl(tmp_path / "src", lines)], "jsonl")
    # the judge: a cycle on q000, THIRD losing to both others on q001
    add_conversation_verdicts(
        path,
        "judge-1",
        [
            ("q000", FIRST, SECOND, "a"),
            ("q000", SECOND, THIRD, "a"),
            ("q000", THIRD, FIRST, "a"),
            ("q001", FIRST, THIRD, "a"),
            ("q001", SECOND, THIRD, "a"),
        ],
    )
    with Bundle.open(path) as opened:
        with opened.read_session() as session:
            assert all(
                (item.category, item.family, item.language) == (None, None, None)
                for item in session.query(Item)
            )
        for handle in ("ana", "bob"):
            add_annotator(opened, handle)
        create_campaign(
            opened, CampaignSpec(CAMPAIGN, "arena-battle", votes_per_pair=2, seed=1), PLUGINS
        )
        yield opened


def add_conversation_verdicts(
    path: Path, run: str, verdicts: list[tuple[str, str, str, str | None]]
) -> None:
    """Judge verdicts on the whole conversation (no turn), as an arena campaign's votes are,
    so the two can be compared."""
    add_judge_verdicts(path, run, verdicts)
    with Bundle.open(path) as opened, opened.session() as session:
        session.execute(update(JudgeVerdict).values(turn_index=None))


def item_ids(bundle: Bundle) -> list[int]:
    with bundle.read_session() as session:
        return sorted(item.id for item in session.query(Item))


def results(bundle: Bundle, cache: JudgmentCache | None) -> str:
    """What the Agreement, Graph and Failures panels show, as one comparable text."""
    try:
        compared: Any = agreement(bundle, cache=cache).to_json()
    except AnalysisError as error:  # before the first vote: no human side yet
        compared = str(error)
    found: dict[str, Any] = {
        "agreement": compared,
        "cycles": [asdict(row) for row in items_by_cycles(bundle, cache=cache)],
        "failures": [
            failure_cases(bundle, CYCLES, cache=cache).to_json(),
            *(
                failure_cases(bundle, LOSES_TO_ALL, model, cache=cache).to_json()
                for model in (FIRST, SECOND, THIRD)
            ),
        ],
        "graphs": [
            sorted(item_graph(bundle, item, cache=cache).edges(data=True))
            for item in item_ids(bundle)
        ],
        "edge": edge_judgments(bundle, (FIRST, SECOND), cache=cache).to_dict("records"),
    }
    return json.dumps(found, sort_keys=True, default=str)


def fresh_frame(bundle: Bundle, *filters: OutcomeFilter) -> pd.DataFrame:
    with bundle.read_session() as session:
        return judgments_frame(session, *filters, pairwise=True)


def test_kept_results_equal_fresh_ones_after_votes_an_undo_and_an_adjudication(
    bundle: Bundle,
) -> None:
    cache = JudgmentCache()
    assert results(bundle, cache) == results(bundle, None)
    # one frame per filter set: the pooled judgments, and each agreement side
    first_reads = cache.full_reads
    assert first_reads == 3
    assert cache.incremental_reads == 0

    votes = 0
    # both answer "Response 1": bob, second on every task, is shown each the other way round,
    # so the two prefer different models
    for handle, choice in (("ana", "a"), ("bob", "a")):
        session = AnnotationSession(bundle, CAMPAIGN, handle, PLUGINS)
        while (task := session.next_task()) is not None:
            session.cast(task.token, choice)
            votes += 1
            if handle == "ana" or session.next_task() is None:
                assert results(bundle, cache) == results(bundle, None)
    assert votes >= 12
    # the votes were read as additions, each at the first use after it
    assert cache.full_reads == first_reads
    assert cache.incremental_reads >= 10
    pd.testing.assert_frame_equal(cache.pairwise(bundle, OutcomeFilter()), fresh_frame(bundle))

    # an undo retracts a vote: every kept frame is read again
    session.undo()
    assert results(bundle, cache) == results(bundle, None)
    assert cache.full_reads == 2 * first_reads

    # settling a task the two annotators disagree on: read again as well
    tasks = [row["task"] for row in disagreements(bundle, CAMPAIGN)]
    assert tasks
    record_adjudication(bundle, CAMPAIGN, tasks[0], "b", "", "lead", plugins=PLUGINS)
    assert results(bundle, cache) == results(bundle, None)
    assert cache.full_reads == 3 * first_reads
    assert agreement(bundle).summary.comparisons > 0  # compared, not refused
    both = (OutcomeFilter(include_derived=True),)
    pd.testing.assert_frame_equal(cache.pairwise(bundle, *both), fresh_frame(bundle, *both))
    assert results(bundle, cache) == results(bundle, None)


def test_a_vote_reexamines_only_the_items_it_touched(bundle: Bundle) -> None:
    cache = JudgmentCache()
    assert [row.label for row in items_by_cycles(bundle, cache=cache)] == ["tests/q000"]
    failure_cases(bundle, LOSES_TO_ALL, THIRD, cache=cache)
    judged = len(ITEMS) - 1  # the judge judged two of the three items
    assert (cache.full_reads, cache.incremental_reads, cache.items_computed) == (1, 0, 2 * judged)

    session = AnnotationSession(bundle, CAMPAIGN, "ana", PLUGINS)
    task = session.next_task()
    assert task is not None
    session.cast(task.token, "a")
    before = cache.items_computed
    kept = items_by_cycles(bundle, cache=cache)
    assert (cache.full_reads, cache.incremental_reads) == (1, 1)
    assert cache.items_computed == before + 1  # the voted item only
    losers = failure_cases(bundle, LOSES_TO_ALL, THIRD, cache=cache)
    assert cache.incremental_reads == 1  # nothing new since: nothing read
    assert cache.items_computed == before + 2
    assert kept == items_by_cycles(bundle)
    assert losers == failure_cases(bundle, LOSES_TO_ALL, THIRD)


def test_the_cache_keeps_a_bounded_number_of_frames(bundle: Bundle) -> None:
    cache = JudgmentCache(max_kept=1)
    judge, human = OutcomeFilter(kinds=("judge",)), OutcomeFilter(kinds=("human",))
    assert len(cache.pairwise(bundle, judge)) == 5
    assert cache.pairwise(bundle, human).empty
    cache.pairwise(bundle, judge)  # dropped for the human frame: read in full again
    assert cache.full_reads == 3
    cache.pairwise(bundle, judge)
    assert cache.full_reads == 3
    with pytest.raises(ValueError, match="at least one"):
        JudgmentCache(max_kept=0)


def test_a_frame_first_read_empty_takes_the_types_of_the_rows_added(bundle: Bundle) -> None:
    cache = JudgmentCache()
    human = OutcomeFilter(kinds=("human",))
    assert cache.pairwise(bundle, human).empty
    session = AnnotationSession(bundle, CAMPAIGN, "ana", PLUGINS)
    for choice in ("a", "tie"):
        task = session.next_task()
        assert task is not None
        session.cast(task.token, choice)
        pd.testing.assert_frame_equal(cache.pairwise(bundle, human), fresh_frame(bundle, human))
    assert (cache.full_reads, cache.incremental_reads) == (1, 2)


def test_agreement_after_a_vote_recomputes_only_the_voted_item(bundle: Bundle) -> None:
    cache = JudgmentCache()
    session = AnnotationSession(bundle, CAMPAIGN, "ana", PLUGINS)
    for _ in range(3):  # a human side to compare with the judge's
        task = session.next_task()
        assert task is not None
        session.cast(task.token, "a")
    kept = agreement(bundle, cache=cache, bootstrap=20, seed=3)
    assert kept.to_json() == agreement(bundle, bootstrap=20, seed=3).to_json()
    task = session.next_task()
    assert task is not None
    session.cast(task.token, "b")
    before = (cache.full_reads, cache.items_computed)
    kept = agreement(bundle, cache=cache, bootstrap=20, seed=3)
    # the human side's tables are recomputed on the voted item alone; the judge's are kept
    assert (cache.full_reads, cache.items_computed) == (before[0], before[1] + 1)
    assert kept.to_json() == agreement(bundle, bootstrap=20, seed=3).to_json()
    # overlapping sides are separated on the frames, not on kept tables: still equal
    other = AnnotationSession(bundle, CAMPAIGN, "bob", PLUGINS)
    while (task := other.next_task()) is not None:
        other.cast(task.token, "b")
    overlapping = agreement(bundle, "human", "annotator:ana", cache=cache)
    assert overlapping.overlap > 0
    assert overlapping.to_json() == agreement(bundle, "human", "annotator:ana").to_json()
