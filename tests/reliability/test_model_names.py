"""Model names that look the same are one model: NFC and NFD, a zero-width space and a trailing
space are normalised at import; a letter of another script that looks Latin is kept apart and
reported."""

from __future__ import annotations

import sqlite3
import unicodedata
from pathlib import Path

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.importers.model_names import look_alikes, normalize_model_name
from workbench.services.importing import import_files

CAFE_NFC = unicodedata.normalize("NFC", "café-vl")
CAFE_NFD = unicodedata.normalize("NFD", "café-vl")


def models(bundle: Path) -> list[str]:
    with sqlite3.connect(bundle) as connection:
        return sorted(row[0] for row in connection.execute("SELECT name FROM models"))


def test_spellings_of_one_name_become_one_model_and_each_change_is_warned(
    tmp_path: Path,
) -> None:
    spellings = [CAFE_NFC, CAFE_NFD, "café-vl\u200b", "café-vl ", "\ufeffcafé-vl"]
    lines = [
        item_line(
            f"q{n}",
            outputs=[{"model": name, "text": "red"}, {"model": "model-y", "text": "blue"}],
            judgments=[{"kind": "human", "model_a": name, "model_b": "model-y", "outcome": "a"}],
        )
        for n, name in enumerate(spellings)
    ]
    result = import_files(tmp_path / "b.wbb", [write_jsonl(tmp_path / "in", lines)], "jsonl")
    assert models(tmp_path / "b.wbb") == [CAFE_NFC, "model-y"]
    changed = [str(w) for w in result.warnings if "is stored as" in str(w)]
    assert len(changed) == len(spellings) - 1  # every spelling but the normal one, once each


def test_a_cyrillic_look_alike_is_kept_apart_and_reported(tmp_path: Path) -> None:
    cyrillic = "gpt-4\u043e"  # CYRILLIC SMALL LETTER O
    lines = [
        item_line(
            "q1",
            outputs=[{"model": "gpt-4o", "text": "red"}, {"model": cyrillic, "text": "blue"}],
            judgments=[{"kind": "human", "model_a": "gpt-4o", "model_b": cyrillic, "outcome": "a"}],
        )
    ]
    result = import_files(tmp_path / "b.wbb", [write_jsonl(tmp_path / "in", lines)], "jsonl")
    assert models(tmp_path / "b.wbb") == ["gpt-4o", cyrillic]
    said = [str(w) for w in result.warnings if "look alike" in str(w)]
    assert len(said) == 1 and "U+043E CYRILLIC SMALL LETTER O" in said[0]


def test_normalize_and_look_alikes() -> None:
    assert normalize_model_name(" a\u200bb\u200d ") == "ab"
    assert normalize_model_name(CAFE_NFD) == CAFE_NFC
    assert look_alikes(["gpt-4o", "gpt-4\u043e", "claude", "ＧＰＴ"]) == [("gpt-4o", "gpt-4\u043e")]


def _import(tmp_path: Path, bundle: Path, folder: str, names: list[str]) -> list[str]:
    """Import one item answered by ``names`` and ``model-y``; the warnings, as text."""
    lines = [
        item_line(
            f"{folder}-q{n}",
            outputs=[{"model": name, "text": "red"}, {"model": "model-y", "text": "blue"}],
            judgments=[{"kind": "human", "model_a": name, "model_b": "model-y", "outcome": "a"}],
        )
        for n, name in enumerate(names)
    ]
    result = import_files(bundle, [write_jsonl(tmp_path / folder, lines)], "jsonl")
    return [str(warning) for warning in result.warnings]


def test_a_second_import_is_checked_against_the_models_already_in_the_bundle(
    tmp_path: Path,
) -> None:
    bundle = tmp_path / "b.wbb"
    assert _import(tmp_path, bundle, "first", ["gpt-4o", CAFE_NFC]) == []
    cyrillic = "gpt-4\u043e"
    warnings = _import(tmp_path, bundle, "second", [cyrillic, CAFE_NFD, "gpt-4o\u200b", "gpt-4o "])
    # NFD, the zero-width space and the trailing space land on the models already there
    assert models(bundle) == [CAFE_NFC, "gpt-4o", cyrillic, "model-y"]
    assert len([w for w in warnings if "is stored as" in w]) == 3
    # the Cyrillic letter cannot be merged: it is reported against the bundle's own model
    alike = [w for w in warnings if "already in the bundle" in w]
    assert len(alike) == 1
    assert f"{cyrillic!r} looks like 'gpt-4o'" in alike[0]
    assert "U+043E CYRILLIC SMALL LETTER O" in alike[0]


def test_a_name_an_older_app_stored_unnormalised_is_a_known_look_alike(tmp_path: Path) -> None:
    bundle = tmp_path / "b.wbb"
    _import(tmp_path, bundle, "first", ["placeholder"])
    with sqlite3.connect(bundle) as connection:  # as an app without normalising stored it
        connection.execute("UPDATE models SET name = 'gpt-4o ' WHERE name = 'placeholder'")
    warnings = _import(tmp_path, bundle, "second", ["gpt-4o"])
    assert models(bundle) == ["gpt-4o", "gpt-4o ", "model-y"]
    alike = [w for w in warnings if "already in the bundle" in w]
    assert len(alike) == 1 and "U+0020 SPACE" in alike[0]
    with sqlite3.connect(bundle) as connection:
        stored = connection.execute("SELECT warnings FROM imports ORDER BY id DESC").fetchone()
    assert "already in the bundle" in stored[0]
