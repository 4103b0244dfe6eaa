"""VisionArena's and WildVision's tables (Chou et al., 2024; Lu et al., 2024), read off the
app's own leaderboards of the bundle: the boards (overall, Multi-Turn, Exclude Ties, Exclude
Refusal), how the battles of each category ended (both-bad and tie shares), each model's
refusals, the style-controlled board with each model's rank change, and the rank correlation
of the benchmark's board (judge verdicts) with the arena's (human votes) when the bundle holds
both; and, from the judgments themselves, WildVision-Bench's verdict counts per model.

A board the bundle cannot give (WildVision-Bench has no multi-turn conversation, no category
and no human vote) is listed in ``unavailable`` with the reason, not left out in silence."""

from __future__ import annotations

from typing import Any

import pandas as pd

from workbench.stats.benchmark_scores import ANY_SOURCE, Boards, BoardUnavailable, ScoreTables

#: VisionArena's boards: name -> the leaderboard request's changes
BOARDS: dict[str, dict[str, Any]] = {
    "overall": {},
    "multi-turn": {"multi_turn": True},
    "exclude ties": {"exclude_ties": True},
    "exclude refusal": {"exclude_refusal": True},
}
#: the benchmark's side (an LLM judge's verdicts) and the arena's (people's votes), over every
#: source the scores' filters keep: the two usually come from different imports
BENCHMARK_SIDE: dict[str, Any] = {"kind": "judge", ANY_SOURCE: True}
ARENA_SIDE: dict[str, Any] = {"kind": "human", ANY_SOURCE: True}

BOARD_COLUMNS = ("board", "model", "rank", "rating", "ci_lower", "ci_upper", "n")
STYLE_COLUMNS = (
    "model",
    "rating",
    "rank",
    "rating_without_style_control",
    "rank_without_style_control",
    "rank_change",
)
VERDICT_COLUMNS = (
    "model",
    "judgments",
    "much_better",
    "better",
    "tie",
    "both_bad",
    "worse",
    "much_worse",
    "win_rate",
)


def ranks(ratings: pd.Series) -> pd.Series:
    """1 = best; models with equal ratings share the best rank of their group."""
    return ratings.rank(ascending=False, method="min").astype(int)


def verdict_counts(judgments: pd.DataFrame) -> pd.DataFrame:
    """Per model, its pairwise judgments by result from its own side (WildVision-Bench's "Much
    Better" .. "Much Worse" columns, a decisive verdict being strength 2) and its observed win
    rate (wins over judgments, a tie or both-bad counting no win). A model judged against
    itself (WildVision-Bench's baseline against its own answers) is left out: it says nothing
    of the model, and would count twice on its row."""
    pairwise = judgments[
        judgments["outcome"].notna()
        & judgments["model_b"].notna()
        & (judgments["model_a"] != judgments["model_b"])
    ]
    rows: dict[str, dict[str, int]] = {}
    for side, won, lost in (("model_a", "a", "b"), ("model_b", "b", "a")):
        strong = pd.to_numeric(pairwise["strength"], errors="coerce").fillna(1) >= 2
        outcome = pairwise["outcome"]
        labels = pd.Series("tie", index=pairwise.index)
        labels[outcome == "both_bad"] = "both_bad"
        labels[(outcome == won) & strong] = "much_better"
        labels[(outcome == won) & ~strong] = "better"
        labels[(outcome == lost) & ~strong] = "worse"
        labels[(outcome == lost) & strong] = "much_worse"
        for (model, label), count in labels.groupby(pairwise[side]).value_counts().items():
            counts = rows.setdefault(str(model), {})
            counts[str(label)] = counts.get(str(label), 0) + int(count)
    table = pd.DataFrame(
        [
            {"model": model, **{name: counts.get(name, 0) for name in VERDICT_COLUMNS[2:-1]}}
            for model, counts in rows.items()
        ],
        columns=[column for column in VERDICT_COLUMNS if column not in ("judgments", "win_rate")],
    )
    counted = list(VERDICT_COLUMNS[2:-1])
    table.insert(1, "judgments", table[counted].sum(axis=1).astype(int))
    table["win_rate"] = (table["much_better"] + table["better"]) / table["judgments"]
    return table.sort_values(["win_rate", "model"], ascending=[False, True]).reset_index(drop=True)


def score_tables(judgments: pd.DataFrame) -> ScoreTables:
    """The tables computed from the judgments alone."""
    return {"verdicts": verdict_counts(judgments)}


#: per board: its models and battles, the bootstrap rounds of its intervals (the scores'
#: request's: ``--bootstrap``) and the command that prints it
BOARD_BATTLES_COLUMNS = ("board", "models", "battles", "bootstrap_rounds", "command")


def _board_row(boards: Boards, name: str, models: int, changes: dict[str, Any]) -> tuple[Any, ...]:
    return (
        name,
        models,
        boards.battles(**changes),
        boards.rounds(**changes),
        boards.command(**changes),
    )


def board_tables(boards: Boards) -> ScoreTables:
    """The tables read off the app's leaderboards (see the module docstring)."""
    unavailable: list[tuple[str, str]] = []
    rows, counts = [], []
    for name, changes in BOARDS.items():
        try:
            table = boards.board(**changes)
        except BoardUnavailable as reason:
            unavailable.append((f"board: {name}", str(reason)))
            continue
        table = table.assign(board=name, rank=ranks(table["rating"]))
        rows.append(table[list(BOARD_COLUMNS)])
        counts.append(_board_row(boards, name, len(table), changes))
    board_table = (
        pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=list(BOARD_COLUMNS))
    )

    categories, refusals = boards.category_outcomes()
    if categories.empty:
        unavailable.append(("categories", "no item of this selection has a category"))

    try:
        styled = boards.board(style_control=True)
        styled = styled.assign(rank=ranks(styled["rating"]))
        style = styled[list(STYLE_COLUMNS)].sort_values(["rank", "model"], kind="stable")
        counts.append(_board_row(boards, "style control", len(style), {"style_control": True}))
    except BoardUnavailable as reason:
        unavailable.append(("style control", str(reason)))
        style = pd.DataFrame(columns=list(STYLE_COLUMNS))

    correlation = _rank_correlation(boards, unavailable)
    return {
        "boards": board_table,
        "board_battles": pd.DataFrame(counts, columns=list(BOARD_BATTLES_COLUMNS)),
        "categories": categories,
        "refusals": refusals,
        "style_control": style,
        "rank_correlation": correlation,
        "unavailable": pd.DataFrame(unavailable, columns=["table", "reason"]),
    }


CORRELATION_COLUMNS = (
    "benchmark",
    "arena",
    "shared_models",
    "spearman",
    "kendall_tau",
    "pearson",
    "confidence_agreement",
    "pairs",
    "agree",
    "contradict",
)


def _rank_correlation(boards: Boards, unavailable: list[tuple[str, str]]) -> pd.DataFrame:
    """VisionArena's Table 4: the benchmark's board against the arena's, over shared models."""
    try:
        found = boards.compare(BENCHMARK_SIDE, ARENA_SIDE)
    except BoardUnavailable as reason:
        unavailable.append(("rank correlation", f"needs a judge board and a human board: {reason}"))
        return pd.DataFrame(columns=list(CORRELATION_COLUMNS))
    agreement = found["confidence_agreement"] or {}
    return pd.DataFrame(
        [
            (
                boards.command(**BENCHMARK_SIDE),
                boards.command(**ARENA_SIDE),
                found["shared_models"],
                found["spearman"],
                found["kendall_tau"],
                found["pearson"],
                agreement.get("share"),
                agreement.get("pairs"),
                agreement.get("agree"),
                agreement.get("contradict"),
            )
        ],
        columns=list(CORRELATION_COLUMNS),
    )
