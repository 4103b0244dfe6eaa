"""Draw a :class:`~workbench.services.report.ReportContent` as one self-contained HTML file:
inline CSS, figures as SVG data URIs, images as small JPEG thumbnails, the numbers also as a
JSON block (``<script type="application/json" id="report-data">``) for machines. Nothing is
loaded from the network; a Content-Security-Policy forbids it. Every piece of bundle data
(model names, answers, labels) is escaped: it is untrusted."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import logging
import math
import re
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.figure import Figure
from PIL import Image

from workbench.importers.images import ImageProblemError, open_stored_image
from workbench.services.analysis_request import simulated_note
from workbench.services.inter_annotator import DEFINITION as INTER_ANNOTATOR_DEFINITION
from workbench.services.report import (
    Board,
    GalleryCase,
    Progress,
    ReportContent,
    ReportRequest,
    build_report,
    filter_flags,
    records,
    refusal_notes,
    reproducible_sections,
)
from workbench.stats.agreement_plots import rating_scatter
from workbench.stats.cycle_scopes import CYCLE_SCOPES, POOLED_PER_ITEM
from workbench.stats.plots import ratings_forest_plot, win_rate_heatmap

log = logging.getLogger(__name__)

#: a thumbnail's longest side, and its largest encoded size (quality drops until it fits)
THUMBNAIL_SIDE = 320
MAX_IMAGE_BYTES = 40_000
#: all thumbnails together; past it, images are left out with a note (a 500-item report
#: stays far under 20 MB)
MAX_TOTAL_IMAGE_BYTES = 8_000_000
#: answers longer than this are cut in the gallery (the bundle holds the full text)
MAX_ANSWER_CHARS = 1_500
#: matchups listed under human vs judge, most comparisons first (22 models make 231)
MAX_MATCHUP_ROWS = 30

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;
padding:1.5em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:.25em .55em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#555;font-style:italic}.missing{background:#fff8e1;padding:.6em;border-left:4px
solid #f0b400}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em}
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;word-break:break-word}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
.case{border:1px solid #ddd;padding:.8em;margin:1em 0;border-radius:4px}
.answers{display:grid;grid-template-columns:1fr 1fr;gap:.8em}.thumbs img{max-height:200px;
margin-right:.4em;border:1px solid #ccc}nav ul{columns:2}.wide{overflow-x:auto;max-width:100%}
"""
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


@dataclass
class _Budget:
    """How many bytes of thumbnails are left for the whole file, and the thumbnails made so
    far by the SHA-256 of their image (an image shown by many items is scaled once)."""

    left: int
    left_out: int = 0
    made: dict[bytes, bytes | None] = field(default_factory=dict)


# --- small pieces ------------------------------------------------------------------------------


#: characters that change the direction of the text after them (embeddings, overrides,
#: isolates, marks)
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


#: a word holding a direction control: a name, up to the spaces, quotes or ``=`` around it
_WORD_WITH_BIDI = re.compile(
    "[^\\s'\"=<>]*[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c][^\\s'\"=<>]*"
)


def _text(value: Any) -> str:
    text = "" if value is None else str(value)
    if _BIDI_CONTROLS.search(text):
        # A right-to-left override in a model name reversed the rest of its paragraph. Each
        # word holding one goes between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, so
        # whatever it opens ends with the word (Unicode's bidi algorithm, rule X6a), in element
        # text and attributes, however many times a line names it.
        text = _WORD_WITH_BIDI.sub(lambda found: f"\u2068{found.group()}\u2069", text)
    return escape(text)


def _number(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{float(value):.{digits}f}"


def _percent(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * float(value):.1f}%"


def _missing(content: ReportContent, key: str) -> str:
    return f'<p class="missing">{_text(content.missing.get(key, "No data."))}</p>'


def _command(text: str) -> str:
    return f"<p>Reproduce: <code>{_text(text)}</code></p>"


def _request(board: Board) -> str:
    """A board's request in one line and the command that prints its numbers."""
    return (
        f"<p class='request'>Request: {_text(board.request.describe())}</p>"
        + _left_out(board)
        + _command(board.command)
    )


def _left_out(board: Board) -> str:
    rows = board.document.get("left_out") or []
    note = simulated_note(int(board.document.get("simulated_left_out") or 0))
    simulated = f"<p class='note'>Left out: {_text(note)}.</p>" if note else ""
    if not rows:
        return simulated
    listed = "; ".join(f"{row['model']} ({row['battles']} battles)" for row in rows)
    return (
        f"<p class='note'>Left out, fewer than {board.request.min_battles} battles each: "
        f"{_text(listed)}.</p>" + simulated
    )


def _plot_safe(names: pd.Series) -> pd.Series:
    """Model names as matplotlib shows them literally (a ``$`` would start mathtext)."""
    return names.astype(str).str.replace("$", r"\$", regex=False)


def _figure(figure: Figure, alt: str, figure_id: str) -> str:
    """The figure as an SVG data URI: shown as an image it runs nothing and loads nothing."""
    buffer = io.BytesIO()
    # text as <text> rather than glyph outlines: a 22-model heatmap is drawn several times faster
    # and the file is smaller; the browser supplies the font
    with rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (
        f'<figure><img class="figure" id="{figure_id}" alt="{_text(alt)}" '
        f'src="data:image/svg+xml;base64,{data}"></figure>'
    )


def _thumbnail(data: bytes | None, budget: _Budget) -> bytes | None:
    """A JPEG at most :data:`THUMBNAIL_SIDE` px and :data:`MAX_IMAGE_BYTES`, or None when the
    image is unreadable or the file's budget is spent."""
    if data is None:
        return None
    key = hashlib.sha256(data).digest()
    if key not in budget.made:
        budget.made[key] = _scaled(data)
    encoded = budget.made[key]
    if encoded is None:
        return None
    if len(encoded) > budget.left:
        budget.left_out += 1
        return None
    budget.left -= len(encoded)
    return encoded


def _scaled(data: bytes) -> bytes | None:
    # the gate every decode of stored bytes goes through: an EPS or PDF in a bundle never
    # reaches a decoder that starts a program, and an oversized image is refused unread
    try:
        with open_stored_image(data) as image:
            image.thumbnail((THUMBNAIL_SIDE, THUMBNAIL_SIDE))
            picture = image.convert("RGB")
    except ImageProblemError as refused:
        log.warning("a gallery image is left out of the report: %s", refused)
        return None
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError):
        return None  # damaged pixels: the case is shown without its picture
    encoded = b""
    for quality in (75, 60, 45, 30):
        buffer = io.BytesIO()
        picture.save(buffer, format="JPEG", quality=quality, optimize=True)
        encoded = buffer.getvalue()
        if len(encoded) <= MAX_IMAGE_BYTES:
            break
    if len(encoded) > MAX_IMAGE_BYTES:
        picture.thumbnail((THUMBNAIL_SIDE // 2, THUMBNAIL_SIDE // 2))
        buffer = io.BytesIO()
        picture.save(buffer, format="JPEG", quality=30)
        encoded = buffer.getvalue()
    return encoded


def _table(headers: list[str], rows: list[list[str]], table_id: str = "") -> str:
    """``rows`` hold HTML already escaped by the caller."""
    identity = f' id="{table_id}"' if table_id else ""
    head = "".join(f"<th>{_text(header)}</th>" for header in headers)
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return (
        f'<div class="wide"><table{identity}><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def _cell(value: Any, numeric: bool = False, data: str | None = None) -> str:
    attributes = ' class="num"' if numeric else ""
    if data is not None:
        attributes += f' data-field="{data}"'
    return f"<td{attributes}>{value}</td>"


# --- sections ----------------------------------------------------------------------------------


def _summary(content: ReportContent) -> str:
    summary = content.summary
    totals = summary["bundle_totals"]
    rows = [
        ("items judged", summary["items"]),
        ("models", summary["models"]),
        ("sources", ", ".join(summary["sources"]) or "–"),
        ("pairwise battles", summary["battles"]),
        ("human votes (campaigns)", summary["human_votes"]),
        ("imported human judgments", summary["imported_human_judgments"]),
        ("imported judge judgments", summary["imported_judge_judgments"]),
        ("judge verdicts (judge runs)", summary["judge_verdicts"]),
        ("annotators", summary["annotators"]),
        ("imported raters", summary["raters"]),
        ("campaigns", summary["campaigns"]),
        ("judge runs", summary["judge_runs"]),
    ]
    table = _table(
        ["what", "count"], [[_cell(_text(name)), _cell(_text(value), True)] for name, value in rows]
    )
    return (
        f"<p>Judgments selected: {_text(content.request.filters.describe())}. The bundle holds "
        f"{totals['votes']} votes, {totals['judge_verdicts']} judge verdicts and "
        f"{totals['imported_judgments']} imported judgments in all.</p>{table}"
        f"<p>Models: {', '.join(_text(name) for name in summary['model_names'])}.</p>"
    )


def _board_table(board: Board, table_id: str, styled: bool = False) -> str:
    headers = ["rank (UB)", "model", "rating", "95% CI", "win rate vs anchor", "n"]
    if styled:
        headers.append("rating without style control")
    rows = []
    for row in board.table.itertuples(index=False):
        interval = (
            f"{_number(row.ci_lower)} .. {_number(row.ci_upper)}"
            if not math.isnan(row.ci_lower)
            else "–"
        )
        cells = [
            _cell(row.rank_ub, True, "rank"),
            _cell(_text(row.model), data="model"),
            _cell(_number(row.rating), True, "rating"),
            _cell(interval, True, "ci"),
            _cell(_percent(row.win_rate_vs_anchor), True, "win_rate"),
            _cell(int(row.n), True, "n"),
        ]
        if styled:
            cells.append(_cell(_number(row.rating_without_style_control), True))
        rows.append(cells)
    return _table(headers, rows, table_id)


def _forest(board: Board, title: str, figure_id: str) -> str:
    table = board.table.assign(model=_plot_safe(board.table["model"]))
    return _figure(ratings_forest_plot(table, title), title, figure_id)


def _leaderboard(content: ReportContent) -> str:
    board = content.leaderboard
    if board is None:
        return _missing(content, "leaderboard")
    document = board.document
    anchor = document["anchor"]["model"]
    request = board.request
    parts = [
        f"<p>Bradley-Terry ratings (maximum likelihood, Elo scale 400, base 10) from "
        f"{board.battles} battles of {_text(request.kind_label)} judgments (the default counts "
        "human judgments when the selection has any, else judge verdicts; pooling both is an "
        "explicit request); a 'much better' verdict counts "
        f"{request.decisive_weight:g} battles; {_text(anchor)} is pinned at "
        f"{request.anchor_rating:g} and the win rate is the predicted win rate against it. 95% "
        f"intervals from {document['bootstrap']} bootstrap rounds (seed {document['seed']}). "
        "Rank (UB) is Chatbot Arena's upper-bound rank: 1 + "
        "the number of models whose lower bound is above this model's upper bound, so models "
        "whose intervals overlap share a rank. Every bootstrap round is pinned at the anchor, so "
        "its interval is a point and its rank can sit below a lower-rated model's.</p>",
        _board_table(board, "leaderboard-table"),
        _forest(board, f"Bradley-Terry ratings ({board.battles} battles)", "figure-forest"),
        _request(board),
        "<h3>Style-controlled</h3>",
    ]
    style = content.style_board
    if style is None:
        parts.append(_missing(content, "style"))
    else:
        coefficients = style.document.get("style_coefficients", {})
        parts.append(
            "<p>Ratings with answer length and markdown held constant (Chatbot Arena's style "
            "control): the style features enter the logistic regression beside the models. "
            f"{content.style_dropped} battles whose answers are not stored are left out. "
            "Style coefficients (log-odds per SD): "
            + _text(", ".join(f"{name} {value:+.3f}" for name, value in coefficients.items()))
            + ".</p>"
        )
        parts.append(_board_table(style, "style-table", styled=True))
        parts.append(_forest(style, "Style-controlled ratings", "figure-style-forest"))
        parts.append(_request(style))
    return "".join(parts)


def _powered(content: ReportContent) -> str:
    board = content.powered_board
    if board is None:
        return _missing(content, "powered")
    inputs = board.document["prediction_powered"]
    coverage = f"{100 * inputs['coverage']:g}%"
    headers = ["rank-set", "model", "rating", f"{coverage} interval", "human votes", "verdicts"]
    rows = [
        [
            _cell(f"{row.rank_lower}–{row.rank_upper}", True, "rank_set"),
            _cell(_text(row.model), data="model"),
            _cell(_number(row.rating), True, "rating"),
            _cell(f"{_number(row.ci_lower)} .. {_number(row.ci_upper)}", True, "ci"),
            _cell(int(row.n), True, "n"),
            _cell(int(row.judge_verdicts), True, "judge_verdicts"),
        ]
        for row in board.table.itertuples(index=False)
    ]
    return (
        "<p>This board is prediction-powered: the human votes' Bradley-Terry ratings, with the "
        "judge's verdicts on the same kind of comparisons narrowing the intervals as far as "
        "the judge follows the humans (PPI++, Angelopoulos et al. 2023; the judge's weight is "
        "0 when its verdicts do not follow the human votes beyond chance, and the intervals "
        "are then the humans' own). It counts "
        f"{inputs['human_votes']} human votes on {inputs['comparisons_judged_by_both']} "
        f"comparisons the judge also judged and {inputs['judge_verdicts']} judge verdicts "
        f"({inputs['comparisons_judged_by_the_judge_only']} comparisons judged by the judge "
        f"only); judge weight {inputs['judge_weight']:.2f}. Each comparison counts once, a "
        f"tie half. Intervals are {coverage} sandwich intervals; rank-sets hold every model's "
        f"rank together at {coverage} (Chatzi et al. 2024).</p>"
        + _table(headers, rows, "powered-table")
        + _request(board)
    )


def _win_matrix(content: ReportContent) -> str:
    matrix = content.win_fraction
    if matrix is None or matrix.empty:
        return _missing(content, "win_matrix")
    shown = matrix.rename(index=lambda name: _plot_safe(pd.Series([name]))[0]).rename(
        columns=lambda name: _plot_safe(pd.Series([name]))[0]
    )
    rows = [
        [_cell(_text(model))]
        + [_cell(_number(value, 2), True) for value in matrix.loc[model].tolist()]
        for model in matrix.index
    ]
    table = _table(["row beats column", *map(str, matrix.columns)], rows, "win-matrix")
    return (
        "<p>Observed share of battles the row model won against the column model (ties count "
        "half), no model fitted.</p>"
        + _figure(win_rate_heatmap(shown), "observed win-rate matrix", "figure-heatmap")
        + (table if len(matrix) <= 25 else "<p class='note'>Table left out: over 25 models.</p>")
        + _command(content.commands["heatmap"])
    )


def _categories(content: ReportContent) -> str:
    if not content.category_boards and not content.categories_unrated:
        return _missing(content, "categories")
    parts = [
        "<p>One board per item category: the leaderboard's request with that category "
        "(its anchor where the anchor has a board in the category, else the model with the "
        "most battles there). A model in fewer battles than the request's minimum is left out "
        "and listed; a category where no two models have that many is not rated.</p>"
    ]
    for index, entry in enumerate(content.category_boards):
        board = entry.board
        parts.append(
            f"<h3>{_text(entry.category)}</h3><p>{board.battles} battles; anchor "
            f"{_text(board.document['anchor']['model'])}.</p>"
        )
        parts.append(_board_table(board, f"category-{index}"))
        parts.append(_request(board))
    if content.categories_unrated:
        rows = [
            [_cell(_text(category)), _cell(_text(reason))]
            for category, reason in content.categories_unrated.items()
        ]
        parts.append("<h3>Categories not rated</h3>")
        parts.append(_table(["category", "why"], rows, "categories-unrated"))
    if content.uncategorised_battles:
        parts.append(
            f"<p class='note'>{content.uncategorised_battles} battles are of items without a "
            "category: they count on the overall board only (no filter selects them).</p>"
        )
    return "".join(parts)


def _rank_comparison(content: ReportContent) -> str:
    """Each pair of boards compared by rank: its two requests, the figures, the ranks, and the
    command that prints them."""
    if not content.rank_comparisons:
        return _missing(content, "rank_comparison")
    parts = [
        "<p>Two boards of this bundle compared by the ranks they give the models both rate "
        "(whatever items or battles each counts): Spearman's rank correlation, Kendall's tau-b, "
        "Pearson's correlation of the ratings, and confidence agreement, the share of model "
        "pairs whose 95% intervals are disjoint on both boards and ordered the same way "
        "(VisionArena's benchmark-vs-arena comparison). Each board is the report's request "
        "with its judgments named and its default anchor.</p>"
    ]
    for index, entry in enumerate(content.rank_comparisons):
        result = entry.result
        found = result.comparison
        order = found.ci_order
        agreement = (
            "– (a board has no intervals)"
            if order is None
            else f"{_number(order.share, 3)} ({order.agree} of {order.pairs} pairs; "
            f"{order.contradict} opposite)"
        )
        figures = [
            [_cell("shared models"), _cell(len(found.models), True)],
            [_cell("Spearman"), _cell(_number(found.spearman, 4), True)],
            [_cell("Kendall tau-b"), _cell(_number(found.kendall_tau, 4), True)],
            [_cell("Pearson (ratings)"), _cell(_number(found.pearson, 4), True)],
            [_cell("confidence agreement"), _cell(_text(agreement), True)],
        ]
        ranks = [
            [
                _cell(_text(row.model), data="model"),
                _cell(_number(row.rating_a), True),
                _cell(_number(row.rating_b), True),
                _cell(_number(row.rank_a), True),
                _cell(_number(row.rank_b), True),
            ]
            for row in result.ranks().itertuples(index=False)
        ]
        only = "; ".join(
            f"only on {side} (left out): {', '.join(models)}"
            for side, models in (("A", found.only_a), ("B", found.only_b))
            if models
        )
        parts += [
            f"<h3>{_text(entry.name)}</h3>",
            f"<p class='request'>Request: {_text(result.describe())}</p>",
            _table(["figure", "value"], figures, f"rank-comparison-{index}"),
            f"<p class='note'>{_text(only)}.</p>" if only else "",
            _table(
                ["model", "rating A", "rating B", "rank A", "rank B"],
                ranks,
                f"rank-comparison-ranks-{index}",
            ),
            _command(entry.command),
        ]
    for name, reason in content.rank_comparisons_unmade.items():
        parts.append(f"<p class='note'>{_text(name)}: not compared: {_text(reason)}</p>")
    return "".join(parts)


def _agreement(content: ReportContent) -> str:
    section = content.agreement
    if section is None:
        return _missing(content, "agreement")
    summary = section.document["agreement"]
    rows = [
        (
            "comparisons judged by both"
            if section.document["request"]["unit"] == "comparisons"
            else "human votes on comparisons the judges judged",
            str(summary["comparisons"]),
            "comparisons",
        ),
        ("agreement with ties", _percent(summary["agreement_with_ties"]), "with_ties"),
        (
            f"agreement without ties (of {summary['comparisons_without_ties']})",
            _percent(summary["agreement_without_ties"]),
            "without_ties",
        ),
        ("Cohen's kappa", _number(summary["cohen_kappa"], 3), "cohen_kappa"),
        ("CHIRP's matchup kappa", _number(summary["chirp_kappa"], 3), "chirp_kappa"),
    ]
    matchups = section.by_model_pair.sort_values(
        ["comparisons", "first", "second"], ascending=[False, True, True], kind="stable"
    ).head(MAX_MATCHUP_ROWS)
    ranks = section.document["ranks"]
    if ranks:
        rows.append(("Spearman (leaderboards)", _number(ranks["spearman"], 3), "spearman"))
        rows.append(("Kendall's tau (leaderboards)", _number(ranks["kendall_tau"], 3), "kendall"))
    request = section.document["request"]
    if request["convention"] == "majority":
        method = (
            "Convention: majority (each side reduced to its majority preference per comparison: "
            "item, turn, criterion, model pair; one count per comparison both sides judged)."
        )
    else:
        method = (
            "Convention: mt-bench (the judges' majority per comparison against each human vote, "
            "one count per vote)."
        )
    parts = [
        f"<p>{_text(method)} With ties a tie is a third label; without ties only "
        f"{_text(request['unit'])} where neither side chose a tie count. The other convention: "
        "<code>--convention "
        + ("mt-bench" if request["convention"] == "majority" else "majority")
        + "</code>. The leaderboards compared by rank count a decisive verdict as "
        f"{_number(request['decisive_weight'] or 1, 0)} battles, as the leaderboard does.</p>",
        _table(
            ["measure", "value"],
            [[_cell(_text(name)), _cell(value, True, key)] for name, value, key in rows],
            "agreement-table",
        ),
        "<h3>Confusion matrix</h3><p>Rows: human majority; columns: judge majority.</p>",
        _table(
            ["human \\ judge", *map(str, section.confusion.columns)],
            [
                [_cell(_text(label))]
                + [_cell(int(value), True) for value in section.confusion.loc[label].tolist()]
                for label in section.confusion.index
            ],
            "confusion",
        ),
        "<h3>Per matchup</h3>",
        f"<p>The {min(len(matchups), MAX_MATCHUP_ROWS)} matchups with the most comparisons "
        f"judged by both sides (of {len(section.by_model_pair)}).</p>",
        _table(
            ["model", "model", "comparisons", "agreement", "Cohen's kappa"],
            [
                [
                    _cell(_text(row.first)),
                    _cell(_text(row.second)),
                    _cell(int(row.comparisons), True),
                    _cell(_percent(row.agreement), True),
                    _cell(_number(row.cohen_kappa, 3), True),
                ]
                for row in matchups.itertuples(index=False)
            ],
            "per-matchup",
        ),
        "<h3>Position bias</h3>",
    ]
    if section.position_bias.empty:
        parts.append(
            "<p class='missing'>No evaluator showed the models in randomized positions, so "
            "position bias cannot be told apart from model quality.</p>"
        )
    else:
        parts.append(
            "<p>Share of decisive judgments won by the answer shown first, with a two-sided "
            "binomial test against 1/2; only evaluators whose positions were randomized.</p>"
        )
        parts.append(
            _table(
                ["evaluator", "decisive", "first wins", "share", "p"],
                [
                    [
                        _cell(_text(row.evaluator)),
                        _cell(int(row.decisive), True),
                        _cell(int(row.first_wins), True),
                        _cell(_percent(row.first_win_share), True),
                        _cell(_number(row.p_value, 3), True),
                    ]
                    for row in section.position_bias.itertuples(index=False)
                ],
                "position-bias",
            )
        )
    if section.not_randomized:
        parts.append(
            "<p class='note'>Left out (fixed positions, e.g. a baseline always shown first): "
            + _text(", ".join(section.not_randomized))
            + ".</p>"
        )
    parts.append("<h3>Leaderboards compared</h3>")
    if len(section.ratings) >= 3 and ranks:
        ratings = section.ratings.assign(model=_plot_safe(section.ratings["model"]))
        parts.append(
            _figure(
                rating_scatter(
                    ratings, "humans", "judges", ranks["spearman"], ranks["kendall_tau"]
                ),
                "human vs judge ratings",
                "figure-scatter",
            )
        )
    else:
        parts.append(
            "<p class='missing'>Fewer than three models are rated by both sides; rank "
            "correlations need three or more.</p>"
        )
    parts.append(_command(content.commands["agreement"]))
    return "".join(parts)


def _inter_annotator(content: ReportContent) -> str:
    if not content.inter_annotator:
        return _missing(content, "inter_annotator")
    rows = [
        [
            _cell(_text(row["group"])),
            _cell(row["raters"], True),
            _cell(row["comparisons"], True),
            _cell(_number(row["fleiss_kappa"], 3), True),
            _cell(_number(row["krippendorff_alpha"], 3), True),
        ]
        for row in content.inter_annotator
    ]
    # rows of one selection share their command: print each once, in row order
    commands = list(dict.fromkeys(row["command"] for row in content.inter_annotator))
    return (
        "<p>Agreement among the raters of one group on the comparisons two or more of them "
        "rated: Fleiss' kappa (on the comparisons with the most common number of ratings) and "
        "Krippendorff's alpha (nominal). Within a campaign: "
        + _text(INTER_ANNOTATOR_DEFINITION)
        + ".</p>"
        + _table(
            ["group", "raters", "comparisons", "Fleiss' kappa", "Krippendorff's alpha"],
            rows,
            "inter-annotator",
        )
        + "".join(_command(command) for command in commands)
    )


def _cycles(content: ReportContent, gallery_ids: set[int]) -> str:
    if content.cycles is None:
        return (
            _missing(content, "cycles")
            + _command(content.commands["cycles"])
            + _pooled_cycles(content)
        )
    rows = []
    for row in content.cycles.itertuples(index=False):
        label = _text(row.label)
        if int(row.item) in gallery_ids:
            label = f'<a href="#item-{int(row.item)}">{label}</a>'
        rows.append([_cell(label), _cell(_text(row.evaluator)), _cell(_text(row.cycle))])
    listed = len(content.cycles)
    return (
        f"<p>{content.cycle_count} preference cycles {_scope(content.cycle_scope)} on "
        f"{content.cycle_items} item(s) (A &gt; B &gt; C &gt; A within one evaluator's judgments "
        f"of one item); {listed} listed.</p>"
        + _table(["item", "evaluator", "cycle (each loses to the next)"], rows, "cycles")
        + _command(content.commands["cycles"])
        + _pooled_cycles(content)
    )


def _scope(scope: str) -> str:
    return _text(CYCLE_SCOPES[scope])


def _pooled_cycles(content: ReportContent) -> str:
    """The count under the other scope, with its command."""
    return (
        f"<p>{_scope(POOLED_PER_ITEM).capitalize()} (every judgment of an item in one graph, so "
        "consistent evaluators who disagree can form a cycle between them): "
        f"{content.pooled_cycle_count} cycle(s) on {content.pooled_cycle_items} item(s).</p>"
        + _command(content.commands["cycles_pooled"])
    )


def _case(case: GalleryCase, budget: _Budget) -> str:
    detail = case.detail
    thumbs = []
    for slot, data in zip(detail.images, case.images, strict=False):
        thumbnail = _thumbnail(data, budget)
        if thumbnail is None:
            reason = "missing" if slot.is_missing else "left out (size limit)"
            thumbs.append(f"<span class='note'>[image {slot.position}: {reason}]</span>")
        else:
            encoded = base64.b64encode(thumbnail).decode("ascii")
            thumbs.append(
                f'<img alt="image {slot.position}" src="data:image/jpeg;base64,{encoded}">'
            )
    turn = detail.turns[-1] if detail.turns else None
    answers = []
    if turn is not None and case.models is not None:
        for model in case.models:
            outputs = turn.outputs_of(model)
            text = outputs[0].text if outputs else "(answer not in the bundle)"
            if len(text) > MAX_ANSWER_CHARS:
                text = text[:MAX_ANSWER_CHARS] + " …"
            answers.append(f"<div><h4>{_text(model)}</h4><pre>{_text(text)}</pre></div>")
    verdicts = "".join(f"<li>{_text(line)}</li>" for line in case.verdicts)
    return (
        f'<div class="case" id="item-{case.item}"><h3>{_text(case.label)}</h3>'
        f"<p><b>{_text(case.reason)}</b>; category {_text(detail.category or '–')}</p>"
        f'<div class="thumbs">{"".join(thumbs) or "<span class=note>no image</span>"}</div>'
        f"<p>Instruction:</p><pre>{_text(turn.prompt if turn else '')}</pre>"
        f'<div class="answers">{"".join(answers)}</div>'
        f"<p>Verdicts:</p><ul>{verdicts}</ul></div>"
    )


def _failure_lists(content: ReportContent) -> str:
    """Each failure-case list the gallery draws from: its request, its count and the
    ``workbench failures`` command that prints its items."""
    parts = []
    for entry in content.failures:
        request = entry["document"]["request"]
        scope = f", scope {request['scope']}" if request.get("scope") else ""
        parts.append(
            f"<p class='request'>Request: failure cases, kind {_text(entry['kind'])}{scope} "
            f"({_text(entry['question'])}): {len(entry['document']['items'])} item(s)</p>"
        )
        if entry["command"] is not None:
            parts.append(_command(entry["command"]))
        else:
            parts.append(
                "<p class='note'>No command reproduces this list: <code>workbench "
                "failures</code> reads the whole bundle, and this report's selection is "
                "filtered.</p>"
            )
    return "".join(parts)


def _gallery(content: ReportContent, budget: _Budget) -> str:
    if not content.gallery:
        return _missing(content, "gallery") + _failure_lists(content)
    parts = [
        "<p>Items where the human and judge majorities disagree, or an evaluator's preferences "
        "form a cycle: the image, the instruction of the judged (last) turn, the two answers "
        "of the first judged pair and the verdicts on that pair.</p>",
        _failure_lists(content),
    ]
    parts += [_case(case, budget) for case in content.gallery]
    omitted = content.summary.get("gallery_omitted")
    if omitted:
        parts.append(f"<p class='note'>{omitted} more failure cases not shown.</p>")
    if budget.left_out:
        parts.append(
            f"<p class='note'>{budget.left_out} thumbnails left out to keep the file small.</p>"
        )
    return "".join(parts)


def _score_cell(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return _cell(_text(value))
    if isinstance(value, (int, np.integer)):
        return _cell(str(int(value)), True)
    return _cell(_number(value, 2), True)


def _benchmark_scores(content: ReportContent) -> str:
    """Each benchmark's own tables, as ``workbench scores --benchmark NAME`` prints them."""
    if not content.benchmark_scores:
        return _missing(content, "scores")
    parts = []
    for benchmark, tables in content.benchmark_scores.items():
        parts.append(f"<h3>{_text(benchmark)}</h3>")
        for name, table in tables.items():
            parts.append(f"<h4>{_text(name)}</h4>")
            rows = [[_score_cell(value) for value in row] for row in table.itertuples(index=False)]
            parts.append(
                _table(
                    [str(column) for column in table.columns], rows, f"scores-{benchmark}-{name}"
                )
            )
        parts += _benchmark_figures(benchmark, tables)
        parts.append(_command(content.commands[f"scores:{benchmark}"]))
    return "".join(parts)


def _benchmark_figures(benchmark: str, tables: dict[str, pd.DataFrame]) -> list[str]:
    """The figures the benchmark's score provider draws from its tables (the Benchmark panel's
    too: ConvBench's per-task heatmap, CHIRP's Elo per criterion)."""
    from workbench.services.analysis import score_provider

    draw = score_provider(benchmark).figures
    if draw is None:
        return []
    return [
        f"<h4>{_text(name)}</h4>" + _figure(figure, name, f"scores-{benchmark}-figure-{number}")
        for number, (name, figure) in enumerate(draw(tables).items())
    ]


def _methods(content: ReportContent) -> str:
    provenance = content.provenance
    request = content.request
    imports = []
    for entry in provenance["imports"]:
        files = "".join(
            f"<li><code>{_text(file['name'])}</code> sha256 <code>{_text(file['sha256'])}</code> "
            f"({file['bytes']} bytes)</li>"
            for file in entry["files"]
        )
        imports.append(
            f"<li>{_text(entry['importer'])} importer {_text(entry['importer_version'])} (app "
            f"{_text(entry['app_version'])}, {_text(entry['finished_at'])})<ul>{files}</ul></li>"
        )
    campaigns = "".join(
        f"<li>{_text(row['name'])}: protocol {_text(row['protocol'])}, seed {row['seed']}, "
        f"{row['votes_per_pair']} vote(s) per pair, positions from the seeded counterbalanced "
        "schedule</li>"
        for row in provenance["campaigns"]
    )
    runs = "".join(
        f"<li>{_text(row['name'])}: template {_text(row['template'])} version "
        f"{_text(row['template_version'])}, judge model {_text(row['judge_model'])}, temperature "
        f"{_text(row['temperature'])}, both orders: "
        f"{_text({True: 'yes', False: 'no', None: 'not recorded'}[row['both_orders']])}</li>"
        for row in provenance["judge_runs"]
    )
    commands = "".join(
        f"<tr><td>{_text(name)}</td><td><code>{_text(text)}</code></td></tr>"
        for name, text in content.commands.items()
    )
    flags = filter_flags(request.filters) or "none"
    board_request = (
        content.leaderboard.request.describe()
        if content.leaderboard is not None
        else request.analysis.describe()
    )
    return (
        "<h3>Data</h3><ul>" + ("".join(imports) or "<li>no import recorded</li>") + "</ul>"
        "<h3>Human evaluation</h3><ul>"
        + (campaigns or "<li>no campaign votes in the selection</li>")
        + "</ul><h3>LLM judges</h3><ul>"
        + (runs or "<li>no judge run in the selection</li>")
        + "</ul><h3>Statistics</h3>"
        f"<p>Bradley-Terry by logistic regression (FastChat's compute_elo_mle_with_tie), "
        f"{request.bootstrap} bootstrap rounds with seed {request.seed} for the 95% intervals, "
        f"anchor {_text(content.summary.get('anchor') or 'none (no board)')} = "
        f"{request.analysis.anchor_rating:g}. "
        f"Leaderboard request: {_text(board_request)}. Filters: {_text(flags)}. "
        f"VLM Workbench {_text(content.app_version)}; report made {_text(content.created_at)} "
        f"from <code>{_text(content.bundle_location)}</code>.</p>"
        "<h3>Commands that reproduce each number</h3><table><tbody>" + commands + "</tbody></table>"
    )


def _data_block(content: ReportContent) -> str:
    """The numbers as JSON, with ``<``, ``>`` and ``&`` escaped so no text can end the block."""
    document: dict[str, Any] = {
        "summary": content.summary,
        "leaderboard": content.leaderboard.document if content.leaderboard else None,
        "style_leaderboard": content.style_board.document if content.style_board else None,
        "prediction_powered": content.powered_board.document if content.powered_board else None,
        "agreement": content.agreement.document if content.agreement else None,
        "categories": {entry.category: entry.board.document for entry in content.category_boards},
        "categories_unrated": content.categories_unrated,
        "rank_comparisons": {entry.name: entry.document for entry in content.rank_comparisons},
        "exclude_refusal": refusal_notes(content.request),
        "reproduce": reproducible_sections(content),
        "inter_annotator": content.inter_annotator,
        "cycles": records(content.cycles) if content.cycles is not None else [],
        "cycle_counts": {
            content.cycle_scope: {"cycles": content.cycle_count, "items": content.cycle_items},
            POOLED_PER_ITEM: {
                "cycles": content.pooled_cycle_count,
                "items": content.pooled_cycle_items,
            },
        },
        "provenance": content.provenance,
        "commands": content.commands,
        "missing": content.missing,
        "app_version": content.app_version,
        "created_at": content.created_at,
    }
    text = json.dumps(_clean(document), default=_json_default, allow_nan=False, indent=1)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="report-data">{text}</script>'


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


#: the key of each section in :func:`workbench.services.report.refusal_notes`
REFUSAL_KEYS = {
    "leaderboard": "leaderboard",
    "win-rates": "win_matrix",
    "categories": "categories",
    "rank-comparison": "rank_comparison",
    "agreement": "agreement",
    "powered": "powered",
    "inter-annotator": "inter_annotator",
    "cycles": "cycles",
    "gallery": "gallery",
    "scores": "scores",
}


def _refusal_note(notes: dict[str, str], section: str) -> str:
    """What ``--exclude-refusal`` does to this section (nothing when it was not asked)."""
    note = notes.get(REFUSAL_KEYS.get(section, ""))
    return f"<p class='note refusal'>Exclude refusal: {_text(note)}.</p>" if note else ""


SECTIONS = (
    ("summary", "Summary"),
    ("leaderboard", "Leaderboard"),
    ("win-rates", "Observed win rates"),
    ("categories", "Per-category leaderboards"),
    ("agreement", "Human vs judge"),
    ("rank-comparison", "Boards compared by rank"),
    ("powered", "Human-anchored judge ratings"),
    ("inter-annotator", "Inter-annotator agreement"),
    ("cycles", "Preference cycles"),
    ("gallery", "Failure cases"),
    ("scores", "Benchmark scores"),
    ("methods", "Methods"),
)


def render_report(content: ReportContent, max_image_bytes: int = MAX_TOTAL_IMAGE_BYTES) -> str:
    """The whole report as one HTML document."""
    budget = _Budget(max_image_bytes)
    gallery_ids = {case.item for case in content.gallery}
    bodies = {
        "summary": _summary(content),
        "leaderboard": _leaderboard(content),
        "win-rates": _win_matrix(content),
        "categories": _categories(content),
        "agreement": _agreement(content),
        "rank-comparison": _rank_comparison(content),
        "powered": _powered(content),
        "inter-annotator": _inter_annotator(content),
        "cycles": _cycles(content, gallery_ids),
        "gallery": _gallery(content, budget),
        "scores": _benchmark_scores(content),
        "methods": _methods(content),
    }
    notes = refusal_notes(content.request)
    navigation = "".join(f'<li><a href="#{key}">{title}</a></li>' for key, title in SECTIONS)
    sections = "".join(
        f'<section id="{key}"><h2>{title}</h2>{_refusal_note(notes, key)}{bodies[key]}</section>'
        for key, title in SECTIONS
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>Evaluation report: {_text(content.bundle_location)}</title>"
        f"<style>{CSS}</style></head><body>"
        f"<h1>Evaluation report</h1><p>{_text(content.bundle_location)}, made "
        f"{_text(content.created_at)} with VLM Workbench {_text(content.app_version)}.</p>"
        f"<nav><ul>{navigation}</ul></nav>{sections}{_data_block(content)}</body></html>"
    )


def write_report(
    location: str | Path,
    out: Path,
    request: ReportRequest,
    progress: Progress | None = None,
) -> int:
    """Gather, draw and write the report of the bundle at ``location`` to ``out`` (whole or
    not at all); the bundle is opened without migrating and only read. Returns the file's size.
    ``workbench report`` and File > Export report… both call this."""
    from workbench.export.atomic import write_bytes_atomically
    from workbench.storage import Bundle

    with Bundle.open(location, migrate=False) as bundle:
        content = build_report(bundle, request, progress)
    data = render_report(content).encode("utf-8")
    write_bytes_atomically(out, data)
    return len(data)
