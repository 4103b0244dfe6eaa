"""Many annotators voting at once on one campaign, and the checks that nothing went wrong: the
shared code of the load test (tests/services/test_annotator_load.py) and its benchmark script
(bench/annotator_load.py).

Each simulated annotator is a thread with its own bundle connection and AnnotationSession,
working as a person would: show the next task, answer it (now and then skip it or undo the
answer), until the time is up or nothing is left. Every receipt is a vote the app confirmed.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import distinct, func, select

from tests.importers.canonical_helpers import write_jsonl
from tests.services.campaign_helpers import MODELS, campaign_item, registry_with_all_protocols
from workbench.services.campaign_errors import StaleTaskError
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.services.sync import push
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Annotator, ScheduledPair, Vote

CAMPAIGN = "load"
PROTOCOL = "arena-battle"
PLUGINS = registry_with_all_protocols()
SKIP_SHARE = 0.04
UNDO_SHARE = 0.04


@dataclass
class LoadResult:
    """What the simulated annotators saw: receipts of confirmed votes, and every failure."""

    annotators: int
    seconds: float = 0.0
    receipts: list[str] = field(default_factory=list)
    answers: int = 0
    skips: int = 0
    undos: int = 0
    stale: int = 0
    finished: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def per_second(self) -> float:
        return self.answers / self.seconds if self.seconds else 0.0


@dataclass
class LoadFindings:
    """What the database holds after the run, against what the annotators were promised."""

    lost: list[str]
    over_target: dict[int, int]
    answered_twice: list[tuple[str, int, str]]
    votes: int

    @property
    def clean(self) -> bool:
        return not (self.lost or self.over_target or self.answered_twice)


def handles(count: int) -> list[str]:
    return [f"annotator-{number:02d}" for number in range(1, count + 1)]


def build_load_bundle(
    folder: Path, location: str | Path, items: int, annotators: int, votes_per_pair: int = 2
) -> int:
    """A campaign of ``items`` synthetic items x 6 model pairs needing ``votes_per_pair`` votes
    each, written to ``location`` (built as a file, then pushed when it is a server). Returns
    the number of tasks."""
    local = folder / "load.wbb"
    lines = [campaign_item(f"q{n:04d}", MODELS, turns=1) for n in range(items)]
    import_files(local, [write_jsonl(folder / "load-src", lines)], "jsonl")
    with Bundle.open(local) as bundle:
        summary = create_campaign(
            bundle, CampaignSpec(CAMPAIGN, PROTOCOL, votes_per_pair=votes_per_pair), PLUGINS
        )
        for handle in handles(annotators):
            add_annotator(bundle, handle)
    if str(location) != str(local):
        push(local, str(location))
    return summary.tasks


def _annotate(
    location: str | Path,
    handle: str,
    limit: tuple[float | None, int | None],
    start: threading.Barrier,
    result: LoadResult,
    lock: threading.Lock,
    seed: int,
) -> None:
    seconds, actions = limit
    rng = random.Random(seed)
    receipts: list[str] = []
    counts: Counter[str] = Counter()
    try:
        with Bundle.open(location) as bundle:
            session = AnnotationSession(bundle, CAMPAIGN, handle, PLUGINS)
            start.wait()
            deadline = None if seconds is None else time.monotonic() + seconds
            taken = 0
            while (deadline is None or time.monotonic() < deadline) and (
                actions is None or taken < actions
            ):
                taken += 1
                task = session.next_task()
                if task is None:
                    counts["finished"] += 1
                    break
                roll = rng.random()
                try:
                    if roll < SKIP_SHARE:
                        receipts += session.skip(task.token, "cannot tell").uuids
                        counts["skips"] += 1
                        continue
                    receipts += session.cast(task.token, rng.choice(("a", "b", "tie"))).uuids
                    counts["answers"] += 1
                except StaleTaskError:
                    counts["stale"] += 1
                    continue
                if roll > 1 - UNDO_SHARE and session.undo() is not None:
                    counts["undos"] += 1
    except Exception as error:  # any failure is a finding of the run, never a crash of it
        start.abort()
        with lock:
            result.errors.append(f"{handle}: {type(error).__name__}: {error}")
    with lock:
        result.receipts += receipts
        result.answers += counts["answers"]
        result.skips += counts["skips"]
        result.undos += counts["undos"]
        result.stale += counts["stale"]
        result.finished += counts["finished"]


def simulate(
    location: str | Path,
    annotators: int,
    seconds: float | None = None,
    seed: int = 0,
    *,
    actions: int | None = None,
) -> LoadResult:
    """Run ``annotators`` simulated annotators on the campaign for at most ``seconds`` (the
    bench's throughput), or each for at most ``actions`` tasks taken (the tests: the same work
    however busy the machine is), until the campaign runs dry; they all start together, once
    every one has connected."""
    if seconds is None and actions is None:
        raise ValueError("give seconds or actions: the simulation needs an end")
    result = LoadResult(annotators)
    lock = threading.Lock()
    start = threading.Barrier(annotators + 1)
    threads = [
        threading.Thread(
            target=_annotate,
            args=(location, handle, (seconds, actions), start, result, lock, seed * 1000 + number),
            name=f"load-{handle}",
        )
        for number, handle in enumerate(handles(annotators))
    ]
    for thread in threads:
        thread.start()
    # a broken barrier means an annotator failed to start; its error is in the result
    with contextlib.suppress(threading.BrokenBarrierError):
        start.wait()
    began = time.monotonic()
    for thread in threads:
        thread.join()
    result.seconds = time.monotonic() - began
    return result


def check(location: str | Path, result: LoadResult) -> LoadFindings:
    """Compare the database with the receipts: none lost, no task given more distinct live
    annotators than its target (attention checks go to everyone), nobody with two live votes
    on one task and criterion."""
    with Bundle.open(location) as bundle, bundle.read_session() as session:
        stored = set(session.scalars(select(Vote.uuid)))
        live = Vote.retracted_at.is_(None)
        answering = session.execute(
            select(
                ScheduledPair.sequence,
                ScheduledPair.votes_target,
                func.count(distinct(Vote.annotator_id)),
            )
            .join(Vote, Vote.pair_id == ScheduledPair.id)
            .where(live, Vote.skip_reason.is_(None), ScheduledPair.gold_choice.is_(None))
            .group_by(ScheduledPair.id, ScheduledPair.sequence, ScheduledPair.votes_target)
        ).all()
        doubled = session.execute(
            select(Annotator.handle, ScheduledPair.sequence, Vote.criterion)
            .join(Vote, Vote.annotator_id == Annotator.id)
            .join(ScheduledPair, Vote.pair_id == ScheduledPair.id)
            .where(live)
            .group_by(Annotator.handle, ScheduledPair.sequence, Vote.criterion)
            .having(func.count() > 1)
        ).all()
        votes = session.scalar(select(func.count()).select_from(Vote).where(live)) or 0
    return LoadFindings(
        lost=sorted(set(result.receipts) - stored),
        over_target={
            sequence: count - target for sequence, target, count in answering if count > target
        },
        answered_twice=[(handle, sequence, criterion) for handle, sequence, criterion in doubled],
        votes=votes,
    )
