"""The judge's HTTP stack is imported once per process, on one thread: a thread that asks while
another imports it waits for that import instead of importing openai and pydantic beside it
(two threads importing them at once fail now and then with a circular-import error)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from tests.patience import HANG_GUARD_MS
from workbench.services.judging import runner

ROOT = Path(__file__).resolve().parents[2]


class _WatchedLock:
    """A lock that notes when a thread has to wait for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.contended = threading.Event()

    def __enter__(self) -> None:
        if not self._lock.acquire(blocking=False):
            self.contended.set()
            self._lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


def test_a_thread_asking_during_the_import_waits_for_it_instead_of_importing_beside_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lock = _WatchedLock()
    monkeypatch.setattr(runner, "_runtime_lock", lock)
    monkeypatch.setattr(runner, "_runtime_ready", False)
    importing = threading.Event()
    inside = []  # the threads inside the import, as they enter and leave
    overlapped = []
    imports = []

    def import_http_stack() -> None:
        inside.append(threading.current_thread().name)
        overlapped.append(len(inside) > 1)
        imports.append(threading.current_thread().name)
        importing.set()
        # the first import goes on only once the second thread has come and waits for it
        lock.contended.wait(HANG_GUARD_MS / 1000)
        inside.pop()

    monkeypatch.setattr(runner, "_import_http_stack", import_http_stack)
    errors: list[BaseException] = []

    def prepare() -> None:
        try:
            runner.prepare_runtime()
        except BaseException as error:  # reported by the assertion below
            errors.append(error)

    first = threading.Thread(target=prepare, name="start-up")
    second = threading.Thread(target=prepare, name="judge-run")
    first.start()
    assert importing.wait(HANG_GUARD_MS / 1000)
    second.start()
    first.join(HANG_GUARD_MS / 1000)
    second.join(HANG_GUARD_MS / 1000)
    assert not errors
    assert lock.contended.is_set(), "the second thread did not wait for the first's import"
    assert imports == ["start-up"], "the stack was imported more than once"
    assert overlapped == [False]
    runner.prepare_runtime()  # once ready, asking again imports nothing
    assert imports == ["start-up"]


def test_the_real_stack_imported_from_two_threads_at_once_loads_without_error() -> None:
    """What the GUI does when a judge run starts while the start-up preparation still runs,
    in a fresh interpreter (where nothing of the stack is loaded yet)."""
    script = textwrap.dedent(
        """
        import sys
        import threading

        from workbench.services.judging.runner import prepare_runtime

        start = threading.Barrier(3)
        errors = []

        def prepare():
            start.wait()
            try:
                prepare_runtime()
            except BaseException as error:
                errors.append(repr(error))

        threads = [threading.Thread(target=prepare) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        import openai.types.chat

        print(errors)
        sys.exit(1 if errors else 0)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_MS / 1000,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
