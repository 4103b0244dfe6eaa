"""How long a test waits for an event before calling it a hang.

Tests wait for a signal, a condition or a job's end, never for a length of time, and assert
no duration (budgets are measured by bench/ and by the opt-in ``budget`` tests). This ceiling
only ends a wait that would otherwise never end, so it is minutes: far above what any wait
takes, even on a machine loaded at several busy processes per core. pytest-timeout's limit
per test (pyproject.toml) is above it.
"""

from __future__ import annotations

HANG_GUARD_SECONDS = 300
#: the same, for pytest-qt's waitUntil and waitSignal, which take milliseconds
HANG_GUARD_MS = HANG_GUARD_SECONDS * 1000
