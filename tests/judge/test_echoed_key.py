"""An endpoint that echoes the Authorization header in a successful answer: the key, as is,
URL-encoded or JSON-escaped, reaches neither judge_verdicts.raw_text, the response cache, nor
an export."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from urllib.parse import quote, quote_plus

from workbench_visit_bench.judge_templates import REFERENCE_FREE

from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import build_bundle
from tests.judge.judging import judge, settings_for
from workbench.cli import main
from workbench.judge.secrets import LOCAL_PLACEHOLDER_KEY, Secret, scrub
from workbench.logging_setup import REDACTED
from workbench.services.judging.worklist import JudgeScope

#: changes under URL-encoding and JSON-escaping, and is not shaped like an OpenAI key
ECHOED_KEY = 'wbtest-echo/9f+"q=Z~x'


def forms(value: str) -> set[str]:
    return {
        value,
        quote(value, safe=""),
        quote_plus(value),
        json.dumps(value)[1:-1],
        json.dumps(f"Bearer {value}")[1:-1],
        quote(f"Bearer {value}", safe=""),
    }


def test_scrub_replaces_every_form_and_leaves_other_text() -> None:
    secret = Secret(ECHOED_KEY)
    text = " | ".join(sorted(forms(ECHOED_KEY))) + " | Overall, Response A is better."
    cleaned = scrub(text, secret)
    assert not any(form in cleaned for form in forms(ECHOED_KEY))
    assert cleaned.endswith("Overall, Response A is better.") and REDACTED in cleaned
    # the placeholder of a local server is no secret: answers that mention it stay whole
    assert scrub("not-needed", Secret(LOCAL_PLACEHOLDER_KEY)) == "not-needed"


def test_an_echoed_key_is_stored_and_exported_nowhere(tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path, 4)
    with FakeOpenAIServer(
        responder=lambda _messages: "Overall, Response A is better.",
        faults=Faults(echo_authorization=True),
    ) as server:
        settings = settings_for(server, REFERENCE_FREE, selection=JudgeScope(limit=3))
        _, summary = judge(bundle, settings, REFERENCE_FREE, key=ECHOED_KEY)
        assert server.stats.authorization == {f"Bearer {ECHOED_KEY}"}  # it was sent
    assert summary.status == "completed" and summary.progress.verdicts == 6
    with sqlite3.connect(bundle) as connection:
        stored = [
            text
            for (text,) in connection.execute(
                "SELECT raw_text FROM judge_verdicts UNION ALL "
                "SELECT response_text FROM response_cache"
            )
        ]
    assert stored and all(REDACTED in text and "Response A" in text for text in stored)
    exported = {}
    for export_format in ("items", "jsonl", "csv"):
        out = tmp_path / f"export.{export_format}"
        assert main(["export", str(bundle), "--out", str(out), "--format", export_format]) == 0
        exported[export_format] = out.read_text(encoding="utf-8")
    assert all(REDACTED in text for text in exported.values())
    for text in [*stored, *exported.values()]:
        leaked = [form for form in forms(ECHOED_KEY) if form in text]
        assert not leaked
