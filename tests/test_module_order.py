"""The order the pytest-xdist workers get the test files in (tests/module_order.py)."""

from __future__ import annotations

from dataclasses import dataclass

from tests.conftest import PROJECT_ROOT
from tests.module_order import MEASURED_CPU_SECONDS, SECONDS_PER_TEST, costliest_files_first


@dataclass(frozen=True)
class Collected:
    nodeid: str


def test_costly_files_come_first_each_whole_and_in_its_own_order() -> None:
    measured = next(iter(MEASURED_CPU_SECONDS))
    many_tests = int(MEASURED_CPU_SECONDS[measured] / SECONDS_PER_TEST) + 2
    items = [
        Collected("tests/a.py::one"),
        *(Collected(f"tests/many.py::t{n}") for n in range(many_tests)),
        Collected(f"{measured}::first"),
        Collected("tests/a.py::two"),
        Collected(f"{measured}::second"),
        Collected("tests/b.py::one"),
        Collected("tests/b.py::two"),
    ]
    ordered = [item.nodeid for item in costliest_files_first(items)]
    assert ordered == [
        *(f"tests/many.py::t{n}" for n in range(many_tests)),  # more tests than it costs
        f"{measured}::first",
        f"{measured}::second",
        "tests/a.py::one",  # two files of equal estimates: in the order they were collected
        "tests/a.py::two",
        "tests/b.py::one",
        "tests/b.py::two",
    ]


def test_every_measured_file_exists() -> None:
    missing = [name for name in MEASURED_CPU_SECONDS if not (PROJECT_ROOT / name).is_file()]
    assert not missing, f"measured files no longer in the suite: {missing}"
