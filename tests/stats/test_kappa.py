"""Kappas and Krippendorff's alpha against scikit-learn, the krippendorff package and a plain
implementation of Fleiss' formula, on random inputs (hypothesis)."""

from __future__ import annotations

import math
from typing import Literal

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from workbench.stats.errors import StatsInputError
from workbench.stats.kappa import chirp_kappa, cohen_kappa, fleiss_kappa, krippendorff_alpha

LABELS = st.sampled_from(["first", "second", "tie"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(LABELS, LABELS), min_size=1, max_size=60))
def test_cohen_kappa_equals_scikit_learn(pairs: list[tuple[str, str]]) -> None:
    a, b = (np.array(side) for side in zip(*pairs, strict=True))
    ours = cohen_kappa(a, b)
    if len(set(a) | set(b)) == 1:
        assert math.isnan(ours)
        return
    with np.errstate(all="ignore"):
        reference = cohen_kappa_score(a, b)
    assert ours == pytest.approx(reference, abs=1e-9)


def plain_fleiss(table: list[list[int]]) -> float:
    items, categories = len(table), len(table[0])
    n = sum(table[0])
    p = [sum(row[j] for row in table) / (items * n) for j in range(categories)]
    agreement = [(sum(x * x for x in row) - n) / (n * (n - 1)) for row in table]
    mean_agreement = sum(agreement) / items
    chance = sum(value * value for value in p)
    return (mean_agreement - chance) / (1 - chance)


@st.composite
def rating_tables(draw: st.DrawFn) -> list[list[int]]:
    raters = draw(st.integers(2, 7))
    categories = draw(st.integers(2, 4))
    items = draw(st.integers(1, 25))
    table = []
    for _ in range(items):
        choices = draw(st.lists(st.integers(0, categories - 1), min_size=raters, max_size=raters))
        table.append([choices.count(j) for j in range(categories)])
    return table


@settings(max_examples=100, deadline=None)
@given(rating_tables())
def test_fleiss_kappa_equals_the_formula(table: list[list[int]]) -> None:
    totals = [sum(row[j] for row in table) for j in range(len(table[0]))]
    if sum(1 for total in totals if total) == 1:
        assert math.isnan(fleiss_kappa(np.array(table)))
        return
    assert fleiss_kappa(np.array(table)) == pytest.approx(plain_fleiss(table), abs=1e-9)


def test_fleiss_kappa_rejects_unequal_raters() -> None:
    with pytest.raises(StatsInputError, match="same number"):
        fleiss_kappa(np.array([[2, 1], [1, 1]]))


@st.composite
def reliability_tables(draw: st.DrawFn) -> np.ndarray:
    raters = draw(st.integers(2, 6))
    units = draw(st.integers(2, 30))
    values = draw(st.lists(st.integers(1, 5), min_size=2, max_size=4, unique=True))
    cells = draw(
        st.lists(
            st.one_of(st.sampled_from(values), st.none()),
            min_size=raters * units,
            max_size=raters * units,
        )
    )
    table = np.array([np.nan if cell is None else cell for cell in cells], dtype=float)
    return table.reshape(raters, units)


@settings(max_examples=120, deadline=None)
@given(reliability_tables(), st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_krippendorff_alpha_equals_the_krippendorff_package(
    table: np.ndarray, level: Literal["nominal", "ordinal", "interval", "ratio"]
) -> None:
    pairable = (~np.isnan(table)).sum(axis=0) >= 2
    values = np.unique(table[:, pairable][~np.isnan(table[:, pairable])])
    if values.size < 2:  # the package refuses a single value; ours reports no information
        if values.size == 1:
            assert math.isnan(krippendorff_alpha(table, level))
        return
    with np.errstate(all="ignore"):
        reference = krippendorff.alpha(reliability_data=table, level_of_measurement=level)
    ours = krippendorff_alpha(table, level)
    if math.isnan(reference):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(reference, abs=1e-9)


def plain_chirp(rows: list[tuple[str, bool, bool]]) -> float:
    matchups = {matchup for matchup, _, _ in rows}
    chance = 0.0
    for matchup in matchups:
        mine = [(a, b) for m, a, b in rows if m == matchup]
        p1 = sum(a for a, _ in mine) / len(mine)
        p2 = sum(b for _, b in mine) / len(mine)
        chance += len(mine) / len(rows) * (p1 * p2 + (1 - p1) * (1 - p2))
    observed = sum(a == b for _, a, b in rows) / len(rows)
    if math.isclose(chance, 1.0):
        # every matchup's raters unanimous: chance agreement is 1 (summed here with a rounding
        # error of 1e-16 that would otherwise turn 0/0 into 1.0)
        raise ZeroDivisionError
    return (observed - chance) / (1 - chance)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["x|y", "x|z", "y|z"]), st.booleans(), st.booleans()),
        min_size=1,
        max_size=50,
    )
)
def test_chirp_kappa_equals_the_protocol_formula(rows: list[tuple[str, bool, bool]]) -> None:
    matchup, a, b = (list(column) for column in zip(*rows, strict=True))
    ours = chirp_kappa(matchup, a, b)
    try:
        expected = plain_chirp(rows)
    except ZeroDivisionError:
        assert math.isnan(ours)
        return
    assert ours == pytest.approx(expected, abs=1e-9)


def test_chirp_kappa_differs_from_cohen_when_matchups_are_lopsided() -> None:
    # both evaluators always prefer the stronger model of each matchup: Cohen's pooled chance
    # agreement is low, CHIRP's per-matchup chance agreement is 1, so its kappa is undefined
    matchup = ["x|y"] * 5 + ["y|z"] * 5
    prefers = [True] * 5 + [False] * 5
    assert cohen_kappa(np.array(prefers), np.array(prefers)) == pytest.approx(1.0)
    assert math.isnan(chirp_kappa(matchup, prefers, prefers))
