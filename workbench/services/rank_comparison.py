"""Rank correlation between any two leaderboards, whatever their items (``workbench
compare-rankings``): each side is a ``workbench leaderboard --json`` output, a file of rating
rounds as FastChat and WildVision-Bench publish them (``bootstrapping_results.jsonl``), or a
bundle, whose leaderboard is computed under the default request."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.errors import WorkbenchError
from workbench.services.to_json import jsonable
from workbench.stats.errors import StatsInputError
from workbench.stats.rank_agreement import RankComparison, compare_boards

#: the interval a file of bootstrap rounds gives: the 2.5th and 97.5th percentiles over all its
#: lines, as WildVision-Bench's show_results.py takes them
INTERVAL = (0.025, 0.975)


class RankingInputError(WorkbenchError):
    """A leaderboard that cannot be read or compared; names the file."""


@dataclass(frozen=True)
class Ranking:
    """One side: where it came from, what it is, and its board (index model; ``rating``,
    ``lower``, ``upper``; bounds NaN when the source has none)."""

    source: str
    kind: str
    board: pd.DataFrame


def _board_of_leaderboard_json(document: dict[str, Any], name: str) -> pd.DataFrame:
    rows = document.get("models")
    if not isinstance(rows, list) or not rows:
        raise RankingInputError(f"{name}: a leaderboard JSON needs a non-empty 'models' list")
    try:
        frame = pd.DataFrame(
            {
                "model": [str(row["model"]) for row in rows],
                "rating": [float(row["rating"]) for row in rows],
                "lower": [_bound(row.get("ci_lower")) for row in rows],
                "upper": [_bound(row.get("ci_upper")) for row in rows],
            }
        )
    except (KeyError, TypeError, ValueError) as error:
        raise RankingInputError(
            f"{name}: each of 'models' needs a 'model' and a numeric 'rating' ({error})"
        ) from None
    return frame.set_index("model")


def _bound(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else math.nan


def _board_of_rounds(lines: list[dict[str, Any]], name: str) -> pd.DataFrame:
    """The first line is the fit on all battles, the others bootstrap rounds."""
    try:
        rounds = pd.DataFrame(lines, dtype=float)
    except (TypeError, ValueError) as error:
        raise RankingInputError(
            f"{name}: every line must map models to ratings ({error})"
        ) from None
    board = pd.DataFrame({"rating": rounds.iloc[0]})
    if len(rounds) > 1:
        board["lower"] = rounds.quantile(INTERVAL[0])
        board["upper"] = rounds.quantile(INTERVAL[1])
    else:
        board["lower"] = board["upper"] = math.nan
    board.index.name = "model"
    return board.dropna(subset=["rating"])


def read_ranking(location: str | Path) -> Ranking:
    """One side of a comparison from a file or a bundle (see the module docstring)."""
    name = str(location)
    path = Path(location)
    if path.suffix in (".json", ".jsonl") or (path.is_file() and _looks_like_json(path)):
        return _read_file(path, name)
    return _read_bundle(name)


def _looks_like_json(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(1).lstrip()[:1] in (b"{", b"[")


def _read_file(path: Path, name: str) -> Ranking:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RankingInputError(f"cannot read {name}: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        document = None
    if isinstance(document, dict) and "models" in document:
        return Ranking(name, "leaderboard JSON", _board_of_leaderboard_json(document, name))
    if isinstance(document, list):
        raise RankingInputError(
            f"{name} is a JSON list (battles?), not a leaderboard: give `workbench leaderboard "
            "--json` output, JSON Lines of {model: rating}, or a bundle"
        )
    try:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as error:
        raise RankingInputError(
            f"{name} is neither a leaderboard JSON nor JSON Lines of ratings: {error}"
        ) from None
    if not lines or not all(isinstance(line, dict) for line in lines):
        raise RankingInputError(
            f"{name}: expected `workbench leaderboard --json` output or JSON Lines of "
            "{model: rating} (first line the fit, the others bootstrap rounds)"
        )
    return Ranking(name, f"rating rounds ({len(lines)} lines)", _board_of_rounds(lines, name))


def _read_bundle(name: str) -> Ranking:
    from workbench.services.analysis import AnalysisError, LeaderboardRequest, leaderboard
    from workbench.storage import Bundle

    try:
        with Bundle.open(name, read_only=True) as bundle:
            result = leaderboard(bundle, LeaderboardRequest())
    except AnalysisError as error:
        raise RankingInputError(f"{name}: {error}") from None
    table = result.table.set_index("model")
    board = pd.DataFrame(
        {
            "rating": table["rating"],
            "lower": table.get("ci_lower", math.nan),
            "upper": table.get("ci_upper", math.nan),
        }
    )
    return Ranking(name, f"bundle leaderboard ({result.request.filters().describe()})", board)


@dataclass(frozen=True)
class RankingComparisonResult:
    a: Ranking
    b: Ranking
    comparison: RankComparison

    def ranks(self) -> pd.DataFrame:
        """The shared models with their rating and rank (1 = best, ties averaged) on each side."""
        models = list(self.comparison.models)
        frame = pd.DataFrame(
            {
                "model": models,
                "rating_a": self.a.board.loc[models, "rating"].to_numpy(),
                "rating_b": self.b.board.loc[models, "rating"].to_numpy(),
            }
        )
        frame["rank_a"] = frame["rating_a"].rank(ascending=False)
        frame["rank_b"] = frame["rating_b"].rank(ascending=False)
        return frame.sort_values(["rank_a", "model"]).reset_index(drop=True)

    def to_json(self) -> dict[str, Any]:
        """What ``workbench compare-rankings --json`` prints."""
        found = self.comparison
        order = found.ci_order
        return jsonable(
            {
                "a": {"source": self.a.source, "kind": self.a.kind, "models": len(self.a.board)},
                "b": {"source": self.b.source, "kind": self.b.kind, "models": len(self.b.board)},
                "shared_models": len(found.models),
                "only_a": list(found.only_a),
                "only_b": list(found.only_b),
                "spearman": found.spearman,
                "kendall_tau": found.kendall_tau,
                "pearson": found.pearson,
                "confidence_agreement": None
                if order is None
                else {
                    "pairs": order.pairs,
                    "agree": order.agree,
                    "contradict": order.contradict,
                    "share": order.share,
                },
                "ranks": self.ranks().to_dict("records"),
            }
        )


def compare_rankings(location_a: str | Path, location_b: str | Path) -> RankingComparisonResult:
    """Compare two leaderboards (``workbench compare-rankings A B``) over the models they
    share."""
    a, b = read_ranking(location_a), read_ranking(location_b)
    try:
        comparison = compare_boards(a.board, b.board)
    except StatsInputError as error:
        raise RankingInputError(f"{a.source} and {b.source}: {error}") from None
    return RankingComparisonResult(a, b, comparison)
