"""The judgment read model (workbench/storage/judgments.py): one shape for the three stores,
filters in SQL, derived judgments left out by default, and the aggregates read in SQL."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import Select, String, literal
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from tests.backends import BundleBackend, Location
from tests.stats.bundle_helpers import (
    add_campaign_votes,
    add_judge_verdicts,
    build_bundle,
    item_line,
)
from workbench.storage import Bundle, judgments
from workbench.storage.judgment_counts import recount
from workbench.storage.judgments import (
    COLUMNS,
    OutcomeFilter,
    StoreColumn,
    _battle_counts_statement,
    battle_counts,
    compiled_queries_source,
    counts_per_item,
    distinct_values,
    fingerprint,
    fingerprint_statements,
    positioned_battle_counts,
    read_judgments,
    stored_after,
    stored_after_statements,
)


@pytest.fixture(scope="module")
def read_model_template(
    tmp_path_factory: pytest.TempPathFactory, bundle_backend: BundleBackend
) -> Location:
    """A small bundle of every store, on each backend (SQLite and PostgreSQL), built once per
    module and backend: each test reads or writes a copy of it (:func:`bundle_path`)."""
    lines = [
        item_line(
            "q1",
            [
                {
                    "kind": "judge",
                    "model_a": "x",
                    "model_b": "y",
                    "outcome": "a",
                    "strength": 2,
                    "rater": "gpt",
                },
                # the same evidence again, as an importer's derived battle
                {
                    "kind": "judge",
                    "model_a": "x",
                    "model_b": "y",
                    "outcome": "a",
                    "rater": "battles",
                    "metadata": {"derived": "battles"},
                },
            ],
            category=None,
            language=None,
        ),
        item_line(
            "q2",
            [{"kind": "human", "model_a": "y", "model_b": "x", "outcome": "tie", "rater": "h1"}],
            category="ocr",
        ),
    ]
    folder = tmp_path_factory.mktemp("read-model")
    path = build_bundle(folder, lines, into=bundle_backend.new_location())
    add_campaign_votes(path, "pilot", [("ann", "q1", "x", "y", "b"), ("ann", "q2", "x", None, "a")])
    add_judge_verdicts(path, "run-1", [("q2", "x", "y", "b"), ("q2", "y", "x", None)])
    return cast("Location", path)


@pytest.fixture
def bundle_path(read_model_template: Location, bundle_backend: BundleBackend) -> Iterator[Location]:
    """A copy of :func:`read_model_template` for one test."""
    location = bundle_backend.copy(read_model_template)
    yield location
    bundle_backend.discard(location)


def _rows(path: Path, *filters: OutcomeFilter) -> list[dict[str, Any]]:
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        names, rows = read_judgments(session, *filters)
    return [dict(zip(names, row, strict=True)) for row in rows]


def test_three_stores_in_one_shape_and_stored_order(bundle_path: Path) -> None:
    rows = _rows(bundle_path, OutcomeFilter(include_derived=True))
    assert set(rows[0]) == set(COLUMNS)
    assert [row["origin"] for row in rows] == ["imported"] * 3 + ["campaign"] * 2 + ["judge-run"]
    vote_on_reference = rows[4]
    assert (vote_on_reference["model_a"], vote_on_reference["model_b"]) == ("x", "reference")
    missing = [row for row in rows if row["item_external_id"] == "q1"]
    assert all(row["category"] is None and row["language"] is None for row in missing)
    assert [row["derived"] for row in rows].count(True) == 1
    # the failed verdict is no judgment
    assert sum(row["origin"] == "judge-run" for row in rows) == 1


def test_derived_judgments_count_only_when_asked_for(bundle_path: Path) -> None:
    default = _rows(bundle_path)
    assert "battles" not in {row["rater"] for row in default}
    assert len(_rows(bundle_path, OutcomeFilter(include_derived=True))) == len(default) + 1
    # naming the rater selects its judgments, derived or not
    named = _rows(bundle_path, OutcomeFilter(raters=("battles",)))
    assert [row["rater"] for row in named] == ["battles"]


def test_filters_combine_with_and(bundle_path: Path) -> None:
    rows = _rows(bundle_path, OutcomeFilter(kinds=("human",)), OutcomeFilter(categories=("ocr",)))
    assert {(row["origin"], row["item_external_id"]) for row in rows} == {
        ("imported", "q2"),
        ("campaign", "q2"),
    }
    assert _rows(bundle_path, OutcomeFilter(items=(999,))) == []


def test_aggregates_in_sql_match_the_rows(bundle_path: Path) -> None:
    rows = [
        row
        for row in _rows(bundle_path)
        if row["outcome"] is not None and row["model_a"] and row["model_b"]
    ]
    expected = Counter((row["model_a"], row["model_b"], row["outcome"]) for row in rows)
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        counts = battle_counts(session)
        weighted = battle_counts(session, decisive_weight=3)
        categories = distinct_values(session, "category")
        per_item = counts_per_item(session)
    assert {(a, b, outcome): total for a, b, outcome, total, _ in counts} == expected
    assert {(a, b, outcome): rows for a, b, outcome, _, rows in counts} == expected
    # in order of first appearance
    firsts = list(dict.fromkeys((row["model_a"], row["model_b"], row["outcome"]) for row in rows))
    assert [(a, b, outcome) for a, b, outcome, *_ in counts] == firsts
    # the strength-2 verdict counts three battles
    assert {(a, b, o): t for a, b, o, t, _ in weighted}[("x", "y", "a")] == 3.0
    assert categories == ["ocr"]  # NULL is no choice
    # the inspector counts everything stored, the derived battle too
    assert sorted(per_item.values()) == [3, 3]


def test_a_store_added_to_the_declaration_is_in_every_variant(
    bundle_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The union's variants (wide rows, battle counts on the pairwise rows, the inspector's
    narrow counts, the fingerprint, the quick path's compiled text) are generated from the one
    declaration of stores: a store declared there (here the votes again, under another
    origin) is read by each of them, with no other change."""
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        counts = {row[:3]: row[3] for row in battle_counts(session)}
        per_item = counts_per_item(session)
        stamp = fingerprint(session)
    votes = next(store for store in judgments.STORES if store.origin == "campaign")
    echo = replace(
        votes,
        origin="echo",
        columns={**votes.columns, "origin": StoreColumn(literal("echo", String))},
    )
    monkeypatch.setattr(judgments, "STORES", (*judgments.STORES, echo))

    rows = _rows(bundle_path)
    campaign = [row for row in rows if row["origin"] == "campaign"]
    echoed = [row for row in rows if row["origin"] == "echo"]
    assert rows[-len(echoed) :] == echoed  # stored order follows the declaration
    assert [{**row, "origin": "campaign"} for row in echoed] == campaign
    with Bundle.open(bundle_path) as bundle, bundle.session() as session:
        recount(session)  # the kept counts count a store's rows from its declaration too
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        echoed_counts = {row[:3]: row[3] for row in battle_counts(session)}
        echoed_per_item = counts_per_item(session)
        echoed_stamp = fingerprint(session)
    vote_battles = Counter(
        (row["model_a"], row["model_b"], row["outcome"]) for row in campaign if row["outcome"]
    )
    assert echoed_counts == {key: counts.get(key, 0) + vote_battles[key] for key in echoed_counts}
    votes_per_item = Counter(row["item"] for row in campaign)
    assert echoed_per_item == {
        item: count + votes_per_item[item] for item, count in per_item.items()
    }
    assert len(echoed_stamp) == len(stamp) + 2
    # the quick path's statements: flagged counts of all and of a campaign (its battle counts
    # read the kept counts)
    assert compiled_queries_source().count("'echo'") >= 2


def test_fingerprint_follows_arrivals_and_retractions(bundle_path: Path) -> None:
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        before = fingerprint(session)
    add_judge_verdicts(bundle_path, "run-2", [("q1", "x", "y", "a")])
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        after = fingerprint(session)
    assert before != after
    # (count, largest id) per store: imported, votes, verdicts, adjudications
    assert after[4] == before[4] + 1


def test_fingerprint_counts_what_the_read_model_shows(bundle_path: Path) -> None:
    add_campaign_votes(bundle_path, "undone", [("ann2", "q2", "y", "x", "retracted:a")])
    rows = _rows(bundle_path, OutcomeFilter(include_derived=True))
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        found = fingerprint(session)
        after_nothing = stored_after(session, (0,) * len(found))
        after_all = stored_after(session, found)
    shown = Counter(row["origin"] for row in rows)
    # the retracted vote and the failed verdict are stored but not counted
    assert found[0:8:2] == (shown["imported"], shown["campaign"], shown["judge-run"], 0)
    assert after_nothing == found[0:8:2]
    assert after_all == (0, 0, 0, 0)
    # the largest id is the store's, so the retracted vote (stored last) moves it
    assert found[3] == 3


def _plan(session: Session, statement: Select[Any]) -> list[str]:
    sql = str(statement.compile(dialect=sqlite.dialect(), compile_kwargs={"literal_binds": True}))
    return [row[3] for row in session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")]


def test_fingerprint_and_stored_after_read_indexes_not_tables(tmp_path: Path) -> None:
    """The watcher polls the fingerprint every 400 ms and the leaderboard reads it after each
    vote: a plain ``SCAN votes`` there costs 0.35 s at 1,000,000 votes."""
    judgment = {"kind": "judge", "model_a": "x", "model_b": "y", "outcome": "a", "rater": "g"}
    path = build_bundle(tmp_path / "plans", [item_line("q1", [judgment])])
    add_campaign_votes(path, "pilot", [("ann", "q1", "x", "y", "a")])
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        plans = [_plan(session, statement) for statement in fingerprint_statements()]
        after = [
            _plan(session, statement.params(largest=0)) for statement in stored_after_statements()
        ]
    for steps in plans + after:
        for step in steps:
            # a bare count(*) walks its smallest index (SQLite's quick count); nothing scans a
            # table's rows
            assert step.startswith("SEARCH") or "INDEX" in step, (step, plans)
    assert any("ix_votes_retracted" in steps for steps in map(" ".join, plans)), plans
    assert any("ix_judge_verdicts_failed" in steps for steps in map(" ".join, plans)), plans
    # the rows after a fingerprint are a range of the primary key
    for steps in after:
        assert any("PRIMARY KEY" in step for step in steps), after


@pytest.mark.parametrize("filters", [OutcomeFilter(), OutcomeFilter(categories=("ocr",))])
def test_counts_after_a_fingerprint_read_a_key_range_of_each_store(
    tmp_path: Path, filters: OutcomeFilter
) -> None:
    """The leaderboard adds a vote's counts with ``positioned_battle_counts(after=...)``: each
    store is read from its largest id on, whichever form of the union the filters need, where
    a condition on the union's ``origin`` and ``row_id`` scanned every store."""
    judgment = {"kind": "judge", "model_a": "x", "model_b": "y", "outcome": "a", "rater": "g"}
    path = build_bundle(tmp_path / "after", [item_line("q1", [judgment])])
    add_campaign_votes(path, "pilot", [("ann", "q1", "x", "y", "a")])
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        before = fingerprint(session)
        statement = _battle_counts_statement((filters,), None, before)
        steps = _plan(session, statement)
        assert positioned_battle_counts(session, filters, after=before) == []
    add_campaign_votes(path, "second", [("ann2", "q1", "y", "x", "b")])
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        added = positioned_battle_counts(session, filters, after=before)
    assert [row[:5] for row in added] == [("y", "x", "b", 1.0, 1)]  # the new vote alone
    stores = ("prior_judgments", "votes", "judge_verdicts", "adjudications")
    for store in stores[:3]:
        # the simulated judge's verdicts, left out by default, are found through their runs'
        # index (a search of those runs' rows alone); every other read is a key range
        read = [
            step
            for step in steps
            if f" {store} " in f"{step} " and "ix_judge_verdicts_run_id" not in step
        ]
        assert read and all("rowid>?" in step for step in read), (store, steps)
    assert any("ix_judge_verdicts_run_id (run_id=?)" in step for step in steps), steps
    assert not any(step.startswith("SCAN") and step.split()[1] in stores for step in steps)


def test_distinct_combinations_give_each_columns_distinct_values(bundle_path: Path) -> None:
    """The pickers read their columns in one scan; each column's values (NULL left out: a
    missing category or language is no choice) equal its own SELECT DISTINCT."""
    from workbench.services.analysis import CHOICE_COLUMNS
    from workbench.storage.judgments import distinct_combinations

    everything = OutcomeFilter(include_derived=True)
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        for pairwise in (True, False):
            found = distinct_combinations(session, CHOICE_COLUMNS, everything, pairwise=pairwise)
            for column in CHOICE_COLUMNS:
                expected = distinct_values(session, column, everything, pairwise=pairwise)
                assert found[column] == expected, column
        assert found["category"] == ["ocr"] and found["language"] == ["English"]
        assert set(found["rater"]) >= {"gpt", "battles", "h1"}
