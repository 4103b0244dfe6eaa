"""``workbench leaderboard --method bt --json`` over every judgment of a bundle (a file or a
server's) or one campaign's, without pandas, SQLAlchemy or Alembic: the battle counts come from
one aggregate query (:mod:`workbench.storage.fast_read`, which a server answers itself), the
request's rules (its kind, ties, minimum of battles, default anchor) from
:mod:`workbench.services.analysis_request`, and the ratings from the same numpy code the full
service uses (:func:`workbench.stats.counted_board.counted_board`), so the document is the one
:func:`workbench.services.analysis.leaderboard` gives (a test compares them). Start-up is most
of a command's time; this path imports a tenth of what the full one does."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from workbench.services.analysis_request import (
    AUTO,
    HUMAN,
    JUDGE,
    SELECTION_FLAGS,
    AnalysisRequest,
    most_battles,
    resolve_kind,
    result_document,
    too_few_battles,
    without_ties,
)
from workbench.stats.bradley_terry import Anchor
from workbench.stats.counted_board import CountedRows, counted_board
from workbench.storage import fast_read

#: what :meth:`workbench.storage.judgments.OutcomeFilter.describe` says of no filter and of
#: one campaign (a test keeps them equal; importing the filter would import SQLAlchemy)
NO_FILTERS = "no filters"
ONE_CAMPAIGN = "campaign={}"


def _number(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def quick_campaign(request: AnalysisRequest) -> tuple[bool, str | None]:
    """Whether the quick path answers ``request`` (Bradley-Terry without style control, one
    kind, no selection but at most one campaign), and that campaign."""
    if request.method != "bt" or request.style_control or request.include_derived:
        return False, None
    # VisionArena's boards filter on items and outcomes, which the quick statements do not
    # read (nor does leaving flagged comparisons out); the mean answer tokens need the answers
    if request.boards or request.answer_tokens or request.exclude_flagged:
        return False, None
    if request.kind not in (AUTO, HUMAN, JUDGE):
        return False, None
    others = any(getattr(request, name) for name, _flag in SELECTION_FLAGS if name != "campaigns")
    if others or len(request.campaigns) > 1:
        return False, None
    return True, (request.campaigns[0] if request.campaigns else None)


def quick_leaderboard(location: str | Path, request: AnalysisRequest) -> dict[str, Any] | None:
    """The JSON document of the Bradley-Terry leaderboard ``request`` asks of the bundle file
    at ``location`` (derived judgments and adjudications left out, as with no other filter),
    or None when the quick reader does not handle the request or the bundle, or the request
    cannot be answered as asked: the full service then answers, with its own upgrade, refusal
    or explanation."""
    quick, campaign = quick_campaign(request)
    if not quick:
        return None
    both = fast_read.board_counts(location, request.decisive_weight, campaign)
    if both is None:
        return None
    read, flagged_read = both
    if not read:
        return None
    found = _kept(read, request.include_simulated)
    if not found:
        return None
    kinds = {kind for kind, _row in found}
    if request.kind != AUTO and request.kind not in kinds:
        return None
    kind = resolve_kind(request, kinds)
    simulated = 0
    if not request.include_simulated:
        simulated = sum(row[4] for row_kind, flag, row in read if flag and row_kind == kind)
    flagged = sum(
        count
        for row_kind, simulated_rows, count in flagged_read
        if row_kind == kind and (request.include_simulated or not simulated_rows)
    )
    rows = without_ties((row for row_kind, row in found if row_kind == kind), request.ties)
    triples = [(a, b, judgments) for a, b, _outcome, _weight, judgments in rows]
    left_out = too_few_battles(triples, request.min_battles)
    rows = [row for row in rows if row[0] not in left_out and row[1] not in left_out]
    if not rows:
        return None
    models = {name for row in rows for name in row[:2]}
    if request.anchor is not None and request.anchor not in models:
        return None
    anchor = request.anchor or most_battles((a, b, n) for a, b, _o, _w, n in rows)
    board = counted_board(
        CountedRows.from_rows(rows),
        Anchor(anchor, request.anchor_rating),
        request.bootstrap,
        request.seed,
    )
    entries = [
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
    document = {
        "method": "bt",
        "anchor": {"model": anchor, "rating": request.anchor_rating},
        "bootstrap": request.bootstrap,
        "seed": request.seed,
        "style_control": False,
        "models": entries,
    }
    return result_document(
        document,
        request.resolved(kind, anchor),
        sum(judgments for *_, judgments in rows),
        left_out,
        simulated_left_out=simulated,
        flagged_judgments=flagged,
    )


def _kept(read: list[fast_read.KindCountRow], include_simulated: bool) -> list[tuple[str, Any]]:
    """The counts of ``read`` a board counts, per kind: the simulated judge's left out, or
    (``include_simulated``) merged with the others' counts of the same outcome, in the order
    each first appears, as one read of both gives them."""
    merged: dict[tuple[str, str, str, str], list[Any]] = {}
    for kind, simulated, (a, b, outcome, weight, judgments) in read:
        if simulated and not include_simulated:
            continue
        key = (kind, a, b, outcome)
        if key in merged:
            merged[key][3] += weight
            merged[key][4] += judgments
        else:
            merged[key] = [a, b, outcome, weight, judgments]
    return [(key[0], tuple(row)) for key, row in merged.items()]
