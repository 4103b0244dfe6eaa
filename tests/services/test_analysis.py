"""The analysis panels' queries, without Qt: the same numbers as the statistics engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.gui.panel_bundle import (
    CYCLE_EDGES,
    CYCLE_ITEM,
    SOURCE,
    add_late_votes,
    build_panel_bundle,
)
from workbench.services import analysis
from workbench.services.analysis_request import RequestError
from workbench.services.outcomes import OutcomeFilter, judgments_frame, pairwise_outcomes
from workbench.stats.agreement import agreement_summary, aligned_preferences
from workbench.stats.bradley_terry import Anchor
from workbench.stats.leaderboard import compute_leaderboard
from workbench.storage import Bundle


@pytest.fixture(scope="module")
def bundle_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_panel_bundle(tmp_path_factory.mktemp("analysis"))


@pytest.fixture
def bundle(bundle_path: Path) -> Iterator[Bundle]:
    with Bundle.open(bundle_path) as opened:
        yield opened


def engine_battles(bundle: Bundle, filters: OutcomeFilter | None = None) -> pd.DataFrame:
    with bundle.read_session() as session:
        return pairwise_outcomes(judgments_frame(session, filters))


@pytest.mark.parametrize("kind", ["pooled", "human"])
def test_leaderboard_matches_the_engine(bundle: Bundle, kind: str) -> None:
    request = analysis.LeaderboardRequest(
        kind=kind, anchor="m-b", bootstrap=50, seed=3, min_battles=0
    )
    result = analysis.leaderboard(bundle, request)
    battles = engine_battles(bundle, OutcomeFilter(kinds=() if kind == "pooled" else (kind,)))
    expected = compute_leaderboard(battles, "bt", Anchor("m-b", 1000.0), bootstrap=50, seed=3)
    pd.testing.assert_frame_equal(result.table, expected.table)
    assert result.battles == len(battles)
    assert list(result.win_fraction.index) == list(expected.table["model"])


def test_default_anchor_is_the_most_compared_model(bundle: Bundle) -> None:
    result = analysis.leaderboard(bundle, analysis.LeaderboardRequest(bootstrap=0))
    assert result.request.kind == "human"  # the default: human judgments, as there are some
    battles = engine_battles(bundle, OutcomeFilter(kinds=("human",)))
    counts = pd.concat([battles["model_a"], battles["model_b"]]).value_counts()
    most = sorted(counts.index, key=lambda model: (-counts[model], model))[0]
    assert result.board.anchor is not None and result.board.anchor.model == most


def test_unknown_kind_and_empty_selection_are_explained(bundle: Bundle) -> None:
    with pytest.raises(RequestError, match="--kind: unknown kind"):
        analysis.LeaderboardRequest(kind="robots")
    with pytest.raises(analysis.AnalysisError, match="no pairwise judgments match"):
        analysis.leaderboard(bundle, analysis.LeaderboardRequest(categories=("no-such-category",)))


def test_cycles_and_item_graph(bundle: Bundle) -> None:
    rows = analysis.items_by_cycles(bundle)
    assert [(row.label, row.cycles) for row in rows] == [(f"{SOURCE}/{CYCLE_ITEM}", 1)]
    graph = analysis.item_graph(bundle, rows[0].item)
    assert set(graph.edges) == set(CYCLE_EDGES)
    assert analysis.items_by_cycles(bundle, "judge") == []


def test_failure_cases(bundle: Bundle) -> None:
    def labels(kind: str, model: str | None = None) -> list[str]:
        return [row.label.split("/", 1)[1] for row in analysis.failure_cases(bundle, kind, model)]

    assert labels(analysis.DISAGREEMENT) == ["split"]
    assert labels(analysis.CYCLES) == [CYCLE_ITEM]
    assert labels(analysis.REFERENCE_FLAGGED) == ["flagged"]
    assert labels(analysis.LOSES_TO_ALL, "m-a") == []
    assert "d-loses" in labels(analysis.LOSES_TO_ALL, "m-d")
    with pytest.raises(analysis.AnalysisError):
        analysis.failure_cases(bundle, analysis.LOSES_TO_ALL)


def test_agreement_matches_the_engine(bundle: Bundle) -> None:
    result = analysis.human_judge_agreement(bundle)
    battles = engine_battles(bundle)
    expected = agreement_summary(
        battles[battles["kind"] == "human"], battles[battles["kind"] == "judge"]
    )
    assert result.summary == expected
    assert int(result.confusion.to_numpy().sum()) == expected.comparisons


def test_activity_changes_when_judgments_arrive(tmp_path: Path) -> None:
    path = build_panel_bundle(tmp_path)
    with Bundle.open(path) as opened:
        before = analysis.judgment_activity(opened)
    add_late_votes(path, tmp_path / "late", count=2)
    with Bundle.open(path) as opened:
        after = analysis.judgment_activity(opened)
    assert after[0] == before[0] + 2 and after != before


def test_agreement_breakdowns_match_the_engine_on_each_subset(bundle: Bundle) -> None:
    result = analysis.agreement(bundle, "human", "judge")
    battles = engine_battles(bundle)
    humans, judges = battles[battles["kind"] == "human"], battles[battles["kind"] == "judge"]
    aligned = aligned_preferences(humans, judges)
    categories = battles.drop_duplicates("item").set_index("item")["category"]
    expected_categories = sorted(set(aligned["item"].map(categories)))
    assert list(result.by_category["category"]) == expected_categories
    for row in result.by_category.itertuples(index=False):
        expected = agreement_summary(
            humans[humans["category"] == row.category], judges[judges["category"] == row.category]
        )
        assert row.comparisons == expected.comparisons
        assert row.agreement == pytest.approx(expected.agreement_with_ties)
    pairs = sorted(set(zip(aligned["first"], aligned["second"], strict=True)))
    assert list(
        zip(result.by_model_pair["first"], result.by_model_pair["second"], strict=True)
    ) == (pairs)
    for row in result.by_model_pair.itertuples(index=False):

        def on_pair(frame: pd.DataFrame, row: Any = row) -> pd.DataFrame:
            return frame[
                frame[["model_a", "model_b"]].apply(sorted, axis=1).map(tuple)
                == (row.first, row.second)
            ]

        expected = agreement_summary(on_pair(humans), on_pair(judges))
        assert row.comparisons == expected.comparisons
        assert row.agreement == pytest.approx(expected.agreement_with_ties)


def test_agreement_between_chosen_sides_uses_the_cli_selectors(bundle: Bundle) -> None:
    result = analysis.agreement(bundle, "rater:r1", "rater:r2")
    battles = engine_battles(bundle)
    expected = agreement_summary(
        battles[battles["rater"] == "r1"], battles[battles["rater"] == "r2"]
    )
    # kappa is NaN on one comparison (no chance agreement to correct for): compare with nan_ok
    assert result.summary.to_json() == pytest.approx(expected.to_json(), nan_ok=True)
    assert (result.side_a, result.side_b) == ("rater:r1", "rater:r2")
    # both humans prefer m-a to m-b on item "split", their only shared comparison
    assert expected.comparisons == 1 and result.by_majority["agreement"].tolist() == [1.0]
    with pytest.raises(analysis.AnalysisError, match="none match 'run:nobody'"):
        analysis.agreement(bundle, "human", "run:nobody")


def test_agreement_ratings_are_each_sides_leaderboard(bundle: Bundle) -> None:
    result = analysis.agreement(bundle)
    battles = engine_battles(bundle)
    for side, column in (("human", "rating_a"), ("judge", "rating_b")):
        table = compute_leaderboard(battles[battles["kind"] == side]).table.set_index("model")
        shown = result.ratings.set_index("model")[column]
        assert shown.to_dict() == pytest.approx(table.loc[shown.index, "rating"].to_dict())
    assert result.rank_models == len(result.ratings)


def test_rating_scatter_places_one_point_per_model() -> None:
    from workbench.stats.agreement_plots import rating_scatter

    ratings = pd.DataFrame(
        {"model": ["x", "y", "z"], "rating_a": [1.0, 2.0, 3.0], "rating_b": [3.0, 1.0, 2.0]}
    )
    figure = rating_scatter(ratings, "human", "judge", 0.5, 1 / 3)
    axes = figure.axes[0]
    offsets = axes.collections[0].get_offsets()
    assert isinstance(offsets, np.ma.MaskedArray)  # what matplotlib keeps a scatter's points in
    assert offsets.tolist() == [[1.0, 3.0], [2.0, 1.0], [3.0, 2.0]]
    assert [text.get_text() for text in axes.texts] == ["x", "y", "z"]
    assert "Spearman 0.500" in axes.get_title() and "0.333" in axes.get_title()


def test_leaderboard_campaign_and_language_switches_filter_the_judgments(bundle: Bundle) -> None:
    choices = analysis.analysis_choices(bundle)
    battles = engine_battles(bundle)
    assert choices.languages == tuple(sorted(battles["language"].dropna().unique()))
    assert choices.campaigns == tuple(sorted(battles["campaign"].dropna().unique()))
    language = choices.languages[0]
    request = analysis.LeaderboardRequest(
        languages=(language,), anchor="m-b", bootstrap=20, min_battles=0
    )
    result = analysis.leaderboard(bundle, request)
    expected = engine_battles(bundle, OutcomeFilter(languages=(language,), kinds=("human",)))
    human = battles[battles["kind"] == "human"]
    assert result.battles == len(expected) == (human["language"] == language).sum()
    # the sample's votes are imported, none from a campaign: the side named has no judgments
    with pytest.raises(RequestError, match="--campaign 'pilot': no pairwise judgments"):
        analysis.leaderboard(bundle, analysis.LeaderboardRequest(campaigns=("pilot",)))
    with pytest.raises(analysis.AnalysisError, match="no pairwise judgments match"):
        analysis.leaderboard(bundle, analysis.LeaderboardRequest(languages=("Klingon",)))


def _convbench_lines() -> list[dict[str, Any]]:
    """Three three-turn conversations graded 0-10 per turn by a judge, two models each."""
    lines = []
    for number, grades in enumerate(
        (
            {"m-a": (8, 7, 9), "m-b": (6, 5, 7)},
            {"m-a": (2, 6, 6), "m-b": (9, 9, 8)},
            {"m-a": (7, 7, 7), "m-b": (4, 8, 8)},
        )
    ):
        judgments = [
            {"kind": "judge", "model_a": model, "turn": turn, "score": grade, "rater": "grader"}
            for model, per_turn in grades.items()
            for turn, grade in enumerate(per_turn, start=1)
        ]
        lines.append(
            {
                "format": "vlm-workbench/item",
                "format_version": 1,
                "source": "convbench",
                "id": f"conv-{number}",
                "category": "story",
                "turns": [{"prompt": f"Turn {turn}?"} for turn in (1, 2, 3)],
                "outputs": [
                    {"model": model, "turn": turn, "text": f"{model} at {turn}"}
                    for model in grades
                    for turn in (1, 2, 3)
                ],
                "judgments": judgments,
            }
        )
    return lines


def test_lowest_turn_scores_rank_conversations_by_their_worst_turn(tmp_path: Path) -> None:
    from tests.gui.panel_bundle import write_jsonl
    from workbench.services.importing import import_files

    lines = _convbench_lines()
    path = tmp_path / "conv.wbb"
    import_files(path, [write_jsonl(tmp_path / "conv.jsonl", lines)], "jsonl")
    worst = sorted(
        (
            min(
                (judgment["score"], judgment["model_a"], judgment["turn"])
                for judgment in line["judgments"]
            ),
            line["id"],
        )
        for line in lines
    )
    with Bundle.open(path) as opened:
        rows = analysis.failure_cases(opened, analysis.LOWEST_TURN_SCORES)
    assert [row.label for row in rows] == [f"convbench/{item}" for _, item in worst]
    for row, ((score, model, turn), _) in zip(rows, worst, strict=True):
        assert row.detail == f"S{turn} of {model}: {score:g} (direct)"
    # a bundle without turn scores says so
    with (
        Bundle.open(build_panel_bundle(tmp_path / "none")) as without,
        pytest.raises(analysis.AnalysisError, match="no turn scores"),
    ):
        analysis.failure_cases(without, analysis.LOWEST_TURN_SCORES)
