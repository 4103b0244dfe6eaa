"""The app's own leaderboards of an open bundle, handed to a score provider that reads its
tables off them (:class:`~workbench.stats.benchmark_scores.Boards`: VisionArena's boards, style
control, categories and benchmark-vs-arena rank correlation). Each board is the one
``workbench leaderboard`` prints for the same request, the categories ``workbench categories``,
the comparison ``workbench compare-rankings``: one service per figure, whatever the door. Every
board is fitted with the bootstrap rounds and seed the caller asks for (``workbench scores
--bootstrap``, ``report --bootstrap``, the Benchmark panel's rounds), stated with each board."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

import pandas as pd

from workbench.errors import WorkbenchError
from workbench.services.analysis import leaderboard
from workbench.services.analysis_request import (
    DEFAULT_BOOTSTRAP_ROUNDS,
    DEFAULT_SEED,
    AnalysisRequest,
)
from workbench.services.category_outcomes import category_outcomes
from workbench.services.rank_comparison import BUNDLE_WORD, RankingComparisonResult, ranking_of
from workbench.stats.benchmark_scores import ANY_SOURCE, BoardUnavailable
from workbench.stats.errors import StatsInputError
from workbench.stats.rank_agreement import compare_boards
from workbench.storage import Bundle
from workbench.storage.judgments import OutcomeFilter

_FILTER_FIELDS = frozenset(field.name for field in fields(OutcomeFilter))


class BundleBoards:
    """:class:`~workbench.stats.benchmark_scores.Boards` of ``bundle`` under the scores'
    ``filters``, limited to ``source`` unless the filters name sources (or a call asks for
    :data:`ANY_SOURCE`), their intervals from ``bootstrap`` rounds drawn with ``seed``. Boards
    are computed once per request."""

    def __init__(
        self,
        bundle: Bundle,
        filters: OutcomeFilter,
        source: str,
        bootstrap: int = DEFAULT_BOOTSTRAP_ROUNDS,
        seed: int = DEFAULT_SEED,
    ) -> None:
        self.bundle, self.filters, self.source = bundle, filters, source
        self.bootstrap, self.seed = bootstrap, seed
        self._results: dict[AnalysisRequest, Any] = {}

    def request(self, **changes: Any) -> AnalysisRequest:
        """The leaderboard request of a board: the scores' filters with ``changes``."""
        any_source = bool(changes.pop(ANY_SOURCE, False))
        sources = self.filters.sources or (() if any_source else (self.source,))
        # the board filters (multi_turn, exclude_ties...) are the read model's too
        selection = {name: changes.pop(name) for name in list(changes) if name in _FILTER_FIELDS}
        filters = replace(self.filters, sources=tuple(sources), **selection)
        fitting = {"bootstrap": self.bootstrap, "seed": self.seed, **changes}
        return AnalysisRequest.selecting(filters, **fitting)

    def _result(self, **changes: Any) -> Any:
        request = self.request(**changes)
        if request not in self._results:
            try:
                self._results[request] = leaderboard(self.bundle, request)
            except WorkbenchError as error:  # no judgments, too few battles, bad request
                self._results[request] = BoardUnavailable(str(error))
        found = self._results[request]
        if isinstance(found, BoardUnavailable):
            raise found
        return found

    def board(self, **changes: Any) -> pd.DataFrame:
        return self._result(**changes).table.copy()

    def battles(self, **changes: Any) -> int:
        return int(self._result(**changes).battles)

    def rounds(self, **changes: Any) -> int:
        """The bootstrap rounds that board's intervals come from (0: none)."""
        return int(self._result(**changes).board.bootstrap)

    def command(self, **changes: Any) -> str:
        """The resolved request's command (kind and anchor named), else the request's own."""
        try:
            request = self._result(**changes).request
        except BoardUnavailable:
            request = self.request(**changes)
        return str(request.to_command(output="--json"))

    def category_outcomes(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        sources = self.filters.sources or (self.source,)
        found = category_outcomes(self.bundle, replace(self.filters, sources=tuple(sources)))
        return found.table, found.refusals

    def compare(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        sides = [ranking_of(self._result(**changes), BUNDLE_WORD) for changes in (a, b)]
        try:
            comparison = compare_boards(sides[0].board, sides[1].board)
        except StatsInputError as error:
            raise BoardUnavailable(str(error)) from None
        return RankingComparisonResult(sides[0], sides[1], comparison).to_json()
