"""The outcomes service (workbench/services/outcomes.py): judgments from all three tables of a
bundle, filters and selectors, and the published WildVision-Bench ratings through a real import."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd
import pytest

from tests.stats.bundle_helpers import (
    add_campaign_votes,
    add_judge_verdicts,
    build_bundle,
    item_line,
)
from tests.stats.conftest import WILDVISION_ANCHOR
from workbench.services.outcomes import (
    OutcomeFilter,
    UnknownSelectorError,
    answer_style_features,
    judgments_frame,
    load_outcomes,
    pairwise_outcomes,
    parse_selector,
)
from workbench.stats.bradley_terry import bradley_terry_ratings
from workbench.stats.style import STYLE_FEATURES, style_counts
from workbench.storage import Bundle


def _wildvision(bundle_path: Path, filters: OutcomeFilter) -> pd.DataFrame:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        return judgments_frame(session, filters)


@pytest.mark.shared_data
def test_imported_battles_give_the_published_ratings(
    wildvision_bundle: Path, published_bootstrap: pd.DataFrame
) -> None:
    battles = pairwise_outcomes(
        _wildvision(wildvision_bundle, OutcomeFilter(raters=("wildvision-battles",)))
    )
    assert len(battles) == 19644
    ratings = bradley_terry_ratings(battles, WILDVISION_ANCHOR)
    published = published_bootstrap.iloc[0]
    assert (ratings - published[ratings.index]).abs().max() < 0.1


@pytest.mark.shared_data
def test_imported_verdicts_weighted_like_wildvision_give_the_published_ratings(
    wildvision_bundle: Path, published_bootstrap: pd.DataFrame
) -> None:
    verdicts = pairwise_outcomes(
        _wildvision(wildvision_bundle, OutcomeFilter(raters=("gpt-4o",))), decisive_weight=3
    )
    assert set(verdicts["strength"]) == {1, 2}
    # aria's verdicts were published after the ratings
    ratings = bradley_terry_ratings(verdicts[verdicts["model_b"] != "aria"], WILDVISION_ANCHOR)
    published = published_bootstrap.iloc[0]
    assert (ratings - published[ratings.index]).abs().max() < 0.1


@pytest.mark.shared_data
def test_style_features_come_from_the_stored_answers(
    wildvision_bundle: Path, wildvision_dir: Path
) -> None:
    battles = pairwise_outcomes(_wildvision(wildvision_bundle, OutcomeFilter(raters=("gpt-4o",))))
    sample = battles[battles["model_b"] == "gpt-4o"].head(5)
    with Bundle.open(wildvision_bundle) as bundle, bundle.read_session() as session:
        features_a, features_b, found = answer_style_features(session, sample)
    assert found.all()
    answers = pd.read_json(
        wildvision_dir / "model_answers" / "gpt-4o.jsonl.gz", lines=True
    ).set_index("question_id")
    for row, external in enumerate(sample["item_external_id"]):
        answer = answers.loc[external]
        counts = style_counts(answer["output"], length=int(answer["token_len"]))
        assert features_b[row].tolist() == [counts[name] for name in STYLE_FEATURES]
    assert (features_a[:, 0] > 0).all()


@pytest.fixture
def mixed_bundle(tmp_path: Path) -> Path:
    """Two items; imported human and judge judgments; a campaign's votes; a judge run."""
    lines = [
        item_line(
            "q1",
            [
                {"kind": "human", "model_a": "x", "model_b": "y", "outcome": "a", "rater": "r1"},
                {
                    "kind": "judge",
                    "model_a": "y",
                    "model_b": "z",
                    "outcome": "tie",
                    "rater": "j",
                    "metadata": {"context": "perfect_perception"},
                },
            ],
            outputs={"x": "# Title\n- one\n- two", "y": "plain words", "z": "**bold**"},
        ),
        item_line(
            "q2",
            [{"kind": "judge", "model_a": "x", "model_b": None, "score": 7.5, "turn": 1}],
            category="humor",
            outputs={"x": "a", "y": "b", "z": "c"},
        ),
    ]
    bundle = build_bundle(tmp_path / "mixed", lines)
    add_campaign_votes(
        bundle,
        "pilot",
        [
            ("ann", "q1", "x", "z", "b"),
            ("ann", "q2", "y", "x", "retracted:a"),
            ("bob", "q2", "y", None, "a"),  # the right side was the reference answer
            ("bob", "q1", "x", "y", "correct"),  # not a pairwise choice
        ],
    )
    add_judge_verdicts(bundle, "run-1", [("q1", "x", "y", "a"), ("q2", "y", "x", None)])
    return cast("Path", bundle)


def test_all_three_tables_are_read(mixed_bundle: Path) -> None:
    with Bundle.open(mixed_bundle) as bundle, bundle.read_session() as session:
        frame = judgments_frame(session)
    assert sorted(frame["origin"].value_counts().items()) == [
        ("campaign", 3),
        ("imported", 3),
        ("judge-run", 1),
    ]
    votes = frame[frame["origin"] == "campaign"].set_index("label")
    assert votes.loc["b", "evaluator"] == "ann"  # ann's retracted vote is gone
    assert votes.loc["a", "model_b"] == "reference"
    assert votes.loc["b", "campaign"] == "pilot"
    # a verification answer is kept as a judgment, but it is no pairwise outcome
    assert pd.isna(votes.loc["correct", "outcome"])
    assert (frame.loc[frame["origin"] == "judge-run", "evaluator"] == "run-1").all()
    imported = frame[frame["origin"] == "imported"]
    assert set(imported["evaluator"]) == {"r1", "j", "jsonl"}
    assert imported.set_index("evaluator").loc["j", "context"] == "perfect_perception"
    assert frame.loc[frame["item_external_id"] == "q2", "category"].eq("humor").all()
    assert set(frame["turn_category"].dropna()) == {"turn-1"}
    grade = imported[imported["score"].notna()]
    assert grade["score"].tolist() == [7.5]
    assert set(pairwise_outcomes(frame)["origin"]) == {"imported", "campaign", "judge-run"}
    assert len(pairwise_outcomes(frame)) == 5


def test_filters_and_selectors(mixed_bundle: Path) -> None:
    with Bundle.open(mixed_bundle) as bundle:
        humans = load_outcomes(bundle, OutcomeFilter(kinds=("human",)))
        votes = load_outcomes(bundle, OutcomeFilter(campaigns=("pilot",), annotators=("ann",)))
        ocr = load_outcomes(bundle, OutcomeFilter(categories=("ocr",), origins=("judge-run",)))
    assert set(humans["evaluator"]) == {"r1", "ann", "bob"}
    assert len(votes) == 1
    assert len(ocr) == 1
    selector = parse_selector("human, campaign, annotator:bob")
    assert selector == OutcomeFilter(kinds=("human",), origins=("campaign",), annotators=("bob",))
    assert parse_selector("run:run-1").describe() == "judge_run=run-1"
    with pytest.raises(UnknownSelectorError, match="cannot read 'robots'"):
        parse_selector("robots")
    with pytest.raises(UnknownSelectorError, match="empty"):
        parse_selector(" , ")


def test_style_features_sum_turns_for_whole_conversation_judgments(tmp_path: Path) -> None:
    lines = [
        item_line(
            "c1",
            [{"kind": "judge", "model_a": "x", "model_b": "y", "outcome": "a"}],
            turns=3,
            outputs={"x": "**a** b", "y": "1. one"},
        )
    ]
    bundle_path = build_bundle(tmp_path / "turns", lines)
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        battles = pairwise_outcomes(judgments_frame(session))
        features_a, features_b, found = answer_style_features(session, battles)
    assert found.tolist() == [True]
    single = style_counts("**a** b")
    assert features_a[0].tolist() == [3 * single[name] for name in STYLE_FEATURES]
    assert features_b[0][STYLE_FEATURES.index("lists")] == 3
    assert np.isfinite(features_b).all()
