"""The report's templates escape every value: autoescaping is on, no template opts out, and
the one raw insertion (the JSON data block) is made in one named place."""

from __future__ import annotations

import re
from pathlib import Path

from markupsafe import Markup

from workbench.services.report_data import script_json
from workbench.services.report_templating import TEMPLATES, environment

ROOT = Path(__file__).resolve().parents[2]
#: ways a template or a module can print a value unescaped
OPT_OUTS = re.compile(r"\|\s*safe\b|autoescape\s+false|Markup\(|markupsafe\.Markup\b")


def test_no_template_prints_a_value_raw() -> None:
    templates = sorted(TEMPLATES.rglob("*.j2"))
    assert len(templates) > 10  # the page and its sections
    found = [
        f"{path.relative_to(ROOT)}: {match.group()}"
        for path in templates
        for match in OPT_OUTS.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_json_block_is_the_only_markup_made_in_python() -> None:
    makers = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "workbench").rglob("*.py")
        if re.search(r"\bMarkup\(", path.read_text(encoding="utf-8"))
    ]
    assert makers == ["workbench/services/report_data.py"]


def test_a_printed_value_is_escaped_and_never_evaluated() -> None:
    template = environment().from_string("<p>{{ value }}</p><p title='{{ value }}'></p>")
    hostile = '<b>"{{ 7 * 7 }}"</b> & \''
    assert template.render(value=hostile) == (
        "<p>&lt;b&gt;&#34;{{ 7 * 7 }}&#34;&lt;/b&gt; &amp; &#39;</p>"
        "<p title='&lt;b&gt;&#34;{{ 7 * 7 }}&#34;&lt;/b&gt; &amp; &#39;'></p>"
    )


def test_a_direction_control_is_isolated_wherever_a_value_is_printed() -> None:
    template = environment().from_string("{{ value }}")
    assert template.render(value="a model-\u202eowt b") == "a \u2068model-\u202eowt\u2069 b"


def test_the_json_block_cannot_close_its_script_element() -> None:
    block = script_json({"name": "</script><script>alert(1)</script>", "and": "&"})
    assert isinstance(block, Markup)
    assert "<" not in block and ">" not in block and "&" not in block
