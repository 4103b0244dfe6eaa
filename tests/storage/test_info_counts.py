"""``workbench info`` counts judgments through the read model, as the item list counts them:
every judgment shown (imported, voted, judged; derived ones included), per source and per
origin, and those without an item. The imported ones are checked against the stored rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.shared_builds import copy_of
from workbench.cli import main
from workbench.storage import judgments as judgment_store
from workbench.storage import queries


@pytest.fixture(scope="module")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory, demo_bundle_template: Path) -> Path:
    return copy_of(demo_bundle_template, tmp_path_factory.mktemp("demo"))


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


def item_list_total(path: Path) -> int:
    """What the item list shows, summed over every item."""
    from workbench.services.browse import BundleBrowser, ItemQuery
    from workbench.storage import Bundle

    with Bundle.open(path, read_only=True) as bundle:
        browser = BundleBrowser(bundle)
        return sum(
            row.judgments for row in browser.item_rows(browser.matching_item_ids(ItemQuery()))
        )


def check(printed: Any, path: Path) -> None:
    total, without_item, per_source = stored(path)
    totals = printed["totals"]
    assert totals["judgments_imported"] == total
    assert totals["judgments_without_item"] == without_item
    by_origin = sum(
        totals[f"judgments_{origin}"]
        for origin in ("imported", "campaign", "judge_run", "adjudication")
    )
    assert totals["judgments"] == by_origin
    assert totals["judgments"] - totals["judgments_without_item"] == item_list_total(path)
    assert sum(values["judgments"] for values in printed["sources"].values()) == (
        totals["judgments"] - without_item
    )
    imported_per_source = {
        source: values["judgments"] for source, values in printed["sources"].items()
    }
    if totals["judgments"] == totals["judgments_imported"]:
        assert imported_per_source == {s: per_source.get(s, 0) for s in imported_per_source}


def test_info_counts_through_the_read_model(
    demo_bundle: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[Any] = []
    counted = judgment_store.count_judgments

    def spy(session: Any, *filters: Any, by: str | None = None) -> dict[Any, int]:
        asked.append((filters, by))
        return counted(session, *filters, by=by)

    monkeypatch.setattr(queries, "count_judgments", spy)
    printed = info(capsys, demo_bundle)
    assert asked, "workbench info did not count through the read model"
    (filters, by), *_ = asked
    assert filters[0].origins == () and filters[0].include_derived and by == "source"
    # the demo holds a simulated judge run beside its imported votes: both are counted
    assert printed["totals"]["judgments_judge_run"] > 0
    check(printed, demo_bundle)


@pytest.mark.shared_data
def test_info_counts_every_stored_judgment(
    full_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # WildVision-Bench's derived battles and the arena battles, which have no item, count too
    printed = info(capsys, full_bundle)
    assert printed["totals"]["judgments_without_item"] > 0
    check(printed, full_bundle)


def test_info_counts_campaign_votes_as_the_item_list_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.services.campaign_helpers import build_campaign_bundle, registry_with_all_protocols
    from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
    from workbench.services.voting import AnnotationSession
    from workbench.storage import Bundle

    path = build_campaign_bundle(tmp_path, items=3)
    assert isinstance(path, Path)
    plugins = registry_with_all_protocols()
    with Bundle.open(path) as bundle:
        add_annotator(bundle, "ann")
        create_campaign(bundle, CampaignSpec("c", "arena-battle", seed=5), plugins)
        session = AnnotationSession(bundle, "c", "ann", plugins)
        for _ in range(3):
            task = session.next_task()
            assert task is not None
            session.cast(task.token, {"overall": "a"})
    printed = info(capsys, path)
    assert printed["totals"]["judgments_campaign"] == 3
    assert printed["totals"]["judgments"] == 3
    check(printed, path)
