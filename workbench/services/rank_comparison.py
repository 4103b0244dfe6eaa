"""Rank correlation between any two leaderboards, whatever their items (``workbench
compare-rankings``): each side is a ``workbench leaderboard --json`` output, a file of rating
rounds as FastChat and WildVision-Bench publish them (``bootstrapping_results.jsonl``), or a
bundle, whose leaderboard answers an analysis request (the default request unless one is given:
another side, judge run or category of the same bundle, ``--a-request``/``--b-request``).

The CLI, the Leaderboard panel's "Compare with..." and the report's rank-comparison section
all call :func:`compare_rankings` (or, on a bundle already open, :func:`compare_requests`), and
every result names its sides' requests and the command that prints it."""

from __future__ import annotations

import json
import math
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from workbench.errors import WorkbenchError
from workbench.services.analysis_request import AnalysisRequest, RequestError
from workbench.services.to_json import jsonable
from workbench.stats.errors import StatsInputError
from workbench.stats.rank_agreement import RankComparison, compare_boards

if TYPE_CHECKING:
    from workbench.services.analysis import LeaderboardResult
    from workbench.storage import Bundle

#: the word that stands for the bundle in a command a panel or the report prints
BUNDLE_WORD = "BUNDLE"
#: the options naming each side's request (leaderboard flags, quoted as one argument)
REQUEST_OPTIONS = ("--a-request", "--b-request")

#: the interval a file of bootstrap rounds gives: the 2.5th and 97.5th percentiles over all its
#: lines, as WildVision-Bench's show_results.py takes them
INTERVAL = (0.025, 0.975)


class RankingInputError(WorkbenchError):
    """A leaderboard that cannot be read or compared; names the file."""


@dataclass(frozen=True)
class Ranking:
    """One side: where it came from, what it is, and its board (index model; ``rating``,
    ``lower``, ``upper``; bounds NaN when the source has none). A bundle's side carries the
    request its board answers, resolved (kind and anchor named); a file's carries None."""

    source: str
    kind: str
    board: pd.DataFrame
    request: AnalysisRequest | None = None


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


def read_ranking(location: str | Path, request: AnalysisRequest | None = None) -> Ranking:
    """One side of a comparison from a file or a bundle (see the module docstring); a bundle's
    board answers ``request`` (None: the default request), a file takes none."""
    name = str(location)
    path = Path(location)
    if path.suffix in (".json", ".jsonl") or (path.is_file() and _looks_like_json(path)):
        if request is not None:
            raise RankingInputError(
                f"{name} is a file of ratings: a request (--a-request/--b-request) applies to a "
                "bundle only"
            )
        return _read_file(path, name)
    return _read_bundle(name, request)


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


def _read_bundle(name: str, request: AnalysisRequest | None) -> Ranking:
    # start-up: SQLAlchemy and the storage layer, not needed to compare two files
    from workbench.storage import Bundle

    with Bundle.open(name, read_only=True) as bundle:
        return bundle_ranking(bundle, request, name)


def bundle_ranking(bundle: Bundle, request: AnalysisRequest | None, source: str) -> Ranking:
    """The side of an open ``bundle``: its leaderboard under ``request`` (None: the default
    request), named ``source``. A request no board answers is refused naming the side."""
    # start-up: the analysis package (SQLAlchemy, scipy), not needed to compare two files
    from workbench.services.analysis import AnalysisError, LeaderboardRequest, leaderboard

    try:
        result = leaderboard(bundle, request or LeaderboardRequest())
    except (AnalysisError, RequestError, StatsInputError) as error:
        raise RankingInputError(f"{source}: {error}") from None
    return ranking_of(result, source)


def ranking_of(result: LeaderboardResult, source: str) -> Ranking:
    """A bundle's leaderboard already computed, as a side named ``source``."""
    table = result.table.set_index("model")
    board = pd.DataFrame(
        {
            "rating": table["rating"],
            "lower": table.get("ci_lower", math.nan),
            "upper": table.get("ci_upper", math.nan),
        }
    )
    return Ranking(
        source,
        f"bundle leaderboard ({result.request.filters().describe()})",
        board,
        result.request,
    )


def request_flags(request: AnalysisRequest) -> str:
    """The ``workbench leaderboard`` flags of ``request`` (its canonical command without the
    command and the bundle), as a side's ``--a-request``/``--b-request`` takes them."""
    prefix = f"workbench leaderboard {BUNDLE_WORD} "
    command = request.to_command(BUNDLE_WORD)
    if not command.startswith(prefix):  # to_command always begins so; a change must show
        raise ValueError(f"unexpected leaderboard command {command!r}")
    return command[len(prefix) :]


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

    def command(self, a: str | None = None, b: str | None = None, output: str = "--json") -> str:
        """The ``workbench compare-rankings`` command that prints these numbers: each side's
        location (``a``/``b`` stand in for it, e.g. ``BUNDLE``) and, for a bundle's side, its
        resolved request's leaderboard flags."""
        words = ["workbench", "compare-rankings"]
        for side, word in ((self.a, a), (self.b, b)):
            location = word if word is not None else side.source
            words.append(location if location == BUNDLE_WORD else shlex.quote(location))
        for option, side in zip(REQUEST_OPTIONS, (self.a, self.b), strict=True):
            if side.request is not None:
                words.append(f"{option}={shlex.quote(request_flags(side.request))}")
        if output:
            words.append(output)
        return " ".join(words)

    def describe(self) -> str:
        """The two requests compared, in one line (the panel's and the report's request)."""
        return " | ".join(
            f"{name}: " + (side.request.describe() if side.request is not None else side.kind)
            for name, side in (("A", self.a), ("B", self.b))
        )

    def to_json(self) -> dict[str, Any]:
        """What ``workbench compare-rankings --json`` prints: each side's request (None for a
        file) and the command beside the figures."""
        found = self.comparison
        order = found.ci_order
        result: dict[str, Any] = jsonable(
            {
                "a": self._side_json(self.a),
                "b": self._side_json(self.b),
                "command": self.command(),
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
        return result

    @staticmethod
    def _side_json(side: Ranking) -> dict[str, Any]:
        return {
            "source": side.source,
            "kind": side.kind,
            "models": len(side.board),
            "request": None if side.request is None else side.request.to_json(),
        }


def compare(a: Ranking, b: Ranking) -> RankingComparisonResult:
    """Compare two sides already read, over the models they share."""
    try:
        comparison = compare_boards(a.board, b.board)
    except StatsInputError as error:
        raise RankingInputError(f"{a.source} and {b.source}: {error}") from None
    return RankingComparisonResult(a, b, comparison)


def compare_rankings(
    location_a: str | Path,
    location_b: str | Path,
    *,
    request_a: AnalysisRequest | None = None,
    request_b: AnalysisRequest | None = None,
) -> RankingComparisonResult:
    """Compare two leaderboards (``workbench compare-rankings A B``) over the models they
    share; a bundle's side answers its request (None: the default request)."""
    return compare(read_ranking(location_a, request_a), read_ranking(location_b, request_b))


def compare_requests(
    bundle: Bundle,
    request_a: AnalysisRequest,
    request_b: AnalysisRequest,
    source: str = BUNDLE_WORD,
) -> RankingComparisonResult:
    """Two requests of one open ``bundle`` compared (the report's human-vs-judge ranks): the
    same boards :func:`compare_rankings` reads when given the bundle's location twice."""
    return compare(
        bundle_ranking(bundle, request_a, source), bundle_ranking(bundle, request_b, source)
    )
