"""The same judge command run twice at once stores each verdict once: the second process sees
the run claimed and stays out (or, if the claim ran out, its verdicts are not stored twice).
The migration to schema 0003 keeps the first of duplicates stored before."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.backends import Location
from tests.importers.canonical_helpers import write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
from tests.judge.helpers import build_bundle, judge_item
from tests.judge.test_judge_cli import PROJECT, SUBPROCESS_CLI, judge_args
from workbench.cli import main
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.bundle import head_revision


def counts(bundle: Location) -> tuple[int, int]:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        found = session.execute(
            text(
                "SELECT count(*), count(DISTINCT request_hash || CAST(model_a_id AS TEXT) || "
                "criterion) FROM judge_verdicts"
            )
        ).one()
    return tuple(found)


def run_state(bundle: Location) -> list[tuple[str, str | None]]:
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        return [
            tuple(row) for row in session.execute(text("SELECT status, claimed_by FROM judge_runs"))
        ]


def test_two_processes_running_one_command_store_each_verdict_once(
    tmp_path: Path, bundle_location: Location
) -> None:
    bundle = bundle_location
    source = write_jsonl(
        tmp_path / "src", [judge_item(f"q{n:04d}", ("model-one", "model-two")) for n in range(30)]
    )
    import_files(bundle, [source], "jsonl")
    env = {**os.environ, "PYTHONPATH": str(PROJECT)}
    # about 3 s of judging: both processes are surely started while it runs
    with FakeOpenAIServer(faults=Faults(latency=0.2)) as server:
        args = [*judge_args(bundle, server), "--concurrency", "4"]
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", SUBPROCESS_CLI, *args],
                cwd=PROJECT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outcomes = []
        for process in processes:
            assert process.stderr is not None
            outcomes.append((process.wait(120), process.stderr.read()))
        for process in processes:
            assert process.stderr is not None
            process.stderr.close()
        # every request answered once, by whichever process held the run
        assert server.stats.requests == 60
    assert counts(bundle) == (60, 60)
    codes = sorted(code for code, _ in outcomes)
    assert codes == [0, 1], outcomes
    refused = next(err for code, err in outcomes if code == 1)
    assert "being judged by another process" in refused and "nothing was sent" in refused
    assert run_state(bundle) == [("completed", None)]


def test_a_second_insert_of_a_verdict_is_ignored(tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path, 2)
    with FakeOpenAIServer() as server:
        assert main([*judge_args(bundle, server), "--run", "r"]) == 0
    with sqlite3.connect(bundle) as connection:
        columns = (
            "run_id, item_id, turn_index, criterion, model_a_id, model_b_id, outcome, strength, "
            "request_hash, metadata, created_at"
        )
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            connection.execute(
                f"INSERT INTO judge_verdicts ({columns}) SELECT {columns} FROM judge_verdicts"
            )


def test_the_migration_keeps_the_first_of_duplicate_verdicts(tmp_path: Path) -> None:
    bundle = build_bundle(tmp_path, 3)
    with FakeOpenAIServer() as server:
        assert main([*judge_args(bundle, server), "--run", "r"]) == 0
    with sqlite3.connect(bundle) as connection:
        first = connection.execute(
            "SELECT min(id), max(id), count(*) FROM judge_verdicts"
        ).fetchone()
        # a bundle of schema 0002, judged twice at once
        connection.execute("DROP INDEX ux_judge_verdicts_request")
        connection.execute("ALTER TABLE judge_runs DROP COLUMN claimed_by")
        connection.execute("ALTER TABLE judge_runs DROP COLUMN claim_expires_at")
        # later schemas' tables and indexes go too, so the upgrade from 0002 can create them
        for index in ("ix_votes_retracted", "ix_judge_verdicts_failed"):  # 0005
            connection.execute(f"DROP INDEX {index}")
        for table in (
            "item_categories",  # 0006
            "adjudications",
            "campaign_annotator_counts",
            "campaign_pair_counts",
            "campaign_counts",
            "flags",  # 0008
            "pair_choices",  # 0009
            "judgment_counts",  # 0011
        ):
            connection.execute(f"DROP TABLE {table}")
        for table in ("votes", "pair_leases"):  # 0008
            connection.execute(f"ALTER TABLE {table} DROP COLUMN shown_swapped")
        connection.execute("UPDATE alembic_version SET version_num = '0002'")
        columns = [
            row[1]
            for row in connection.execute("PRAGMA table_info(judge_verdicts)")
            if row[1] != "id"
        ]
        names = ", ".join(columns)
        connection.execute(
            f"INSERT INTO judge_verdicts ({names}) SELECT {names} FROM judge_verdicts"
        )
        assert connection.execute("SELECT count(*) FROM judge_verdicts").fetchone()[0] == 12
    with Bundle.open(bundle) as opened:
        assert opened.revision() == head_revision()
        with opened.read_session() as session:
            kept = session.execute(
                text("SELECT min(id), max(id), count(*) FROM judge_verdicts")
            ).one()
    assert tuple(kept) == first
