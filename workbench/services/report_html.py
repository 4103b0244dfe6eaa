"""Draw a :class:`~workbench.services.report.ReportContent` as one self-contained HTML file:
inline CSS, figures as SVG data URIs, images as small JPEG thumbnails, the numbers also as a
JSON block (``<script type="application/json" id="report-data">``) for machines. Nothing is
loaded from the network; a Content-Security-Policy forbids it.

The page is drawn by Jinja2 templates (``report_templates/``, one per section) with
autoescaping on: every piece of bundle data (model names, answers, labels) is untrusted and is
escaped wherever a template prints it. :mod:`workbench.services.report_sections` picks what
each section shows; the only value printed raw is the JSON block
(:func:`workbench.services.report_data.script_json`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.export.atomic import write_bytes_atomically
from workbench.progress import Progress
from workbench.services import report_sections
from workbench.services.report import (
    ReportContent,
    ReportRequest,
    build_report,
    refusal_notes,
)
from workbench.services.report_data import data_document, script_json
from workbench.services.report_figures import (
    MAX_IMAGE_BYTES,
    MAX_TOTAL_IMAGE_BYTES,
    ImageBudget,
)
from workbench.services.report_templating import environment
from workbench.storage import Bundle

__all__ = ["MAX_IMAGE_BYTES", "MAX_TOTAL_IMAGE_BYTES", "render_report", "write_report"]

#: the sections in page order: each key names its template (``sections/KEY.html.j2``) and its
#: anchor in the page
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


def section_views(content: ReportContent, budget: ImageBudget) -> dict[str, dict[str, Any]]:
    """What each section's template is given, by section key."""
    sections = report_sections
    return {
        "summary": sections.summary(content),
        "leaderboard": sections.leaderboard(content),
        "win-rates": sections.win_rates(content),
        "categories": sections.categories(content),
        "agreement": sections.agreement(content),
        "rank-comparison": sections.rank_comparison(content),
        "powered": sections.powered(content),
        "inter-annotator": sections.inter_annotator(content),
        "cycles": sections.cycles(content, {case.item for case in content.gallery}),
        "gallery": sections.gallery(content, budget),
        "scores": sections.benchmark_scores(content),
        "methods": sections.methods(content),
    }


def render_report(content: ReportContent, max_image_bytes: int = MAX_TOTAL_IMAGE_BYTES) -> str:
    """The whole report as one HTML document."""
    notes = refusal_notes(content.request)
    return (
        environment()
        .get_template("report.html.j2")
        .render(
            content=content,
            sections=SECTIONS,
            views=section_views(content, ImageBudget(max_image_bytes)),
            refusal_notes={key: notes.get(REFUSAL_KEYS.get(key, "")) for key, _ in SECTIONS},
            data=script_json(data_document(content)),
        )
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
    with Bundle.open(location, migrate=False) as bundle:
        content = build_report(bundle, request, progress)
    data = render_report(content).encode("utf-8")
    write_bytes_atomically(out, data)
    return len(data)
