"""Which benchmarks get a page (the Benchmark panel's list): every registered score provider
whose source has judgments in the bundle, so a new benchmark's page is one provider away."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.stats.bundle_helpers import build_bundle, item_line
from workbench import plugins
from workbench.services.analysis import (
    AnalysisError,
    benchmarks_with_scores,
    score_provider,
    scores,
)
from workbench.stats.benchmark_scores import BenchmarkScores
from workbench.stats.bootstrap import bootstrap_online_elo, median_online_elo
from workbench.storage import Bundle


def _battle_counts(judgments: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {"battles": judgments.groupby("model_a").size().rename("n").reset_index()}


ARENA_LIKE = BenchmarkScores(
    name="arena-like",
    source="arena-like",
    description="a benchmark added by one function",
    compute=_battle_counts,
)


def test_a_registered_provider_gets_a_page_for_bundles_of_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    votes = [{"kind": "human", "model_a": "m1", "model_b": "m2", "outcome": "a"}]
    path = build_bundle(tmp_path / "b", [item_line("i1", votes, source="arena-like")])
    registry = plugins.Registry()
    registry.add(plugins.Plugin(name="arena-like", version="0", description="t"))
    monkeypatch.setattr(plugins, "registry", lambda: registry)
    with Bundle.open(path, read_only=True) as bundle:
        assert benchmarks_with_scores(bundle) == []
        registry.plugins[0] = plugins.Plugin(
            name="arena-like", version="0", description="t", scores=(ARENA_LIKE,)
        )
        assert benchmarks_with_scores(bundle) == ["arena-like"]
        result = scores(bundle, score_provider("arena-like"))
    assert result.command == "workbench scores BUNDLE --benchmark arena-like --json"
    assert result.tables["battles"].to_dict("records") == [{"model_a": "m1", "n": 1}]
    with pytest.raises(AnalysisError, match="available: arena-like"):
        score_provider("nothing")


def test_median_online_elo_is_the_median_of_the_bootstrap_rounds() -> None:
    battles = pd.DataFrame(
        {
            "model_a": ["a", "a", "b", "c", "a", "b"],
            "model_b": ["b", "c", "c", "a", "b", "a"],
            "outcome": ["a", "a", "b", "b", "tie", "b"],
        }
    )
    table = median_online_elo(battles, 50, seed=3).set_index("model")
    samples = bootstrap_online_elo(battles, 50, seed=3)
    for model in "abc":
        assert table.loc[model, "elo"] == pytest.approx(samples[model].median())
        assert table.loc[model, "lower"] == pytest.approx(samples[model].quantile(0.025))
    assert table["battles"].to_dict() == {"a": 5, "b": 4, "c": 3}
    assert list(table["elo"]) == sorted(table["elo"], reverse=True)
