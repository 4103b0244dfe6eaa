"""``workbench open BUNDLE``, ``workbench annotate BUNDLE`` and plain ``workbench``: start the
GUI (or render it offscreen)."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.demo import generate_demo_bundle
from workbench.gui.app import parse_size, resume_annotation, run_annotator, run_app
from workbench.paths import demo_bundle_path
from workbench.recent import is_server_location, most_recent_location


def _size(args: argparse.Namespace) -> tuple[int, int] | None:
    return parse_size(args.size) if args.size else None


def run_open(args: argparse.Namespace) -> int:
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
