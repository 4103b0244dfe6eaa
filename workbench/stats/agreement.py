"""Agreement between two evaluators (a judge and the humans, two annotators, two judge runs) on
the comparisons both judged: percent agreement with and without ties, Cohen's kappa and CHIRP's
matchup-weighted kappa; and agreement among the many raters of one side (Fleiss, Krippendorff)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from workbench.stats.errors import StatsInputError
from workbench.stats.kappa import (
    chance_corrected,
    chirp_kappa,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha_of_counts,
)
from workbench.stats.preferences import (
    PREFERENCES,
    TIE,
    comparison_keys,
    majority_preferences,
    oriented,
)


def aligned_preferences(judgments_a: pd.DataFrame, judgments_b: pd.DataFrame) -> pd.DataFrame:
    """Comparisons judged by both sides, each side reduced to its majority preference: columns
    of the comparison key, ``preference_a``/``preference_b``, ``votes_a``/``votes_b`` and
    ``support_a``/``support_b``, in the order of the key. Both sides must identify comparisons
    by the same columns."""
    keys_a = comparison_keys(oriented(judgments_a))
    keys_b = comparison_keys(oriented(judgments_b))
    keys = [key for key in keys_a if key in keys_b]
    return aligned_majorities(
        majority_preferences(judgments_a, keys), majority_preferences(judgments_b, keys), keys
    )


def aligned_majorities(
    majority_a: pd.DataFrame, majority_b: pd.DataFrame, keys: list[str]
) -> pd.DataFrame:
    """:func:`aligned_preferences` of the two sides' per-comparison majorities
    (:func:`~workbench.stats.preferences.majority_preferences` with ``keys``), in any row order:
    a majority depends on its comparison's judgments only, so the panels' worker keeps each
    side's table and recomputes only the comparisons new judgments touch. The result is sorted
    by the key, so it does not depend on the order the tables were kept in."""
    columns = ["preference", "votes", "support"]
    if "item" in keys:  # only comparisons of items both judged can align: narrow first, cheaply
        majority_a = majority_a[majority_a["item"].isin(majority_b["item"])]
        majority_b = majority_b[majority_b["item"].isin(majority_a["item"])]
    aligned = majority_a[[*keys, *columns]].merge(
        majority_b[[*keys, *columns]], on=keys, suffixes=("_a", "_b"), how="inner"
    )
    return aligned.sort_values(keys, kind="stable", na_position="last").reset_index(drop=True)


#: the two conventions of agreement between two sides, by their command-line names. "majority"
#: (the default): each side reduced to its majority per comparison, one row per comparison both
#: judged. "mt-bench": side b's majority against each vote of side a, one row per vote (Zheng
#: et al. 2023, "Judging LLM-as-a-Judge", sec. 4.2: the judge against every human vote, so a
#: comparison with three human votes counts three times; a rater's repeated vote on one
#: comparison counts once, the first).
MAJORITY_CONVENTION, MT_BENCH_CONVENTION = "majority", "mt-bench"
AGREEMENT_CONVENTIONS: dict[str, str] = {
    MAJORITY_CONVENTION: "side a's majority against side b's majority, per comparison",
    MT_BENCH_CONVENTION: "each vote of side a against side b's majority (MT-Bench)",
}
DEFAULT_AGREEMENT_CONVENTION = MAJORITY_CONVENTION


def aligned_votes(
    aligned: pd.DataFrame, rater_counts_a: pd.DataFrame, keys: list[str]
) -> pd.DataFrame:
    """MT-Bench's alignment: one row per vote of side a on a comparison both sides judged, its
    ``preference_a`` that vote's, every other column (side b's majority, side a's majority and
    its ``votes_a``/``support_a``) as in ``aligned`` (:func:`aligned_majorities`).
    ``rater_counts_a`` is side a's :func:`rater_tables` count table (raters per label and
    comparison), so the panels' kept tables serve this convention too."""
    if aligned.empty:
        return aligned
    counts = rater_counts_a.merge(aligned[keys], on=keys, how="inner")
    long = counts.melt(
        id_vars=keys, value_vars=list(LABEL_COUNTS), var_name="label", value_name="raters"
    )
    long = long[long["raters"] > 0]
    long = long.assign(
        preference_a=long["label"].map(dict(zip(LABEL_COUNTS, PREFERENCES, strict=True)))
    )
    votes = long.loc[long.index.repeat(long["raters"].astype(np.int64)), [*keys, "preference_a"]]
    expanded = votes.merge(aligned.drop(columns=["preference_a"]), on=keys, how="inner")
    order = expanded.assign(
        _label=pd.Categorical(expanded["preference_a"], categories=list(PREFERENCES))
    )
    return (
        order.sort_values([*keys, "_label"], kind="stable", na_position="last")
        .drop(columns="_label")
        .reset_index(drop=True)
    )


def disagreeing_comparisons(judgments_a: pd.DataFrame, judgments_b: pd.DataFrame) -> pd.DataFrame:
    """The comparisons both sides judged where their majority preferences differ: the one
    definition of a disagreement, used by the inspector's flag, the Failures panel and the
    Agreement panel (whose agreement is the share of comparisons not listed here).

    A comparison is one item's turn under one criterion and one model pair, whichever side was
    shown first (:data:`~workbench.stats.preferences.COMPARISON_COLUMNS`). Each side's majority
    is :func:`~workbench.stats.preferences.majority_preferences`: the most frequent of first,
    second and tie (both-bad counts as tie); a split between the top choices (1:1, 2:2:1) is a
    tie. So a split human vote against a decisive judge is a disagreement, and a split against
    a judge's tie is not."""
    aligned = aligned_preferences(judgments_a, judgments_b)
    return aligned[aligned["preference_a"] != aligned["preference_b"]].reset_index(drop=True)


def percent_agreement(
    preference_a: np.ndarray | pd.Series, preference_b: np.ndarray | pd.Series, with_ties: bool
) -> tuple[float, int]:
    """Share of comparisons where the two preferences are equal, and how many were counted.

    With ties a tie is a third label; without ties only comparisons where neither side chose a
    tie count (Zheng et al. 2023, "Judging LLM-as-a-Judge", sec. 4.2, agreement "w/ tie" and
    "w/o tie"). NaN when nothing is counted."""
    a, b = np.asarray(preference_a), np.asarray(preference_b)
    if not with_ties:
        keep = (a != TIE) & (b != TIE)
        a, b = a[keep], b[keep]
    if len(a) == 0:
        return float("nan"), 0
    return float(np.mean(a == b)), len(a)


@dataclass(frozen=True)
class AgreementSummary:
    comparisons: int
    agreement_with_ties: float
    agreement_without_ties: float
    comparisons_without_ties: int
    cohen_kappa: float
    chirp_kappa: float

    def to_json(self) -> dict[str, Any]:
        return {
            key: (None if isinstance(value, float) and np.isnan(value) else value)
            for key, value in asdict(self).items()
        }


def agreement_summary(judgments_a: pd.DataFrame, judgments_b: pd.DataFrame) -> AgreementSummary:
    """Agreement of two evaluators on the comparisons both judged (each side's majority per
    comparison). Cohen's kappa treats first/second/tie as three labels; CHIRP's kappa uses the
    decisive comparisons only, with chance agreement per model matchup."""
    return aligned_agreement(aligned_preferences(judgments_a, judgments_b))


def aligned_agreement(aligned: pd.DataFrame) -> AgreementSummary:
    """:func:`agreement_summary` of comparisons already aligned by :func:`aligned_preferences`.
    Alignment is per comparison, so the summary of a subset of comparisons (one category, one
    model matchup) is this function on the matching rows of one alignment, which is how the
    breakdowns are computed without aligning the judgments once per group."""
    if aligned.empty:
        raise StatsInputError("the two evaluators judged no comparison in common")
    with_ties, n = percent_agreement(aligned["preference_a"], aligned["preference_b"], True)
    without_ties, n_decisive = percent_agreement(
        aligned["preference_a"], aligned["preference_b"], False
    )
    decisive = aligned[(aligned["preference_a"] != TIE) & (aligned["preference_b"] != TIE)]
    return AgreementSummary(
        comparisons=n,
        agreement_with_ties=with_ties,
        agreement_without_ties=without_ties,
        comparisons_without_ties=n_decisive,
        cohen_kappa=cohen_kappa(aligned["preference_a"], aligned["preference_b"]),
        chirp_kappa=(
            chirp_kappa(
                decisive["first"] + "\x1f" + decisive["second"],
                decisive["preference_a"] == "first",
                decisive["preference_b"] == "first",
            )
            if len(decisive)
            else float("nan")
        ),
    )


def grouped_agreement(aligned: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Per group of aligned comparisons sharing ``columns``: ``comparisons``, ``agreement``
    (ties as a label) and ``cohen_kappa``, as :func:`aligned_agreement` gives them on the
    group's rows alone (up to rounding), from one 3x3 count table per group instead of a
    pandas pass per group. A missing value (an item with no category) is a group of its own,
    named None; groups in sorted order, None last."""
    if aligned.empty:
        raise StatsInputError("the two evaluators judged no comparison in common")
    grouped = aligned.groupby(columns, dropna=False, sort=True)
    group = grouped.ngroup().to_numpy()
    keys = grouped.size().index
    labels = list(PREFERENCES)
    code_a = pd.Categorical(aligned["preference_a"], categories=labels).codes.astype(np.intp)
    code_b = pd.Categorical(aligned["preference_b"], categories=labels).codes.astype(np.intp)
    counts = np.zeros((len(keys), len(labels), len(labels)))
    np.add.at(counts, (group, code_a, code_b), 1.0)
    n = counts.sum(axis=(1, 2))
    observed = np.trace(counts, axis1=1, axis2=2) / n
    expected = np.einsum(
        "gi,gi->g", counts.sum(axis=2) / n[:, None], counts.sum(axis=1) / n[:, None]
    )
    kappa = [chance_corrected(o, e) for o, e in zip(observed, expected, strict=True)]
    frame = (
        keys.to_frame(index=False)
        if isinstance(keys, pd.MultiIndex)
        else pd.DataFrame({columns[0]: keys})
    )
    table = frame.assign(comparisons=n.astype(int), agreement=observed, cohen_kappa=kappa)
    for column in columns:  # pandas reads None as NaN; keep "no value" a None
        table[column] = table[column].astype(object).where(table[column].notna(), None)
    return table.reset_index(drop=True)


@dataclass(frozen=True)
class RaterAgreement:
    """Agreement among the many raters of one side: Fleiss' kappa over the comparisons that got
    the most common number (>= 2) of ratings, Krippendorff's alpha (nominal) over all
    comparisons rated at least twice."""

    raters: int
    comparisons: int
    fleiss_kappa: float
    fleiss_comparisons: int
    krippendorff_alpha: float

    def to_json(self) -> dict[str, Any]:
        return {
            key: (None if isinstance(value, float) and np.isnan(value) else value)
            for key, value in asdict(self).items()
        }


def rater_agreement(judgments: pd.DataFrame, rater_column: str = "evaluator") -> RaterAgreement:
    """Fleiss' kappa and Krippendorff's alpha of the raters in ``rater_column`` on the
    comparisons they judged (labels first/second/tie after orienting by model name; a rater's
    repeated judgment of one comparison counts once, the first)."""
    counts, raters = rater_tables(judgments, rater_column)
    return rater_agreement_of(counts, raters, rater_column)


#: the columns of :func:`rater_tables`' counts: raters per label, in the order of PREFERENCES
LABEL_COUNTS = ("first_raters", "second_raters", "tie_raters")


def rater_tables(
    judgments: pd.DataFrame, rater_column: str = "evaluator"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What :func:`rater_agreement` needs of the judgments: per comparison, its key and how many
    raters chose each of first/second/tie; and the distinct (comparison key columns..., rater)
    present. Both are per comparison, so per item: the panels' worker keeps them and
    recomputes only the items new judgments touch."""
    frame = oriented(judgments)
    if rater_column not in frame.columns:
        raise StatsInputError(f"the judgments have no column '{rater_column}'")
    keys = comparison_keys(frame)
    frame = frame.drop_duplicates([*keys, rater_column])
    tallies = frame.assign(
        **{
            column: (frame["preference"] == label).astype(np.int64)
            for column, label in zip(LABEL_COUNTS, PREFERENCES, strict=True)
        }
    )
    counts = tallies.groupby(keys, dropna=False)[list(LABEL_COUNTS)].sum().reset_index()
    rated_by = [column for column in ("item",) if column in frame.columns]
    raters = (
        frame[[*rated_by, rater_column]]
        .assign(**{rater_column: frame[rater_column].astype(str)})
        .drop_duplicates()
    )
    return counts, raters


def rater_agreement_of(
    counts: pd.DataFrame, raters: pd.DataFrame, rater_column: str = "evaluator"
) -> RaterAgreement:
    """:func:`rater_agreement` from :func:`rater_tables` (rows in any order: the comparisons are
    put in key order first)."""
    keys = [column for column in counts.columns if column not in LABEL_COUNTS]
    ordered = counts.sort_values(keys, kind="stable", na_position="last")
    table = ordered[list(LABEL_COUNTS)].to_numpy(dtype=np.float64)
    per_comparison = table.sum(axis=1)
    rated_twice = per_comparison >= 2
    fleiss = float("nan")
    fleiss_items = 0
    alpha = float("nan")
    if rated_twice.any():
        sizes, frequency = np.unique(per_comparison[rated_twice], return_counts=True)
        usual = sizes[np.argmax(frequency)]
        usual_table = table[per_comparison == usual]
        fleiss, fleiss_items = fleiss_kappa(usual_table), len(usual_table)
        pairable = table[rated_twice]
        present = pairable.sum(axis=0) > 0  # values that occur, as the ratings table has them
        values = np.flatnonzero(present).astype(np.float64)
        alpha = krippendorff_alpha_of_counts(pairable[:, present], values, "nominal")
    return RaterAgreement(
        raters=int(raters[rater_column].nunique()),
        comparisons=int(rated_twice.sum()),
        fleiss_kappa=fleiss,
        fleiss_comparisons=fleiss_items,
        krippendorff_alpha=alpha,
    )
