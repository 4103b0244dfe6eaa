"""``workbench leaderboard --method bt --json`` over every judgment of a bundle file (or one
campaign's), without
pandas, SQLAlchemy or Alembic: the battle counts come from one aggregate query
(:mod:`workbench.storage.fast_read`) and the ratings from the same numpy code the full service
uses (:func:`workbench.stats.counted_board.counted_board`), so the document is the one
:func:`workbench.services.analysis.leaderboard` gives (a test compares them). Start-up is most
of a command's time; this path imports a tenth of what the full one does."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from workbench.stats.bradley_terry import Anchor
from workbench.stats.counted_board import CountedRows, counted_board
from workbench.storage import fast_read

#: what :meth:`workbench.storage.judgments.OutcomeFilter.describe` says of no filter and of
#: one campaign (a test keeps them equal; importing the filter would import SQLAlchemy)
NO_FILTERS = "no filters"
ONE_CAMPAIGN = "campaign={}"


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def quick_leaderboard(
    location: str | Path,
    *,
    anchor: Anchor | None,
    bootstrap: int,
    seed: int | None,
    decisive_weight: float,
    campaign: str | None = None,
) -> dict[str, Any] | None:
    """The JSON document of the Bradley-Terry leaderboard of every judgment in the bundle file
    at ``location``, or of one campaign's (derived judgments and adjudications left out, as
    with no other filter), or None when the quick reader does not handle the bundle or it
    holds no such battles: the full service then answers, with its own upgrade, refusal or
    explanation."""
    rows = fast_read.battle_counts(location, decisive_weight, campaign)
    if not rows:
        return None
    board = counted_board(CountedRows.from_rows(rows), anchor, bootstrap, seed)
    models = [
        {
            "model": model,
            "rating": _number(board.rating[index]),
            "ci_lower": _number(board.ci_lower[index]),
            "ci_upper": _number(board.ci_upper[index]),
            "win_rate_vs_anchor": _number(board.win_rate[index]),
            "n": int(board.n[index]),
        }
        for index, model in enumerate(board.models)
    ]
    return {
        "method": "bt",
        "anchor": None if anchor is None else {"model": anchor.model, "rating": anchor.rating},
        "bootstrap": bootstrap,
        "seed": seed,
        "style_control": False,
        "models": models,
        "filters": NO_FILTERS if campaign is None else ONE_CAMPAIGN.format(campaign),
        "battles": sum(judgments for *_, judgments in rows),
    }
