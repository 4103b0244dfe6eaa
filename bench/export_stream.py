"""Time and peak memory of ``workbench export`` as a whole process, this tree's code against a
reference tree's (main before the exports streamed), run alternately in the same run.

    python bench/export_stream.py --bundle B [--reference /work/main] [--campaign C]
        [--formats jsonl,csv,items,arena] [--runs 1]

Each export runs in a fresh process (``PYTHONPATH`` set to the tree and its plugins), so its
peak memory is the child's maximum resident set (``wait4``'s ``ru_maxrss``). The bundle is only
read. The table (seconds, peak MB, file size for each tree, the ratios, and whether both wrote
the same bytes) goes to stdout with the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
CLI = "import sys; from workbench.cli import main; sys.exit(main(sys.argv[1:]))"


def run(tree: Path, bundle: Path, out: Path, export_format: str, campaign: str | None) -> dict:
    command = [sys.executable, "-c", CLI, "export", str(bundle.resolve()), "--out", str(out)]
    command += ["--format", export_format]
    if campaign:
        command += ["--campaign", campaign]
    env = dict(os.environ, PYTHONPATH=f"{tree}{os.pathsep}{tree / 'plugins'}")
    start = time.perf_counter()
    # run outside any tree: ``python -c`` puts the working folder first on sys.path
    process = subprocess.Popen(
        command,
        env=env,
        cwd=out.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    errors = process.stderr.read() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"export failed in {tree}: {errors}")
    digest = hashlib.sha256()
    with out.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return {
        "seconds": seconds,
        "peak_mb": usage.ru_maxrss / 1024,
        "size_mb": out.stat().st_size / 1e6,
        "sha256": digest.hexdigest(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--reference", type=Path, default=Path("/work/main"))
    parser.add_argument("--campaign")
    parser.add_argument("--formats", default="jsonl,csv,items,arena")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    header = f"{'format':<8}{'ref s':>8}{'this s':>8}{'ratio':>7}{'ref MB':>9}{'this MB':>9}"
    print(header + f"{'ratio':>7}{'file MB':>9}  same bytes")
    with tempfile.TemporaryDirectory() as scratch:
        for export_format in args.formats.split(","):
            results: dict[str, list[dict]] = {"ref": [], "this": []}
            for number in range(args.runs):
                for name, tree in (("ref", args.reference), ("this", PROJECT)):
                    out = Path(scratch) / f"{name}-{number}.{export_format}"
                    results[name].append(run(tree, args.bundle, out, export_format, args.campaign))
                    out.unlink()
            ref = min(results["ref"], key=lambda r: r["seconds"])
            this = min(results["this"], key=lambda r: r["seconds"])
            same = all(r["sha256"] == ref["sha256"] for r in results["ref"] + results["this"])
            print(
                f"{export_format:<8}{ref['seconds']:>8.1f}{this['seconds']:>8.1f}"
                f"{ref['seconds'] / this['seconds']:>7.2f}{ref['peak_mb']:>9.0f}"
                f"{this['peak_mb']:>9.0f}{ref['peak_mb'] / this['peak_mb']:>7.2f}"
                f"{this['size_mb']:>9.1f}  {'yes' if same else 'NO'}",
                flush=True,
            )
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
