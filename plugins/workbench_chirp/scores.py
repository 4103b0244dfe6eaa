"""CHIRP's tables (CHIRP, 2024): each evaluator's online Elo, the median of 500 bootstrap
rounds (Elo depends on the order of the battles); each AI judge's Cohen's kappa with the human
survey, chance agreement computed per matchup, read with Landis & Koch's bands; the preference
cycles (contradictions) of each evaluator; and, given the models' attributes, how often each
evaluator prefers the larger model and the distance correlation of Elo with each attribute.

The human survey is one evaluator: CHIRP samples each question's matchups and gives each to
one participant, so a participant's own judgments of one question never form a cycle, and the
paper's "human survey" pools every participant. Here every human judgment (imported or voted)
counts for :data:`HUMAN_SURVEY`; each judge run (or imported judge) is its own evaluator.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.stats.benchmark_scores import ScoreTables
from workbench.stats.bootstrap import median_online_elo
from workbench.stats.contradictions import find_contradictions
from workbench.stats.distance_correlation import distance_correlation
from workbench.stats.errors import StatsInputError
from workbench.stats.kappa import chirp_kappa
from workbench.stats.preferences import FIRST, TIE, majority_preferences

HUMAN_SURVEY = "human survey"
REFERENCE = "reference"

#: Landis & Koch (1977): the upper bound of each band and its name; below 0 is "poor"
LANDIS_KOCH_BANDS = (
    (0.20, "slight"),
    (0.40, "fair"),
    (0.60, "moderate"),
    (0.80, "substantial"),
    (1.00, "almost perfect"),
)


def landis_koch_band(kappa: float) -> str:
    """The name Landis & Koch (1977) give a kappa: poor (< 0), slight (0-0.20), fair
    (0.21-0.40), moderate (0.41-0.60), substantial (0.61-0.80), almost perfect (0.81-1)."""
    if pd.isna(kappa):
        return "n/a"
    if kappa < 0:
        return "poor"
    for upper, name in LANDIS_KOCH_BANDS:
        if kappa <= upper:
            return name
    return LANDIS_KOCH_BANDS[-1][1]


def pooled_evaluators(judgments: pd.DataFrame) -> pd.DataFrame:
    """The pairwise judgments between two models, every human one under :data:`HUMAN_SURVEY`."""
    pairwise = judgments[
        judgments["outcome"].notna()
        & judgments["model_b"].notna()
        & (judgments["model_a"] != REFERENCE)
        & (judgments["model_b"] != REFERENCE)
    ]
    human = pairwise["kind"] == "human"
    return pairwise.assign(evaluator=pairwise["evaluator"].where(~human, HUMAN_SURVEY))


def kappa_with_humans(judgments: pd.DataFrame) -> pd.DataFrame:
    """Per judge and criterion (and over all criteria): the matchups both the human survey and
    the judge decided (a tie on either side is left out, as CHIRP's kappa is binary), the
    observed agreement, CHIRP's kappa and its Landis & Koch band."""
    columns = ["evaluator", "criterion", "comparisons", "agreement", "kappa", "band"]
    pooled = pooled_evaluators(judgments)
    keys = ["item", "criterion", "first", "second"]
    humans = pooled[pooled["evaluator"] == HUMAN_SURVEY]
    if humans.empty:
        return pd.DataFrame(columns=columns)
    survey = majority_preferences(humans, keys)
    rows = []
    for judge, verdicts in pooled[pooled["kind"] == "judge"].groupby("evaluator"):
        answers = majority_preferences(verdicts, keys)
        both = survey.merge(answers, on=keys, suffixes=("_human", "_judge"))
        both = both[(both["preference_human"] != TIE) & (both["preference_judge"] != TIE)]
        by_criterion = [(name, group) for name, group in both.groupby("criterion")]
        for criterion, group in [*by_criterion, ("all", both)]:
            if group.empty:
                continue
            matchup = group["first"] + " vs " + group["second"]
            human_first = group["preference_human"] == FIRST
            judge_first = group["preference_judge"] == FIRST
            try:
                kappa = chirp_kappa(matchup, human_first, judge_first)
            except StatsInputError:
                kappa = float("nan")
            rows.append(
                {
                    "evaluator": judge,
                    "criterion": criterion,
                    "comparisons": len(group),
                    "agreement": float((human_first == judge_first).mean()),
                    "kappa": kappa,
                    "band": landis_koch_band(kappa),
                }
            )
    return pd.DataFrame(rows, columns=columns)


def cycles_per_evaluator(judgments: pd.DataFrame) -> pd.DataFrame:
    """Per evaluator (the human survey pooled) and criterion: the preference cycles over the
    questions, and the questions judged."""
    columns = ["evaluator", "criterion", "cycles", "questions"]
    pooled = pooled_evaluators(judgments)
    if pooled.empty:
        return pd.DataFrame(columns=columns)
    cycles = find_contradictions(pooled, group_by=("evaluator", "criterion", "item"))
    questions = pooled.groupby(["evaluator", "criterion"])["item"].nunique().rename("questions")
    counts = cycles.groupby(["evaluator", "criterion"]).size().rename("cycles")
    table = pd.concat([counts, questions], axis=1).fillna({"cycles": 0}).reset_index()
    table["cycles"] = table["cycles"].astype(int)
    return table[columns]


#: the model attribute that says which model of a pair is the larger
SIZE = "size"


def larger_model_preference(judgments: pd.DataFrame, attributes: pd.DataFrame) -> pd.DataFrame:
    """Per evaluator (the human survey pooled) and criterion (and over all): how often its
    decided comparisons of two models of different sizes prefer the larger (CHIRP's "prefers
    the larger model"), from ``attributes`` (a ``model`` and a ``size`` column). Ties, and
    pairs of equal or unknown size, are left out; ``comparisons`` says how many count."""
    columns = ["evaluator", "criterion", "comparisons", "prefers_larger"]
    if SIZE not in attributes.columns:
        raise StatsInputError(
            f"the model attributes have no '{SIZE}' column (columns: "
            f"{', '.join(map(str, attributes.columns))})"
        )
    sizes = dict(zip(attributes["model"], attributes[SIZE], strict=True))
    pooled = pooled_evaluators(judgments)
    if pooled.empty:
        return pd.DataFrame(columns=columns)
    keys = ["evaluator", "item", "criterion", "first", "second"]
    answers = majority_preferences(pooled, keys)
    first_size = answers["first"].map(sizes)
    second_size = answers["second"].map(sizes)
    usable = (
        (answers["preference"] != TIE)
        & first_size.notna()
        & second_size.notna()
        & (first_size != second_size)
    )
    answers = answers[usable]
    larger_first = (first_size > second_size)[usable]
    answers = answers.assign(prefers_larger=(answers["preference"] == FIRST) == larger_first)
    rows = []
    for (evaluator, criterion), group in answers.groupby(["evaluator", "criterion"]):
        rows.append([evaluator, criterion, len(group), float(group["prefers_larger"].mean())])
    for evaluator, group in answers.groupby("evaluator"):
        rows.append([evaluator, "all", len(group), float(group["prefers_larger"].mean())])
    return pd.DataFrame(rows, columns=columns)


#: CHIRP's bootstrap rounds of online Elo, and the seed that makes the table reproducible
ELO_ROUNDS = 500
ELO_SEED = 0
ELO_COLUMNS = ["evaluator", "criterion", "model", "elo", "lower", "upper", "battles"]


def _median_elo(group: pd.DataFrame, rounds: int, seed: int) -> pd.DataFrame:
    columns = ["model_a", "model_b", "outcome"]
    if "weight" in group.columns:
        columns.append("weight")
    return median_online_elo(group[columns].reset_index(drop=True), rounds, seed)


def bootstrapped_elo(
    judgments: pd.DataFrame, rounds: int = ELO_ROUNDS, seed: int = ELO_SEED
) -> pd.DataFrame:
    """Per evaluator (the human survey pooled) and criterion: each model's online Elo as CHIRP
    gives it, the median over ``rounds`` bootstrap resamples of the battles (FastChat's
    ``compute_elo`` settings), with the 2.5 and 97.5 percentiles and its battles; best first."""
    pooled = pooled_evaluators(judgments)
    tables = []
    for (evaluator, criterion), group in pooled.groupby(["evaluator", "criterion"], sort=True):
        table = _median_elo(group, rounds, seed)
        tables.append(table.assign(evaluator=evaluator, criterion=criterion))
    if not tables:
        return pd.DataFrame(columns=ELO_COLUMNS)
    return pd.concat(tables, ignore_index=True)[ELO_COLUMNS]


#: a question category gets an Elo for an evaluator and criterion from this many of its
#: comparisons on (the app's minimum battles of a board): CHIRP's survey gives about 65 per
#: category (13 questions of 5 matchups), and a median Elo of a handful of battles mostly
#: repeats the starting rating
MIN_CATEGORY_COMPARISONS = 10
#: the category of the questions whose item has none
NO_CATEGORY = "(no category)"
CATEGORY_ELO_COLUMNS = [
    "evaluator",
    "criterion",
    "category",
    "model",
    "elo",
    "lower",
    "upper",
    "battles",
]
NOT_RATED_COLUMNS = ["evaluator", "criterion", "category", "comparisons", "reason"]


def elo_per_question_category(
    judgments: pd.DataFrame,
    rounds: int = ELO_ROUNDS,
    seed: int = ELO_SEED,
    minimum: int = MIN_CATEGORY_COMPARISONS,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CHIRP's "median Elo per model and category": per evaluator (the human survey pooled),
    criterion and question category, each model's median online Elo over ``rounds`` bootstrap
    resamples of that category's comparisons alone (as :func:`bootstrapped_elo`). A category
    with fewer than ``minimum`` comparisons, or questions without a category, are not rated:
    the second table names them with their comparisons and the reason."""
    pooled = pooled_evaluators(judgments)
    category = pooled["category"] if "category" in pooled.columns else None
    if category is None:
        category = pd.Series(np.nan, index=pooled.index, dtype=object)
    pooled = pooled.assign(category=category.fillna(NO_CATEGORY).astype(str))
    tables, not_rated = [], []
    keys = ["evaluator", "criterion", "category"]
    for (evaluator, criterion, name), group in pooled.groupby(keys, sort=True):
        if name == NO_CATEGORY:
            reason = "its questions have no category"
        elif len(group) < minimum:
            reason = f"{len(group)} comparisons, fewer than {minimum}"
        else:
            table = _median_elo(group, rounds, seed)
            tables.append(table.assign(evaluator=evaluator, criterion=criterion, category=name))
            continue
        not_rated.append([evaluator, criterion, name, len(group), reason])
    elo = (
        pd.concat(tables, ignore_index=True)[CATEGORY_ELO_COLUMNS]
        if tables
        else pd.DataFrame(columns=CATEGORY_ELO_COLUMNS)
    )
    return elo, pd.DataFrame(not_rated, columns=NOT_RATED_COLUMNS)


def elo_distance_correlation(elo: pd.DataFrame, attributes: pd.DataFrame) -> pd.DataFrame:
    """Per evaluator, criterion and model attribute (each numeric column of ``attributes``):
    the distance correlation of the models' median Elo (:func:`bootstrapped_elo`) with the
    attribute, over the models that have both (CHIRP relates Elo to size and training loss);
    NaN where fewer than two models have both."""
    columns = ["evaluator", "criterion", "attribute", "models", "dcor"]
    numeric = [c for c in attributes.columns if c != "model"]
    if not numeric:
        raise StatsInputError("the model attributes have no numeric column besides 'model'")
    rows = []
    for (evaluator, criterion), group in elo.groupby(["evaluator", "criterion"], sort=True):
        both = group.merge(attributes, on="model")
        for attribute in numeric:
            known = both[both[attribute].notna()]
            value = (
                distance_correlation(known["elo"], known[attribute]) if len(known) >= 2 else np.nan
            )
            rows.append([evaluator, criterion, attribute, len(known), value])
    return pd.DataFrame(rows, columns=columns)


def attribute_tables(judgments: pd.DataFrame, attributes: pd.DataFrame) -> ScoreTables:
    """The tables ``workbench scores --benchmark chirp --model-attributes FILE`` adds."""
    return {
        "prefers_larger_model": larger_model_preference(judgments, attributes),
        "elo_distance_correlation": elo_distance_correlation(
            bootstrapped_elo(judgments), attributes
        ),
    }


def score_tables(judgments: pd.DataFrame) -> ScoreTables:
    """The tables ``workbench scores --benchmark chirp`` prints."""
    per_category, not_rated = elo_per_question_category(judgments)
    return {
        "elo": bootstrapped_elo(judgments),
        "elo_per_question_category": per_category,
        "question_categories_not_rated": not_rated,
        "kappa_with_human_survey": kappa_with_humans(judgments),
        "cycles": cycles_per_evaluator(judgments),
    }
