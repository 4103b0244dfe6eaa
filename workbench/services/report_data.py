"""The report's numbers as JSON for machines, and the one value the report's templates insert
unescaped: that JSON, inside ``<script type="application/json" id="report-data">``."""

from __future__ import annotations

import json
import math
from typing import Any

from markupsafe import Markup

from workbench.services.report import ReportContent, records, refusal_notes, reproducible_sections
from workbench.stats.cycle_scopes import POOLED_PER_ITEM


def data_document(content: ReportContent) -> dict[str, Any]:
    """What the data block holds: every section's numbers, the provenance and the commands."""
    return {
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


def script_json(document: dict[str, Any]) -> Markup:
    """The document as JSON that can stand inside a ``<script>`` element.

    The report's only raw insertion, and why it is safe: a script element's text is not
    entity-decoded, so HTML escaping would corrupt the JSON (a ``"`` would arrive as
    ``&#34;``); instead every ``<``, ``>`` and ``&`` is written as a JSON ``\\u`` escape, so no
    text in the document can close the element or open another, and the JSON reads back the
    same."""
    text = json.dumps(_clean(document), default=_json_default, allow_nan=False, indent=1)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)  # safe: no < > or & is left in the text


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
