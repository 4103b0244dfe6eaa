"""Long model outputs: time from handing a text to the inspector's text view
until its first screen is painted, and until the whole-text window shows it.

    QT_QPA_PLATFORM=offscreen python bench/long_outputs.py

Texts: a 250 KB markdown bullet list (the issue's case: 88 s on the GUI thread before the view
laid out a bounded preview) and a 10 MB output (which never finished). Goal: any single output
of 10 MB shows its first screen within 1 s. Each figure is the median of 3 runs, in-process
(Qt started once; start-up not included).
"""

from __future__ import annotations

import statistics
import time

from PySide6.QtWidgets import QApplication

from workbench.gui.safe_text import FullTextDialog, SafeTextView

TEXTS = {
    "bullet list, 250 KB": "".join(
        f"- point {n} with **bold** and `code` and more words\n" for n in range(5_000)
    ),
    "plain text, 10 MB": ("word " * 20 + "\n") * 100_000,
    "one line, 10 MB": "x" * 10_000_000,
}


def _first_screen(app: QApplication, text: str) -> float:
    view = SafeTextView()
    view.resize(900, 600)
    view.show()
    started = time.perf_counter()
    view.show_text(text)
    app.processEvents()
    view.grab()  # paints the first screen
    seconds = time.perf_counter() - started
    view.close()
    return seconds


def _whole_text(app: QApplication, text: str) -> float:
    started = time.perf_counter()
    dialog = FullTextDialog(text, "Full text")
    dialog.show()
    app.processEvents()
    dialog.grab()
    seconds = time.perf_counter() - started
    dialog.close()
    return seconds


def main() -> int:
    app = QApplication.instance() or QApplication([])
    print(f"{'text':<22}{'first screen s':>16}{'whole text s':>14}")
    worst = 0.0
    for name, text in TEXTS.items():
        first = statistics.median(_first_screen(app, text) for _ in range(3))
        whole = statistics.median(_whole_text(app, text) for _ in range(3))
        worst = max(worst, first)
        print(f"{name:<22}{first:>16.3f}{whole:>14.3f}")
    print("goal (first screen within 1 s):", "met" if worst < 1.0 else "not met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
