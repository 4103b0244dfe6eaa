"""What the command line prints is shown, never obeyed, by the terminal.

Names come from data (sources, models, campaigns, annotators): an ESC sequence in one would
clear the screen or retitle the terminal, and a right-to-left override (U+202E) would make
"model-a\u202e" read as another name. :func:`safe_text` writes each such character as a visible
escape; :func:`safe_output` applies it to everything a command prints, so no print site can
forget. Line breaks and tabs stay; JSON output is unchanged (json.dumps escapes these already).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

#: C0 controls but tab and line feed, DEL, C1 controls, and the bidi marks and overrides
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """``text`` with each control and bidi character shown as an escape (``\\x1b``)."""
    return _UNSAFE.sub(_escaped, text)


class SafeStream:
    """A text stream that writes :func:`safe_text` of everything to ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(safe_text(text))
        return len(text)

    def __getattr__(self, name: str) -> object:  # flush, isatty, encoding, fileno...
        return getattr(self._stream, name)


@contextmanager
def safe_output() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` show control characters escaped."""
    saved = sys.stdout, sys.stderr
    sys.stdout = SafeStream(saved[0])
    sys.stderr = SafeStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
