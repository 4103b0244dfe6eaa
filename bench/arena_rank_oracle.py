"""LMArena's style-controlled ratings of WildVision-Bench, computed by the ``arena-rank`` package
itself, written as the oracle ``tests/stats/oracles/arena_rank_wildvision.json``.

arena-rank needs jax, which the project does not depend on, so this runs in a scratch virtualenv
with the project on ``PYTHONPATH`` (only for the markdown counts of the answers, the same counts
the app feeds its own estimator):

    python3 -m venv /tmp/arvenv && /tmp/arvenv/bin/pip install arena-rank==0.1.1 pandas
    PYTHONPATH=. /tmp/arvenv/bin/python bench/arena_rank_oracle.py [--data ../shared/data]

Input: the published battles (``vision_bench_battles.jsonl.gz``, a ">>" verdict already three
rows) without the baseline's battles against itself, and the four style counts of each side's
published answer (``token_len`` for length). The style features follow arena-rank's example
(``add_style_feature_cols``: (a - b) / (a + b), a zero sum read as 1, standardised), then
``ContextualPairDataset.from_pandas`` and ``ContextualBradleyTerry`` with their defaults, and
the sandwich intervals of ``compute_ratings_and_cis``. Prints the table it writes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
from arena_rank.utils.data_utils import ContextualPairDataset

from workbench.stats.style import STYLE_FEATURES, style_counts

ORACLE = Path(__file__).resolve().parent.parent / "tests/stats/oracles/arena_rank_wildvision.json"


def style_frame(folder: Path) -> pd.DataFrame:
    """One row per battle: model_a, model_b, winner and each side's raw style counts."""
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for path in sorted((folder / "model_answers").glob("*.jsonl.gz")):
        for answer in pd.read_json(path, lines=True).itertuples(index=False):
            counts[(answer.question_id, answer.model)] = style_counts(
                answer.output, length=answer.token_len
            )
    battles = pd.read_json(folder / "vision_bench_battles.jsonl.gz", lines=True)
    battles = battles[battles["model_a"] != battles["model_b"]].reset_index(drop=True)
    for side in ("a", "b"):
        keys = zip(battles["question_id"], battles[f"model_{side}"], strict=True)
        rows = [counts[key] for key in keys]
        for name in STYLE_FEATURES:
            battles[f"{name}_{side}"] = [row[name] for row in rows]
    return battles


def with_style_features(battles: pd.DataFrame) -> pd.DataFrame:
    """arena-rank's example preprocessing: relative differences, standardised (sample std; the
    dataset standardises again with the population one)."""
    for name in STYLE_FEATURES:
        total = (battles[f"{name}_a"] + battles[f"{name}_b"]).replace(0, 1)
        ratio = (battles[f"{name}_a"] - battles[f"{name}_b"]) / total
        battles[name] = (ratio - ratio.mean()) / ratio.std()
    return battles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=ORACLE)
    args = parser.parse_args()
    battles = with_style_features(style_frame(args.data / "wildvision-bench"))
    dataset = ContextualPairDataset.from_pandas(battles, feature_cols=list(STYLE_FEATURES))
    model = ContextualBradleyTerry(
        n_competitors=len(dataset.competitors), n_features=len(STYLE_FEATURES)
    )
    result = model.compute_ratings_and_cis(dataset, significance_level=0.05)
    oracle = {
        "source": "arena-rank 0.1.1 ContextualBradleyTerry (defaults), bench/arena_rank_oracle.py",
        "data": "wildvision-bench/vision_bench_battles.jsonl.gz without self-battles; "
        "style counts of model_answers (token_len as length)",
        "battles": len(battles),
        "ratings": {
            str(name): float(value)
            for name, value in zip(result["competitors"], result["ratings"], strict=True)
        },
        "rating_lower": {
            str(name): float(value)
            for name, value in zip(result["competitors"], result["rating_lower"], strict=True)
        },
        "rating_upper": {
            str(name): float(value)
            for name, value in zip(result["competitors"], result["rating_upper"], strict=True)
        },
        "coefficients": {
            name: float(value) for name, value in zip(STYLE_FEATURES, result["coeffs"], strict=True)
        },
    }
    args.out.write_text(json.dumps(oracle, indent=1, sort_keys=True) + "\n")
    ordered = sorted(oracle["ratings"].items(), key=lambda item: -item[1])
    print(f"{'model':<40} {'rating':>9} {'lower':>9} {'upper':>9}")
    for name, rating in ordered:
        lower, upper = oracle["rating_lower"][name], oracle["rating_upper"][name]
        print(f"{name:<40} {rating:>9.3f} {lower:>9.3f} {upper:>9.3f}")
    print("coefficients:", oracle["coefficients"])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
