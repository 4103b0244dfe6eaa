"""Export every format and option combination from some bundles and list the SHA-256 of each
file (and of each image file written beside it, and the export's summary), so two versions of
the export code can be shown to write the same bytes.

    python bench/export_identity.py --out /tmp/before.txt BUNDLE...
    python bench/export_identity.py --out /tmp/after.txt BUNDLE...
    diff /tmp/before.txt /tmp/after.txt    # nothing: byte-identical
    python bench/export_identity.py --sort-run 7 --out /tmp/spilled.txt BUNDLE...

``--sort-run N`` sorts at most N records in memory, so every sorted format goes through the
runs on disk and their merge (the default, 100,000, keeps small bundles in memory).

Run it with the ``workbench`` package of the version to check first on ``sys.path``
(``PYTHONPATH=WORKTREE:WORKTREE/plugins``). Bundles are only read. A combination the exporter
refuses (a CSV with embedded images) is listed with its error, which must not change either.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from itertools import product
from pathlib import Path

from workbench.export.options import ExportOptions, ImageMode, JudgmentSource
from workbench.export.service import export_bundle
from workbench.storage import Bundle
from workbench.storage.models import Campaign

KEY = b"identity-check-key"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def combinations(campaigns: list[str]) -> list[tuple[str, ExportOptions]]:
    found: list[tuple[str, ExportOptions]] = []
    for format_name, campaign, source, images, key, aggregate in product(
        ("items", "jsonl", "csv", "arena"),
        (None, *campaigns),
        tuple(JudgmentSource),
        tuple(ImageMode),
        (None, KEY),
        (False, True),
    ):
        if aggregate and format_name not in ("jsonl", "csv"):
            continue
        if format_name == "arena" and images is not ImageMode.NONE:
            continue
        # images only change how items are written, not which: check them unfiltered
        if images is not ImageMode.NONE and (campaign or source is not JudgmentSource.ALL):
            continue
        options = ExportOptions(
            format=format_name,
            campaign=campaign,
            source=source,
            images=images,
            pseudonym_key=key,
            aggregate=aggregate,
        )
        label = (
            f"{format_name} campaign={campaign} source={source.value} images={images.value} "
            f"pseudonyms={key is not None} aggregate={aggregate}"
        )
        found.append((label, options))
    return found


def _set_sort_run(size: int) -> None:
    # where the run size lives depends on the version of the export code being checked
    import importlib

    for name in ("workbench.export.external_sort", "workbench.export.pairwise"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "SORT_RUN"):
            module.SORT_RUN = size  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundles", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="the list of digests")
    parser.add_argument("--sort-run", type=int, help="records sorted in memory at once")
    args = parser.parse_args()
    if args.sort_run is not None:
        _set_sort_run(args.sort_run)
    lines: list[str] = []
    for bundle in args.bundles:
        with Bundle.open(bundle, migrate=False) as opened, opened.read_session() as session:
            campaigns = sorted(
                session.scalars(Campaign.__table__.select().with_only_columns(Campaign.name))
            )
        for label, options in combinations(campaigns[:2]):
            with tempfile.TemporaryDirectory() as scratch:
                target = Path(scratch) / "export.out"
                try:
                    summary = export_bundle(bundle, target, options)
                except Exception as error:  # the refusal is part of the output
                    lines.append(f"{bundle.name} {label} ERROR {type(error).__name__}: {error}")
                    continue
                report = summary.as_dict()
                report.pop("path")
                images = sorted((Path(scratch) / "images").glob("*"))
                digest = hashlib.sha256()
                for image in images:
                    digest.update(f"{image.name} {_sha(image)}\n".encode())
                lines.append(
                    f"{bundle.name} {label} {_sha(target)} size={target.stat().st_size} "
                    f"images={len(images)}:{digest.hexdigest()[:16]} {json.dumps(report)}"
                )
            print(lines[-1][:160], file=sys.stderr)
    args.out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
