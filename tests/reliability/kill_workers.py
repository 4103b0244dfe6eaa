"""The processes the kill harness kills: each does one kind of work on a bundle and prints what
it has confirmed (committed) to stdout, flushed, before it starts the next step.

    python -m tests.reliability.kill_workers serve

imports everything once and then, for each JSON request on stdin, forks a worker (``{"argv":
[WORKLOAD, ARGS...], "out": FILE}``: its stdout goes to FILE, its pid is printed) or reaps one
(``{"wait": PID}``: its exit code is printed, -9 after SIGKILL). Forking a ready interpreter
takes milliseconds where starting one takes seconds, so a test can afford many kills. Each
worker prints ``ready`` before its work starts, and the harness times its kill from there.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any


def confirm(*words: object) -> None:
    print(*words, flush=True)


def create(folder: str) -> None:
    from itertools import count

    from workbench.storage import Bundle

    confirm("ready")
    for n in count():
        name = f"new-{n:04d}.wbb"
        Bundle.create(Path(folder) / name).close()
        confirm(name)


def import_parts(bundle: str, sources: str) -> None:
    from workbench.services import importing
    from workbench.services.importing import import_files

    # Each part (210 records) streams in batches, written one after another into the one
    # transaction: a kill between two batches must leave nothing of the part behind.
    importing.BATCH_RECORDS = 50
    parts = sorted(p for p in Path(sources).iterdir() if p.is_dir())
    confirm("ready")
    for part in parts:
        if not import_files(bundle, [part], "jsonl").already_imported:
            confirm(part.name)  # parts a killed run imported are not counted twice


def vote(bundle: str, campaign: str, annotator: str) -> None:
    from workbench.services.voting import AnnotationSession
    from workbench.storage import Bundle

    opened = Bundle.open(bundle)
    session = AnnotationSession(opened, campaign, annotator)
    answers = {criterion.name: "a" for criterion in session.protocol.criteria}
    confirm("ready")
    # votes forever: when the queue runs dry, undo the last answer and answer again
    while True:
        task = session.next_task() or session.undo()
        assert task is not None
        receipt = session.cast(task.token, answers)
        confirm(*receipt.uuids)


def judge(bundle: str, base_url: str, run_name: str) -> None:
    from workbench_visit_bench.judge_templates import REFERENCE_FREE

    from tests.judge.helpers import FAKE_KEY
    from tests.judge.judging import QUICK_RETRY
    from workbench.judge.secrets import Secret
    from workbench.services.judging.runner import JudgeRunner, JudgeSettings, plan_run

    class ConfirmingRunner(JudgeRunner):
        """Prints the request hashes of each batch of verdicts once it is committed."""

        def _write(self, batch: list[Any]) -> None:
            super()._write(batch)
            hashes = sorted({row["request_hash"] for o in batch for row in o.rows})
            if hashes:
                confirm(*hashes)

    settings = JudgeSettings(
        base_url=base_url,
        judge_model="gpt-4o-mini",
        template=REFERENCE_FREE.name,
        concurrency=4,
        retry=QUICK_RETRY,
        run_name=run_name,
    )
    plan = plan_run(bundle, settings, template=REFERENCE_FREE)
    job = ConfirmingRunner(bundle, plan, Secret(FAKE_KEY))
    confirm("ready")
    summary = asyncio.run(job.run())
    confirm("finished", summary.status)


def merge(bundle: str, packs: str) -> None:
    from workbench.services.packs import merge_pack
    from workbench.storage import Bundle

    opened = Bundle.open(bundle)
    confirm("ready")
    for pack in sorted(Path(packs).glob("*.wbb")):
        merge_pack(opened, pack)
        confirm(pack.name)


def migrate(bundle: str) -> None:
    from workbench.storage import Bundle

    confirm("ready")
    with Bundle.open(bundle, migrate=True) as opened:
        confirm("opened", opened.revision())


WORKERS: dict[str, Callable[..., None]] = {
    "create": create,
    "import": import_parts,
    "voting": vote,
    "judge": judge,
    "merge": merge,
    "migration": migrate,
}


def _preload() -> None:
    # everything the workers import, so that forked workers start at once; no thread and no
    # database connection may exist before a fork
    import workbench_visit_bench.judge_templates  # noqa: F401

    import tests.judge.helpers
    import tests.judge.judging
    import workbench.services.importing
    import workbench.services.judging.runner
    import workbench.services.packs
    import workbench.services.voting
    from workbench.plugins import registry

    del tests, workbench
    registry()


def _run_child(argv: list[str], out: str) -> None:
    code = 1
    try:
        output = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        errors = os.open(out + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(output, 1)
        os.dup2(errors, 2)
        WORKERS[argv[0]](*argv[1:])
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve() -> None:
    _preload()
    print("serving", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if "wait" in request:
            _, status = os.waitpid(request["wait"], 0)
            print(os.waitstatus_to_exitcode(status), flush=True)
            continue
        pid = os.fork()
        if pid == 0:
            _run_child(request["argv"], request["out"])
        print(pid, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        WORKERS[sys.argv[1]](*sys.argv[2:])
