"""Where a text area's time goes on the GUI thread: is moving markdown off it worth it?

    QT_QPA_PLATFORM=offscreen python bench/markdown_on_gui_thread.py [--texts 200]

Takes TEXTS model answers from the synthetic bundle bench/vote_to_paint.py uses (built once
into the cache folder) and times, in CPU of the calling thread per text, in one run: parsing the
markdown into a detached document (what a worker could do), the same with its layout at the
view's width, ``SafeTextView.show_text`` in a shown view (what the annotation page does per text
area), and putting a document built beforehand into a shown view (``setDocument``: what the GUI
thread would still do if a worker built the documents). Start-up and bundle building are not
included; the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))


def per_text_ms(texts: list[str], action: Callable[[str], object], rounds: int = 5) -> float:
    """Median over ``rounds`` of the CPU per text of ``action`` over all ``texts``."""
    timings = []
    for _ in range(rounds):
        started = time.thread_time()
        for text in texts:
            action(text)
        timings.append((time.thread_time() - started) / len(texts) * 1000)
    return statistics.median(timings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QApplication
    from vote_to_paint import template_bundle

    from workbench.gui.safe_text import (
        MARKDOWN_FEATURES,
        InertDocument,
        SafeTextView,
        replace_images_with_labels,
    )

    app = QApplication.instance() or QApplication([])
    with sqlite3.connect(template_bundle(1500)) as connection:
        texts = [
            row[0] for row in connection.execute("SELECT text FROM outputs LIMIT ?", (args.texts,))
        ]
    view = SafeTextView()
    view.resize(600, 400)
    view.show()
    app.processEvents()
    width = view.viewport().width()

    detached = QTextDocument()
    laid_out = QTextDocument()
    laid_out.setTextWidth(width)

    def parse_and_lay_out(text: str) -> None:
        laid_out.setMarkdown(text, MARKDOWN_FEATURES)
        laid_out.size()

    built: list[InertDocument] = []

    def build(text: str) -> None:
        document = InertDocument()
        document.setMarkdown(text, MARKDOWN_FEATURES)
        replace_images_with_labels(document)
        built.append(document)

    rounds = 5
    building = per_text_ms(texts, build, rounds)
    documents = iter(built)

    def swap(_text: str) -> None:
        document = next(documents)
        view.setDocument(document)
        document.size()

    rows = [
        (
            "markdown parsed, detached (worker's share)",
            per_text_ms(texts, lambda t: detached.setMarkdown(t, MARKDOWN_FEATURES)),
        ),
        ("parsed and laid out, detached", per_text_ms(texts, parse_and_lay_out)),
        ("built as the view builds it, detached", building),
        ("reference: show_text in a shown view", per_text_ms(texts, view.show_text)),
        ("setDocument of a built document", per_text_ms(texts, swap, rounds)),
    ]
    load = os.getloadavg()
    print(f"texts {len(texts)}, median {statistics.median(map(len, texts)):.0f} characters")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores)")
    reference = rows[3][1]
    print(f"{'CPU per text':<46}{'ms':>8}{'/ show_text':>13}")
    for name, value in rows:
        print(f"{name:<46}{value:>8.3f}{value / reference:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
