"""Kill a worker doing one kind of work on a bundle with SIGKILL at a random (seeded) moment,
N times; after each kill the bundle passes the header and integrity checks, opens, and holds
everything the worker confirmed, and each import or merge landed whole or not at all.

Used by tests/reliability/test_kill_workloads.py (a bounded sample in CI, more under
``pytest -m long``) and by bench/kill_harness.py, which prints the JSON summary that
docs/RELIABILITY.md quotes.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.fixtures.make_bundle_0001 import FIXTURE, REVISION
from tests.patience import HANG_GUARD_SECONDS
from workbench.storage import Bundle, head_revision
from workbench.storage.backups import list_backups
from workbench.storage.bundle import copy_bundle
from workbench.storage.integrity import check_file_header, integrity_check
from workbench.storage.judgment_counts import kept_cells, recounted_cells

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WORKER_TIMEOUT = float(HANG_GUARD_SECONDS)  # a hang guard: a start or an end, never a budget


@dataclass
class KillSummary:
    """What a series of kills of one workload showed. ``confirmed`` counts the confirmations
    (votes, verdicts, imports, merges, migrations) the workers printed; ``lost`` those missing
    afterwards; ``survived`` the kills after which the bundle was sound and nothing was lost."""

    workload: str
    kills: int = 0
    survived: int = 0
    confirmed: int = 0
    lost: int = 0
    finished_before_kill: int = 0
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def rows(path: Path, sql: str, *parameters: Any) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute(sql, parameters).fetchall()


@dataclass
class Killed:
    confirmed: list[str]
    killed: bool


class WorkerServer:
    """A subprocess that has imported everything once and forks the workers to kill
    (tests/reliability/kill_workers.py)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.kill_workers", "serve"],
            cwd=PROJECT_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert self._answer() == "serving"

    def _answer(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f"the worker server stopped ({self.process.wait()})")
        return line.strip()

    def _ask(self, request: dict[str, Any]) -> int:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return int(self._answer())

    def start(self, argv: list[str], out: Path) -> int:
        out.unlink(missing_ok=True)
        return self._ask({"argv": argv, "out": str(out)})

    def wait(self, pid: int) -> int:
        return self._ask({"wait": pid})

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(WORKER_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> WorkerServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def wait_until_ready(out: Path, pid: int) -> None:
    deadline = time.monotonic() + WORKER_TIMEOUT
    while time.monotonic() < deadline:
        if out.exists() and out.read_bytes().startswith(b"ready\n"):
            return
        time.sleep(0.002)
    os.kill(pid, signal.SIGKILL)
    raise AssertionError(f"worker did not start: {worker_errors(out)}")


def worker_errors(out: Path) -> str:
    err = out.with_name(out.name + ".err")
    return err.read_text()[-2000:] if err.exists() else ""


def confirmed_words(out: Path) -> list[str]:
    lines = out.read_text().split("\n")[:-1]  # the last piece is empty or a line cut short
    return [word for line in lines for word in line.split() if word != "ready"]


def run_and_kill(server: WorkerServer, argv: list[str], delay: float, out: Path) -> Killed:
    """Start a worker, wait for its ``ready`` line, let it work ``delay`` seconds, SIGKILL it,
    and return the words it confirmed (a line the kill cut in half does not count)."""
    pid = server.start(argv, out)
    wait_until_ready(out, pid)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)  # a zombie (a worker that ended) ignores it
    code = server.wait(pid)
    if code not in (0, -signal.SIGKILL):
        raise AssertionError(f"worker failed ({code}): {worker_errors(out)}")
    return Killed(confirmed_words(out), killed=code == -signal.SIGKILL)


def run_to_end(server: WorkerServer, argv: list[str], out: Path) -> list[str]:
    """Run a worker to its end (for work that ends), returning the words it confirmed."""
    code = server.wait(server.start(argv, out))
    if code != 0:
        raise AssertionError(f"worker failed ({code}): {worker_errors(out)}")
    return confirmed_words(out)


class Workload(ABC):
    """One kind of work to interrupt. Subclasses prepare a bundle, give the worker's argv and
    say what a kill may not have lost.

    Work that never ends (voting) or has plenty left (import) goes on in one bundle from kill
    to kill. Work that ends soon (a judge run, merging, a migration) runs on a fresh copy of the
    prepared bundle each time (``fresh_each_cycle``), killed within the time an uninterrupted
    run takes here (measured once), so every kill lands in real work; the last copy then
    resumes to the end.
    """

    name = ""
    fresh_each_cycle = False

    def __init__(self, folder: Path, server: WorkerServer) -> None:
        self.folder = folder
        self.server = server
        self.bundle = folder / "bundle.wbb"
        self.out = folder / "worker.out"
        self.window = 1.5  # seconds of work before the kill, at most

    @abstractmethod
    def prepare(self) -> None:
        """Build ``self.bundle`` and whatever else the workers need."""

    @abstractmethod
    def argv(self, bundle: Path) -> list[str]:
        """The worker's arguments to work on ``bundle``."""

    @abstractmethod
    def lost(self, cycle: int, confirmed: list[str]) -> list[str]:
        """What the worker confirmed (in this cycle's bundle) that the bundle does not hold,
        and any other broken promise (a half-landed import), as messages."""

    def bundle_of(self, cycle: int) -> Path:
        if not self.fresh_each_cycle:
            return self.bundle
        return self.folder / f"cycle-{cycle:03d}" / self.bundle.name

    def begin(self, cycle: int) -> list[str]:
        """Get the bundle of kill number ``cycle`` ready; the worker's argv."""
        bundle = self.bundle_of(cycle)
        if self.fresh_each_cycle:
            bundle.parent.mkdir(parents=True, exist_ok=True)
            copy_bundle(self.bundle, bundle)
        return self.argv(bundle)

    def measure_window(self) -> None:
        """Time one uninterrupted run on a copy (cycle -1); kill within 80% of it, since that
        first run is the slowest (nothing cached yet)."""
        started = time.perf_counter()
        run_to_end(self.server, self.begin(-1), self.out)
        self.window = 0.8 * (time.perf_counter() - started)

    def delay(self, rng: random.Random) -> float:
        return rng.uniform(0.0, self.window)

    def confirmations(self, words: list[str]) -> int:
        """How many confirmations a worker's printed words are."""
        return len(words)

    def finish(self, last_cycle: int) -> None:
        """After the kills: the interrupted work resumes and completes (raises if not)."""
        return  # creating bundles leaves nothing to resume

    def close(self) -> None:
        """Stop anything ``prepare`` started."""
        return


class CreateWorkload(Workload):
    """Creating new bundles one after another: a kill leaves either no file at the path being
    created or a whole bundle, never a file that cannot be opened."""

    name = "create"
    fresh_each_cycle = True

    def prepare(self) -> None:
        self.window = 1.0

    def bundle_of(self, cycle: int) -> Path:
        return self.folder / f"cycle-{cycle:03d}" / "new-0000.wbb"

    def begin(self, cycle: int) -> list[str]:
        return self.argv(self.bundle_of(cycle))

    def argv(self, bundle: Path) -> list[str]:
        return ["create", str(bundle.parent)]

    def lost(self, cycle: int, confirmed: list[str]) -> list[str]:
        folder = self.bundle_of(cycle).parent
        problems = []
        for path in sorted(folder.glob("*.wbb")):
            try:
                Bundle.open(path).close()
            except Exception as error:
                state = "confirmed but" if path.name in confirmed else "being created at the kill,"
                problems.append(f"{path.name} {state} does not open: {error}")
        problems += [
            f"{name} confirmed but missing" for name in confirmed if not (folder / name).exists()
        ]
        return problems


class ImportWorkload(Workload):
    """Imports of many small JSONL files, one transaction each, into one bundle."""

    name = "import"
    PARTS, ITEMS, MODELS, TURNS = 40, 30, 3, 2

    def prepare(self) -> None:
        Bundle.create(self.bundle).close()  # killing a create is the create workload's part
        self.write_parts(self.folder / "parts")

    @classmethod
    def write_parts(cls, folder: Path) -> Path:
        """The source files: one folder per import, its items named after it (``p07-i012``)."""
        from tests.importers.canonical_helpers import write_jsonl
        from tests.services.campaign_helpers import campaign_item

        models = tuple(f"model-{n}" for n in range(cls.MODELS))
        for part in range(cls.PARTS):
            lines = [
                campaign_item(f"p{part:02d}-i{n:03d}", models, cls.TURNS) for n in range(cls.ITEMS)
            ]
            write_jsonl(folder / f"p{part:02d}", lines)
        return folder

    def argv(self, bundle: Path) -> list[str]:
        return ["import", str(bundle), str(self.folder / "parts")]

    def lost(self, cycle: int, confirmed: list[str]) -> list[str]:
        counts = dict(
            rows(self.bundle, "SELECT substr(external_id, 1, 3), count(*) FROM items GROUP BY 1")
        )
        outputs = dict(
            rows(
                self.bundle,
                "SELECT substr(items.external_id, 1, 3), count(*) FROM outputs "
                "JOIN turns ON turns.id = outputs.turn_id JOIN items ON items.id = turns.item_id "
                "GROUP BY 1",
            )
        )
        problems = [f"{part} confirmed but missing" for part in confirmed if part not in counts]
        whole = self.ITEMS, self.ITEMS * self.TURNS * self.MODELS
        problems += [
            f"{part} landed in part: {count} items, {outputs.get(part)} outputs"
            for part, count in counts.items()
            if (count, outputs.get(part)) != whole
        ]
        imports = rows(self.bundle, "SELECT count(*) FROM imports")[0][0]
        if imports != len(counts):
            problems.append(f"{imports} import records for {len(counts)} imported files")
        return problems

    def finish(self, last_cycle: int) -> None:
        run_to_end(self.server, self.begin(last_cycle), self.out)
        assert self.lost(last_cycle, []) == []
        assert rows(self.bundle, "SELECT count(*) FROM imports")[0][0] == self.PARTS


class VotingWorkload(Workload):
    """An annotator voting through AnnotationSession (five criteria rows per answer), forever:
    when the queue runs dry the worker undoes its last answer and answers again."""

    name = "voting"

    def prepare(self) -> None:
        from tests.services.campaign_helpers import build_campaign_bundle
        from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign

        build_campaign_bundle(self.folder, items=4, name=self.bundle.name)
        with Bundle.open(self.bundle) as bundle:
            add_annotator(bundle, "ann")
            create_campaign(bundle, CampaignSpec("durable", "chirp-five-criteria", seed=2))

    def argv(self, bundle: Path) -> list[str]:
        return ["voting", str(bundle), "durable", "ann"]

    def lost(self, cycle: int, confirmed: list[str]) -> list[str]:
        stored = {row[0] for row in rows(self.bundle, "SELECT uuid FROM votes")}
        return [f"vote {uuid} confirmed but missing" for uuid in confirmed if uuid not in stored]

    def finish(self, last_cycle: int) -> None:
        from workbench.services.voting import AnnotationSession

        with Bundle.open(self.bundle) as bundle:
            session = AnnotationSession(bundle, "durable", "ann")
            task = session.next_task() or session.undo()
            assert task is not None
            answers = {criterion.name: "b" for criterion in session.protocol.criteria}
            assert len(session.cast(task.token, answers).uuids) == len(answers)


class JudgeWorkload(Workload):
    """A judge run (each pair in both orders) against the fake OpenAI-compatible server."""

    name = "judge"
    fresh_each_cycle = True
    ITEMS = 80
    RUN = "kill-run"

    def prepare(self) -> None:
        from tests.judge.fake_openai_server import FakeOpenAIServer, Faults
        from tests.judge.helpers import build_bundle

        build_bundle(self.folder, self.ITEMS, name=self.bundle.name)
        self.judge_server = FakeOpenAIServer()
        self.judge_server.faults = Faults(latency=0.03, latency_jitter=0.5)
        self.judge_server.start()
        self.measure_window()

    def argv(self, bundle: Path) -> list[str]:
        return ["judge", str(bundle), self.judge_server.base_url, self.RUN]

    def confirmations(self, words: list[str]) -> int:
        return sum(len(word) == 64 for word in words)

    def verdicts(self, cycle: int) -> list[tuple[Any, ...]]:
        query = "SELECT request_hash, model_a_id, model_b_id FROM judge_verdicts"
        return rows(self.bundle_of(cycle), query)

    def lost(self, cycle: int, confirmed: list[str]) -> list[str]:
        stored = self.verdicts(cycle)
        hashes = {row[0] for row in stored}
        problems = [
            f"verdict {word} confirmed but missing"
            for word in confirmed
            if len(word) == 64 and word not in hashes
        ]
        if len(set(stored)) != len(stored):
            problems.append("a request was stored twice")
        return problems

    def finish(self, last_cycle: int) -> None:
        bundle = self.bundle_of(last_cycle)
        out = run_to_end(self.server, self.argv(bundle), self.out)
        assert out[-2:] == ["finished", "completed"], out[-5:]
        stored = self.verdicts(last_cycle)
        assert len(stored) == len(set(stored)) == 2 * self.ITEMS  # each pair in both orders
        assert rows(bundle, "SELECT status FROM judge_runs") == [("completed",)]

    def close(self) -> None:
        self.judge_server.stop()


class MergeWorkload(Workload):
    """Merging offline packs, one transaction each, into the main bundle."""

    name = "merge"
    fresh_each_cycle = True
    ANNOTATORS = 4

    def prepare(self) -> None:
        from tests.services.campaign_helpers import build_campaign_bundle
        from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
        from workbench.services.packs import export_pack
        from workbench.services.voting import AnnotationSession

        build_campaign_bundle(self.folder, items=3, name=self.bundle.name)
        handles = [f"ann{n}" for n in range(self.ANNOTATORS)]
        packs = self.folder / "packs"
        packs.mkdir()
        with Bundle.open(self.bundle) as bundle:
            for handle in handles:
                add_annotator(bundle, handle)
            spec = CampaignSpec("c", "chirp-five-criteria", seed=3, votes_per_pair=len(handles))
            create_campaign(bundle, spec)
            for handle in handles:
                export_pack(bundle, "c", handle, packs / f"{handle}.wbb")
        self.pack_votes: dict[str, set[str]] = {}
        for handle in handles:
            pack = packs / f"{handle}.wbb"
            with Bundle.open(pack) as opened:
                session = AnnotationSession(opened, "c", handle)
                answers = {criterion.name: "a" for criterion in session.protocol.criteria}
                while (task := session.next_task()) is not None:
                    session.cast(task.token, answers)
            self.pack_votes[pack.name] = {row[0] for row in rows(pack, "SELECT uuid FROM votes")}
        self.measure_window()

    def argv(self, bundle: Path) -> list[str]:
        return ["merge", str(bundle), str(self.folder / "packs")]

    def lost(self, cycle: int, confirmed: list[str]) -> list[str]:
        stored = {row[0] for row in rows(self.bundle_of(cycle), "SELECT uuid FROM votes")}
        problems = []
        for pack, uuids in self.pack_votes.items():
            held = len(uuids & stored)
            if pack in confirmed and held < len(uuids):
                problems.append(f"{pack} confirmed but {len(uuids) - held} of its votes missing")
            elif 0 < held < len(uuids):
                problems.append(f"{pack} merged in part: {held} of {len(uuids)} votes")
        return problems

    def finish(self, last_cycle: int) -> None:
        bundle = self.bundle_of(last_cycle)
        run_to_end(self.server, self.argv(bundle), self.out)
        stored = {row[0] for row in rows(bundle, "SELECT uuid FROM votes")}
        assert set().union(*self.pack_votes.values()) <= stored


class MigrationWorkload(Workload):
    """Opening a copy of the revision-0001 fixture with ``migrate=True``."""

    name = "migration"
    fresh_each_cycle = True

    def prepare(self) -> None:
        shutil.copyfile(FIXTURE, self.bundle)
        self.expected = _fixture_rows(FIXTURE)
        self.measure_window()

    def argv(self, bundle: Path) -> list[str]:
        return ["migration", str(bundle)]

    def confirmations(self, words: list[str]) -> int:
        return words.count("opened")

    def lost(self, cycle: int, confirmed: list[str]) -> list[str]:
        copy = self.bundle_of(cycle)
        (revision,) = rows(copy, "SELECT version_num FROM alembic_version")[0]
        problems = []
        if revision not in (REVISION, head_revision()):
            problems.append(f"left at an unknown revision {revision}")
        if "opened" in confirmed and revision != head_revision():
            problems.append(f"confirmed but left at revision {revision}")
        for backup in list_backups(copy):
            problems += [f"backup {backup.path.name}: {p}" for p in integrity_check(backup.path)]
        with Bundle.open(copy, migrate=True) as bundle:
            if bundle.revision() != head_revision():
                problems.append("did not reach head when opened again")
        if _fixture_rows(copy, self.expected) != self.expected:
            problems.append("rows of the old schema changed")
        return problems


def _fixture_rows(
    path: Path, like: dict[str, list[tuple[Any, ...]]] | None = None
) -> dict[str, list[tuple[Any, ...]]]:
    """Every table of the fixture's schema, in the fixture's columns (``like``'s tables)."""
    with closing(sqlite3.connect(path)) as connection:
        tables = (
            list(like)
            if like
            else [
                row[0]
                for row in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%' AND name != 'alembic_version'"
                )
            ]
        )
        result = {}
        for table in tables:
            columns = [row[1] for row in rows(FIXTURE, f'PRAGMA table_info("{table}")')]
            listed = ", ".join(f'"{c}"' for c in columns)
            result[table] = connection.execute(
                f'SELECT {listed} FROM "{table}" ORDER BY 1'
            ).fetchall()
        return result


WORKLOADS: dict[str, type[Workload]] = {
    workload.name: workload
    for workload in (
        CreateWorkload,
        ImportWorkload,
        VotingWorkload,
        JudgeWorkload,
        MergeWorkload,
        MigrationWorkload,
    )
}


def check_after_kill(path: Path) -> list[str]:
    """The header check every open runs, SQLite's integrity check, an open, and the judgment
    counts kept per cell equal to a recount (they are written in the judgments' transaction)."""
    if not path.exists():
        return []
    problems = []
    try:
        check_file_header(path)
    except Exception as error:
        problems.append(f"header check: {error}")
    problems += integrity_check(path)
    try:
        with Bundle.open(path) as bundle, bundle.read_session() as session:
            if kept_cells(session) != recounted_cells(session):
                problems.append("the kept judgment counts differ from a recount")
    except Exception as error:
        problems.append(f"open: {error}")
    return problems


@contextmanager
def prepared(name: str, folder: Path, server: WorkerServer) -> Iterator[Workload]:
    workload = WORKLOADS[name](folder, server)
    workload.prepare()
    try:
        yield workload
    finally:
        workload.close()


def kill_repeatedly(
    name: str,
    folder: Path,
    kills: int,
    server: WorkerServer,
    seed: int = 0,
    finish: bool = True,
) -> KillSummary:
    """Run workload ``name`` ``kills`` times, killing it each time, and check after each kill;
    then (``finish``) let the work resume and complete."""
    rng = random.Random(f"{name}-{seed}")
    summary = KillSummary(name)
    with prepared(name, folder, server) as workload:
        confirmed: list[str] = []
        for cycle in range(kills):
            result = run_and_kill(server, workload.begin(cycle), workload.delay(rng), workload.out)
            summary.kills += result.killed
            summary.finished_before_kill += not result.killed
            words = result.confirmed
            confirmed = words if workload.fresh_each_cycle else confirmed + words
            summary.confirmed += workload.confirmations(words)
            problems = check_after_kill(workload.bundle_of(cycle))
            missing = workload.lost(cycle, confirmed)
            summary.lost += sum("confirmed but" in message for message in missing)
            summary.problems += [f"cycle {cycle}: {p}" for p in problems + missing]
            summary.survived += result.killed and not problems and not missing
        if finish:
            workload.finish(kills - 1)
    return summary
