"""``workbench demo``: generate the demo bundle (docs/demo.md)."""

from __future__ import annotations

import argparse

from workbench.demo import generate_demo_bundle
from workbench.paths import demo_bundle_path


def run_demo(args: argparse.Namespace) -> int:
    out = args.out or demo_bundle_path()
    path = generate_demo_bundle(out, seed=args.seed, replace=args.force)
    print(f"demo bundle written to {path}")
    return 0
