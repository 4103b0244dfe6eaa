"""The contract between ``workbench scores`` and the plugins that know a benchmark's own scores
(ConvBench's S0..S3, R1, R2; VisIT-Bench's agreement by majority): a plugin lists
:class:`BenchmarkScores` objects in ``Plugin.scores``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from workbench.errors import WorkbenchError

if TYPE_CHECKING:  # pandas is loaded when scores are computed, not when plugins are listed
    import pandas as pd
    from matplotlib.figure import Figure

ScoreTables: TypeAlias = "dict[str, pd.DataFrame]"


def loaded_on_call(module: str, function: str) -> Callable[..., Any]:
    """``module.function``, imported when first called. Plugin manifests name their score
    functions with it, so loading the registry (which every command and the annotator's window
    do) does not import pandas and the score code."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    call.__name__ = function
    call.__qualname__ = f"{module}.{function}"
    return call


#: a change a provider may give a :class:`Boards` call besides the request's fields: the board
#: counts every source the scores' filters keep, not only the provider's (an arena's human
#: votes and a benchmark's judge verdicts come from different imports)
ANY_SOURCE = "any_source"


class BoardUnavailable(WorkbenchError):
    """A board a score provider asked for that the bundle cannot give (no conversation of more
    than one turn for a Multi-Turn board, no human votes for the arena's side); the message
    says why, and the provider shows it instead of the table."""


class Boards(Protocol):
    """The app's own leaderboards of the open bundle, as a score provider's ``from_boards``
    asks for them: the services answer (``workbench leaderboard``, ``workbench categories``,
    ``workbench compare-rankings``), so a benchmark's page shows the same numbers as those
    commands. Each call takes the scores' filters and the provider's source, changed by the
    :class:`~workbench.services.analysis_request.AnalysisRequest` fields given (``kind``,
    ``multi_turn``, ``exclude_ties``, ``exclude_refusal``, ``style_control``...)."""

    def board(self, **changes: Any) -> pd.DataFrame:
        """The leaderboard's table; :class:`BoardUnavailable` with the reason when there is
        none."""
        ...

    def battles(self, **changes: Any) -> int:
        """How many battles (judgments) that board counts."""
        ...

    def rounds(self, **changes: Any) -> int:
        """The bootstrap rounds that board's intervals come from (the scores' request's; 0 for
        none)."""
        ...

    def command(self, **changes: Any) -> str:
        """The ``workbench leaderboard`` command that prints that board."""
        ...

    def category_outcomes(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Per category, how the battles ended (battles, ties, both-bad and their shares); and
        per model, its answers' refusals (``workbench categories``)."""
        ...

    def compare(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        """Two boards (each given by its changes) compared over their shared models, as
        ``workbench compare-rankings --json`` prints it; :class:`BoardUnavailable` when either
        board is missing."""
        ...


@dataclass(frozen=True)
class BenchmarkScores:
    """``compute`` takes the bundle's judgments of the benchmark's source (the frame of
    :func:`workbench.services.outcomes.judgments_frame`) and returns named tables."""

    name: str
    source: str
    description: str
    compute: Callable[[pd.DataFrame], ScoreTables]
    #: optional: per-turn scores of each item for the failure browser, one row per ``item``
    #: (bundle row id), ``model`` and ``score_name`` with its mean ``value`` and ``share`` (the
    #: value as a share of its scale, 0 worst .. 1 best, so scores of different scales rank
    #: together)
    turn_scores: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    #: provenance columns of the read model (``judge_model``, ``template_name``...) that
    #: ``compute`` reads besides the usual ones; NULL on rows whose store has none
    detail_columns: tuple[str, ...] = ()
    #: optional: tables that need the models' attributes (a frame with ``model`` and numeric
    #: columns such as ``size``, from ``workbench scores --model-attributes FILE``), computed
    #: besides ``compute``'s when the attributes are given
    with_attributes: Callable[[pd.DataFrame, pd.DataFrame], ScoreTables] | None = None
    #: optional: the paper's figures drawn from ``compute``'s tables (ConvBench's per-task
    #: heatmap), by name; a name whose tables lack what it needs is left out. The app's
    #: Benchmark panel shows them under the tables
    figures: Callable[[ScoreTables], dict[str, Figure]] | None = None
    #: optional: tables read off the app's own leaderboards of the bundle rather than computed
    #: from the judgments (VisionArena's boards, style control, categories, rank correlation),
    #: given a :class:`Boards`; added to ``compute``'s
    from_boards: Callable[[Boards], ScoreTables] | None = None
