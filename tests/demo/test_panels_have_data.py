"""The demo bundle gives every analysis panel something to show, asked through the same services
the panels and CLI commands call: human and judge leaderboards, human-vs-judge agreement with
kappa, confusion matrix and position bias, preference cycles tied to items, failure cases, and
raters who disagree about as often as real annotators."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest
from sqlalchemy import func, select

from workbench.demo.judge_run import SIMULATED_JUDGE
from workbench.demo.votes import RATERS
from workbench.services import analysis
from workbench.stats.cycle_scopes import POOLED_PER_ITEM
from workbench.storage import Bundle
from workbench.storage.models import JudgeRun, JudgeVerdict


@pytest.fixture(scope="module")
def bundle(demo_bundle: Path) -> Iterator[Bundle]:
    with Bundle.open(demo_bundle) as opened:
        yield opened


def test_the_judge_run_is_stored_as_a_labelled_completed_run(bundle: Bundle) -> None:
    with bundle.read_session() as session:
        run = session.scalars(select(JudgeRun)).one()
        verdicts = session.scalar(select(func.count()).select_from(JudgeVerdict))
        flips = session.scalar(select(func.count()).where(JudgeVerdict.position_flip.is_(True)))
        steady = session.scalar(select(func.count()).where(JudgeVerdict.position_flip.is_(False)))
    assert run.name == run.judge_model == SIMULATED_JUDGE
    assert "demo" in run.judge_model and run.status == "completed"
    assert run.parameters["simulated"] is True and run.base_url is None
    # every comparison is judged in both orders; some verdicts change with the order
    assert verdicts and flips and steady and flips + steady == verdicts


def test_leaderboard_compares_humans_and_the_judge(bundle: Bundle) -> None:
    boards = {
        source: analysis.leaderboard(bundle, analysis.LeaderboardRequest(kind=source, bootstrap=0))
        for source in ("human", "judge")
    }
    for result in boards.values():
        assert len(result.table) == 5
        assert result.table.iloc[0]["model"] != "demo/guesser"
    assert boards["judge"].battles > boards["human"].battles / 3


def test_agreement_shows_kappa_confusion_and_position_bias(bundle: Bundle) -> None:
    result = analysis.human_judge_agreement(bundle)
    assert result.summary.comparisons >= 40
    # the judge agrees with the humans clearly above chance, and not perfectly
    assert 0.1 < result.summary.cohen_kappa < 0.9
    assert result.confusion.to_numpy().sum() == result.summary.comparisons
    off_diagonal = result.confusion.to_numpy().sum() - result.confusion.to_numpy().trace()
    assert off_diagonal > 0
    bias = result.position_bias.set_index("evaluator")
    assert set(bias.index) == {*RATERS, SIMULATED_JUDGE}
    assert bias.loc[SIMULATED_JUDGE, "first_win_share"] > 0.6
    assert bias.loc[SIMULATED_JUDGE, "p_value"] < 0.05
    for rater in RATERS:
        assert 0.3 < bias.loc[rater, "first_win_share"] < 0.7


def test_raters_disagree_at_realistic_rates(bundle: Bundle) -> None:
    # MT-Bench's human experts agree with each other on 63% of votes counting ties (Zheng et
    # al. 2023, Table 2); the simulated raters should neither always agree nor be random.
    for first, second in itertools.combinations(RATERS, 2):
        summary = analysis.agreement(bundle, f"rater:{first}", f"rater:{second}").summary
        assert 0.4 < summary.agreement_with_ties < 0.85, (first, second)
        assert summary.cohen_kappa > 0.15, (first, second)


def test_contradiction_graph_has_a_cycle_linked_to_its_item(bundle: Bundle) -> None:
    # the demo's raters are each consistent: their cycles appear when the item's judgments are
    # pooled (the Graph panel's "pooled per item" scope), not within one evaluator
    assert analysis.items_by_cycles(bundle) == []
    rows = analysis.items_by_cycles(bundle, scope=POOLED_PER_ITEM)
    assert rows
    for row in rows:
        graph = analysis.item_graph(bundle, row.item)
        assert not nx.is_directed_acyclic_graph(graph)
        assert row.label.startswith("demo/")


def test_failures_panel_lists_cases(bundle: Bundle) -> None:
    disagreements = analysis.failure_cases(bundle, analysis.DISAGREEMENT)
    cycles = analysis.failure_cases(bundle, analysis.CYCLES, scope=POOLED_PER_ITEM)
    losers = analysis.failure_cases(bundle, analysis.LOSES_TO_ALL, "demo/guesser")
    assert disagreements and cycles and losers
