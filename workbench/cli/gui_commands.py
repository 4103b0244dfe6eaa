"""``workbench open BUNDLE``, ``workbench annotate BUNDLE`` and plain ``workbench``: start the
GUI (or render it offscreen)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

#: kept equal to workbench.gui.app.PAGES (a test checks); the CLI must not import Qt to parse
PAGES = (
    "items",
    "annotate",
    "analysis",
    "leaderboard",
    "graph",
    "agreement",
    "failures",
    "benchmark",
    "monitor",
    "adjudicate",
)


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "open",
        help="open a bundle in the app",
        description="Open a bundle in the app (an offline pack opens in the annotator's "
        "window). With --screenshot, render the window offscreen to a PNG and exit (no display "
        "needed).",
    )
    # a str, not a Path: Path would turn postgresql://host/db into postgresql:/host/db
    parser.add_argument(
        "bundle", metavar="BUNDLE", help="a bundle file, or a postgresql:// URL of a server bundle"
    )
    parser.add_argument("--screenshot", metavar="FILE.png", type=Path, help="render and exit")
    _add_size(parser, "1600x1000")
    parser.add_argument("--page", choices=PAGES, default="items", help="page to render")
    parser.add_argument("--item", metavar="ID", help="item to select (external id or row id)")
    parser.add_argument(
        "--campaign",
        metavar="NAME",
        help="campaign to annotate (--page annotate) or to show (--page monitor|adjudicate)",
    )
    parser.add_argument(
        "--annotator",
        metavar="HANDLE",
        help="annotator profile (default: the pack's annotator, else the first profile, else a "
        "new profile 'screenshot')",
    )
    parser.set_defaults(handler=run_open)

    annotate = commands.add_parser(
        "annotate",
        help="annotate a campaign in the annotator's window",
        description="Open the annotator's window: the annotation page alone, with no inspector, "
        "search, analysis, judge or export, so no model name can be seen. In an offline pack, "
        "the campaign and annotator default to the pack's.",
    )
    annotate.add_argument("bundle", metavar="BUNDLE", help="a bundle file, pack, or URL")
    annotate.add_argument("--campaign", metavar="NAME", help="campaign to annotate")
    annotate.add_argument("--annotator", metavar="HANDLE", help="annotator profile")
    annotate.add_argument("--screenshot", metavar="FILE.png", type=Path, help="render and exit")
    _add_size(annotate, "1366x768")
    annotate.set_defaults(handler=run_annotate)


def _add_size(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "--size", metavar="WxH", help=f"window size of the screenshot (default {default})"
    )


def _size(args: argparse.Namespace) -> tuple[int, int] | None:
    from workbench.gui.app import parse_size

    return parse_size(args.size) if args.size else None


def run_open(args: argparse.Namespace) -> int:
    from workbench.gui.app import run_app

    return run_app(
        args.bundle,
        screenshot=args.screenshot,
        page=args.page,
        item=args.item,
        campaign=args.campaign,
        annotator=args.annotator,
        size=_size(args),
    )


def run_annotate(args: argparse.Namespace) -> int:
    from workbench.gui.app import run_annotator

    return run_annotator(
        args.bundle,
        campaign=args.campaign,
        annotator=args.annotator,
        screenshot=args.screenshot,
        size=_size(args),
    )


def launch_default(_args: argparse.Namespace) -> int:
    """No command: the annotation session the app was closed in, else the most recent bundle
    (a file that still exists, or a server), else the demo bundle (made on first use)."""
    from workbench.demo import generate_demo_bundle
    from workbench.gui.app import resume_annotation, run_app
    from workbench.paths import demo_bundle_path
    from workbench.recent import is_server_location, most_recent_location

    resumed = resume_annotation()  # the annotator's session, where it stopped
    if resumed is not None:
        return resumed
    recent = most_recent_location()
    if recent is not None:
        return run_app(recent if is_server_location(recent) else Path(recent))
    bundle = demo_bundle_path()
    if bundle.exists():
        return run_app(bundle)
    generate_demo_bundle(bundle)
    # a bundle this app has just written holds nothing a backup could save that the generator
    # cannot make again, so its first launch neither backs it up nor announces a backup
    return run_app(bundle, just_created=True)
