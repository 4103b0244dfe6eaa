"""The values an analysis panel offers for its switches, read once from a bundle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.services.analysis.common import HUMAN_SIDE, JUDGE_SIDE
from workbench.services.outcomes import IMPORTED, OutcomeFilter
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import ADJUDICATION, distinct_combinations, tagged_categories

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class AnalysisChoices:
    """What the panels' pickers offer: values present among the pairwise judgments."""

    categories: tuple[str, ...]
    criteria: tuple[str, ...]
    models: tuple[str, ...]
    campaigns: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    #: agreement sides (``--a/--b`` selectors): the kinds and origins, then each campaign,
    #: judge run and annotator present
    sides: tuple[str, ...] = ()
    #: imported raters (``workbench leaderboard --rater``) and origins present
    raters: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()


#: the read model's columns whose values the pickers offer, apart from the models
CHOICE_COLUMNS = (
    "campaign",
    "judge_run",
    "annotator",
    "origin",
    "category",
    "criterion",
    "language",
    "rater",
)


def analysis_choices(bundle: Bundle) -> AnalysisChoices:
    """The pickers' values, each one ``SELECT DISTINCT`` over the pairwise judgments (derived
    ones included, so a rater that is only derived can still be chosen). Reads the bundle: call
    it on a worker thread."""
    everything = OutcomeFilter(include_derived=True, include_simulated=True)
    with bundle.read_session() as session:
        # two scans, not one per column: names that combine in few ways, then the model pairs
        found = distinct_combinations(
            session, CHOICE_COLUMNS, everything, pairwise=True
        ) | distinct_combinations(session, ("model_a", "model_b"), everything, pairwise=True)

        def values(*columns: str) -> tuple[str, ...]:
            return tuple(sorted({str(value) for column in columns for value in found[column]}))

        campaigns, runs, annotators = values("campaign"), values("judge_run"), values("annotator")
        origins = values("origin")
        sides = (
            HUMAN_SIDE,
            JUDGE_SIDE,
            IMPORTED,
            *(origin for origin in origins if origin == ADJUDICATION),
            *(f"campaign:{name}" for name in campaigns),
            *(f"run:{name}" for name in runs),
            *(f"annotator:{name}" for name in annotators),
        )
        return AnalysisChoices(
            categories=tuple(sorted({*values("category"), *tagged_categories(session)})),
            criteria=values("criterion"),
            models=values("model_a", "model_b"),
            campaigns=campaigns,
            languages=values("language"),
            sides=sides,
            raters=values("rater"),
            origins=origins,
        )
