"""Hostile parquet and Arrow files against the import: what each costs before it is refused.

    python bench/hostile_tables.py [--rows 30000000] [--value-mb 64] [--value-rows 2000]

Writes, in a temporary folder, the three table files of the hostile-input round: a parquet of
ROWS battles (one battle repeated, dictionary-encoded: a few hundred KB), a parquet whose answer
is one VALUE_MB string stored once in a dictionary and referred to by VALUE_ROWS rows (a few
KB), and a ``save_to_disk`` folder whose Arrow shard has a string offset pointing past the file
(SIGBUS before). Each is imported by ``workbench import --format arena-battles`` in its own
child process; the script prints, as JSON, each child's exit status, its last line of output,
its wall time and peak resident memory, and the load average. Everything is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.plugins.arena.hf_tables import (  # noqa: E402
    WILDVISION_BATTLE,
    wildvision_battles,
    write_save_to_disk,
)


def many_rows(path: Path, rows: int) -> Path:
    zeros = pa.array(np.zeros(rows, dtype=np.int32))

    def column(value: str) -> pa.DictionaryArray:
        return pa.DictionaryArray.from_arrays(zeros, pa.array([value]))

    table = pa.table(
        {"model_a": column("vlm-a"), "model_b": column("vlm-b"), "winner": column("tie")}
    )
    pq.write_table(table, path, compression="zstd", row_group_size=rows)
    return path


def repeated_value(path: Path, value_bytes: int, rows: int) -> Path:
    content = pa.DictionaryArray.from_arrays(
        pa.array([0, 1] * rows, pa.int32()), pa.array(["What is shown?", "x" * value_bytes])
    )
    turns = pa.StructArray.from_arrays(
        [pa.array(["user", "assistant"] * rows), content], names=["role", "content"]
    )
    conversation = pa.ListArray.from_arrays(pa.array(range(0, 2 * rows + 1, 2), pa.int32()), turns)
    table = pa.table(
        {
            "question_id": [f"q{n}" for n in range(rows)],
            "model_a": ["vlm-a"] * rows,
            "model_b": ["vlm-b"] * rows,
            "winner": ["tie"] * rows,
            "conversation_a": conversation,
            "conversation_b": conversation,
        }
    )
    pq.write_table(table, path, compression="zstd", compression_level=19, row_group_size=rows)
    return path


def damaged_offset(folder: Path) -> Path:
    write_save_to_disk(folder, wildvision_battles(), WILDVISION_BATTLE)
    shard = folder / "data-00000-of-00001.arrow"
    data = bytearray(shard.read_bytes())
    at = data.find(struct.pack("<iii", 0, 2, 4))  # the question ids' offsets
    data[at + 8 : at + 12] = struct.pack("<i", 0x7FFFFFF0)
    shard.write_bytes(bytes(data))
    return folder


def size_of(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


#: the child reports its own peak resident memory (VmHWM: reset by exec, unlike ru_maxrss,
#: which a child inherits from this process) as it exits; a crash reports none
CHILD = (
    "import atexit, sys\n"
    "def peak():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            print('peak-kb', line.split()[1], file=sys.stderr)\n"
    "atexit.register(peak)\n"
    "from workbench.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def import_in_child(source: Path, bundle: Path) -> dict[str, Any]:
    argv = [sys.executable, "-c", CHILD, "import", str(source), "--format", "arena-battles"]
    started = time.perf_counter()
    done = subprocess.run(
        [*argv, "--into", str(bundle)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'plugins'}"},
        check=False,
    )
    wall = time.perf_counter() - started
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    peaks = [int(line.split()[1]) for line in lines if line.startswith("peak-kb ")]
    said = [line for line in lines if not line.startswith("peak-kb ")]
    return {
        "exit_status": done.returncode,
        "said": said[0] if said else "",
        "seconds": round(wall, 2),
        "peak_mb": round(peaks[-1] / 1024, 1) if peaks else None,
        "bundle_left": bundle.exists(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000_000)
    parser.add_argument("--value-mb", type=int, default=64)
    parser.add_argument("--value-rows", type=int, default=2_000)
    args = parser.parse_args()
    results: dict[str, Any] = {"load_average_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="hostile-tables-") as scratch:
        folder = Path(scratch)
        cases = {
            "declared_rows": many_rows(folder / "rows.parquet", args.rows),
            "repeated_dictionary_value": repeated_value(
                folder / "value.parquet", args.value_mb << 20, args.value_rows
            ),
            "damaged_arrow_offset": damaged_offset(folder / "dataset"),
        }
        for name, source in cases.items():
            result = import_in_child(source, folder / f"{name}.wbb")
            results[name] = {"file_bytes": size_of(source), **result}
    results["load_average_end"] = os.getloadavg()[0]
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
