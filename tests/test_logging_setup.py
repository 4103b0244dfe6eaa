"""configure_logging keeps one log file open per process: called again it closes the file it
opened before and writes to the log folder as it is now."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from workbench.logging_setup import LOG_FILE_NAME, close_log_file, configure_logging
from workbench.paths import HOME_OVERRIDE


def _app_handlers() -> list[logging.FileHandler]:
    return [
        handler
        for handler in logging.getLogger().handlers
        if isinstance(handler, logging.FileHandler) and handler.baseFilename.endswith(LOG_FILE_NAME)
    ]


def test_configuring_again_replaces_and_closes_the_earlier_log_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_OVERRIDE, str(tmp_path / "first"))
    first = configure_logging()
    monkeypatch.setenv(HOME_OVERRIDE, str(tmp_path / "second"))
    second = configure_logging()
    try:
        assert _app_handlers() == [second]
        assert isinstance(first, logging.FileHandler) and first.stream is None  # closed
        logging.getLogger("tests.logging_setup").warning("after the second")
        assert "after the second" in (tmp_path / "second" / "log" / LOG_FILE_NAME).read_text()
        assert "after the second" not in (tmp_path / "first" / "log" / LOG_FILE_NAME).read_text()
    finally:
        close_log_file()
    assert _app_handlers() == []
    assert isinstance(second, logging.FileHandler) and second.stream is None
