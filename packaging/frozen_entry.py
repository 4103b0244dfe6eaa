"""Entry point of the frozen (PyInstaller) app: the same as the ``workbench`` command, with
matplotlib's cache in the user's cache folder (unless the user set MPLCONFIGDIR), so the app
neither writes next to its executable nor rebuilds the font cache on every start."""

from __future__ import annotations

import os
import sys

USER_SETTING = "VLM_WORKBENCH_USER_MPLCONFIGDIR"  # set by rthook_remember_environment.py


def _prepare_environment() -> None:
    from workbench.paths import cache_dir

    # PyInstaller's matplotlib run-time hook has put a temporary folder in MPLCONFIGDIR by now;
    # only what the user set before start-up is kept.
    given = os.environ.pop(USER_SETTING, None)
    if given is None:
        given = os.environ.get("MPLCONFIGDIR", "")
    if given:
        os.environ["MPLCONFIGDIR"] = given
        return
    folder = cache_dir() / "matplotlib"
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["MPLCONFIGDIR"] = str(folder)


if __name__ == "__main__":
    import multiprocessing

    # the panels' worker process (workbench/gui/panel_process.py) is this executable started
    # again: it must run the worker, not a second app
    multiprocessing.freeze_support()
    _prepare_environment()
    from workbench.cli import console_main

    sys.exit(console_main())
