"""``workbench info`` counts imported judgments through the read model, and the numbers are
those of the stored rows: every imported judgment (derived ones included), per source, and
those without an item."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.demo import generate_demo_bundle
from workbench.storage import queries


@pytest.fixture(scope="module")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_demo_bundle(tmp_path_factory.mktemp("demo") / "demo.wbb")


def info(capsys: pytest.CaptureFixture[str], path: Path) -> Any:
    capsys.readouterr()
    assert main(["info", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def stored(path: Path) -> tuple[int, int, dict[str, int]]:
    """The same counts straight from the table, independently of the read model."""
    with sqlite3.connect(path) as connection:
        total, without_item = connection.execute(
            "SELECT count(*), coalesce(sum(item_id IS NULL), 0) FROM prior_judgments"
        ).fetchone()
        per_source = dict(
            connection.execute(
                "SELECT sources.name, count(*) FROM prior_judgments "
                "JOIN items ON items.id = prior_judgments.item_id "
                "JOIN sources ON sources.id = items.source_id GROUP BY sources.name"
            ).fetchall()
        )
    return total, without_item, per_source


def check(printed: Any, path: Path) -> None:
    total, without_item, per_source = stored(path)
    assert printed["totals"]["judgments"] == total
    assert printed["totals"]["judgments_without_item"] == without_item
    for source, values in printed["sources"].items():
        assert values["judgments"] == per_source.get(source, 0)


def test_info_counts_through_the_read_model(
    demo_bundle: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[Any] = []
    counted = queries.count_judgments

    def spy(session: Any, *filters: Any, by: str | None = None) -> dict[Any, int]:
        asked.append((filters, by))
        return counted(session, *filters, by=by)

    monkeypatch.setattr(queries, "count_judgments", spy)
    printed = info(capsys, demo_bundle)
    assert asked, "workbench info did not count through the read model"
    (filters, by), *_ = asked
    assert filters[0].origins == ("imported",) and filters[0].include_derived and by == "source"
    check(printed, demo_bundle)


@pytest.mark.shared_data
def test_info_counts_every_stored_judgment(
    full_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # WildVision-Bench's derived battles and the arena battles, which have no item, count too
    printed = info(capsys, full_bundle)
    assert printed["totals"]["judgments_without_item"] > 0
    check(printed, full_bundle)
