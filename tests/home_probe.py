"""Run by tests/test_isolated_home.py as a pytest run of its own (the suite does not collect
it): a module fixture and a test run CLI commands in-process, as many of the suite's tests do,
and the test after them finds no log file left open."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.logging_setup import LOG_FILE_NAME


def open_log_files() -> list[str]:
    """The log files this process holds open, by what /proc says its descriptors point at."""
    folder = Path("/proc/self/fd")
    targets = []
    for descriptor in os.listdir(folder):
        try:
            targets.append(os.readlink(folder / descriptor))
        except OSError:  # closed since it was listed (the listing's own descriptor)
            continue
    return [target for target in targets if target.endswith(LOG_FILE_NAME)]


@pytest.fixture(scope="module")
def listed_before_any_test() -> None:
    """A module fixture runs before the test's own home is set: it must not log into the
    user's folder either."""
    assert main(["plugins"]) == 0


def test_a_command_run_in_process_logs_into_the_tests_home(
    listed_before_any_test: None, isolated_home: Path
) -> None:
    assert main(["plugins", "--json"]) == 0
    logging.getLogger("tests.home_probe").warning("probe line")
    assert "probe line" in (isolated_home / "log" / LOG_FILE_NAME).read_text(encoding="utf-8")


def test_no_log_file_is_left_open_by_an_earlier_test() -> None:
    handlers = logging.getLogger().handlers  # pytest's own (to /dev/null) is not the app's
    files = [h.baseFilename for h in handlers if isinstance(h, logging.FileHandler)]
    assert [name for name in files if name.endswith(LOG_FILE_NAME)] == []
    if os.path.isdir("/proc/self/fd"):
        assert open_log_files() == []
