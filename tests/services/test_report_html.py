"""The HTML report (workbench/services/report_html.py): untrusted names and answers are escaped,
thumbnails stay under their caps so a 500-item report stays small, and the file renders in
headless Chromium with no console error, no request outside the file, and every figure drawn."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any, cast

import pytest

from tests.services.chromium import CHROMIUM, inspect_page
from tests.services.report_bundle import build_report_bundle
from workbench.cli import main
from workbench.services.analysis_request import AnalysisRequest
from workbench.services.report import ReportRequest, build_report
from workbench.services.report_html import MAX_IMAGE_BYTES, MAX_TOTAL_IMAGE_BYTES, render_report
from workbench.storage import Bundle

HOSTILE = (
    "<img src=x onerror=alert(1)>",
    "</script><script>alert(2)</script>",
    "cost $5 & \"quoted\" 'model'",
    "plain-model",
)


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    bundle = build_report_bundle(folder, models=HOSTILE)
    out = folder / "report.html"
    assert main(["report", str(bundle), "--out", str(out), "--bootstrap", "10"]) == 0
    return out


def report_data(html: str) -> dict[str, Any]:
    found = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S
    )
    assert found is not None
    return cast("dict[str, Any]", json.loads(found.group(1)))


def test_hostile_model_names_are_escaped_everywhere(hostile_report: Path) -> None:
    html = hostile_report.read_text(encoding="utf-8")
    assert "<img src=x" not in html
    assert "<script>alert" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in html
    # the only script element is the JSON block, and it gives the names back unchanged
    assert html.count("<script") == 1
    data = report_data(html)
    assert set(data["summary"]["model_names"]) == set(HOSTILE)
    assert {entry["model"] for entry in data["leaderboard"]["models"]} == set(HOSTILE)


def test_figures_are_images_and_nothing_can_be_loaded(hostile_report: Path) -> None:
    html = hostile_report.read_text(encoding="utf-8")
    assert "default-src 'none'; img-src data:" in html
    sources = re.findall(r'src="([^"]*)"', html)
    assert sources and all(source.startswith("data:image/") for source in sources)
    assert not re.search(r"(href|src)=\"(https?:)?//", html)


def test_a_500_item_report_stays_under_20_mb(tmp_path: Path) -> None:
    bundle = build_report_bundle(tmp_path, models=("alpha", "bravo"), items=500, one_image=True)
    with Bundle.open(bundle) as opened:
        content = build_report(
            opened, ReportRequest(AnalysisRequest(bootstrap=0), gallery_items=500)
        )
    assert len(content.gallery) >= 40  # enough failure cases with images to test the caps
    html = render_report(content)
    assert len(html.encode("utf-8")) < 20_000_000
    thumbnails = [
        base64.b64decode(data) for data in re.findall(r'src="data:image/jpeg;base64,([^"]*)"', html)
    ]
    assert thumbnails
    assert max(len(data) for data in thumbnails) <= MAX_IMAGE_BYTES
    assert sum(len(data) for data in thumbnails) <= MAX_TOTAL_IMAGE_BYTES
    # a tighter whole-file cap leaves thumbnails out and says so
    small = render_report(content, max_image_bytes=3 * MAX_IMAGE_BYTES)
    kept = re.findall(r'src="data:image/jpeg;base64,([^"]*)"', small)
    assert sum(len(base64.b64decode(data)) for data in kept) <= 3 * MAX_IMAGE_BYTES
    assert "thumbnails left out to keep the file small" in small


@pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Chromium is not installed at /usr/bin/chromium (scripts/install-system-deps.sh "
    "installs the Debian package 'chromium')",
)
def test_the_report_renders_in_headless_chromium(hostile_report: Path, tmp_path: Path) -> None:
    page = inspect_page(hostile_report, tmp_path / "profile")
    assert page["console_errors"] == []
    assert page["dialogs"] == []
    outside = [url for url in page["requests"] if not url.startswith(("file:", "data:"))]
    assert outside == []
    ids = {figure["id"] for figure in page["figures"]}
    assert ids == {"figure-forest", "figure-style-forest", "figure-heatmap", "figure-scatter"}
    for figure in page["figures"]:
        assert figure["complete"] and figure["naturalWidth"] > 0, figure
        assert figure["width"] > 100 and figure["height"] > 100, figure
