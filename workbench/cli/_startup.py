"""Ctrl-C while the command line loads ends with one line, not a traceback.

Before ``main`` can catch anything, the interpreter loads ``workbench.cli``: the command
registry, the argument builders and logging (a command's own module, with SQLAlchemy, pandas and
the rest, loads later, inside ``main``, which reports an interrupt itself). ``workbench.cli``
imports this module first; it makes SIGINT end the process with one line until :func:`loaded`
puts the usual handler back. It imports nothing slow itself, so the window before it takes over
is as short as the interpreter's start.
"""

import contextlib
import signal
import sys


def _quit_while_loading(_signum: int, _frame: object) -> None:
    print("workbench: interrupted", file=sys.stderr)
    raise SystemExit(130)  # leaves the half-done imports without a traceback


try:
    _previous = signal.signal(signal.SIGINT, _quit_while_loading)
except ValueError:  # imported off the main thread: signals are not ours to set there
    _previous = None


def loaded() -> None:
    """Give SIGINT back to its usual handler (a KeyboardInterrupt that ``main`` reports)."""
    if _previous is not None:
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGINT, _previous)
