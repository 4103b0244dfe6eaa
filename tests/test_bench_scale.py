"""bench/scale.py --baseline takes a git ref: the commit's own tree is written into the work
folder once, so the old code runs beside the new in one run."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def scale() -> Iterator[ModuleType]:
    # the script puts bench/ and the project first on sys.path when loaded: undone afterwards
    path_before = list(sys.path)
    spec = importlib.util.spec_from_file_location(
        "bench_scale", PROJECT_ROOT / "bench" / "scale.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path[:] = path_before
        sys.modules.pop("leaderboard_process", None)


def _commit(ref: str) -> str:
    return subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_a_git_ref_is_written_out_as_that_commits_tree(scale: ModuleType, tmp_path: Path) -> None:
    commit = _commit("HEAD")
    # a folder left half-written by an earlier run is written again, not taken as it is
    stale = tmp_path / f"baseline-{commit[:12]}"
    stale.mkdir()
    (stale / "left-over.txt").write_text("from a cut run")

    tree = scale.baseline_tree("HEAD", tmp_path)

    assert tree == stale.resolve()
    assert not (tree / "left-over.txt").exists()
    committed = subprocess.run(
        ["git", "-C", str(PROJECT_ROOT), "show", f"{commit}:bench/scale.py"],
        capture_output=True,
        check=True,
    ).stdout
    assert (tree / "bench" / "scale.py").read_bytes() == committed
    assert (tree / "workbench" / "cli" / "__main__.py").exists()
    assert scale.baseline_tree(commit, tmp_path) == tree  # the same commit by its hash: reused


def test_a_folder_is_taken_as_the_checkout_it_is(scale: ModuleType, tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    assert scale.baseline_tree(str(checkout), tmp_path / "work") == checkout.resolve()
    assert not (tmp_path / "work").exists()


def test_a_name_that_is_neither_refuses_and_writes_nothing(
    scale: ModuleType, tmp_path: Path
) -> None:
    with pytest.raises(SystemExit, match="neither a folder nor a commit"):
        scale.baseline_tree("no-such-ref-anywhere", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_reference_reads_the_same_battles_from_parquet_as_from_json(
    scale: ModuleType, tmp_path: Path
) -> None:
    """Above --reference-max the reference reads the parquet import files (its JSON would not
    fit in memory at 10M): the same battles give it the same ratings either way."""
    import json

    as_json = scale.import_files_of(tmp_path / "json", "json", 3_000, 6)
    as_parquet = scale.import_files_of(tmp_path / "parquet", "parquet", 3_000, 6)
    script = tmp_path / "reference_bt.py"
    script.write_text(scale.REFERENCE)
    printed = {}
    for name, read in (("json", as_json / "part-000.json"), ("parquet", as_parquet)):
        done = subprocess.run(
            [sys.executable, str(script), str(read), "3"],
            capture_output=True,
            text=True,
            check=True,
        )
        printed[name] = json.loads(done.stdout)
    assert printed["json"]["battles"] == printed["parquet"]["battles"] == 3_000
    ratings = {
        name: {row["model"]: row["rating"] for row in output["models"]}
        for name, output in printed.items()
    }
    assert len(ratings["json"]) == 6
    assert ratings["parquet"] == pytest.approx(ratings["json"], abs=1e-6)
