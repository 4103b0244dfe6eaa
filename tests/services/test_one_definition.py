"""One definition per statistic, its scope or convention named: preference cycles per evaluator
and pooled per item, agreement by majority and by MT-Bench's convention, and the rank comparison
weighting a decisive verdict as the leaderboard does."""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any, cast

import pytest

from tests.stats.bundle_helpers import build_bundle, item_line
from workbench.cli import main
from workbench.services import analysis
from workbench.stats.cycle_scopes import PER_EVALUATOR, POOLED_PER_ITEM
from workbench.stats.weighting import WILDVISION_DECISIVE_WEIGHT
from workbench.storage import Bundle

MODELS = ("ma", "mb", "mc")


def _vote(winner: str, loser: str, rater: str, kind: str = "human") -> dict[str, Any]:
    return {"kind": kind, "model_a": winner, "model_b": loser, "outcome": "a", "rater": rater}


@pytest.fixture(scope="module")
def condorcet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One item whose three raters each rank the models consistently (no cycle of their own)
    while their pooled majorities form one (ma < mb < mc < ma... as a Condorcet cycle), and one
    item where a single rater contradicts itself."""
    orders = {"r1": ("ma", "mb", "mc"), "r2": ("mb", "mc", "ma"), "r3": ("mc", "ma", "mb")}
    pooled = [
        _vote(order[i], order[j], rater)
        for rater, order in orders.items()
        for i, j in combinations(range(3), 2)
    ]
    own = [_vote("ma", "mb", "r4"), _vote("mb", "mc", "r4"), _vote("mc", "ma", "r4")]
    return cast(
        "Path",
        build_bundle(
            tmp_path_factory.mktemp("condorcet"),
            [item_line("pooled", pooled), item_line("own", own)],
        ),
    )


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cycles_per_evaluator_and_pooled_per_item_are_two_named_answers(
    condorcet: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Bundle.open(condorcet) as bundle:
        per_evaluator = analysis.contradictions(bundle)  # the default scope
        pooled = analysis.contradictions(bundle, scope=POOLED_PER_ITEM)
        listed = {
            scope: [row.label for row in analysis.items_by_cycles(bundle, scope=scope)]
            for scope in (PER_EVALUATOR, POOLED_PER_ITEM)
        }
        failures = {
            scope: [
                row.label for row in analysis.failure_cases(bundle, analysis.CYCLES, scope=scope)
            ]
            for scope in (PER_EVALUATOR, POOLED_PER_ITEM)
        }
    assert per_evaluator.scope == PER_EVALUATOR
    assert list(per_evaluator.per_item["item_external_id"]) == ["own"]
    assert sorted(pooled.per_item["item_external_id"]) == ["own", "pooled"]
    # the panels' list and the failure cases count what the command counts, scope by scope
    assert (
        listed
        == failures
        == {
            PER_EVALUATOR: ["tests/own"],
            POOLED_PER_ITEM: ["tests/own", "tests/pooled"],
        }
    )
    printed = cli_json(capsys, "contradictions", str(condorcet), "--scope", POOLED_PER_ITEM)
    assert printed["request"]["scope"] == POOLED_PER_ITEM
    assert printed["request"]["scope_label"] == "pooled per item"
    assert printed["items_with_cycles"] == 2
    assert printed == json.loads(json.dumps(pooled.to_json()))
    default = cli_json(capsys, "contradictions", str(condorcet))
    assert default["request"]["scope"] == PER_EVALUATOR and default["items_with_cycles"] == 1
    listed_pooled = cli_json(
        capsys, "failures", str(condorcet), "--kind", "cycles", "--scope", POOLED_PER_ITEM
    )
    assert listed_pooled["request"]["scope"] == POOLED_PER_ITEM
    assert [row["label"] for row in listed_pooled["items"]] == listed[POOLED_PER_ITEM]


def test_an_unknown_scope_or_convention_is_refused_by_name(condorcet: Path) -> None:
    with Bundle.open(condorcet) as bundle:
        with pytest.raises(analysis.AnalysisError, match="unknown cycle scope 'everyone'"):
            analysis.contradictions(bundle, scope="everyone")
        with pytest.raises(analysis.AnalysisError, match="unknown cycle scope"):
            analysis.items_by_cycles(bundle, scope="everyone")
        with pytest.raises(analysis.AnalysisError, match="unknown agreement convention 'mean'"):
            analysis.agreement(bundle, "rater:r1", "rater:r2", convention="mean")
    with pytest.raises(SystemExit) as exit_code:
        main(["contradictions", str(condorcet), "--scope", "everyone"])
    assert exit_code.value.code == 2


@pytest.fixture(scope="module")
def split_votes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three humans and a judge on four comparisons: 3-0 with the judge, 2-1 with the judge,
    2-1 against the judge, and a 1-1-1 split (a tie) against the judge's decisive verdict."""
    humans = ("h1", "h2", "h3")
    lines = []
    for name, picks, judge in (
        ("unanimous", ("a", "a", "a"), "a"),
        ("two-with", ("a", "a", "b"), "a"),
        ("two-against", ("b", "b", "a"), "a"),
        ("split", ("a", "b", "tie"), "b"),
    ):
        judgments = [
            {"kind": "human", "model_a": "ma", "model_b": "mb", "outcome": pick, "rater": who}
            for who, pick in zip(humans, picks, strict=True)
        ]
        judgments.append(
            {"kind": "judge", "model_a": "ma", "model_b": "mb", "outcome": judge, "rater": "j"}
        )
        lines.append(item_line(name, judgments))
    return cast("Path", build_bundle(tmp_path_factory.mktemp("split"), lines))


def test_agreement_by_majority_and_by_mt_bench_convention(
    split_votes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Bundle.open(split_votes) as bundle:
        majority = analysis.agreement(bundle, "human", "judge")
        each_vote = analysis.agreement(bundle, "human", "judge", convention="mt-bench")
    # majority: 4 comparisons, agreeing on unanimous and two-with
    assert majority.convention == "majority" and majority.unit == "comparisons"
    assert majority.summary.comparisons == 4
    assert majority.summary.agreement_with_ties == pytest.approx(2 / 4)
    assert majority.summary.agreement_without_ties == pytest.approx(2 / 3)
    # MT-Bench: the judge against each of 12 votes: 3 + 2 + 1 + 1 agree
    assert each_vote.convention == "mt-bench" and each_vote.unit == "votes"
    assert each_vote.summary.comparisons == 12
    assert each_vote.summary.agreement_with_ties == pytest.approx(7 / 12)
    # without ties: the split's tie vote leaves, 11 votes remain
    assert each_vote.summary.comparisons_without_ties == 11
    assert each_vote.summary.agreement_without_ties == pytest.approx(7 / 11)
    assert int(each_vote.confusion.to_numpy().sum()) == 12
    printed = cli_json(
        capsys,
        "agreement",
        str(split_votes),
        "--a",
        "human",
        "--b",
        "judge",
        "--convention",
        "mt-bench",
        "--bootstrap",
        "0",
    )
    assert printed["request"]["convention"] == "mt-bench"
    assert printed["request"]["unit"] == "votes"
    assert printed["request"]["command"] == (
        "workbench agreement BUNDLE --a human --b judge --convention mt-bench "
        "--bootstrap 0 --seed 0 --json"
    )
    assert printed["agreement"] == json.loads(json.dumps(each_vote.to_json()))["agreement"]


@pytest.fixture(scope="module")
def verdicts_and_battles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A judge's five-level verdicts (strength 2 = "much better") and the battles derived from
    them as WildVision-Bench derives them: a decisive verdict three battles, any other one."""
    rng = random.Random(11)
    models = ("m1", "m2", "m3", "m4", "m5")
    lines = []
    for number in range(120):
        first, second = rng.sample(models, 2)
        outcome = rng.choice(("a", "a", "b", "b", "tie"))
        # m3's wins are rarely decisive, m4's always: the weighting reorders them
        winner = first if outcome == "a" else second if outcome == "b" else None
        strength = 2 if winner == "m4" or (winner not in (None, "m3") and rng.random() < 0.4) else 1
        verdict = {
            "kind": "judge",
            "model_a": first,
            "model_b": second,
            "outcome": outcome,
            "strength": strength,
            "rater": "verdicts",
        }
        copies = WILDVISION_DECISIVE_WEIGHT if strength == 2 else 1
        battles = [
            {"kind": "judge", "model_a": first, "model_b": second, "outcome": outcome}
            | {"rater": "battles"}
            for _ in range(int(copies))
        ]
        lines.append(item_line(f"q{number}", [verdict, *battles]))
    return cast("Path", build_bundle(tmp_path_factory.mktemp("weights"), lines))


def test_rank_comparison_weighs_decisive_verdicts_as_the_leaderboard(
    verdicts_and_battles: Path,
) -> None:
    with Bundle.open(verdicts_and_battles) as bundle:
        weighted = analysis.agreement(bundle, "rater:verdicts", "rater:battles")
        once = analysis.agreement(bundle, "rater:verdicts", "rater:battles", decisive_weight=1)
        board = analysis.leaderboard(
            bundle, analysis.LeaderboardRequest(raters=("verdicts",), bootstrap=0, min_battles=0)
        )
    # the same evidence, counted alike: the same ranking
    assert weighted.decisive_weight == WILDVISION_DECISIVE_WEIGHT
    assert weighted.spearman == pytest.approx(1.0) and weighted.kendall == pytest.approx(1.0)
    ratings = weighted.ratings.set_index("model")
    assert list(ratings["rating_a"].rank()) == list(ratings["rating_b"].rank())
    # side a's board is the leaderboard's order of the verdicts
    assert list(ratings["rating_a"].sort_values(ascending=False).index) == list(
        board.table["model"]
    )
    # counting each verdict once (the rule before) ranks them differently
    assert once.spearman < 1.0
