"""Chance-corrected agreement: Cohen's kappa, CHIRP's matchup-weighted kappa, Fleiss' kappa and
Krippendorff's alpha."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from workbench.stats.errors import StatsInputError

Level = Literal["nominal", "ordinal", "interval", "ratio"]


def chance_corrected(observed: float, expected: float) -> float:
    if np.isclose(expected, 1.0):
        return float("nan")  # both sides constant: agreement carries no information
    return float((observed - expected) / (1.0 - expected))


def cohen_kappa(labels_a: np.ndarray | pd.Series, labels_b: np.ndarray | pd.Series) -> float:
    """Cohen's kappa of two raters' labels on the same items: (p_o - p_e) / (1 - p_e) with p_e
    from each rater's own label shares (Cohen 1960, "A coefficient of agreement for nominal
    scales", eq. 1). NaN when both raters always give one and the same label."""
    a, b = np.asarray(labels_a), np.asarray(labels_b)
    if a.shape != b.shape or a.ndim != 1:
        raise StatsInputError("Cohen's kappa needs two equally long lists of labels")
    if len(a) == 0:
        raise StatsInputError("Cohen's kappa needs at least one item")
    codes, _ = pd.factorize(np.concatenate([a, b]))
    code_a, code_b = codes[: len(a)], codes[len(a) :]
    size = int(codes.max()) + 1
    share_a = np.bincount(code_a, minlength=size) / len(a)
    share_b = np.bincount(code_b, minlength=size) / len(b)
    return chance_corrected(float(np.mean(code_a == code_b)), float(share_a @ share_b))


def chirp_kappa(
    matchup: np.ndarray | pd.Series,
    prefers_first_a: np.ndarray | pd.Series,
    prefers_first_b: np.ndarray | pd.Series,
) -> float:
    """Kappa with chance agreement computed per model matchup (CHIRP, 2024, agreement section).

    For matchup m (models i, j) let p_1, p_2 be the shares of the two evaluators' judgments on m
    that prefer i. P_e(m) = p_1 p_2 + (1 - p_1)(1 - p_2); P_e is the average of P_e(m) weighted
    by how often m occurs; kappa = (P_o - P_e) / (1 - P_e) with P_o the observed agreement.
    Each row is one comparison judged by both; preferences are binary (ties left out by the
    caller)."""
    frame = pd.DataFrame(
        {
            "matchup": np.asarray(matchup),
            "a": np.asarray(prefers_first_a, dtype=bool),
            "b": np.asarray(prefers_first_b, dtype=bool),
        }
    )
    if frame.empty:
        raise StatsInputError("CHIRP's kappa needs at least one comparison")
    per_matchup = frame.groupby("matchup").agg(
        p_a=("a", "mean"), p_b=("b", "mean"), n=("a", "size")
    )
    chance = per_matchup["p_a"] * per_matchup["p_b"] + (1 - per_matchup["p_a"]) * (
        1 - per_matchup["p_b"]
    )
    expected = float(np.average(chance, weights=per_matchup["n"]))
    observed = float(np.mean(frame["a"] == frame["b"]))
    return chance_corrected(observed, expected)


def fleiss_kappa(counts: np.ndarray) -> float:
    """Fleiss' kappa for many raters (Fleiss 1971, "Measuring nominal scale agreement among many
    raters", eqs. 2-9). ``counts[i, j]`` is how many raters put item i in category j; every item
    must have the same number (>= 2) of ratings."""
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] == 0:
        raise StatsInputError("Fleiss' kappa needs an items x categories table of counts")
    raters = table.sum(axis=1)
    if not np.allclose(raters, raters[0]) or raters[0] < 2:
        raise StatsInputError("Fleiss' kappa needs the same number (>= 2) of ratings per item")
    n = raters[0]
    category_share = table.sum(axis=0) / table.sum()
    item_agreement = ((table * table).sum(axis=1) - n) / (n * (n - 1))
    return chance_corrected(float(item_agreement.mean()), float(category_share @ category_share))


def _squared_differences(values: np.ndarray, totals: np.ndarray, level: Level) -> np.ndarray:
    c, k = values[:, None], values[None, :]
    if level == "nominal":
        return (c != k).astype(np.float64)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        denominator = c + k
        return np.divide(
            (c - k) ** 2,
            denominator**2,
            out=np.zeros_like(denominator * 1.0),
            where=denominator != 0,
        )
    # ordinal: the mass of values between c and k, halving the two ends
    cumulative = np.cumsum(totals)
    low, high = (
        np.minimum.outer(np.arange(len(values)), np.arange(len(values))),
        np.maximum.outer(np.arange(len(values)), np.arange(len(values))),
    )
    between = cumulative[high] - cumulative[low] + totals[low]
    return (between - (totals[low] + totals[high]) / 2.0) ** 2


def krippendorff_alpha(reliability_data: np.ndarray, level: Level = "nominal") -> float:
    """Krippendorff's alpha for any number of raters with missing ratings (Krippendorff 2011,
    "Computing Krippendorff's Alpha-Reliability", sec. C-F): alpha = 1 - D_o / D_e from the
    coincidence matrix of pairable values. ``reliability_data`` is raters x units, NaN where a
    rater did not rate a unit; units with fewer than two ratings are not pairable."""
    data = np.asarray(reliability_data, dtype=np.float64)
    if data.ndim != 2:
        raise StatsInputError("Krippendorff's alpha needs a raters x units table")
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise StatsInputError(f"unknown level of measurement '{level}'")
    present = ~np.isnan(data)
    pairable = present.sum(axis=0) >= 2
    data, present = data[:, pairable], present[:, pairable]
    values = np.unique(data[present])
    if values.size == 0:
        raise StatsInputError("Krippendorff's alpha needs a unit rated at least twice")
    codes = np.searchsorted(values, np.where(present, data, values[0]))
    unit_counts = np.zeros((data.shape[1], values.size))
    units = np.broadcast_to(np.arange(data.shape[1]), data.shape)
    np.add.at(unit_counts, (units[present], codes[present]), 1.0)
    return krippendorff_alpha_of_counts(unit_counts, values, level)


def krippendorff_alpha_of_counts(
    unit_counts: np.ndarray, values: np.ndarray, level: Level = "nominal"
) -> float:
    """:func:`krippendorff_alpha` from how many ratings each pairable unit got of each value:
    ``unit_counts[u, v]`` for units rated at least twice and the values (sorted) that occur.
    Alpha depends on the ratings only through these counts, not on who gave which."""
    per_unit = unit_counts.sum(axis=1, keepdims=True)
    scaled = unit_counts / (per_unit - 1.0)
    coincidence = scaled.T @ unit_counts - np.diag(scaled.sum(axis=0))
    totals = coincidence.sum(axis=1)
    n = totals.sum()
    delta = _squared_differences(values, totals, level)
    expected = (np.outer(totals, totals) * delta).sum()
    if expected == 0:
        return float("nan")
    return float(1.0 - (n - 1.0) * (coincidence * delta).sum() / expected)
