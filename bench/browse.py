"""Time the inspector on a large bundle: opening it until the first item is shown, and moving
to the next item.

    QT_QPA_PLATFORM=offscreen python bench/browse.py [--bundle B.wbb] [--items 100000]
        [--models 20] [--steps 300]

Without --bundle a synthetic bundle (bench/make_synthetic_bundle.py) is generated once into the
cache folder and reused. Goals: open under 1 s, next item p95 under 30 ms.

"open" counts from asking the main window to open the bundle until the first item's page is
filled and painted (the item list's first query, its first page of rows, the item's detail and
its text views); Python and Qt start-up before that are reported on their own line. "next" is
the GUI-thread time of one step to the following item, including the layout and paint events
it causes; images are
decoded on worker threads and prefetched, and the share of steps whose images were already
decoded when the item appeared is printed too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

START = time.perf_counter()
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.gui.app import install_qt_message_logging  # noqa: E402
from workbench.gui.main_window import MainWindow  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_synthetic_bundle import cached_synthetic_bundle  # noqa: E402

OPEN_GOAL_S = 1.0
NEXT_P95_GOAL_MS = 30.0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def wait_for(app: QApplication, condition, timeout_s: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the window did not settle")
        app.processEvents()
        time.sleep(0.001)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()

    bundle = args.bundle or cached_synthetic_bundle(args.items, args.models)

    install_qt_message_logging()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    startup = time.perf_counter() - START

    window = MainWindow(persist_layout=False)
    window.resize(1600, 1000)
    window.show()
    app.processEvents()

    began = time.perf_counter()
    window.open_bundle(bundle)
    wait_for(app, lambda: not window.item_list.querying and window.item_view.detail is not None)
    window.repaint()
    opened = time.perf_counter() - began
    wait_for(app, lambda: not window.is_busy())
    total_items = window.item_list.model.total()

    timings: list[float] = []
    images_ready = 0
    for _ in range(args.steps):
        step_start = time.perf_counter()
        window.step(1)
        app.processEvents()  # the layout and paint the step caused, as the event loop would
        timings.append((time.perf_counter() - step_start) * 1000)
        if not window.item_view.images.loading():
            images_ready += 1
        # let the worker threads deliver what they decoded, as an idle GUI would
        deadline = time.perf_counter() + 0.05
        while window.is_busy() and time.perf_counter() < deadline:
            app.processEvents()
            time.sleep(0.001)

    search_start = time.perf_counter()
    window.item_list.ui.searchEdit.setText("zebra")
    window.item_list.refresh()
    wait_for(app, lambda: not window.item_list.querying)
    search = time.perf_counter() - search_start

    sort_start = time.perf_counter()
    window.item_list.ui.searchEdit.setText("")
    window.item_list.ui.itemTable.sortByColumn(4, Qt.SortOrder.DescendingOrder)
    wait_for(app, lambda: not window.item_list.querying)
    sort = time.perf_counter() - sort_start

    p50, p95 = statistics.median(timings), percentile(timings, 0.95)
    print(f"bundle: {bundle} ({total_items:,} items, {bundle.stat().st_size / 1e6:,.0f} MB)")
    print(f"{'measure':<44}{'value':>12}{'goal':>12}")
    print(f"{'python + Qt start-up (imports, QApplication)':<44}{startup:>11.2f}s{'':>12}")
    print(f"{'open bundle -> first item shown':<44}{opened:>11.3f}s{f'< {OPEN_GOAL_S} s':>12}")
    print(f"{'next item p50':<44}{p50:>10.1f}ms{'':>12}")
    print(f"{'next item p95':<44}{p95:>10.1f}ms{f'< {NEXT_P95_GOAL_MS:.0f} ms':>12}")
    print(f"{'next item max':<44}{max(timings):>10.1f}ms{'':>12}")
    share = images_ready / len(timings)
    print(f"{'items whose images were decoded when shown':<44}{share:>11.0%}{'':>12}")
    print(f"{'search all texts (worker thread)':<44}{search:>11.2f}s{'':>12}")
    print(f"{'sort by #outputs (worker thread)':<44}{sort:>11.2f}s{'':>12}")
    window.close()
    ok = opened < OPEN_GOAL_S and p95 < NEXT_P95_GOAL_MS
    print("goals met" if ok else "GOALS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
