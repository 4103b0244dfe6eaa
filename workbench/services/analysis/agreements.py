"""Human-vs-judge agreement between two sides of a bundle's judgments (``workbench
agreement``, the Agreement panel)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from workbench.services.analysis.common import (
    HUMAN_SIDE,
    JUDGE_SIDE,
    AnalysisError,
    available_sources,
    json_command,
    pairwise_judgments,
)
from workbench.services.analysis_request import DEFAULT_DECISIVE_WEIGHT
from workbench.services.judgment_cache import JudgmentCache
from workbench.services.outcomes import (
    OutcomeFilter,
    describe_empty,
    parse_selector,
    simulated_left_out,
)
from workbench.services.to_json import jsonable, records
from workbench.stats.agreement import (
    AGREEMENT_CONVENTIONS,
    DEFAULT_AGREEMENT_CONVENTION,
    MT_BENCH_CONVENTION,
    AgreementSummary,
    RaterAgreement,
    aligned_agreement,
    aligned_majorities,
    aligned_votes,
    grouped_agreement,
    rater_agreement_of,
    rater_tables,
)
from workbench.stats.battles import JUDGMENTS_COLUMN, checked_battles
from workbench.stats.leaderboard import compute_leaderboard
from workbench.stats.preferences import COMPARISON_COLUMNS, PREFERENCES, majority_preferences
from workbench.stats.weighting import weight_by_strength
from workbench.storage.bundle import Bundle
from workbench.storage.judgments import ORIGINS

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class AgreementResult:
    """Side a (by default the humans) against side b (by default the judges) on the
    comparisons both judged; each side is its majority preference per comparison
    (:func:`workbench.stats.preferences.majority_preferences`). ``overlap`` judgments were
    selected by both sides and counted on one only (see :func:`agreement`)."""

    side_a: str
    side_b: str
    filters: str
    overlap: int
    overlap_kept_on: str | None  # "a" or "b": the side that kept the overlapping judgments
    summary: AgreementSummary
    raters_a: RaterAgreement
    raters_b: RaterAgreement
    confusion: pd.DataFrame  # rows: side a's majority, columns: side b's (first/second/tie)
    by_majority: pd.DataFrame  # majority (e.g. "3/3"), comparisons, agreement
    by_category: pd.DataFrame  # category (None: items with none), comparisons, agreement, kappa
    by_model_pair: pd.DataFrame  # first, second, comparisons, agreement, cohen_kappa
    position_bias: pd.DataFrame  # first_position_wins per evaluator (see its ``positions``)
    swap_consistency: pd.DataFrame
    ratings: pd.DataFrame  # model, rating_a, rating_b: the two sides' Bradley-Terry ratings
    ranks: dict[str, Any] | None  # rank agreement of the two sides' leaderboards (>= 3 models)
    spearman: float
    kendall: float
    rank_models: int
    convention: str = DEFAULT_AGREEMENT_CONVENTION
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT
    bootstrap: int = 0
    seed: int = 0
    selection: OutcomeFilter | None = None
    #: verdicts of simulated judge runs either side would have selected, left out
    #: (``--include-simulated`` counts them), as the boards say it
    simulated_left_out: int = 0

    @property
    def convention_label(self) -> str:
        return AGREEMENT_CONVENTIONS[self.convention]

    @property
    def unit(self) -> str:
        """What one counted row is: a comparison (majority) or a vote of side a (MT-Bench)."""
        return "votes" if self.convention == MT_BENCH_CONVENTION else "comparisons"

    def describe(self) -> str:
        """The request in one line, as the panel shows it under its title."""
        weight = self.decisive_weight or 1
        return " · ".join(
            (
                f"agreement: {self.side_a} vs {self.side_b}",
                f"{self.convention} convention ({self.convention_label})",
                self.filters,
                f"{self.bootstrap} bootstrap rounds (seed {self.seed})",
                f"much better = {weight:g} battles",
            )
        )

    def command(self) -> str | None:
        """The ``workbench agreement`` command that prints this result (None when the
        selection is not known, e.g. sides read by the caller)."""
        if self.selection is None:
            return None

        parts = [
            "workbench agreement BUNDLE",
            f"--a {shlex.quote(self.side_a)} --b {shlex.quote(self.side_b)}",
            f"--convention {self.convention}",
            f"--bootstrap {self.bootstrap} --seed {self.seed}",
        ]
        if self.decisive_weight != DEFAULT_DECISIVE_WEIGHT:
            parts.append(f"--decisive-weight {self.decisive_weight or 1:g}")
        return json_command(parts, self.selection)

    def to_json(self) -> dict[str, Any]:
        """What ``workbench agreement --json`` prints."""
        return jsonable(
            {
                "request": {
                    "a": self.side_a,
                    "b": self.side_b,
                    "convention": self.convention,
                    "convention_label": self.convention_label,
                    "unit": self.unit,
                    "decisive_weight": self.decisive_weight,
                    "bootstrap": self.bootstrap,
                    "seed": self.seed,
                    "filters": self.filters,
                    "command": self.command(),
                },
                "a": self.side_a,
                "b": self.side_b,
                "convention": self.convention,
                "filters": self.filters,
                "overlap": {"judgments": self.overlap, "kept_on": self.overlap_kept_on},
                "simulated_left_out": self.simulated_left_out,
                "agreement": self.summary.to_json(),
                "raters": {"a": self.raters_a.to_json(), "b": self.raters_b.to_json()},
                "ranks": self.ranks,
                "confusion": records(self.confusion.reset_index(names="a")),
                "by_majority": records(self.by_majority),
                "by_category": records(self.by_category),
                "by_model_pair": records(self.by_model_pair),
                "position_bias": records(self.position_bias),
                "swap_consistency": records(self.swap_consistency),
                "ratings": records(self.ratings),
            }
        )


def _set(selector: OutcomeFilter) -> dict[str, Any]:
    """The dimensions a selector sets, to describe it together with the other filters."""
    return {name: value for name, value in vars(selector).items() if value}


def _without_overlap(
    first: pd.DataFrame, second: pd.DataFrame, names: tuple[str, str]
) -> tuple[pd.DataFrame, pd.DataFrame, int, str | None]:
    """The two sides with every judgment both select counted once: on the side that selects
    fewer judgments (it names them more narrowly, e.g. ``rater:h1`` within ``human``), or on
    side a when both select as many. Refuses sides that select the same judgments."""
    # a judgment both select has one evaluator: compare the keys of shared evaluators' rows only
    shared_by = set(first["evaluator"].unique()) & set(second["evaluator"].unique())
    maybe_a = first["evaluator"].isin(shared_by).to_numpy()
    maybe_b = second["evaluator"].isin(shared_by).to_numpy()
    key_a, key_b = _judgment_keys(first[maybe_a]), _judgment_keys(second[maybe_b])
    in_b, in_a = np.zeros(len(first), dtype=bool), np.zeros(len(second), dtype=bool)
    in_b[maybe_a] = np.isin(key_a, key_b)
    in_a[maybe_b] = np.isin(key_b, key_a)
    shared = int(in_b.sum())  # a judgment is one row of each side that selects it
    if not shared:
        return first, second, 0, None
    if shared == len(first) == len(second):
        raise AnalysisError(
            f"{names[0]!r} and {names[1]!r} select the same {shared} judgments: "
            "agreement needs two different evaluators"
        )
    keep_on = "b" if len(second) < len(first) else "a"
    if keep_on == "a":
        second = second[~in_a].reset_index(drop=True)
    else:
        first = first[~in_b].reset_index(drop=True)
    for name, side in zip(names, (first, second), strict=True):
        if side.empty:
            raise AnalysisError(
                f"every judgment {name!r} selects is also selected by the other side "
                f"({shared} judgments): choose sides that do not contain each other"
            )
    return first, second, shared, keep_on


def _judgment_keys(judgments: pd.DataFrame) -> np.ndarray:
    """One integer per judgment, unique across the stores: its origin's rank and its row id."""
    origin = pd.Categorical(judgments["origin"], categories=list(ORIGINS)).codes.astype(np.int64)
    result: np.ndarray = origin * (1 << 48) + judgments["row_id"].to_numpy(dtype=np.int64)
    return result


def _rank_agreement(
    battles_a: pd.DataFrame, battles_b: pd.DataFrame, rounds: int, seed: int
) -> tuple[pd.DataFrame, dict[str, Any] | None]:
    """The two sides' Bradley-Terry leaderboards compared, each from its battle counts
    (:func:`_battle_counts` rows, of one or more items each)."""
    # start-up: scipy.stats, which the other agreements do not need
    from workbench.stats.rank_agreement import (
        ci_order_agreement,
        kendall_tau,
        spearman_correlation,
    )

    board_a = compute_leaderboard(_pooled(battles_a), "bt", bootstrap=rounds, seed=seed).table
    board_b = compute_leaderboard(_pooled(battles_b), "bt", bootstrap=rounds, seed=seed).table
    ratings_a = board_a.set_index("model")["rating"]
    ratings_b = board_b.set_index("model")["rating"]
    shared = sorted(set(ratings_a.index) & set(ratings_b.index))
    ratings = pd.DataFrame(
        {
            "model": shared,
            "rating_a": [float(ratings_a[model]) for model in shared],
            "rating_b": [float(ratings_b[model]) for model in shared],
        }
    )
    if len(shared) < 3:
        return ratings, None
    # ratings are relative: compare them on the shared models only
    result: dict[str, Any] = {
        "models": len(shared),
        "spearman": spearman_correlation(ratings_a, ratings_b),
        "kendall_tau": kendall_tau(ratings_a, ratings_b),
        "ci_order": None,
    }
    if rounds:
        renamed = {"ci_lower": "lower", "ci_upper": "upper"}
        order = ci_order_agreement(
            board_a.set_index("model")[["ci_lower", "ci_upper"]].rename(columns=renamed),
            board_b.set_index("model")[["ci_lower", "ci_upper"]].rename(columns=renamed),
        )
        result["ci_order"] = {
            "pairs": order.pairs,
            "agree": order.agree,
            "contradict": order.contradict,
            "share": order.share,
        }
    return ratings, result


def agreement(
    bundle: Bundle,
    side_a: str = HUMAN_SIDE,
    side_b: str = JUDGE_SIDE,
    filters: OutcomeFilter | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    cache: JudgmentCache | None = None,
    convention: str = DEFAULT_AGREEMENT_CONVENTION,
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT,
) -> AgreementResult:
    """Agreement of side a with side b (sides are ``workbench agreement --a/--b`` selectors,
    e.g. ``human``, ``judge``, ``run:NAME``, ``annotator:NAME``) under ``convention``
    (:data:`~workbench.stats.agreement.AGREEMENT_CONVENTIONS`: majority against majority, or
    MT-Bench's side b majority against each vote of side a), within ``filters``: the summary,
    its confusion matrix, agreement by how strong side a's majority was, by category and by
    model pair, each side's inter-rater agreement, each evaluator's first-position win share
    where positions were randomized, and the rank agreement of the two sides' leaderboards
    (``bootstrap`` rounds for their intervals; a decisive verdict counts ``decisive_weight``
    battles, as on the leaderboard). A judgment both sides select counts on
    one side only (see :func:`_without_overlap`). With ``cache`` (the panels' worker) the two
    sides' judgments are read incrementally; the statistics are computed again on them."""
    filters = filters or OutcomeFilter()
    _check_convention(convention)
    select_a, select_b = parse_selector(side_a), parse_selector(side_b)
    kept: list[SideTables | None] = [None, None]
    if cache is None:
        first_side = pairwise_judgments(bundle, filters, select_a)
        second_side = pairwise_judgments(bundle, filters, select_b)
    else:  # each side's judgments and its kept tables, from one snapshot
        first_side, kept[0] = _kept_side(bundle, cache, (filters, select_a), decisive_weight)
        second_side, kept[1] = _kept_side(bundle, cache, (filters, select_b), decisive_weight)
    for label, name, side, selector in (
        ("a", side_a, first_side, select_a),
        ("b", side_b, second_side, select_b),
    ):
        if side.empty:
            wanted = replace(filters, **_set(selector))
            raise AnalysisError(
                f"agreement needs pairwise judgments on both sides: none match {name!r} "
                f"(side {label}; {describe_empty(wanted, available_sources(bundle))})"
            )
    first_side, second_side, overlap, kept_on = _without_overlap(
        first_side, second_side, (side_a, side_b)
    )
    tables = None
    if kept[0] is not None and kept[1] is not None and not overlap:
        tables = (kept[0], kept[1])  # of the kept frames, which the overlap left unchanged
    result = agreement_of_sides(
        first_side,
        second_side,
        (side_a, side_b),
        filters.describe(),
        bootstrap=bootstrap,
        seed=seed,
        overlap=overlap,
        overlap_kept_on=kept_on,
        tables=tables,
        convention=convention,
        decisive_weight=decisive_weight,
        selection=filters,
    )
    return replace(
        result, simulated_left_out=_simulated_of_sides(bundle, filters, select_a, select_b)
    )


def _simulated_of_sides(
    bundle: Bundle, filters: OutcomeFilter, select_a: OutcomeFilter, select_b: OutcomeFilter
) -> int:
    """The simulated judge's verdicts ``filters`` leave out that side a or side b would select,
    each counted once (a verdict both sides select is in both counts and their overlap)."""
    with bundle.read_session() as session:
        on_a = simulated_left_out(session, filters, select_a)
        on_b = simulated_left_out(session, filters, select_b)
        on_both = simulated_left_out(session, filters, select_a, select_b) if on_a and on_b else 0
    return on_a + on_b - on_both


def _check_convention(convention: str) -> None:
    if convention not in AGREEMENT_CONVENTIONS:
        raise AnalysisError(
            f"unknown agreement convention '{convention}' "
            f"(choose {', '.join(AGREEMENT_CONVENTIONS)})"
        )


def _comparison_keys(judgments: pd.DataFrame) -> list[str]:
    """The columns that identify a comparison among these judgments (as
    :func:`~workbench.stats.agreement.aligned_preferences` finds them)."""
    return [column for column in COMPARISON_COLUMNS if column in judgments.columns] + [
        "first",
        "second",
    ]


#: the per-item tables one side of an agreement is reduced to (:func:`_side_tables`)
SideTables = dict[str, pd.DataFrame]


def _side_tables(
    judgments: pd.DataFrame,
    keys: list[str],
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT,
) -> SideTables:
    """Everything :func:`agreement_of_sides` needs of one side's judgments, as tables of rows
    that each depend on one item's judgments only: the majority per comparison, the raters'
    label counts per comparison and the raters, the position tallies and the swapped-order
    verdicts per evaluator and item, the battle counts per item, and the items' categories.
    The statistics are computed from these, whether kept by the panels' cache (which
    recomputes only the items new judgments touch) or made now from all the judgments."""
    # start-up: scipy.stats, which the other agreements do not need
    from workbench.stats.position_bias import position_tallies, swap_pairs, swap_verdicts

    rater_counts, raters = rater_tables(judgments)
    swaps = swap_verdicts(judgments)
    return {
        "majorities": majority_preferences(judgments, keys),
        "rater_counts": rater_counts,
        "raters": raters,
        "positions": position_tallies(judgments),
        "swaps": swaps,
        "swap_pairs": swap_pairs(swaps),
        "battles": _battle_counts(judgments, decisive_weight),
        "categories": judgments.drop_duplicates("item")[["item", "category"]],
    }


def _battle_counts(
    judgments: pd.DataFrame, decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT
) -> pd.DataFrame:
    """Battle weights and judgments per item, model pair as shown and outcome; a decisive
    verdict ("much better") weighs ``decisive_weight`` battles, as the leaderboard counts it, so
    a judge's verdicts and the battles derived from them rank the models alike."""
    weighted = (
        weight_by_strength(judgments, decisive_weight)
        if decisive_weight is not None and not judgments.empty
        else judgments
    )
    return (
        checked_battles(weighted)
        .groupby(["item", "model_a", "model_b", "outcome"], dropna=False, sort=True)
        .agg(weight=("weight", "sum"), **{JUDGMENTS_COLUMN: ("weight", "size")})
        .reset_index()
    )


def _pooled(battles: pd.DataFrame) -> pd.DataFrame:
    """Per-item battle counts pooled per model pair and outcome, in name order (so the fit does
    not depend on the order the rows were kept in)."""
    return (
        battles.groupby(["model_a", "model_b", "outcome"], sort=True)[["weight", JUDGMENTS_COLUMN]]
        .sum()
        .reset_index()
    )


def _kept_side(
    bundle: Bundle,
    cache: JudgmentCache,
    filters: tuple[OutcomeFilter, ...],
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT,
) -> tuple[pd.DataFrame, SideTables | None]:
    """One side's pairwise judgments and their :func:`_side_tables`, kept by ``cache``, which
    recomputes the tables only on the items new judgments touch."""
    return cache.pairwise_with_tables(
        bundle,
        filters,
        f"agreement-side:{decisive_weight}",
        lambda frame: _side_tables(frame, _comparison_keys(frame), decisive_weight),
    )


def agreement_of_sides(
    first_side: pd.DataFrame,
    second_side: pd.DataFrame,
    names: tuple[str, str],
    filters: str,
    bootstrap: int = 0,
    seed: int = 0,
    overlap: int = 0,
    overlap_kept_on: str | None = None,
    tables: tuple[SideTables, SideTables] | None = None,
    convention: str = DEFAULT_AGREEMENT_CONVENTION,
    decisive_weight: float | None = DEFAULT_DECISIVE_WEIGHT,
    selection: OutcomeFilter | None = None,
) -> AgreementResult:
    """The whole of :func:`agreement` on two sides' pairwise judgments already read and
    separated (no judgment on both sides), named ``names`` and selected by the filters
    ``filters`` describes. The report calls it on judgments it has read once, so its human vs
    judge section is this result, not a second computation of it. ``tables``: the two sides'
    :func:`_side_tables` when kept (the panels' cache), instead of making them now; every
    statistic is computed from these tables either way, so the two give the same result.
    ``convention`` and ``decisive_weight`` as :func:`agreement`; ``selection``: the filters,
    when known, so the result can print the command that reproduces it."""
    # start-up: scipy.stats, which the other agreements do not need
    from workbench.stats.position_bias import first_position_wins_of, swap_consistency_of_sides

    _check_convention(convention)
    side_a, side_b = names
    keys = _comparison_keys(first_side)
    if tables is None:
        tables = (
            _side_tables(first_side, keys, decisive_weight),
            _side_tables(second_side, keys, decisive_weight),
        )
    kept_a, kept_b = tables
    aligned = aligned_majorities(kept_a["majorities"], kept_b["majorities"], keys)
    if aligned.empty:
        raise AnalysisError(f"{side_a!r} and {side_b!r} judged no comparison in common")
    if convention == MT_BENCH_CONVENTION:
        aligned = aligned_votes(aligned, kept_a["rater_counts"], keys)
    summary = aligned_agreement(aligned)
    labels = list(PREFERENCES)
    confusion = (
        pd.crosstab(aligned["preference_a"], aligned["preference_b"])
        .reindex(index=labels, columns=labels, fill_value=0)
        .rename_axis(index=side_a, columns=side_b)
    )
    strength = aligned.assign(
        majority=[
            f"{int(support)}/{int(votes)}"
            for support, votes in zip(aligned["support_a"], aligned["votes_a"], strict=True)
        ],
        agree=aligned["preference_a"] == aligned["preference_b"],
    )
    by_majority = (
        strength.groupby("majority")
        .agg(comparisons=("agree", "size"), agreement=("agree", "mean"))
        .reset_index()
        .sort_values("majority", ascending=False, kind="stable")
        .reset_index(drop=True)
    )
    # an item's category is the same on both sides: the first side's, or the second's
    categories = (
        pd.concat([kept_a["categories"], kept_b["categories"]], ignore_index=True)
        .drop_duplicates("item")
        .set_index("item")["category"]
    )
    with_category = aligned.assign(category=aligned["item"].map(categories))
    by_category = grouped_agreement(with_category, ["category"])
    by_model_pair = grouped_agreement(aligned, ["first", "second"])
    ratings, ranks = _rank_agreement(kept_a["battles"], kept_b["battles"], bootstrap, seed)
    positions = pd.concat([kept_a["positions"], kept_b["positions"]], ignore_index=True)
    swap_table = swap_consistency_of_sides(
        (kept_a["swaps"], kept_b["swaps"]), (kept_a["swap_pairs"], kept_b["swap_pairs"])
    )
    nan = float("nan")
    return AgreementResult(
        side_a=side_a,
        side_b=side_b,
        filters=filters,
        overlap=overlap,
        overlap_kept_on=overlap_kept_on,
        summary=summary,
        raters_a=rater_agreement_of(kept_a["rater_counts"], kept_a["raters"]),
        raters_b=rater_agreement_of(kept_b["rater_counts"], kept_b["raters"]),
        confusion=confusion,
        by_majority=by_majority,
        by_category=by_category,
        by_model_pair=by_model_pair,
        position_bias=first_position_wins_of(positions),
        swap_consistency=swap_table,
        ratings=ratings,
        ranks=ranks,
        spearman=ranks["spearman"] if ranks else nan,
        kendall=ranks["kendall_tau"] if ranks else nan,
        rank_models=len(ratings),
        convention=convention,
        decisive_weight=decisive_weight,
        bootstrap=bootstrap,
        seed=seed,
        selection=selection,
    )


def human_judge_agreement(bundle: Bundle) -> AgreementResult:
    """:func:`agreement` of the human majority with the judge majority (``workbench agreement
    --a human --b judge``)."""
    return agreement(bundle, HUMAN_SIDE, JUDGE_SIDE)
