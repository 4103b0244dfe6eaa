"""ConvBench's scores (Liu et al. 2024, sec. 3.3-3.4): per-turn scores S1 (perception), S2
(reasoning), S3 (creation), the overall conversation score S0, R2 = (S1 + S2 + S3) / 3 and
R1 = (R2 + S0) / 2, per model, per instruction category and per turn category; and the
ablation deltas that attribute errors to perception or reasoning.

Which judgments count: those of source ``convbench``. A judgment of turn 1, 2 or 3 gives S1, S2
or S3; one without a turn judges the whole conversation and gives S0. Direct grading gives a
0-10 ``score`` for one model (model_b empty); pairwise grading compares a model with the
reference answers (the other side is ``reference``) and the score is the model's win rate in %
(a tie counts half). The conversation context (``context`` in the judgment's metadata, or the
judge run's parameters) says which ablation was judged: ``standard``; ``perfect_perception``
(the reference replaced the model's turn-1 answer: Ŝ2, Ŝ3, Ŝ0); ``perfect_perception_reasoning``
(references for turns 1 and 2: S̃3, S̃0).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.domain import Outcome
from workbench.stats.benchmark_scores import ScoreTables

REFERENCE = "reference"
STANDARD = "standard"
PERFECT_PERCEPTION = "perfect_perception"
PERFECT_PERCEPTION_REASONING = "perfect_perception_reasoning"
TURN_SCORES = {1: "S1", 2: "S2", 3: "S3"}
SCORE_COLUMNS = ("S1", "S2", "S3", "S0", "R2", "R1")


def scored_judgments(judgments: pd.DataFrame) -> pd.DataFrame:
    """One row per usable judgment: ``grading`` (direct or pairwise), ``evaluator``, ``model``,
    ``context``, ``score_name`` (S0..S3), ``value`` and the item's ``instruction_category`` and
    the turn's ``turn_category``."""
    frame = judgments.copy()
    category = frame["family"].where(frame["family"].notna(), frame["category"])
    frame["instruction_category"] = category
    frame["context"] = frame["context"].fillna(STANDARD)
    frame["score_name"] = frame["turn"].map(TURN_SCORES).astype(object)
    frame.loc[frame["turn"].isna(), "score_name"] = "S0"

    direct = frame[frame["score"].notna() & frame["model_b"].isna()].assign(
        grading="direct", model=lambda rows: rows["model_a"], value=lambda rows: rows["score"]
    )

    against = frame[
        frame["outcome"].notna()
        & ((frame["model_a"] == REFERENCE) ^ (frame["model_b"] == REFERENCE))
    ]
    reference_first = (against["model_a"] == REFERENCE).to_numpy()
    outcome = against["outcome"].to_numpy()
    model_won = np.where(reference_first, outcome == Outcome.B.value, outcome == Outcome.A.value)
    model_lost = np.where(reference_first, outcome == Outcome.A.value, outcome == Outcome.B.value)
    pairwise = against.assign(
        grading="pairwise",
        model=np.where(reference_first, against["model_b"], against["model_a"]),
        value=np.where(model_won, 100.0, np.where(model_lost, 0.0, 50.0)),
    )
    columns = [
        "grading",
        "evaluator",
        "model",
        "context",
        "score_name",
        "value",
        "instruction_category",
        "turn_category",
        "item",
    ]
    scored = pd.concat([direct[columns], pairwise[columns]], ignore_index=True)
    return scored[scored["score_name"].notna()]


def _aggregate(scored: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    table = scored.pivot_table(
        index=keys, columns="score_name", values="value", aggfunc="mean", dropna=False
    ).reindex(columns=["S1", "S2", "S3", "S0"])
    table.columns.name = None
    table["R2"] = table[["S1", "S2", "S3"]].mean(axis=1, skipna=False)
    table["R1"] = (table["R2"] + table["S0"]) / 2.0
    conversations = scored.groupby(keys)["item"].nunique().rename("conversations")
    return table.join(conversations).reset_index().dropna(subset=list(SCORE_COLUMNS), how="all")


def convbench_scores(judgments: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """S1, S2, S3, S0, R2 = (S1+S2+S3)/3 and R1 = (R2+S0)/2 per grading mode, evaluator, model
    and context, and per the extra columns ``by`` (e.g. ``["instruction_category"]``), with the
    number of conversations judged. ConvBench, Liu et al. 2024, sec. 3.4 (eqs. for R1, R2)."""
    keys = ["grading", "evaluator", "model", "context", *(by or [])]
    return _aggregate(scored_judgments(judgments), keys)


def turn_category_scores(judgments: pd.DataFrame) -> pd.DataFrame:
    """Mean per-turn score of each model by the turn's own category (e.g. OCR in turn 1)."""
    scored = scored_judgments(judgments)
    scored = scored[scored["score_name"] != "S0"]
    return (
        scored.groupby(["grading", "evaluator", "model", "context", "score_name", "turn_category"])
        .agg(score=("value", "mean"), judgments=("value", "size"))
        .reset_index()
    )


def ablation_deltas(scores: pd.DataFrame) -> pd.DataFrame:
    """Error attribution from the ablations (ConvBench sec. 3.4 and 4.3): with perfect
    perception, Ŝ2 - S2, Ŝ3 - S3 and Ŝ0 - S0 (how much the model's perception cost); with
    perfect perception and reasoning, S̃3 - Ŝ3 and S̃0 - Ŝ0 (how much its reasoning cost).
    ``scores`` is a :func:`convbench_scores` table; rows without the needed contexts are NaN."""
    keys = [c for c in scores.columns if c not in (*SCORE_COLUMNS, "context", "conversations")]
    wide = scores.pivot_table(index=keys, columns="context", values=["S2", "S3", "S0"])

    def column(score: str, context: str) -> pd.Series:
        if (score, context) in wide.columns:
            return wide[(score, context)]
        return pd.Series(np.nan, index=wide.index)

    deltas = pd.DataFrame(index=wide.index)
    for score in ("S2", "S3", "S0"):
        deltas[f"{score}_perception_gain"] = column(score, PERFECT_PERCEPTION) - column(
            score, STANDARD
        )
    for score in ("S3", "S0"):
        deltas[f"{score}_reasoning_gain"] = column(score, PERFECT_PERCEPTION_REASONING) - column(
            score, PERFECT_PERCEPTION
        )
    return deltas.dropna(how="all").reset_index()


#: the top of each grading mode's scale: a 0-10 direct grade, a win rate in %
SCALE_TOP = {"direct": 10.0, "pairwise": 100.0}


def item_turn_scores(judgments: pd.DataFrame) -> pd.DataFrame:
    """S1, S2 and S3 of each conversation (``item``) and model in the standard context, averaged
    over its judgments, with ``share`` = the score over the top of its grading's scale."""
    scored = scored_judgments(judgments)
    scored = scored[(scored["score_name"] != "S0") & (scored["context"] == STANDARD)]
    table = scored.groupby(["item", "model", "score_name", "grading"])["value"].mean().reset_index()
    table["share"] = table["value"] / table["grading"].map(SCALE_TOP)
    return table


#: the conversations ConvBench's paper counts; its official scorer divides wins by this
OFFICIAL_CONVERSATIONS = 577


def official_pairwise_scores(
    judgments: pd.DataFrame, conversations: int = OFFICIAL_CONVERSATIONS
) -> pd.DataFrame:
    """Pairwise scores by the convention of ConvBench's official scorer: per turn (S1..S3) and
    overall (S0), the model's wins against the reference as a percentage of a fixed number of
    conversations (577), so a conversation the judge did not answer, or answered unreadably, or
    called a tie, counts as a loss. :func:`convbench_scores` instead averages over the judged
    conversations with a tie as half a win; both are shown, named."""
    scored = scored_judgments(judgments)
    pairwise = scored[scored["grading"] == "pairwise"]
    columns = ["evaluator", "model", "context", "S1", "S2", "S3", "S0", "conversations"]
    if pairwise.empty:
        return pd.DataFrame(columns=["convention", *columns])
    keys = ["evaluator", "model", "context"]
    # one result per conversation and score: several verdicts on it (both orders) are averaged
    per_conversation = pairwise.groupby([*keys, "item", "score_name"])["value"].mean()
    wins = (per_conversation == 100.0).groupby([*keys, "score_name"]).sum()
    table = (
        (100.0 * wins / conversations)
        .unstack("score_name")
        .reindex(columns=["S1", "S2", "S3", "S0"])
    )
    table = table.fillna(0.0)
    table.columns.name = None
    judged = pairwise.groupby(keys)["item"].nunique().rename("conversations")
    table = table.join(judged).reset_index()
    return table.assign(convention=f"official: wins / {conversations}")[["convention", *columns]]


#: the read model's provenance columns that name a judge across its runs
JUDGE_COLUMNS = ("template_name", "judge_model")


def by_judge(judgments: pd.DataFrame) -> pd.DataFrame:
    """The judgments with each judge run's ``evaluator`` replaced by its judge (template and
    judge model), so the runs of one judge on the standard conversations and on an ablation's
    (``judge --context``, one run per context) meet in the ablation deltas. Other evaluators,
    and frames without the provenance columns, are left as they are."""
    if not set(JUDGE_COLUMNS) <= set(judgments.columns):
        return judgments
    named = judgments["kind"].eq("judge") & judgments["judge_model"].notna()
    judge = judgments["template_name"].astype(str) + " " + judgments["judge_model"].astype(str)
    return judgments.assign(evaluator=judge.where(named, judgments["evaluator"]))


def score_tables(judgments: pd.DataFrame) -> ScoreTables:
    """The tables ``workbench scores --benchmark convbench`` prints. Scores are per evaluator
    (a judge run, a rater); the ablation deltas pair the contexts of one judge across its runs
    (:func:`by_judge`)."""
    overall = convbench_scores(judgments)
    return {
        "scores": overall,
        "by_instruction_category": convbench_scores(judgments, ["instruction_category"]),
        "by_turn_category": turn_category_scores(judgments),
        "ablation_deltas": ablation_deltas(convbench_scores(by_judge(judgments))),
        "pairwise_official": official_pairwise_scores(judgments),
    }
