"""What every analysis shares: the source switch, the analysis error and the outcome filters
the panels' switches build."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd

from workbench.errors import WorkbenchError
from workbench.services.judgment_cache import JudgmentCache
from workbench.services.outcomes import IMPORTED, OutcomeFilter, judgments_frame
from workbench.stats.cycle_scopes import DEFAULT_MAX_CYCLE_LENGTH
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import distinct_values

if TYPE_CHECKING:
    pass


ALL_SOURCES = "all"
#: the panels' "source" switch: which judgments count
SOURCE_FILTERS: dict[str, OutcomeFilter] = {
    ALL_SOURCES: OutcomeFilter(),
    "human": OutcomeFilter(kinds=("human",)),
    "judge": OutcomeFilter(kinds=("judge",)),
    "imported": OutcomeFilter(origins=(IMPORTED,)),
}
#: the agreement panel's default sides (``workbench agreement --a/--b`` selectors)
HUMAN_SIDE, JUDGE_SIDE = "human", "judge"
#: what a rating in stored order reads of each judgment: the sides, the outcome and its
#: strength, and with style control the judged item and turn (to find the answers)
RATING_COLUMNS = {
    False: ("model_a", "model_b", "outcome", "strength"),
    True: ("model_a", "model_b", "outcome", "strength", "item", "turn"),
}
#: cycles longer than this are not enumerated (a dense graph of many models holds very many)
MAX_CYCLE_LENGTH = DEFAULT_MAX_CYCLE_LENGTH


class AnalysisError(WorkbenchError):
    """The panel's selection cannot be analysed (no judgments match, an unknown switch)."""


def source_filter(source: str, category: str | None, criterion: str | None) -> OutcomeFilter:
    if source not in SOURCE_FILTERS:
        raise AnalysisError(f"unknown source '{source}' (choose {', '.join(SOURCE_FILTERS)})")
    return replace(
        SOURCE_FILTERS[source],
        categories=(category,) if category else (),
        criteria=(criterion,) if criterion else (),
    )


def json_command(parts: list[str], filters: OutcomeFilter, kind_flag: str = "--kind") -> str:
    """The command line of ``parts`` with the flags that select ``filters`` (the report's
    rendering of them, the kind of evaluator under ``kind_flag``), asking for JSON."""
    # cycle: services.report imports the analysis package
    from workbench.services.report import filter_flags

    flags = filter_flags(filters, kind_flag)
    return " ".join([*parts, flags] if flags else parts) + " --json"


def pairwise_judgments(
    bundle: Bundle, *filters: OutcomeFilter | None, cache: JudgmentCache | None = None
) -> pd.DataFrame:
    """The pairwise judgments the filters keep: read now, or kept up to date by ``cache`` (the
    panels' worker), which gives the same frame. Not to be modified (it may be the kept one)."""
    if cache is not None:
        return cache.pairwise(bundle, *filters)
    with bundle.read_session() as session:
        return judgments_frame(session, *filters, pairwise=True)


def available_sources(bundle: Bundle) -> list[str]:
    with bundle.read_session() as session:
        return distinct_values(
            session, "source", OutcomeFilter(include_derived=True, include_simulated=True)
        )
