"""Ten HTML, script and template payloads in every text field the report shows (model names,
item ids and categories, prompts, answers, campaign, annotator, judge run and judge model
names): the page holds only the tags its templates write, every payload is shown as text, and
the data block gives the names back unchanged."""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser
from itertools import combinations

import pytest
from markupsafe import escape

from tests.stats.bundle_helpers import (
    add_campaign_votes,
    add_judge_verdicts,
    build_bundle,
    item_line,
)
from workbench.services.analysis_request import AnalysisRequest
from workbench.services.report import ReportRequest, build_report
from workbench.services.report_html import render_report
from workbench.storage import Bundle

PAYLOADS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    '"><svg onload=alert(3)>',
    "'><iframe src=javascript:alert(4)>",
    "</script><script>alert(5)</script>",
    '<a href="javascript:alert(6)">six</a>',
    "<style>body{background:url(https://example.org/7)}</style>",
    "<link rel=stylesheet href=https://example.org/8.css>",
    "<object data=https://example.org/9></object>",
    "{{ 7 * 7 }}{% raw %}<!--",
)
MODELS = PAYLOADS[:4]
#: every tag the report's templates write
TEMPLATE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "p", "b", "nav",
    "ul", "li", "a", "section", "div", "table", "thead", "tbody", "tr", "th", "td", "figure",
    "img", "code", "pre", "span", "script",
}  # fmt: skip


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("hostile-fields")
    every = " ".join(PAYLOADS)
    rng = random.Random(3)
    lines = []
    for index, payload in enumerate(PAYLOADS):
        line = item_line(
            f"q{index} {payload}",
            [],
            category=payload,
            outputs={model: f"{every} answer of {model}" for model in MODELS},
        )
        line["turns"][0]["prompt"] = f"{every} question {index}"
        lines.append(line)
    bundle = build_bundle(folder, lines)
    votes: list[tuple[str, str, str | None, str | None, str]] = []
    verdicts: list[tuple[str, str, str, str | None]] = []
    for index, payload in enumerate(PAYLOADS):
        item = f"q{index} {payload}"
        for first, second in combinations(MODELS, 2):
            for annotator in PAYLOADS[4:7]:
                votes.append((annotator, item, first, second, rng.choice("aab")))
            verdicts.append((item, first, second, rng.choice("abb")))
    add_campaign_votes(bundle, PAYLOADS[7], votes)
    add_judge_verdicts(bundle, PAYLOADS[8], verdicts)
    with Bundle.open(bundle) as opened:
        content = build_report(opened, ReportRequest(AnalysisRequest(bootstrap=5, min_battles=1)))
    assert content.gallery, "the bundle makes failure cases, so answers and prompts are shown"
    return render_report(content)


def test_the_page_holds_only_the_templates_tags(page: str) -> None:
    parser = _Elements()
    parser.feed(page)
    assert {tag for tag, _ in parser.elements} <= TEMPLATE_TAGS
    assert [tag for tag, _ in parser.elements].count("script") == 1
    for tag, attributes in parser.elements:
        assert not any(name.startswith("on") for name in attributes), (tag, attributes)
        if tag == "a":
            assert (attributes["href"] or "").startswith("#"), attributes
        if tag == "img":
            assert (attributes["src"] or "").startswith("data:image/"), attributes


def test_every_payload_is_shown_as_text(page: str) -> None:
    shown = page.split('<script type="application/json"')[0]
    for payload in PAYLOADS:
        assert payload not in shown
        assert str(escape(payload)) in shown, payload
    # a value is never template source: its braces are printed, not evaluated
    assert "{{ 7 * 7 }}{% raw %}" in shown


def test_the_data_block_gives_the_names_back(page: str) -> None:
    found = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert found is not None
    data = json.loads(found.group(1))
    assert set(data["summary"]["model_names"]) == set(MODELS)
    campaigns = {row["name"] for row in data["provenance"]["campaigns"]}
    runs = {row["name"] for row in data["provenance"]["judge_runs"]}
    assert campaigns == {PAYLOADS[7]} and runs == {PAYLOADS[8]}
