"""A benchmark's own scores, read through its plugin's score provider (``workbench scores``)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from workbench import plugins
from workbench.services.analysis.common import AnalysisError, available_sources
from workbench.services.analysis_request import DEFAULT_BOOTSTRAP_ROUNDS, DEFAULT_SEED
from workbench.services.outcomes import OutcomeFilter, judgments_frame
from workbench.services.to_json import jsonable, records
from workbench.stats.errors import StatsInputError
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import COLUMNS as READ_MODEL_COLUMNS

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class ScoresResult:
    """A benchmark's own scores (``workbench scores``)."""

    benchmark: str
    filters: str
    tables: dict[str, pd.DataFrame]
    #: the ``workbench scores`` command that prints these tables
    command: str = ""

    def to_json(self) -> dict[str, Any]:
        """What ``workbench scores --json`` prints."""
        return jsonable(
            {
                "benchmark": self.benchmark,
                "filters": self.filters,
                "command": self.command,
                "tables": {name: records(table) for name, table in self.tables.items()},
            }
        )


def score_provider(name: str) -> Any:
    """The score provider (:class:`~workbench.stats.benchmark_scores.BenchmarkScores`) a plugin
    registered under ``name``; :class:`AnalysisError` naming those there are otherwise."""
    known = []
    for plugin in plugins.registry().plugins:
        for provider in plugin.scores:
            known.append(provider.name)
            if provider.name == name:
                return provider
    raise AnalysisError(
        f"no plugin provides scores for '{name}' (available: {', '.join(sorted(known)) or 'none'})"
    )


def benchmarks_with_scores(bundle: Bundle) -> list[str]:
    """The score providers (by name, in the registry's order) whose benchmark's source has
    judgments in ``bundle``: the pages the app's Benchmark panel offers. A benchmark gets a
    page by registering a provider in its plugin; nothing here names one."""
    sources = set(available_sources(bundle))
    return [
        provider.name
        for plugin in plugins.registry().plugins
        for provider in plugin.scores
        if provider.source in sources
    ]


def scores_command(
    name: str,
    filters: OutcomeFilter | None = None,
    model_attributes: str | Path | None = None,
    boards: tuple[int, int] | None = None,
) -> str:
    """The ``workbench scores`` command line that prints benchmark ``name``'s tables;
    ``boards``: the bootstrap rounds and seed of the boards it reads off the leaderboards."""
    # cycle: services.report imports the analysis package
    from workbench.services.report import filter_flags

    parts = ["workbench scores BUNDLE", f"--benchmark {shlex.quote(name)}"]
    flags = filter_flags(filters or OutcomeFilter())
    if flags:
        parts.append(flags)
    if boards is not None:
        parts.append(f"--bootstrap {boards[0]} --seed {boards[1]}")
    if model_attributes is not None:
        parts.append(f"--model-attributes {shlex.quote(str(model_attributes))}")
    return " ".join(parts) + " --json"


def read_model_attributes(path: Path) -> pd.DataFrame:
    """A model attribute file: a CSV with a ``model`` column (names as in the bundle) and
    numeric columns (``size``: billions of parameters, ...). Raises :class:`AnalysisError`
    naming the file and what is wrong."""
    shown = f"model attributes {path}"
    try:
        table = pd.read_csv(path, dtype={"model": str})
    except FileNotFoundError:
        raise AnalysisError(f"{shown}: no such file") from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise AnalysisError(f"{shown}: not a readable CSV ({error})") from None
    if "model" not in table.columns:
        raise AnalysisError(f"{shown}: no 'model' column (columns: {', '.join(table.columns)})")
    for column in table.columns.drop("model"):
        values = pd.to_numeric(table[column], errors="coerce")
        bad = table.index[values.isna() & table[column].notna()]
        if len(bad):
            raise AnalysisError(
                f"{shown}, row {int(bad[0]) + 2}, column '{column}': "
                f"{table.at[bad[0], column]!r} is not a number"
            )
        table[column] = values
    repeated = table["model"][table["model"].duplicated()]
    if len(repeated):
        raise AnalysisError(f"{shown}: model '{repeated.iloc[0]}' is listed twice")
    return table


def scores(
    bundle: Bundle,
    provider: Any,
    filters: OutcomeFilter | None = None,
    model_attributes: pd.DataFrame | None = None,
    attributes_file: str | Path | None = None,
    boards: tuple[int, int] = (DEFAULT_BOOTSTRAP_ROUNDS, DEFAULT_SEED),
) -> ScoresResult:
    """The tables a plugin's score provider (``BenchmarkScores``) computes from its source's
    judgments within ``filters``; with ``model_attributes`` (``model`` and numeric columns, read
    from ``attributes_file``, which the result's command names), also the provider's tables
    that need them. ``boards``: the bootstrap rounds and seed of the boards a provider reads
    off the app's leaderboards."""
    filters = filters or OutcomeFilter()
    with bundle.read_session() as session:
        judgments = judgments_frame(
            session,
            filters,
            OutcomeFilter(sources=(provider.source,)),
            columns=(*READ_MODEL_COLUMNS, *provider.detail_columns),
        )
    if judgments.empty:
        raise AnalysisError(
            f"no judgments of source '{provider.source}' match {filters.describe()} "
            f"(sources with judgments: {', '.join(available_sources(bundle)) or 'none'})"
        )
    tables = provider.compute(judgments)
    from_boards = getattr(provider, "from_boards", None)
    if from_boards is not None:
        # cycle: benchmark_boards imports the analysis package
        from workbench.services.benchmark_boards import BundleBoards

        tables = {**tables, **from_boards(BundleBoards(bundle, filters, provider.source, *boards))}
    if model_attributes is not None:
        if provider.with_attributes is None:
            raise AnalysisError(f"the {provider.name} scores use no model attributes")
        try:
            tables = {**tables, **provider.with_attributes(judgments, model_attributes)}
        except StatsInputError as error:
            raise AnalysisError(f"model attributes: {error}") from error
    fitted = boards if from_boards is not None else None
    command = scores_command(provider.name, filters, attributes_file, fitted)
    return ScoresResult(provider.name, filters.describe(), tables, command)
