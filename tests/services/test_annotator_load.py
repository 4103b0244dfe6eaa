"""Twenty annotators voting at once on one campaign (two votes per task): no confirmed vote
lost, no task handed out beyond its target, nobody answering a task twice. The default tests
give each annotator a fixed number of tasks (the same work however busy the machine is);
``pytest -m long`` runs a minute.
The throughput is printed (``-s``); bench/annotator_load.py measures it for docs/PERFORMANCE.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.backends import PostgresBackend, postgres_admin_url
from tests.services.annotator_load import (
    LoadFindings,
    LoadResult,
    build_load_bundle,
    check,
    simulate,
)

ANNOTATORS = 20


@pytest.fixture
def server_url() -> Iterator[str]:
    server = PostgresBackend(postgres_admin_url())
    try:
        yield server.new_location()
    finally:
        server.close()


def run_and_check(
    folder: Path,
    location: str | Path,
    items: int,
    seconds: float | None = None,
    actions: int | None = None,
) -> None:
    build_load_bundle(folder, location, items=items, annotators=ANNOTATORS)
    result = simulate(location, ANNOTATORS, seconds, actions=actions)
    findings = check(location, result)
    print(_summary(location, result, findings))
    assert result.errors == []
    assert result.answers > ANNOTATORS
    assert findings.lost == [], "confirmed votes missing from the database"
    assert findings.over_target == {}, "tasks given more annotators than their target"
    assert findings.answered_twice == []
    # every confirmed answer or skip is one live row, except those taken back by undo
    assert findings.votes == result.answers + result.skips - result.undos


def _summary(location: str | Path, result: LoadResult, findings: LoadFindings) -> str:
    backend = "sqlite" if isinstance(location, Path) else "postgresql"
    return (
        f"\n{backend}: {result.annotators} annotators, {result.seconds:.1f} s, "
        f"{result.answers} votes ({result.per_second:.1f}/s), {result.skips} skips, "
        f"{result.undos} undos, {len(findings.lost)} lost, "
        f"{len(findings.over_target)} over target"
    )


@pytest.mark.postgres
def test_twenty_annotators_on_postgresql(server_url: str, tmp_path: Path) -> None:
    run_and_check(tmp_path, server_url, items=100, actions=8)


def test_twenty_annotators_on_sqlite(tmp_path: Path) -> None:
    run_and_check(tmp_path, tmp_path / "load.wbb", items=60, actions=4)


@pytest.mark.long
@pytest.mark.postgres
def test_twenty_annotators_for_a_minute_on_postgresql(server_url: str, tmp_path: Path) -> None:
    run_and_check(tmp_path, server_url, items=600, seconds=60)


@pytest.mark.long
def test_twenty_annotators_for_a_minute_on_sqlite(tmp_path: Path) -> None:
    run_and_check(tmp_path, tmp_path / "load.wbb", items=400, seconds=60)
