"""How battles ended in each category (``workbench categories``): VisionArena's both-bad and tie
shares per category, every category of a multi-label item counted, read as battle counts in
SQL through the judgment read model."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from workbench.services.outcomes import refusal_counts
from workbench.services.to_json import jsonable, records
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import (
    OutcomeFilter,
    battle_counts,
    distinct_values,
    tagged_categories,
)

COLUMNS = ("category", "battles", "decisive", "ties", "both_bad", "tie_share", "both_bad_share")
REFUSAL_COLUMNS = ("model", "answers", "refusals", "refusal_share")


@dataclass(frozen=True)
class CategoryOutcomes:
    """One row per category with battles (most first): battles, decisive outcomes, ties,
    both-bad votes and the two shares. A battle on an item of several categories counts in
    each, so the rows do not add up to the battles of the whole board."""

    table: pd.DataFrame
    filters: str
    #: per model of the selection's battles: answers, refusals (the phrase rule of
    #: :mod:`workbench.stats.refusals`) and their share, most refusing first
    refusals: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=REFUSAL_COLUMNS))

    def to_json(self) -> dict[str, Any]:
        """What ``workbench categories --json`` prints."""
        return jsonable(
            {
                "filters": self.filters,
                "categories": records(self.table),
                "refusals": records(self.refusals),
            }
        )


def category_outcomes(bundle: Bundle, where: OutcomeFilter | None = None) -> CategoryOutcomes:
    """Per category of the pairwise judgments ``where`` keeps, how the battles ended (each
    judgment counted once, whatever its strength)."""
    where = where or OutcomeFilter()
    rows = []
    with bundle.read_session() as session:
        models = {name for a, b, *_rest in battle_counts(session, where) for name in (a, b)}
        refused = [
            (model, answers, refusals, refusals / answers)
            for model, (refusals, answers) in refusal_counts(session, models).items()
            if answers
        ]
        shown = distinct_values(session, "category", where, pairwise=True)
        for category in sorted({*shown, *tagged_categories(session)}):
            outcomes: dict[str, int] = {}
            for _a, _b, outcome, _weight, judgments in battle_counts(
                session, replace(where, categories=(category,))
            ):
                outcomes[outcome] = outcomes.get(outcome, 0) + judgments
            battles = sum(outcomes.values())
            if not battles:
                continue
            decisive = outcomes.get("a", 0) + outcomes.get("b", 0)
            ties, both_bad = outcomes.get("tie", 0), outcomes.get("both_bad", 0)
            rows.append(
                (category, battles, decisive, ties, both_bad, ties / battles, both_bad / battles)
            )
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table = table.sort_values(["battles", "category"], ascending=[False, True], kind="stable")
    refusals = pd.DataFrame(refused, columns=list(REFUSAL_COLUMNS))
    refusals = refusals.sort_values(["refusals", "model"], ascending=[False, True], kind="stable")
    return CategoryOutcomes(
        table.reset_index(drop=True), where.describe(), refusals.reset_index(drop=True)
    )
