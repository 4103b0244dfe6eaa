"""VisIT-Bench judge-human agreement by majority (plugins/workbench_visit_bench/agreement.py)."""

from __future__ import annotations

from typing import Any

import pytest
from workbench_visit_bench.agreement import TIE_CREDIT, agreement_by_majority
from workbench_visit_bench.score_manifest import VISIT_BENCH_SCORES

from tests.stats.frames import judgments_frame


def panel(item: int, votes_for_x: int, swap_every: int = 2) -> list[dict[str, Any]]:
    """Five forced-choice human votes on x vs y, shown in alternating orders."""
    rows = []
    for rater in range(5):
        prefers_x = rater < votes_for_x
        x_first = rater % swap_every == 0
        winner_side = ("a" if x_first else "b") if prefers_x else ("b" if x_first else "a")
        rows.append(
            {
                "kind": "human",
                "evaluator": f"r{rater}",
                "item": item,
                "turn": 1,
                "model_a": "x" if x_first else "y",
                "model_b": "y" if x_first else "x",
                "outcome": winner_side,
                "family": "rcc" if item % 2 else "vasr",
            }
        )
    return rows


def verdict(item: int, judge: str, winner: str, x_first: bool = True) -> dict[str, Any]:
    side = {True: {"x": "a", "y": "b", "tie": "tie"}, False: {"x": "b", "y": "a", "tie": "tie"}}
    return {
        "kind": "judge",
        "evaluator": judge,
        "item": item,
        "turn": 1,
        "model_a": "x" if x_first else "y",
        "model_b": "y" if x_first else "x",
        "outcome": side[x_first][winner],
    }


def test_agreement_is_split_by_majority_level_with_one_answer_per_comparison() -> None:
    rows = [
        *panel(1, 5),  # 5/5 for x
        *panel(2, 4),  # 4/5 for x
        *panel(3, 3),  # 3/5 for x
        *panel(4, 0),  # 5/5 for y
        verdict(1, "judge", "x"),
        verdict(1, "judge", "x", x_first=False),  # both orders agree: x, as the humans
        verdict(2, "judge", "y"),
        verdict(2, "judge", "x", x_first=False),  # the orders differ: a tie, half agreement
        verdict(3, "judge", "tie"),  # a tie (or an unreadable answer): half agreement
        verdict(4, "judge", "y", x_first=False),  # one order only: its answer
    ]
    table = agreement_by_majority(judgments_frame(rows)).set_index("majority")
    assert list(table.index) == ["5/5", "4/5", "3/5", "all"]
    assert table.loc["5/5", "comparisons"] == 2
    assert table.loc["5/5", "agreement"] == pytest.approx(1.0)
    assert table.loc["4/5", "judge_ties"] == 1
    assert table.loc["4/5", "agreement"] == pytest.approx(TIE_CREDIT)
    assert table.loc["3/5", "agreement"] == pytest.approx(TIE_CREDIT)
    assert table.loc["all", "comparisons"] == 4
    assert table.loc["all", "agreement"] == pytest.approx((2 + 2 * TIE_CREDIT) / 4)


def test_a_wrong_answer_earns_nothing_and_reference_pairs_are_left_out() -> None:
    against_reference = [
        {**row, **{side: "reference" for side in ("model_a", "model_b") if row[side] == "y"}}
        for row in panel(2, 5)
    ]
    rows = [
        *panel(1, 5),
        verdict(1, "judge", "y"),
        verdict(1, "judge", "y", x_first=False),
        *against_reference,
        {**verdict(2, "judge", "x"), "model_b": "reference"},
    ]
    table = agreement_by_majority(judgments_frame(rows)).set_index("majority")
    assert table.loc["5/5", "comparisons"] == 1  # item 1; item 2 is against the reference
    assert table.loc["5/5", "agreement"] == pytest.approx(0.0)


def test_judgments_of_the_whole_item_without_a_turn_line_up() -> None:
    """Imported panels, campaign votes and judge runs on a whole item carry no turn (NULL)."""
    rows = [{**row, "turn": None} for row in [*panel(1, 4), verdict(1, "judge", "x")]]
    table = agreement_by_majority(judgments_frame(rows)).set_index("majority")
    assert table.loc["4/5", "agreement"] == pytest.approx(1.0)


def test_score_tables_include_win_rate_against_the_reference() -> None:
    rows = [
        {
            "kind": "human",
            "evaluator": "r1",
            "item": 1,
            "model_a": "m",
            "model_b": "reference",
            "outcome": "a",
            "family": "rcc",
        },
        {
            "kind": "human",
            "evaluator": "r2",
            "item": 2,
            "model_a": "reference",
            "model_b": "m",
            "outcome": "a",
            "family": "rcc",
        },
        {
            "kind": "human",
            "evaluator": "r1",
            "item": 3,
            "model_a": "reference",
            "model_b": "m",
            "outcome": "b",
            "family": "vasr",
        },
    ]
    tables = VISIT_BENCH_SCORES.compute(judgments_frame(rows))
    assert tables["judge_human_agreement"].empty
    overall = tables["win_rate_vs_reference"].set_index("model")
    assert overall.loc["m", "win_rate"] == pytest.approx(2 / 3)
    by_family = tables["win_rate_vs_reference_by_family"].set_index(["model", "family"])
    assert by_family.loc[("m", "rcc"), "win_rate"] == pytest.approx(0.5)
    assert by_family.loc[("m", "vasr"), "win_rate"] == pytest.approx(1.0)
