"""The words of the messages a newcomer meets first are the words docs/glossary.md defines:
every thing a message counts ("12 comparisons to judge, on 4 items") is a glossary term or an
everyday unit, and no message uses a retired word ("87 tasks over 87 slots", a skip "a model has
no answer on a turn shown" for items with no answers at all). The messages are produced by the
real commands (campaign create, judge's dry run with its skips, info, export and import with
their progress lines, piped), so a message that regresses fails here."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.services.campaign_helpers import MODELS, build_campaign_bundle
from workbench.cli import main

GLOSSARY = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"

#: words messages no longer use, each with the plain word that replaced it
RETIRED = {
    "slot": "comparison, or item turn",
    "slots": "comparisons, or item turns",
    "pairs": "comparisons",
}
RETIRED_PHRASES = ("a model has no answer on a turn shown", "over 87")

#: units a message may count without a glossary entry: time, size, files and rows of input
EVERYDAY_UNITS = {
    "s", "ms", "second", "seconds", "minute", "minutes", "byte", "bytes", "kb", "mb", "gb",
    "file", "files", "row", "rows", "line", "lines", "request", "requests", "token", "tokens",
    "image", "images", "record", "records", "warning", "warnings", "model", "models",
    "prompt", "completion", "input", "output", "of", "to", "by", "in", "on", "and", "or",
    "left", "done", "new", "already", "more", "judged", "sent", "answered", "skipped", "stored",
}  # fmt: skip


def glossary_terms() -> set[str]:
    """Every bold word of the glossary's table, in lower case, with its plural."""
    text = GLOSSARY.read_text(encoding="utf-8")
    terms = {term.lower() for term in re.findall(r"\*\*([^*]+)\*\*", text)}
    words = set()
    for term in terms:
        words.add(term)
        words.update(term.split())
    return words | {f"{word}s" for word in words} | {f"{word}(s)" for word in words}


def counted_words(text: str) -> list[str]:
    """The word after each number on its line in ``text`` ("12 comparisons" ->
    "comparisons"; "0 judged before" -> "judged")."""
    return [
        word.lower()
        for word in re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?[ \t]+([A-Za-z][A-Za-z()-]+)", text)
    ]


def test_the_glossary_defines_each_word_once() -> None:
    text = GLOSSARY.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| **")]
    defined = [term.lower() for row in rows for term in re.findall(r"\*\*([^*]+)\*\*", row)]
    assert len(defined) == len(set(defined)) and len(defined) > 20


@pytest.fixture(scope="module")
def messages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What each first-hour command printed (stdout and stderr), piped as in a script."""
    folder = tmp_path_factory.mktemp("glossary")
    captured: dict[str, str] = {}

    def run(name: str, *argv: str | Path) -> None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(argument) for argument in argv])
        captured[name] = out.getvalue() + err.getvalue()
        assert code == 0, captured[name]

    campaign = build_campaign_bundle(folder / "campaign", items=4)
    run(
        "campaign create",
        *("campaign", "create", campaign, "--name", "c1", "--protocol", "arena-battle"),
        *("--models", ",".join(MODELS[:3]), "--items", "all", "--votes-per-pair", "2"),
    )
    # one item answered by both models, one by one of them, one by neither: both skip reasons
    lines = [
        item_line("both", outputs=[{"model": "m-a", "text": "x"}, {"model": "m-b", "text": "y"}]),
        item_line("one", outputs=[{"model": "m-a", "text": "x"}]),
        item_line("none", outputs=[]),
    ]
    judged = folder / "judged.wbb"
    run(
        "import",
        "import",
        write_jsonl(folder / "src", lines),
        "--format",
        "jsonl",
        "--into",
        judged,
    )
    run(
        "judge dry run",
        *("judge", judged, "--base-url", "http://127.0.0.1:9/v1", "--model", "m"),
        *("--template", "arena-five-level", "--models", "m-a,m-b", "--dry-run"),
    )
    run("info", "info", campaign)
    run("export", "export", campaign, "--format", "items", "--out", folder / "items.jsonl")
    return captured


def test_the_messages_name_the_skips_in_plain_words(messages: dict[str, str]) -> None:
    dry_run = messages["judge dry run"]
    assert "the item holds no answer from either model" in dry_run
    assert "one of the two models did not answer this item" in dry_run
    assert "comparisons to judge" in messages["campaign create"]


@pytest.mark.parametrize(
    "command", ["campaign create", "import", "judge dry run", "info", "export"]
)
def test_no_message_uses_a_retired_word(messages: dict[str, str], command: str) -> None:
    text = messages[command]
    words = set(re.split(r"[^a-z]+", text.lower()))
    used = {word: plain for word, plain in RETIRED.items() if word in words}
    assert used == {}, f"{command} says {sorted(used)}; say {sorted(used.values())}:\n{text}"
    for phrase in RETIRED_PHRASES:
        assert phrase not in text, text


@pytest.mark.parametrize(
    "command", ["campaign create", "import", "judge dry run", "info", "export"]
)
def test_every_counted_thing_is_a_glossary_term_or_an_everyday_unit(
    messages: dict[str, str], command: str
) -> None:
    known = glossary_terms() | EVERYDAY_UNITS
    unknown = sorted({word for word in counted_words(messages[command]) if word not in known})
    assert unknown == [], (
        f"{command} counts {unknown}: define them in docs/glossary.md or use its words:\n"
        + messages[command]
    )
