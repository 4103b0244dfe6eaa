"""The contract between ``workbench scores`` and the plugins that know a benchmark's own scores
(ConvBench's S0..S3, R1, R2; VisIT-Bench's agreement by majority): a plugin lists
:class:`BenchmarkScores` objects in ``Plugin.scores``."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

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
