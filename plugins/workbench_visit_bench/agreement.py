"""VisIT-Bench's judge-human agreement split by how unanimous the five annotators were (Bitton
et al. 2023, sec. 5, "agreement with the 5/5, 4/5 and 3/5 majority"), and its win rate against
the reference per instruction family.

Human judgments of one comparison (same item, turn, criterion and model pair, shown in either
order) form a panel; its majority and support say 5/5, 4/5 or 3/5. Each judge verdict on that
comparison (each display order separately, so a judge run in both orders is averaged over
them) agrees when it picks the panel's majority; a tie or unknown verdict never agrees.
"""

from __future__ import annotations

import pandas as pd

from workbench.stats.benchmark_scores import ScoreTables
from workbench.stats.preferences import TIE, comparison_keys, majority_preferences, oriented
from workbench.stats.winrate import win_rate_against_reference

REFERENCE = "reference"


def agreement_by_majority(judgments: pd.DataFrame) -> pd.DataFrame:
    """Per judge (``evaluator`` of the judge judgments) and human majority level ("5/5", "4/5",
    "3/5", ... and "all"): the comparisons, the judge verdicts on them, and the share of verdicts
    that pick the human majority. Human panels whose top choices are even (no majority) are left
    out."""
    pairwise = judgments[judgments["outcome"].notna() & judgments["model_b"].notna()]
    humans = pairwise[pairwise["kind"] == "human"]
    judges = pairwise[pairwise["kind"] == "judge"]
    columns = ["evaluator", "majority", "comparisons", "verdicts", "agreement"]
    if humans.empty or judges.empty:
        return pd.DataFrame(columns=columns)
    panels = majority_preferences(humans)
    panels = panels[panels["preference"] != TIE]
    panels = panels.assign(
        majority=panels["support"].astype(int).astype(str)
        + "/"
        + panels["votes"].astype(int).astype(str)
    )
    verdicts = oriented(judges)
    keys = [key for key in comparison_keys(verdicts) if key in panels.columns]
    matched = verdicts.merge(
        panels[[*keys, "preference", "majority"]], on=keys, suffixes=("", "_humans")
    )
    matched = matched.assign(agrees=matched["preference"] == matched["preference_humans"])
    comparison = matched[keys].astype(str).agg("|".join, axis=1)
    matched = matched.assign(comparison=comparison)

    def summary(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
        return (
            frame.groupby(by)
            .agg(
                comparisons=("comparison", "nunique"),
                verdicts=("agrees", "size"),
                agreement=("agrees", "mean"),
            )
            .reset_index()
        )

    by_level = summary(matched, ["evaluator", "majority"])
    overall = summary(matched, ["evaluator"]).assign(majority="all")
    table = pd.concat([by_level, overall], ignore_index=True)
    # 5/5 before 4/5 before 3/5, then the total
    table["order"] = table["majority"].map(_unanimity)
    table = table.sort_values(["evaluator", "order"], ascending=[True, False])
    return table[columns].reset_index(drop=True)


def _unanimity(level: str) -> float:
    if level == "all":
        return -1.0
    support, votes = level.split("/")
    return int(support) / int(votes)


def score_tables(judgments: pd.DataFrame) -> ScoreTables:
    """The tables ``workbench scores --benchmark visit-bench`` prints."""
    tables: ScoreTables = {"judge_human_agreement": agreement_by_majority(judgments)}
    pairwise = judgments[judgments["outcome"].notna() & judgments["model_b"].notna()]
    against = pairwise[(pairwise["model_a"] == REFERENCE) | (pairwise["model_b"] == REFERENCE)]
    if not against.empty:
        tables["win_rate_vs_reference"] = pd.concat(
            [
                win_rate_against_reference(group, REFERENCE).assign(kind=kind)
                for kind, group in against.groupby("kind")
            ],
            ignore_index=True,
        )
        tables["win_rate_vs_reference_by_family"] = pd.concat(
            [
                win_rate_against_reference(group, REFERENCE, by="family").assign(kind=kind)
                for kind, group in against.groupby("kind")
            ],
            ignore_index=True,
        )
    return tables
