"""Time from a vote saved to the leaderboard panel showing the new numbers, against the old full
refresh, on a synthetic bundle.

    QT_QPA_PLATFORM=offscreen python bench/panel_after_vote.py [--bundle B.wbb] [--votes 100000]
        [--items 20000] [--models 20] [--runs 10] [--full-runs N] [--rounds 100]

A main window opens a copy of the bundle with the leaderboard panel shown (Bradley-Terry with
--rounds bootstrap rounds, the panel's default). Each run casts one vote in a small campaign
added for the purpose, in this process, and stops the clock when the panel has shown a result
counting it. "signal" is the app's path: the annotation view's ``judgmentsWritten`` signal makes
the watcher poll at once and the panel add the vote's counts to those it keeps. "full refresh"
is the path before it, in the same run on the same window: the vote waits for the watcher's
regular poll (every 400 ms) and the panel re-reads every judgment's counts. The medians of
--runs votes each are printed with the ratio; goal: within 200 ms of the vote. Two
moments are timed for each vote: the new ratings on screen (the panel's ``ratingsShown``: for
Bradley-Terry the point fit, shown before the bootstrap) and the whole result with its intervals
(``computed``).

Below the table, the same two reads without the window: the leaderboard service from the kept
counts after one vote, and from a full read, so the share of the fit is visible.

Without --bundle a synthetic bundle (bench/make_synthetic_bundle.py --votes N) is generated once
into the cache folder and reused; the run works on a temporary copy, so votes never accumulate
in it, or, with --in-place, in the bundle given (a scratch copy: each run adds a campaign of a
few votes), since copying a 1,000,000-vote bundle (7 GB) takes longer than the run. The app's
folders (settings, logs) go to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from workbench.gui.main_window import MainWindow
from workbench.services.analysis import DEFAULT_BOOTSTRAP_ROUNDS, leaderboard
from workbench.services.battle_tally import BattleTally
from workbench.services.campaign_items import ItemSpec
from workbench.services.campaigns import (
    CampaignSpec,
    add_annotator,
    create_campaign,
    list_annotators,
)
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.bundle import copy_bundle

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_synthetic_bundle import cached_synthetic_bundle

GOAL_MS = 200.0
OPEN_TIMEOUT_S = 600.0
CAMPAIGN = "bench-after-vote"
ANNOTATOR = "bench-voter"
CHOICES = ("a", "b", "tie", "a", "b")


def wait_for(app: QApplication, condition, timeout_s: float = 20.0, why=lambda: "") -> None:  # type: ignore[no-untyped-def]
    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"the panel did not show the vote {why()}")
        app.processEvents()
        time.sleep(0.0005)


def prepare(source: Path, folder: Path, items: int, in_place: bool) -> tuple[Path, str]:
    """A copy of ``source`` (``source`` itself when ``in_place``) with a small open campaign to
    vote in (a few items, all pairs); the path and the campaign's name, new at each run."""
    path = source if in_place else folder / "bench.wbb"
    if not in_place:
        copy_bundle(source, path)
    campaign = f"{CAMPAIGN}-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    chosen = ",".join(f"syn-{number:06d}" for number in range(1, min(items, 5) + 1))
    with Bundle.open(path) as bundle:
        if ANNOTATOR not in {profile.handle for profile in list_annotators(bundle)}:
            add_annotator(bundle, ANNOTATOR)
        create_campaign(
            bundle, CampaignSpec(campaign, "arena-battle", items=ItemSpec(chosen), seed=7)
        )
    return path, campaign


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def time_votes(
    app: QApplication,
    window: MainWindow,
    session: AnnotationSession,
    runs: int,
    *,
    signal: bool,
    timeout_s: float = 20.0,
) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """Per vote, milliseconds from the commit to the panel showing the new ratings
    (``ratingsShown``: Bradley-Terry's point ratings come before their intervals) and to the
    whole result with its bootstrap intervals (``computed``)."""
    board = window.analysis.leaderboard
    #: the first moment each signal showed the current vote's battles
    shown: dict[int, float] = {}
    done: dict[int, float] = {}
    current = {"run": -1, "battles": -1}

    def stamp(moments: dict[int, float], result: object) -> None:
        if getattr(result, "battles", None) == current["battles"]:
            moments.setdefault(current["run"], time.perf_counter())

    ratings: list[float] = []
    intervals: list[float] = []

    def on_shown(result: object) -> None:
        stamp(shown, result)

    def on_done(result: object) -> None:
        stamp(done, result)

    board.ratingsShown.connect(on_shown)
    board.computed.connect(on_done)
    try:
        for run in range(runs):
            wait_for(app, lambda: not window.is_busy())
            task = session.next_task()
            assert task is not None, "the bench campaign ran out of tasks"
            current.update(run=run, battles=board.result.battles + 1)
            session.cast(task.token, CHOICES[run % len(CHOICES)])
            saved = time.perf_counter()
            if signal:
                window.annotation.view.judgmentsWritten.emit()
            wait_for(
                app,
                lambda run=run: run in done,
                timeout_s,
                why=lambda: f"(the panel says: {board.status.text()})",
            )
            ratings.append((shown[run] - saved) * 1000)
            intervals.append((done[run] - saved) * 1000)
    finally:
        board.ratingsShown.disconnect(on_shown)
        board.computed.disconnect(on_done)
    return ratings, intervals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--votes", type=int, default=100_000)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--full-runs", type=int, help="votes timed on the full-refresh path (default: --runs)"
    )
    parser.add_argument(
        "--in-place",
        action="store_true",
        help="vote in --bundle itself (a scratch copy you made) instead of a temporary copy: "
        "a copy of a 7 GB bundle costs minutes and pushes the original out of the page cache",
    )
    parser.add_argument("--rounds", type=int, default=DEFAULT_BOOTSTRAP_ROUNDS)
    args = parser.parse_args()

    load_before = _load()
    source = args.bundle or cached_synthetic_bundle(args.items, args.models, args.votes)

    with tempfile.TemporaryDirectory(prefix="panel-after-vote-") as work:
        # the app's own folders (settings, logs, recent files) stay out of the user's
        os.environ["VLM_WORKBENCH_HOME"] = str(Path(work) / "home")
        os.environ.setdefault("MPLCONFIGDIR", str(Path(work) / "home" / "mpl"))
        path, campaign = prepare(source, Path(work), args.items, args.in_place)
        app = QApplication.instance() or QApplication(sys.argv[:1])
        window = MainWindow(persist_layout=False)
        window.resize(1600, 1000)
        window.open_bundle(path)
        window.analysis.show_panel("leaderboard")
        window.show()
        board = window.analysis.leaderboard
        board.rounds.setValue(args.rounds)
        # the first full read is not timed: at 1,000,000 votes it takes longer than a vote may
        wait_for(app, lambda: board.result is not None and not window.is_busy(), OPEN_TIMEOUT_S)
        board.refresh()  # with the chosen rounds; the counts kept from here on
        wait_for(app, lambda: not window.is_busy(), OPEN_TIMEOUT_S)
        battles = board.result.battles
        session = AnnotationSession(window.bundle, campaign, ANNOTATOR)

        signal_ratings, signal = time_votes(app, window, session, args.runs, signal=True)
        assert board.count_reads[1] >= args.runs  # the worker added each vote's counts

        # the path before the signal: the regular poll finds the vote, every count is re-read
        board.keep_counts = False
        # a full read at 1,000,000 votes takes longer than the signal path's 20 s wait
        _full_ratings, full = time_votes(
            app, window, session, args.full_runs or args.runs, signal=False, timeout_s=300.0
        )

        # the same reads without the window: from kept counts after one vote, and from scratch
        request = board.request()
        kept = BattleTally(request.filters(), request.decisive_weight)
        leaderboard(window.bundle, request, kept)
        task = session.next_task()
        assert task is not None
        session.cast(task.token, "a")
        began = time.perf_counter()
        leaderboard(window.bundle, request, kept)
        kept_ms = (time.perf_counter() - began) * 1000
        began = time.perf_counter()
        leaderboard(window.bundle, request)
        fresh_ms = (time.perf_counter() - began) * 1000
        window.close()
        window.deleteLater()
        app.processEvents()

    signal_ms, full_ms = statistics.median(signal), statistics.median(full)
    ratings_ms = statistics.median(signal_ratings)
    print(
        f"bundle: {source.name} ({battles:,} battles rated; {args.models} models), "
        f"Bradley-Terry with {args.rounds} bootstrap rounds, median of {args.runs} votes "
        f"(ours) and {len(full)} (before)"
    )
    print(f"load average before {load_before}, after {_load()}; start-up not included")
    print(f"{'path':<44}{'median':>10}{'max':>10}")
    print(
        f"{'signal + kept counts: new ratings (ours)':<44}{ratings_ms:>8.0f}ms"
        f"{max(signal_ratings):>8.0f}ms"
    )
    label = "signal + kept counts: with intervals (ours)"
    print(f"{label:<44}{signal_ms:>8.0f}ms{max(signal):>8.0f}ms")
    print(f"{'poll + full refresh (before)':<44}{full_ms:>8.0f}ms{max(full):>8.0f}ms")
    print(
        f"ratio before/ours (with intervals): {full_ms / signal_ms:.1f}x; goal {GOAL_MS:.0f} ms "
        f"to the new ratings: {'met' if ratings_ms <= GOAL_MS else 'NOT met'}; with their "
        f"intervals: {'met' if signal_ms <= GOAL_MS else 'NOT met'}"
    )
    print(
        f"leaderboard service alone after one vote: {kept_ms:.0f} ms from kept counts, "
        f"{fresh_ms:.0f} ms from a full read"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
