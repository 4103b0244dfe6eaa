"""The app's scheduling tweaks, each behind one environment variable read here and nowhere else
(docs/design.md, "Scheduling tweaks", gives what each one was measured to buy). Each is on
unless its variable is ``0``: a way to compare the app with and without it, and to turn it off
where it hurts."""

from __future__ import annotations

import os

from workbench.errors import WorkbenchError

#: full collections run while the user is idle (workbench/gui/collector.py), not by CPython's rule
IDLE_COLLECTION = "WORKBENCH_IDLE_COLLECTION"
#: the interpreter lock's switch interval shortened (workbench/gui/event_loop.py)
SHORT_SWITCH_INTERVAL = "WORKBENCH_SHORT_SWITCH_INTERVAL"
#: the panels' worker niced in a session of its own (workbench/gui/panel_computations.py)
NICE_PANEL_WORKER = "WORKBENCH_NICE_PANEL_WORKER"

TWEAKS = (IDLE_COLLECTION, SHORT_SWITCH_INTERVAL, NICE_PANEL_WORKER)


def enabled(tweak: str) -> bool:
    """Whether ``tweak`` (one of :data:`TWEAKS`) is on: its variable unset, empty or ``1``."""
    if tweak not in TWEAKS:
        raise ValueError(f"unknown tweak {tweak!r}")
    value = os.environ.get(tweak, "").strip()
    if value in ("", "1"):
        return True
    if value == "0":
        return False
    raise WorkbenchError(f"{tweak}={value!r}: expected 1 (on, the default) or 0 (off)")


def check_switches() -> None:
    """Refuse a mistyped switch before the app starts anything (the panels' worker reads its
    own later, in another process, where an error would only break the pool)."""
    for tweak in TWEAKS:
        enabled(tweak)
