"""Agreement among the raters of one group (the annotators of a campaign, or an imported
benchmark's human raters): the one routine behind ``workbench campaign status``, ``workbench
agreement --inter-annotator``, the campaign monitor and the report's inter-annotator section, so
they give the same Fleiss' kappa and Krippendorff's alpha for the same group.

The definition (docs/statistics.md, "Inter-annotator agreement"): the unit is a *comparison*
(item, turn, criterion and model pair, whichever model was shown left), not a scheduled task,
so two tasks showing the same comparison (an attention check built on a real item, a pair
scheduled twice) are one unit; a rater's repeated vote on a comparison counts once, the first.
Labels name the preferred model (the pair's models in name order: first, second, or tie, with
both-bad a tie), not the screen side, so annotators shown the pair in different orders are
compared on what they preferred. Attention-check votes are left out (they are scored against
their known answer, and would count an annotator twice on their comparison); skips and
retracted votes are not judgments, and practice answers are never stored as votes. Fleiss' kappa
is taken on the comparisons with the most common number of ratings (>= 2), Krippendorff's alpha
(nominal) on every comparison rated at least twice
(:func:`workbench.stats.agreement.rater_agreement`). An imported benchmark's raters (VisIT-Bench's
five annotators a tuple) are one group per source, each rater's judgments as the benchmark
published them."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from workbench.domain.judgments import JudgmentOrigin
from workbench.services.outcomes import OutcomeFilter, judgments_frame, pairwise_outcomes
from workbench.services.to_json import jsonable
from workbench.stats.agreement import rater_agreement
from workbench.storage.models import Campaign, ScheduledPair

if TYPE_CHECKING:
    import pandas as pd
    from sqlalchemy.orm import Session

#: the category under which items without one are counted
NO_CATEGORY = "none"
#: one line saying what the figures are computed from (printed with them)
DEFINITION = (
    "per comparison (item, turn, criterion, model pair), labels naming the preferred model "
    "(tie and both-bad one label), each annotator's first vote; attention checks, skips and "
    "retracted votes left out"
)


def attention_check_keys(session: Session, campaign: str | None = None) -> set[str]:
    """The read model's ``group_key`` of every attention-check task (of one campaign, or of
    all), whose votes this agreement leaves out."""
    statement = select(ScheduledPair.id).where(ScheduledPair.gold_choice.is_not(None))
    if campaign is not None:
        statement = statement.join(Campaign, Campaign.id == ScheduledPair.campaign_id).where(
            Campaign.name == campaign
        )
    return {f"pair:{pair_id}" for pair_id in session.scalars(statement)}


def campaign_votes(session: Session, campaign: str) -> pd.DataFrame:
    """The pairwise votes of one campaign, as the read model gives them."""
    selection = OutcomeFilter(campaigns=(campaign,), origins=(JudgmentOrigin.CAMPAIGN.value,))
    return judgments_frame(session, selection, pairwise=True)


def annotator_agreement(votes: pd.DataFrame, attention_checks: set[str]) -> dict[str, Any]:
    """Agreement of the annotators of one campaign on its pairwise ``votes`` (read-model rows),
    overall and per item category (items without one under :data:`NO_CATEGORY`), attention
    checks (``group_key`` in ``attention_checks``) left out. Each figure is
    :class:`~workbench.stats.agreement.RaterAgreement`'s JSON: raters, comparisons (rated at
    least twice), fleiss_kappa, fleiss_comparisons, krippendorff_alpha (None where undefined)."""

    def figures(rows: pd.DataFrame) -> dict[str, Any]:
        if rows.empty:
            return _nothing()
        return rater_agreement(rows, "annotator").to_json()

    counted = votes[~votes["group_key"].isin(attention_checks)] if len(votes) else votes
    by_category: dict[str, dict[str, Any]] = {}
    if len(counted):
        categories = counted["category"].astype(object).where(counted["category"].notna())
        categories = categories.fillna(NO_CATEGORY).astype(str)
        for category in sorted(categories.unique()):
            by_category[category] = figures(counted[(categories == category).to_numpy()])
    return {"definition": DEFINITION, "overall": figures(counted), "by_category": by_category}


def _nothing() -> dict[str, Any]:
    return {
        "raters": 0,
        "comparisons": 0,
        "fleiss_kappa": None,
        "fleiss_comparisons": 0,
        "krippendorff_alpha": None,
    }


def campaign_agreement(session: Session, campaign: str) -> dict[str, Any]:
    """:func:`annotator_agreement` of the campaign named ``campaign``, read in ``session``."""
    return annotator_agreement(
        campaign_votes(session, campaign), attention_check_keys(session, campaign)
    )


def status_command(campaign: str) -> str:
    """The command that prints this agreement for a campaign."""
    return f"workbench campaign status BUNDLE {shlex.quote(campaign)} --json"


def rater_groups(outcomes: pd.DataFrame, attention_checks: set[str]) -> list[dict[str, Any]]:
    """Agreement within each group of human raters among the pairwise ``outcomes`` (read-model
    rows of any kind: the human ones count): each campaign's annotators
    (:func:`annotator_agreement`, attention checks left out), then each imported source's
    raters. A group is listed when some comparison was rated at least twice; each row is
    ``group`` (its name), ``campaign`` or ``source``, and the figures of
    :func:`annotator_agreement`."""
    rows: list[dict[str, Any]] = []
    if outcomes.empty:
        return rows
    human = outcomes[outcomes["kind"] == "human"]
    campaigns = human[human["origin"] == JudgmentOrigin.CAMPAIGN.value]
    for campaign, group in campaigns.groupby("campaign"):
        figures = annotator_agreement(group, attention_checks)["overall"]
        rows.append(
            {"group": f"campaign {campaign}", "campaign": str(campaign), "source": None, **figures}
        )
    imported = human[(human["origin"] == JudgmentOrigin.IMPORTED.value) & human["rater"].notna()]
    for source, group in imported.groupby("source"):
        figures = rater_agreement(group, "rater").to_json()
        rows.append(
            {
                "group": f"imported raters of {source}",
                "campaign": None,
                "source": str(source),
                **figures,
            }
        )
    return [row for row in rows if row["comparisons"]]


@dataclass(frozen=True)
class InterAnnotatorResult:
    """:func:`rater_groups` of the judgments ``filters`` select, with the command that prints
    it (``workbench agreement BUNDLE --inter-annotator``)."""

    groups: list[dict[str, Any]]
    filters: OutcomeFilter

    def command(self) -> str:
        """The ``workbench agreement --inter-annotator`` command that prints these groups."""
        # cycle: services.report imports this module
        from workbench.services.report import filter_flags

        flags = filter_flags(self.filters)
        return " ".join(
            part
            for part in ("workbench agreement BUNDLE --inter-annotator", flags, "--json")
            if part
        )

    def describe(self) -> str:
        return f"inter-annotator agreement · {self.filters.describe()} · {DEFINITION}"

    def to_json(self) -> dict[str, Any]:
        """What ``workbench agreement --inter-annotator --json`` prints."""
        return jsonable(
            {
                "request": {
                    "inter_annotator": True,
                    "filters": self.filters.describe(),
                    "definition": DEFINITION,
                    "command": self.command(),
                },
                "filters": self.filters.describe(),
                "groups": self.groups,
            }
        )


def inter_annotator_agreement(
    session: Session, filters: OutcomeFilter | None = None
) -> InterAnnotatorResult:
    """The agreement within each group of human raters (:func:`rater_groups`) among the
    pairwise judgments ``filters`` select, read in ``session``."""
    filters = filters or OutcomeFilter()
    outcomes = pairwise_outcomes(judgments_frame(session, filters, pairwise=True))
    return InterAnnotatorResult(rater_groups(outcomes, attention_check_keys(session)), filters)
