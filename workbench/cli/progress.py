"""Progress of a long command on standard error: on a terminal, one line redrawn in place with
the phase, the count done of the total and the time elapsed; when the output is piped or logged,
one plain line per phase, so a log shows what the command was doing without a line per step."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import TextIO


def _elapsed(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}" if whole >= 60 else f"{whole} s"


class TerminalProgress:
    """``phase [#####.....] done/total  12 s`` redrawn at most ten times a second on a
    terminal; ``phase...`` once per phase otherwise. Call it as a ``Progress`` callback, or wrap
    a wait without counts in :meth:`waiting`."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        # looked up now, not at import: whoever redirected standard error since gets the lines
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.interactive = self.stream.isatty()
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._phase = ""
        self._line = ""
        self._lock = threading.Lock()

    def __call__(self, phase: str, done: int, total: int) -> None:
        with self._lock:
            if not self.interactive:
                if phase != self._phase:
                    self._phase = phase
                    self.stream.write(f"{phase}...\n")
                    self.stream.flush()
                return
            now = time.monotonic()
            if phase == self._phase and now - self._last_draw < 0.1 and done != total:
                return
            self._phase, self._last_draw = phase, now
            if total > 0:
                filled = int(self.width * min(done, total) / total)
                bar = "#" * filled + "." * (self.width - filled)
                self._line = f"{phase:<8} [{bar}] {done}/{total}"
            else:
                self._line = f"{phase:<8} {done}" if done else f"{phase}..."
            self._draw(now)

    def _draw(self, now: float) -> None:
        text = f"{self._line}  {_elapsed(now - self._started)}"
        self.stream.write("\r" + text.ljust(self.width + 40))
        self.stream.flush()

    @contextlib.contextmanager
    def waiting(self, phase: str, *, when_piped: bool = True) -> Iterator[None]:
        """A step that reports no counts: its line keeps its elapsed time current (on a
        terminal) until the step ends. ``when_piped`` off: nothing is written when the output
        is not a terminal (a command of one step, whose log needs no phase line)."""
        if not self.interactive:
            if when_piped:
                self(phase, 0, 0)
            yield
            return
        self(phase, 0, 0)
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(1.0):
                with self._lock:
                    self._draw(time.monotonic())

        ticker = threading.Thread(target=tick, name="progress", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()

    def finish(self) -> None:
        if self.interactive:
            with self._lock:
                self.stream.write("\r" + " " * (self.width + 40) + "\r")
                self.stream.flush()
