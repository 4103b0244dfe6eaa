"""Concurrent annotators on one campaign: votes per second, and the load test's checks.

    python bench/annotator_load.py [--backend postgresql|sqlite|both] [--annotators 20]
                                   [--seconds 60] [--items 600] [--server ADMIN_URL]

Builds a campaign of ITEMS synthetic items x 6 model pairs, two votes per task, pushes it to a
fresh database on the PostgreSQL server (admin URL from --server or
$WORKBENCH_TEST_POSTGRES_URL; the database is dropped afterwards) or writes it to a temporary
SQLite file, and lets ANNOTATORS threads vote as the annotation view does (each with its own
connection; 4% skips, 4% undos) for SECONDS. Prints votes per second and what the checks found:
confirmed votes lost, tasks handed out beyond their target, annotators with two live answers.
The same code runs in tests/services/test_annotator_load.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from tests.backends import POSTGRES_URL_ENV, PostgresBackend  # noqa: E402
from tests.services.annotator_load import build_load_bundle, check, simulate  # noqa: E402


def _run(backend: str, location: str | Path, folder: Path, args: argparse.Namespace) -> bool:
    tasks = build_load_bundle(folder, location, items=args.items, annotators=args.annotators)
    result = simulate(location, args.annotators, args.seconds)
    findings = check(location, result)
    print(
        f"| {backend:<10} | {args.annotators:>10} | {tasks:>5} | {result.seconds:>7.1f} | "
        f"{result.answers:>6} | {result.per_second:>7.1f} | {result.skips:>5} | "
        f"{result.undos:>5} | {len(findings.lost):>4} | {len(findings.over_target):>11} | "
        f"{len(findings.answered_twice):>5} |",
        flush=True,
    )
    for error in result.errors:
        print(f"  error: {error}")
    return findings.clean and not result.errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("postgresql", "sqlite", "both"), default="both")
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--items", type=int, default=600, help="items (6 tasks each)")
    parser.add_argument("--server", help=f"admin URL (default: ${POSTGRES_URL_ENV})")
    args = parser.parse_args()
    os.environ.setdefault("VLM_WORKBENCH_HOME", tempfile.mkdtemp(prefix="load-bench-"))
    print(
        "| backend    | annotators | tasks | seconds |  votes | votes/s | skips | undos | "
        "lost | over target | twice |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    clean = True
    if args.backend in ("sqlite", "both"):
        folder = Path(tempfile.mkdtemp(prefix="load-sqlite-"))
        clean &= _run("sqlite", folder / "load.wbb", folder, args)
    if args.backend in ("postgresql", "both"):
        admin = args.server or os.environ.get(POSTGRES_URL_ENV)
        if not admin:
            print(f"no server: give --server or set {POSTGRES_URL_ENV}", file=sys.stderr)
            return 2
        server = PostgresBackend(admin)
        try:
            url = server.new_location()
            clean &= _run("postgresql", url, Path(tempfile.mkdtemp(prefix="load-pg-")), args)
        finally:
            server.close()
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
