"""Arena scale on one machine: ratings and import at 100K, 1M and 10M battles, as whole processes.

    python bench/scale.py [--sizes 100000,1000000,10000000] [--models 100,100,200]
        [--rounds 100] [--work /tmp/workbench-scale] [--reference-max 1000000]
        [--reference-parquet-max 10000000]
        [--import-max 1000000] [--import-formats json,jsonl,parquet] [--baseline REF]
        [--postgres ADMIN_URL --postgres-dir DIR] [--postgres-max 1000000] [--paint-runs 3]

For each size a bundle of that many battles (FastChat's battle-log shape: ``N`` models with
evenly spread strengths, 8% ties, each battle about one of 100,000 one-turn prompts, seeded) is
generated once
into --work and reused while its parameters match; the same battles are written as FastChat's
battle JSON for the reference and for the import. Then, as whole processes (start-up, imports
and reading included), each timed by ``os.wait4`` (CPU = user + system of that process alone,
peak = its maximum resident set):

- **ratings**: ``workbench leaderboard B --method bt --bootstrap 100 --json`` against the
  reference of bench/leaderboard_process.py (FastChat's 2025 rating code, written out: the
  battles read from JSON, aggregated with ``np.unique``, L-BFGS per bootstrap round), up to
  --reference-max battles; above that, up to --reference-parquet-max, the reference reads the
  same battles from the parquet import files instead (three columns, dictionary-decoded), since
  its JSON loaded whole needs about 15 GB at 10M: reading parquet costs the reference less than
  parsing JSON, so the ratio there is, if anything, in the reference's favour. The two sets of
  ratings, each centred, must agree within 0.1 Elo points.
- **PostgreSQL** (``--postgres``, the URL ``scripts/postgres.sh start DIR`` prints, with that
  ``DIR``): the same battles copied into a server bundle (``COPY``) and counted per cell there,
  then the same leaderboard command on its URL: the client's CPU by ``os.wait4`` and the
  server's, read as its postmaster's reaped children (the backend ends with the client), and
  their sum against the SQLite figure, up to --postgres-max battles.
- **first paint** (``--paint-runs``, 0 for none): ``workbench open B`` to its first painted
  item against a bare PySide6 window, alternating as bench/first_paint.py does; the medians of
  the CPU each process had spent at its paint (all threads, and the GUI thread alone) and of the
  wall time, and ours over the bare window's (goal: 1.5 CPU s at 10M).
- A bundle kept from an older schema is upgraded first (``workbench upgrade``, which counts its
  judgments per cell once); its CPU is printed too.
- **import**: ``workbench import FOLDER --format arena-battles --into NEW`` up to --import-max
  battles, once per --import-formats entry: the same battles as a FastChat battle JSON list
  (``json``), as JSON Lines (``jsonl``) and as a parquet table without images (``parquet``,
  each row with a question id of its own: the importer imports a table row met again in
  another table file once), in files of at most 500,000 battles (the importer's row limit is
  2,000,000 per file): CPU seconds, battles per CPU second and peak memory, each figure refused
  unless every battle landed in the bundle. With ``--baseline REF`` (a git ref or
  commit of this repository, whose tree ``git archive`` writes once into --work; or the folder of
  a checkout) each import is also run by that commit's code right after ours, and the table gives
  the two side by side with their ratios, CPU and wall apart: old against new in one run.

Goals (docs/PERFORMANCE.md): ratings at 10M battles and 200 models within 10 CPU s and 300 MB,
and at least 3x the reference's CPU at 1M and 10M; import at 20,000 battles per CPU second with
a peak independent of the size (500 MB at 10M). The machine's load average is printed with the
table: on a shared machine read the CPU columns, not the wall clock. Nothing here is asserted in
the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))
from leaderboard_process import MAX_RATING_DIFFERENCE, REFERENCE, centred, run  # noqa: E402

TIE_SHARE = 0.08
CHUNK = 500_000
GOALS = {"ratings_cpu": 10.0, "ratings_mb": 300.0, "ratio": 3.0, "import_rate": 20_000.0}
WINNER_NAMES = np.array(["model_a", "model_b", "tie"])
OUTCOMES = np.array(["a", "b", "tie"])


def model_names(models: int) -> list[str]:
    return [f"model-{index:03d}" for index in range(models)]


def battles_of(battles: int, models: int, seed: int) -> Iterator[tuple[np.ndarray, ...]]:
    """The battles in chunks: model a, model b (indices) and the outcome's index (a, b, tie),
    drawn from Bradley-Terry strengths spread evenly over 800 Elo points."""
    rng = np.random.default_rng(seed)
    strengths = np.linspace(400.0, -400.0, models) * np.log(10) / 400
    made = 0
    while made < battles:
        size = min(CHUNK, battles - made)
        first = rng.integers(0, models, size)
        second = (first + rng.integers(1, models, size)) % models
        p_first = 1 / (1 + np.exp(strengths[second] - strengths[first]))
        draw = rng.random(size)
        outcome = np.where(draw < TIE_SHARE, 2, np.where(rng.random(size) < p_first, 0, 1))
        made += size
        yield first, second, outcome


#: the prompts a generated bundle's battles are spread over: the app opens on its item list, so
#: a bundle without items could not paint a first item (an arena's battles each have a prompt of
#: their own; 100,000 keeps the bundle small and the judgments per item of the item list's
#: column at 100 at 10M battles)
ITEMS = 100_000


def item_ids_of(battles: int, items: int, seed: int) -> Iterator[np.ndarray]:
    """Which item (0-based) each battle of :func:`battles_of` is about, chunk by chunk: drawn
    uniformly from a stream of its own, so the battles themselves do not change with it."""
    rng = np.random.default_rng([seed, 1])
    made = 0
    while made < battles:
        size = min(CHUNK, battles - made)
        made += size
        yield rng.integers(0, items, size)


def build(
    bundle: Path,
    battles_json: Path,
    battles: int,
    models: int,
    seed: int = 0,
    with_json: bool = True,
    items: int = ITEMS,
) -> None:
    """Generate the bundle (through the app's schema, the judgments by bulk insert of seeded
    draws, not through the importer) and, with ``with_json``, the same battles as FastChat's
    battle JSON for the reference, once; reused while ``<bundle>.params.json`` matches. Each
    battle is about one of ``items`` prompts (an item with one turn, source "synthetic"), as an
    arena's battles are. Without the JSON a 10M-battle bundle is a few minutes of one core."""
    wanted = {
        "battles": battles,
        "models": models,
        "seed": seed,
        "json": with_json,
        "items": items,
    }
    params = bundle.with_name(bundle.name + ".params.json")
    kept = bundle.exists() and (battles_json.exists() or not with_json) and params.exists()
    if kept and json.loads(params.read_text()) == wanted:
        return
    from datetime import UTC, datetime

    from workbench.storage import Bundle
    from workbench.storage.models import Import, Model, Source

    print(f"generating {battles:,} battles of {models} models …", file=sys.stderr, flush=True)
    bundle.unlink(missing_ok=True)
    names = model_names(models)
    with Bundle.create(bundle) as created, created.session() as session:
        session.add(
            Import(
                importer="bench-scale",
                importer_version="1",
                fingerprint=f"scale-{battles}-{models}-{seed}",
                app_version="bench",
                started_at=datetime.now(UTC),
            )
        )
        session.add_all(Model(name=name) for name in names)
        session.add(Source(name="synthetic", created_at=datetime.now(UTC)))
    connection = sqlite3.connect(bundle)
    connection.execute("PRAGMA synchronous = OFF")  # a generated file: rebuilt if cut short
    (source_id,) = connection.execute("SELECT id FROM sources").fetchone()
    connection.executemany(
        "INSERT INTO items (id, source_id, external_id, family, metadata) "
        "VALUES (?, ?, ?, 'arena', '{}')",
        ((number + 1, source_id, f"prompt-{number:06d}") for number in range(items)),
    )
    connection.executemany(
        'INSERT INTO turns (item_id, "index", prompt) VALUES (?, 0, ?)',
        ((number + 1, f"Synthetic arena prompt number {number}.") for number in range(items)),
    )
    import_id = connection.execute("SELECT id FROM imports").fetchone()[0]
    ids = dict(connection.execute("SELECT name, id FROM models"))
    model_ids = np.array([ids[name] for name in names])
    item_ids = np.arange(1, items + 1)
    # the indexes are built once after the rows (sorted), not updated row by row
    indexes = [
        sql
        for (sql,) in connection.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' "
            "AND tbl_name = 'prior_judgments' AND sql IS NOT NULL"
        )
    ]
    for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' "
        "AND tbl_name = 'prior_judgments' AND sql IS NOT NULL"
    ).fetchall():
        connection.execute(f'DROP INDEX "{name}"')
    out = battles_json.open("w", encoding="utf-8") if with_json else None
    with contextlib.nullcontext() if out is None else out:
        separator = "["
        chunks = zip(
            battles_of(battles, models, seed), item_ids_of(battles, items, seed), strict=True
        )
        for (first, second, outcome), about in chunks:
            rows = zip(
                item_ids[about].tolist(),
                model_ids[first].tolist(),
                model_ids[second].tolist(),
                OUTCOMES[outcome].tolist(),
                strict=True,
            )
            connection.executemany(
                "INSERT INTO prior_judgments (import_id, item_id, kind, criterion, model_a_id, "
                "model_b_id, outcome, strength, metadata) "
                "VALUES (?, ?, 'human', 'overall', ?, ?, ?, 1, '{}')",
                ((import_id, item, a, b, o) for item, a, b, o in rows),
            )
            if out is None:
                continue
            for a, b, winner in zip(first, second, WINNER_NAMES[outcome], strict=True):
                out.write(
                    f'{separator}{{"model_a": "{names[a]}", "model_b": "{names[b]}", '
                    f'"winner": "{winner}"}}'
                )
                separator = ",\n"
        if out is not None:
            out.write("]\n" if separator != "[" else "[]\n")
    for sql in indexes:
        connection.execute(sql)
    connection.commit()
    connection.close()
    from workbench.storage.judgment_counts import recount

    # the judgments went in behind the app's write paths, which keep the counts per cell
    with Bundle.open(bundle) as opened, opened.session() as session:
        recount(session)
    connection = sqlite3.connect(bundle)
    connection.execute("ANALYZE")
    connection.close()
    params.write_text(json.dumps(wanted))


def reference_input(battles_json: Path, args: argparse.Namespace, size: int, models: int) -> Path:
    """What the reference reads at ``size``: the battle JSON up to --reference-max, else the
    same battles' parquet import files (written once, as for the import)."""
    if size <= args.reference_max:
        return battles_json
    folder = args.work / f"import-{size}-parquet"
    return import_files_of(folder, "parquet", size, models)


def ratings(
    bundle: Path, battles_json: Path, args: argparse.Namespace, size: int, models: int
) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cli = [sys.executable, "-m", "workbench.cli"]
    # a bundle kept from an older schema is upgraded first: the upgrade counts its judgments
    # per cell once (a no-op at the current schema)
    upgraded = run([*cli, "upgrade", str(bundle)], env)
    command = [*cli, "leaderboard", str(bundle), "--method", "bt"]
    command += ["--bootstrap", str(args.rounds), "--min-battles", "0", "--json"]
    run(command, env)  # warms the page cache
    ours = run(command, env)
    row: dict[str, Any] = {
        "upgrade_cpu": upgraded["cpu"],
        "ours_cpu": ours["cpu"],
        "ours_wall": ours["wall"],
        "ours_mb": ours["peak_mb"],
    }
    if size <= max(args.reference_max, args.reference_parquet_max):
        script = args.work / "reference_bt.py"
        script.write_text(REFERENCE)
        read = reference_input(battles_json, args, size, models)
        reference = run(
            [sys.executable, str(script), str(read), str(args.rounds)],
            {**env, "OPENBLAS_NUM_THREADS": "1"},
        )
        mine = centred(json.loads(ours["output"])["models"])
        theirs = centred(json.loads(reference["output"])["models"])
        difference = max(abs(mine[model] - theirs[model]) for model in mine)
        if set(mine) != set(theirs) or difference > MAX_RATING_DIFFERENCE:
            raise SystemExit(f"the ratings differ from the reference's by {difference:.3f}")
        row.update(
            reference_cpu=reference["cpu"],
            reference_mb=reference["peak_mb"],
            reference_reads="JSON" if read == battles_json else "parquet",
            ratio=reference["cpu"] / ours["cpu"],
            difference=difference,
        )
    return row


#: the tables a generated bundle's battles live in, copied to the server in this order
SERVER_TABLES = ("imports", "models", "sources", "items", "turns", "prior_judgments")


def _server_children_cpu(data: Path) -> float:
    """CPU seconds of the server's ended backends: its postmaster's reaped children (a backend
    ends, and is reaped, when its client disconnects)."""
    pid = int((data / "postmaster.pid").read_text().split()[0])
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # fields after the name: state is field 3 of stat, cutime and cstime fields 16 and 17
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def server_bundle(bundle: Path, admin_url: str, size: int) -> str:
    """The generated bundle's battles in a server bundle (a database of their own on the
    server of ``admin_url``), copied with COPY and counted per cell there."""
    import psycopg
    from sqlalchemy.engine import make_url

    from workbench.storage import Bundle
    from workbench.storage.judgment_counts import recount

    database = f"workbench_scale_{size}"
    url = make_url(admin_url).set(database=database).render_as_string(False)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{database}"')
        admin.execute(f'CREATE DATABASE "{database}"')
    Bundle.create(url).close()
    print(f"{size:,} battles: copying to the server …", file=sys.stderr, flush=True)
    source = sqlite3.connect(bundle)
    with psycopg.connect(url) as target:
        for table in SERVER_TABLES:
            rows = source.execute(f"SELECT * FROM {table}")
            names = ", ".join(f'"{column[0]}"' for column in rows.description)
            with target.cursor().copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            target.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT max(id) FROM {table}))"
            )
    source.close()
    with Bundle.open(url) as opened, opened.session() as session:
        recount(session)
    with psycopg.connect(url, autocommit=True) as target:
        target.execute("ANALYZE")
    return url


def server_ratings(
    bundle: Path, args: argparse.Namespace, size: int, sqlite_cpu: float
) -> dict[str, Any]:
    """The leaderboard of the same battles in a server bundle: the client process's CPU (by
    wait4) and the server's (its backends' CPU, read from the postmaster's reaped children)."""
    url = server_bundle(bundle, args.postgres, size)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "workbench.cli", "leaderboard", url, "--method", "bt"]
    command += ["--bootstrap", str(args.rounds), "--min-battles", "0", "--json"]
    data = args.postgres_dir / "data"
    run(command, env)  # warms the server's cache
    time.sleep(1)  # the backend of that run is reaped before the count starts
    before = _server_children_cpu(data)
    client = run(command, env)
    time.sleep(1)
    server = _server_children_cpu(data) - before
    total = client["cpu"] + server
    return {
        "server_client_cpu": client["cpu"],
        "server_client_mb": client["peak_mb"],
        "server_server_cpu": server,
        "server_total_cpu": total,
        "server_wall": client["wall"],
        "server_over_sqlite": total / sqlite_cpu,
    }


def first_paint(bundle: Path, runs: int) -> dict[str, Any]:
    """``workbench open BUNDLE`` to its first painted item against a bare PySide6 window, as
    bench/first_paint.py times them (fresh processes, alternating, each with XDG folders of its
    own): the medians of ``runs`` each, CPU (the process's, and its GUI thread's, at the paint)
    and wall apart."""
    import statistics
    import tempfile

    from first_paint import _compile_package, _time_child

    _compile_package(ROOT / "workbench")
    script = str(BENCH / "first_paint.py")
    ours_command = [sys.executable, "-m", "workbench.cli", "open", str(bundle.resolve())]
    ours: list[tuple[float, float, float]] = []
    bare: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="scale-paint-") as folder:
        work = Path(folder)
        report = work / "report.json"
        bare_command = [sys.executable, script, "--bare-window", str(report)]
        for run in range(runs):
            bare.append(_time_child(bare_command, report, work / f"bare-{run}"))
            ours.append(_time_child(ours_command, report, work / f"ours-{run}", ROOT))
    wall, cpu, gui = (statistics.median(one[index] for one in ours) for index in range(3))
    bare_wall, bare_cpu, bare_gui = (
        statistics.median(one[index] for one in bare) for index in range(3)
    )
    return {
        "paint_cpu": cpu,
        "paint_bare_cpu": bare_cpu,
        "paint_over_cpu": cpu - bare_cpu,
        "paint_gui_cpu": gui,
        "paint_over_gui_cpu": gui - bare_gui,
        "paint_wall": wall,
        "paint_over_wall": wall - bare_wall,
    }


#: battles per import file: under the importer's 2,000,000-row limit for one file
IMPORT_FILE_ROWS = 1_000_000
IMPORT_FORMATS = ("json", "jsonl", "parquet")


def import_files_of(folder: Path, form: str, battles: int, models: int, seed: int = 0) -> Path:
    """The battles as import files of one format in ``folder`` (written once; reused while
    ``<folder>.params.json`` matches): FastChat's battle JSON list, JSON Lines, or parquet."""
    wanted = {"battles": battles, "models": models, "seed": seed, "format": form}
    if form == "parquet":
        wanted["question_ids"] = True
    params = folder.with_name(folder.name + ".params.json")
    if params.exists() and json.loads(params.read_text()) == wanted:
        return folder
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    print(f"writing {battles:,} battles as {form} …", file=sys.stderr, flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    names = np.array(model_names(models))
    parts = 0
    written = 0
    for first, second, outcome in battles_of(battles, models, seed):
        for begin in range(0, len(first), IMPORT_FILE_ROWS):
            a = names[first[begin : begin + IMPORT_FILE_ROWS]]
            b = names[second[begin : begin + IMPORT_FILE_ROWS]]
            winner = WINNER_NAMES[outcome[begin : begin + IMPORT_FILE_ROWS]]
            # one file per generated chunk (at most IMPORT_FILE_ROWS battles each)
            part = folder / f"part-{parts:03d}"
            parts += 1
            if form == "parquet":
                # Each row with a question id of its own, as FastChat's battle logs have: the
                # importer takes a table row met again in another table file for the same
                # dataset stored twice and imports it once, and a bare (model a, model b,
                # winner) row repeats across files (29,700 such rows exist at 100 models).
                ids = [f"{number:032x}" for number in range(written, written + len(a))]
                table = pa.table({"question_id": ids, "model_a": a, "model_b": b, "winner": winner})
                pq.write_table(table, part.with_suffix(".parquet"))
                written += len(a)
                continue
            rows = (
                f'{{"model_a": "{x}", "model_b": "{y}", "winner": "{w}"}}'
                for x, y, w in zip(a.tolist(), b.tolist(), winner.tolist(), strict=True)
            )
            if form == "jsonl":
                part.with_suffix(".jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
            else:
                part.with_suffix(".json").write_text(
                    "[" + ",\n".join(rows) + "]\n", encoding="utf-8"
                )
    params.write_text(json.dumps(wanted))
    return folder


def _judgments_in(bundle: Path) -> int:
    """The imported battles in a bundle: an import timed is an import of every battle."""
    connection = sqlite3.connect(f"file:{bundle}?mode=ro", uri=True)
    try:
        (count,) = connection.execute("SELECT count(*) FROM prior_judgments").fetchone()
    finally:
        connection.close()
    return int(count)


def import_rate(args: argparse.Namespace, size: int, models: int) -> dict[str, Any]:
    """Each format's import as a whole process; with --baseline, the same import by the code of
    that tree right after ours (the two alternate, so both meet the same load)."""
    trees = {"import": ROOT}
    if args.baseline_tree is not None:
        trees["baseline"] = args.baseline_tree
    cli = [sys.executable, "-m", "workbench.cli"]
    row: dict[str, Any] = {}
    for form in args.import_formats.split(","):
        folder = import_files_of(args.work / f"import-{size}-{form}", form, size, models)
        # one target per size and format, so runs of other formats can share the work folder
        target = args.work / f"imported-{size}-{form}.wbb"
        for key, tree in trees.items():
            env = {**os.environ, "PYTHONPATH": f"{tree}:{tree / 'plugins'}"}
            target.unlink(missing_ok=True)
            print(f"{size:,} battles: {key} of {form} ({tree}) …", file=sys.stderr, flush=True)
            measured = run(
                [*cli, "import", str(folder), "--format", "arena-battles", "--into", str(target)],
                env,
                cwd=tree,  # python -m reads the package from the working folder first
            )
            imported = _judgments_in(target)
            target.unlink(missing_ok=True)
            if imported != size:
                raise SystemExit(
                    f"{key} of {form}: {imported:,} of the {size:,} battles landed in the bundle"
                )
            row[f"{key}_{form}_cpu"] = measured["cpu"]
            row[f"{key}_{form}_wall"] = measured["wall"]
            row[f"{key}_{form}_mb"] = measured["peak_mb"]
            row[f"{key}_{form}_rate"] = size / measured["cpu"]
            _so_far(size, row)
        if args.baseline_tree is not None:
            row[f"baseline_{form}_ratio"] = row[f"baseline_{form}_cpu"] / row[f"import_{form}_cpu"]
            row[f"baseline_{form}_wall_ratio"] = (
                row[f"baseline_{form}_wall"] / row[f"import_{form}_wall"]
            )
    return row


def _so_far(size: int, row: dict[str, Any]) -> None:
    """The figures measured so far, on stderr as each step ends: a long run cut short (a 10M
    import can take an hour of wall on a shared machine) keeps what it measured."""
    print(
        f"{size:,} battles so far: {json.dumps(row)} (load {os.getloadavg()[0]:.1f})",
        file=sys.stderr,
        flush=True,
    )


def _number(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    return value if isinstance(value, str) else f"{value:,.{digits}f}"


def table(
    rows: dict[int, dict[str, Any]],
    load: tuple[float, float, float],
    started: tuple[float, float, float],
    baseline: str | None = None,
    baseline_folder: Path | None = None,
) -> str:
    sizes = sorted(rows)
    lines = [
        "| step | " + " | ".join(f"{size:,} battles" for size in sizes) + " |",
        "|---|" + "---|" * len(sizes),
    ]
    fields = (
        ("models", "models", 0),
        ("leaderboard, CPU s (whole process)", "ours_cpu", 2),
        ("leaderboard, wall s", "ours_wall", 2),
        ("leaderboard, peak MB", "ours_mb", 0),
        ("reference reads its battles from", "reference_reads", 0),
        ("reference, CPU s", "reference_cpu", 2),
        ("reference, peak MB", "reference_mb", 0),
        ("reference CPU / ours", "ratio", 2),
        ("largest rating difference (Elo points)", "difference", 4),
        ("schema upgrade of a kept bundle, CPU s", "upgrade_cpu", 2),
        ("PostgreSQL: client CPU s", "server_client_cpu", 2),
        ("PostgreSQL: client peak MB", "server_client_mb", 0),
        ("PostgreSQL: server CPU s", "server_server_cpu", 2),
        ("PostgreSQL: client + server CPU s", "server_total_cpu", 2),
        ("PostgreSQL: wall s", "server_wall", 2),
        ("PostgreSQL CPU / SQLite CPU", "server_over_sqlite", 2),
        ("first paint (`workbench open`), CPU s", "paint_cpu", 2),
        ("bare PySide6 window's first paint, CPU s", "paint_bare_cpu", 2),
        ("first paint over the bare window, CPU s", "paint_over_cpu", 2),
        ("first paint, GUI thread's CPU s", "paint_gui_cpu", 2),
        ("first paint over the bare window, GUI thread's CPU s", "paint_over_gui_cpu", 2),
        ("first paint, wall s", "paint_wall", 2),
        ("first paint over the bare window, wall s", "paint_over_wall", 2),
        *(
            (f"{who} {form}, {label}", f"{prefix}_{form}_{key}", digits)
            for form in IMPORT_FORMATS
            for who, prefix in (("import", "import"), ("baseline import", "baseline"))
            for label, key, digits in (
                ("CPU s", "cpu", 1),
                ("wall s", "wall", 1),
                ("battles per CPU s", "rate", 0),
                ("peak MB", "mb", 0),
            )
        ),
        *(
            (f"baseline / ours, import {form}, {label}", f"baseline_{form}_{key}", 2)
            for form in IMPORT_FORMATS
            for label, key in (("CPU", "ratio"), ("wall", "wall_ratio"))
        ),
    )
    for label, key, digits in fields:
        if not any(key in rows[size] for size in sizes) and key != "models":
            continue
        cells = [_number(rows[size].get(key), digits) for size in sizes]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"Load average (1, 5, 15 min) at the start: {started[0]:.2f} {started[1]:.2f} "
        f"{started[2]:.2f}; at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
        f"({os.cpu_count()} cores)."
    )
    if baseline is not None and baseline_folder is not None:
        written = baseline_folder / ".scale-baseline"
        commit = f", commit {written.read_text()[:12]}" if written.exists() else ""
        lines.append(f"Baseline: `{baseline}`{commit} ({baseline_folder}).")
    return "\n".join(lines)


def baseline_tree(baseline: str, work: Path) -> Path:
    """The code to compare with: a folder as it is (a checkout of another commit), or else a git
    ref of this repository, its commit's tree written by ``git archive`` into ``work`` once
    (reused while complete, so the folder is always the commit's own files)."""
    import io
    import subprocess
    import tarfile

    folder = Path(baseline)
    if folder.is_dir():
        return folder.resolve()
    resolved = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{baseline}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if resolved.returncode != 0:
        raise SystemExit(f"--baseline {baseline}: neither a folder nor a commit of {ROOT}")
    commit = resolved.stdout.strip()
    tree = work / f"baseline-{commit[:12]}"
    complete = tree / ".scale-baseline"
    if complete.exists() and complete.read_text() == commit:
        return tree.resolve()
    import shutil

    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
        capture_output=True,
        check=True,
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout), mode="r:") as files:
        files.extractall(tree, filter="data")
    complete.write_text(commit)
    return tree.resolve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000,10000000")
    parser.add_argument("--models", default="100,100,200")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--work", type=Path, default=Path("/tmp/workbench-scale"))
    parser.add_argument(
        "--reference-max", type=int, default=1_000_000, help="the reference reads JSON up to this"
    )
    parser.add_argument(
        "--reference-parquet-max",
        type=int,
        default=10_000_000,
        help="above --reference-max and up to this, the reference reads the parquet files",
    )
    parser.add_argument("--import-max", type=int, default=1_000_000)
    parser.add_argument("--import-formats", default=",".join(IMPORT_FORMATS))
    parser.add_argument(
        "--skip-ratings", action="store_true", help="time the imports only (no bundle built)"
    )
    parser.add_argument(
        "--baseline",
        metavar="REF",
        help="a git ref or commit of this repository (its tree written into --work by git "
        "archive), or the folder of a checkout: its import is timed right after ours on the "
        "same files, and the table gives the ratios",
    )
    parser.add_argument(
        "--postgres",
        metavar="ADMIN_URL",
        help="also rate the battles in a server bundle on this server (scripts/postgres.sh "
        "start DIR prints the URL), up to --postgres-max battles",
    )
    parser.add_argument(
        "--postgres-dir",
        type=Path,
        help="the folder given to scripts/postgres.sh start (its server's CPU is read there)",
    )
    parser.add_argument("--postgres-max", type=int, default=1_000_000)
    parser.add_argument(
        "--paint-runs",
        type=int,
        default=3,
        help="first paints of each bundle (and of a bare window) to take the median of; 0: none",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    models = [int(count) for count in args.models.split(",")]
    if len(models) != len(sizes):
        raise SystemExit("--models needs one count per --sizes entry")
    args.work.mkdir(parents=True, exist_ok=True)
    if args.postgres and args.postgres_dir is None:
        raise SystemExit("--postgres needs --postgres-dir (the folder of scripts/postgres.sh)")
    args.baseline_tree = None if args.baseline is None else baseline_tree(args.baseline, args.work)
    rows: dict[int, dict[str, Any]] = {}
    began = time.perf_counter()
    started = os.getloadavg()
    for size, count in zip(sizes, models, strict=True):
        bundle = args.work / f"battles-{size}.wbb"
        battles_json = args.work / f"battles-{size}.json"
        rows[size] = {"models": count}
        if not args.skip_ratings:
            build(bundle, battles_json, size, count, with_json=size <= args.reference_max)
            print(f"{size:,} battles: ratings …", file=sys.stderr, flush=True)
            rows[size].update(ratings(bundle, battles_json, args, size, count))
            _so_far(size, rows[size])
            if args.postgres and size <= args.postgres_max:
                rows[size].update(server_ratings(bundle, args, size, rows[size]["ours_cpu"]))
                _so_far(size, rows[size])
            if args.paint_runs:
                print(f"{size:,} battles: first paint …", file=sys.stderr, flush=True)
                rows[size].update(first_paint(bundle, args.paint_runs))
                _so_far(size, rows[size])
        if size <= args.import_max:
            rows[size].update(import_rate(args, size, count))
    print(table(rows, os.getloadavg(), started, args.baseline, args.baseline_tree))
    print(f"\n(whole run {time.perf_counter() - began:.0f} s wall)", file=sys.stderr)


if __name__ == "__main__":
    main()
