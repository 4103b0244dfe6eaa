"""VisIT-Bench's judge-human agreement split by how unanimous the five annotators were (Bitton
et al. 2023, sec. 5 and Figure 9, "agreement with the 5/5, 4/5 and 3/5 majority"), its win
rate against the reference per instruction family, and its Elo (FastChat's online Elo,
bootstrapped; the reference answer plays as one more contestant).

The paper's method, which :func:`agreement_by_majority` follows:

- only comparisons of two models count; a comparison with the reference answer on one side is
  left out (the human-verified reference is what win rates are measured against, not a
  contestant whose judgments the figure checks);
- the human panel of one comparison (same item, turn, criterion and model pair, shown in either
  order) gives its majority and support: 5/5, 4/5 or 3/5;
- a judge gives one answer per comparison from its verdicts in both display orders: the side
  both orders pick, or a tie when they differ, when a verdict is a tie, or when the judge's
  answer could not be read (VisIT-Bench counts "Unknown" as a tie);
- the judge's answer agrees when it is the panel's majority; a tie earns half
  (:data:`TIE_CREDIT`), as a tie is half a win in VisIT-Bench's Elo and win rates.
"""

from __future__ import annotations

import pandas as pd

from workbench.stats.benchmark_scores import ScoreTables
from workbench.stats.bootstrap import median_online_elo
from workbench.stats.preferences import TIE, comparison_keys, majority_preferences, oriented
from workbench.stats.winrate import win_rate_against_reference

REFERENCE = "reference"
#: what a judge's tie on a comparison earns against the human majority
TIE_CREDIT = 0.5
COLUMNS = ["evaluator", "majority", "comparisons", "judge_ties", "agreement"]


def model_pairs(judgments: pd.DataFrame) -> pd.DataFrame:
    """The pairwise judgments between two models (neither side the reference answer)."""
    pairwise = judgments[judgments["outcome"].notna() & judgments["model_b"].notna()]
    return pairwise[(pairwise["model_a"] != REFERENCE) & (pairwise["model_b"] != REFERENCE)]


def judge_answers(judges: pd.DataFrame) -> pd.DataFrame:
    """One answer per judge (``evaluator``) and comparison from its verdicts in every display
    order: the preference they share, or a tie when they differ or one is a tie."""
    verdicts = oriented(judges)
    keys = ["evaluator", *comparison_keys(verdicts)]
    answers = (
        verdicts.groupby(keys, dropna=False)["preference"]
        .agg(lambda found: found.iloc[0] if found.nunique() == 1 else TIE)
        .reset_index()
    )
    return answers


def agreement_by_majority(judgments: pd.DataFrame) -> pd.DataFrame:
    """Per judge (``evaluator`` of the judge judgments) and human majority level ("5/5", "4/5",
    "3/5", ... and "all"): the model-vs-model comparisons both judged, how many the judge called
    a tie, and the judge's agreement with the human majority by the paper's rule (module
    docstring). Human panels whose top choices are even (no majority) are left out."""
    pairs = model_pairs(judgments)
    humans = pairs[pairs["kind"] == "human"]
    judges = pairs[pairs["kind"] == "judge"]
    if humans.empty or judges.empty:
        return pd.DataFrame(columns=COLUMNS)
    panels = majority_preferences(humans)
    panels = panels[panels["preference"] != TIE]
    panels = panels.assign(
        majority=panels["support"].astype(int).astype(str)
        + "/"
        + panels["votes"].astype(int).astype(str)
    )
    answers = judge_answers(judges)
    keys = [key for key in comparison_keys(answers) if key in panels.columns]
    matched = answers.merge(
        panels[[*keys, "preference", "majority"]], on=keys, suffixes=("", "_humans")
    )
    if matched.empty:
        return pd.DataFrame(columns=COLUMNS)
    tie = matched["preference"] == TIE
    credit = (matched["preference"] == matched["preference_humans"]).astype(float)
    matched = matched.assign(credit=credit.where(~tie, TIE_CREDIT), tie=tie)

    def summary(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
        return (
            frame.groupby(by)
            .agg(
                comparisons=("credit", "size"),
                judge_ties=("tie", "sum"),
                agreement=("credit", "mean"),
            )
            .reset_index()
        )

    by_level = summary(matched, ["evaluator", "majority"])
    overall = summary(matched, ["evaluator"]).assign(majority="all")
    table = pd.concat([by_level, overall], ignore_index=True)
    # 5/5 before 4/5 before 3/5, then the total
    table["order"] = table["majority"].map(_unanimity)
    table = table.sort_values(["evaluator", "order"], ascending=[True, False])
    table["judge_ties"] = table["judge_ties"].astype(int)
    return table[COLUMNS].reset_index(drop=True)


def _unanimity(level: str) -> float:
    if level == "all":
        return -1.0
    support, votes = level.split("/")
    return int(support) / int(votes)


#: bootstrap rounds of the Elo table (FastChat's default for its online-Elo intervals), and
#: the seed that makes the table reproducible
ELO_ROUNDS = 1000
ELO_SEED = 0


def elo_by_kind(pairwise: pd.DataFrame) -> pd.DataFrame:
    """Per kind of evaluator (human, judge) and criterion: each contestant's online Elo, the
    median of :data:`ELO_ROUNDS` bootstrap rounds, with its 95% interval; best first."""
    columns = ["kind", "criterion", "model", "elo", "lower", "upper", "battles"]
    tables = []
    for (kind, criterion), group in pairwise.groupby(["kind", "criterion"], sort=True):
        battles = group[["model_a", "model_b", "outcome"]].reset_index(drop=True)
        table = median_online_elo(battles, ELO_ROUNDS, ELO_SEED)
        tables.append(table.assign(kind=kind, criterion=criterion))
    if not tables:
        return pd.DataFrame(columns=columns)
    return pd.concat(tables, ignore_index=True)[columns]


def score_tables(judgments: pd.DataFrame) -> ScoreTables:
    """The tables ``workbench scores --benchmark visit-bench`` prints."""
    tables: ScoreTables = {"judge_human_agreement": agreement_by_majority(judgments)}
    pairwise = judgments[judgments["outcome"].notna() & judgments["model_b"].notna()]
    if not pairwise.empty:
        tables["elo"] = elo_by_kind(pairwise)
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
