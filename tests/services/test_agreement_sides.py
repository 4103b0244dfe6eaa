"""Agreement between overlapping sides never double-counts (the overlap is counted on the
narrower side and reported, or identical sides are refused), and items with no category,
family or language never break an analysis (hypothesis generates them missing)."""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.stats.bundle_helpers import add_campaign_votes, build_bundle, item_line
from workbench.services import analysis
from workbench.storage import Bundle

MODELS = ("x", "y", "z")


def _human(rater: str, a: str, b: str, outcome: str) -> dict[str, Any]:
    return {"kind": "human", "rater": rater, "model_a": a, "model_b": b, "outcome": outcome}


@pytest.fixture
def bundle_path(tmp_path: Path) -> Path:
    lines = [
        item_line(
            f"q{index}",
            [
                _human("h1", "x", "y", "a" if index % 3 else "b"),
                _human("h2", "y", "x", "b"),
                _human("h3", "x", "y", "a"),
            ],
            category=None if index % 2 else "ocr",
        )
        for index in range(8)
    ]
    path = build_bundle(tmp_path / "sides", lines)
    add_campaign_votes(path, "pilot", [("ann", f"q{i}", "x", "y", "a") for i in range(8)])
    return cast("Path", path)


def test_a_rater_within_its_kind_is_counted_once(bundle_path: Path) -> None:
    with Bundle.open(bundle_path) as bundle:
        result = analysis.agreement(bundle, "human", "rater:h1")
    # h1's 8 judgments count on the narrower side only: the humans side keeps h2, h3 and ann
    assert (result.overlap, result.overlap_kept_on) == (8, "b")
    bias = result.position_bias.set_index("evaluator")
    assert bias.loc["h1", "judgments"] == 8  # not 16
    assert result.summary.comparisons == 8
    assert result.to_json()["overlap"] == {"judgments": 8, "kept_on": "b"}


def test_sides_that_select_the_same_judgments_are_refused(bundle_path: Path) -> None:
    with (
        Bundle.open(bundle_path) as bundle,
        pytest.raises(analysis.AnalysisError, match="select the same 8 judgments"),
    ):
        analysis.agreement(bundle, "campaign", "annotator:ann")


_attribute = st.one_of(st.none(), st.sampled_from(["ocr", "chart"]))
# two different models: the importer rejects a model judged against itself
_sides = st.permutations(MODELS).map(lambda models: models[:2])
_judgments = st.lists(
    st.tuples(
        st.sampled_from(["human", "judge"]), _sides, st.sampled_from(["a", "b", "tie", "both_bad"])
    ).map(lambda drawn: (drawn[0], *drawn[1], drawn[2])),
    min_size=1,
    max_size=6,
)
_items = st.lists(
    st.tuples(_attribute, _attribute, st.one_of(st.none(), st.just("English")), _judgments),
    min_size=1,
    max_size=4,
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=_items)
def test_missing_attributes_never_break_an_analysis(items: list[Any]) -> None:
    lines = [
        item_line(
            f"i{index}",
            [
                {"kind": kind, "rater": kind, "model_a": a, "model_b": b, "outcome": outcome}
                for kind, a, b, outcome in judgments
            ],
            category=category,
            family=family,
            language=language,
        )
        for index, (category, family, language, judgments) in enumerate(items)
    ]
    with TemporaryDirectory() as folder:
        path = build_bundle(Path(folder), lines)
        with Bundle.open(path) as bundle:
            rated = any(
                a != b
                for _, _, judgments_ in [(0, 0, j) for *_, j in items]
                for _, a, b, _ in judgments_
            )
            if rated:
                analysis.leaderboard(
                    bundle, analysis.LeaderboardRequest(bootstrap=0, min_battles=0)
                )
            analysis.contradictions(bundle)
            analysis.failure_cases(bundle, analysis.DISAGREEMENT)
            analysis.analysis_choices(bundle)
            try:
                result = analysis.agreement(bundle, "human", "judge")
            except analysis.AnalysisError as error:
                # the only refusals: a side with nothing, or nothing judged by both
                assert "none match" in str(error) or "no comparison in common" in str(error)
            else:
                categories = set(result.by_category["category"])
                assert categories <= {None, "ocr", "chart"}
                assert result.by_category["comparisons"].sum() == result.summary.comparisons


def test_position_bias_is_reported_only_where_positions_were_randomized(
    bundle_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.cli import main

    with Bundle.open(bundle_path) as bundle:
        result = analysis.agreement(bundle, "human", "rater:h1")
    bias = result.position_bias.set_index("evaluator")
    # every rater of this bundle saw one model first every time: no p-value, a sentence
    assert bias.loc["h2", "positions"] == "fixed: y always shown first"
    assert bias["p_value"].isna().all()
    capsys.readouterr()
    assert main(["agreement", str(bundle_path), "--a", "human", "--b", "rater:h1"]) == 0
    out = capsys.readouterr().out
    assert "h2: not measurable, fixed: y always shown first" in out
    assert "8 judgments selected by both sides count on side b only" in out
