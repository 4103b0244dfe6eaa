"""Fixtures for the VisIT-Bench importers: the published folder, one bundle imported from it
(shared by the module's tests, copied before any test changes it), and builders of CSV files
in tmp_path made from the published rows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from tests.plugins.visit_bench.visit_bench_helpers import MULTI_IMAGE_CSV, raw_cells, write_csv
from workbench.services.importing import ImportResult, import_files
from workbench.storage.bundle import copy_bundle


@pytest.fixture(scope="session")
def visit_bench_folder(shared_data: Path) -> Path:
    return shared_data / "visit-bench"


@pytest.fixture(scope="session")
def imported(
    tmp_path_factory: pytest.TempPathFactory, visit_bench_folder: Path
) -> tuple[Path, ImportResult]:
    """The published folder imported once into a bundle. Tests that write copy it first."""
    bundle = tmp_path_factory.mktemp("visit-bench") / "visit.wbb"
    result = import_files(bundle, [visit_bench_folder], "visit-bench")
    return bundle, result


@pytest.fixture
def bundle_copy(imported: tuple[Path, ImportResult], tmp_path: Path) -> Path:
    target = tmp_path / "copy.wbb"
    copy_bundle(imported[0], target)
    return target


@pytest.fixture
def multi_image_rows(visit_bench_folder: Path) -> pd.DataFrame:
    return raw_cells(visit_bench_folder / MULTI_IMAGE_CSV)


@pytest.fixture
def write_multi_image_csv(tmp_path: Path) -> Callable[[pd.DataFrame], Path]:
    """Write rows in the multi-image schema to tmp_path/src, without images (they import as
    missing), so a test of a rejected row does not spend its time verifying pictures."""

    def write(frame: pd.DataFrame) -> Path:
        return write_csv(frame, tmp_path / "src", MULTI_IMAGE_CSV)

    return write
