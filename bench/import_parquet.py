"""Parquet import of arena battles with embedded images: battles per second and peak memory.

    python bench/import_parquet.py [--count 30000] [--image-kb 200] [--shard-rows 2000]

Writes COUNT VisionArena-style battles (two one-turn conversations, a vote, one image each) to
parquet shards in a temporary folder, as a Hugging Face download leaves them. Each image is a PNG
of random pixels stored uncompressed (one random block, each image numbered in its first row), so
it keeps its IMAGE_KB size, does not compress away and no two are alike. Then, each in its own
child process, times the floor (reading the same shards with pyarrow in the same batches, and
SHA-256 of every file and every image: what any import of them must do) and the import of the
folder with ``--format arena-battles`` into a new bundle, and prints both, their ratio, each
child's CPU time and peak resident memory, and the load average. Targets: 300
battles/s and 500 MB. Everything written is removed at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
# This checkout's package and plugins, not those an installed environment points at.
sys.path[:0] = [str(PROJECT), str(PROJECT / "plugins")]

TARGET_RATE = 300.0
TARGET_MB = 500.0
ROW_GROUP = 100
MODELS = [f"vlm-{index}" for index in range(12)]
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")


def _chunk(kind: bytes, payload: bytes) -> bytes:
    body = kind + payload
    return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body))


def random_png(size_bytes: int, pixels: bytes, number: int) -> bytes:
    """An RGB PNG of about ``size_bytes``, its pixels stored uncompressed (zlib level 0): the
    random ``pixels`` with the image's number written over the first row, so each differs."""
    width = 256
    height = max(1, size_bytes // (width * 3 + 1))
    stride = width * 3
    raw = bytearray()
    for row in range(height):
        raw += b"\x00" + pixels[row * stride : (row + 1) * stride]
    raw[1:9] = number.to_bytes(8, "big")
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(bytes(raw), 0))
        + _chunk(b"IEND", b"")
    )


def battle(number: int, image: bytes) -> dict[str, object]:
    model_a = MODELS[number % len(MODELS)]
    model_b = MODELS[(number * 7 + 3) % len(MODELS)]
    if model_b == model_a:
        model_b = MODELS[(number + 1) % len(MODELS)]
    prompt = f"Question {number}: what does this picture show?"
    return {
        "question_id": f"q{number:06d}",
        "tstamp": 1718000000.0 + number,
        "model_a": model_a,
        "model_b": model_b,
        "winner": WINNERS[number % len(WINNERS)],
        "judge_hash": f"voter-{number % 997}",
        "conversation_a": [
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": f"Noise, says {model_a}."},
        ],
        "conversation_b": [
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": f"Random pixels, says {model_b}."},
        ],
        "turn": 1,
        "anony": True,
        "language": "English",
        "images": [{"bytes": image, "path": f"q{number:06d}.png"}],
    }


def generate(folder: Path, count: int, image_bytes: int, shard_rows: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    messages = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
    schema = pa.schema(
        [
            ("question_id", pa.string()),
            ("tstamp", pa.float64()),
            ("model_a", pa.string()),
            ("model_b", pa.string()),
            ("winner", pa.string()),
            ("judge_hash", pa.string()),
            ("conversation_a", messages),
            ("conversation_b", messages),
            ("turn", pa.int64()),
            ("anony", pa.bool_()),
            ("language", pa.string()),
            ("images", pa.list_(pa.struct([("bytes", pa.binary()), ("path", pa.string())]))),
        ]
    )
    pixels = os.urandom(image_bytes + 256 * 3)
    shards = (count + shard_rows - 1) // shard_rows
    data = folder / "data"
    data.mkdir(parents=True)
    for shard in range(shards):
        start, stop = shard * shard_rows, min(count, (shard + 1) * shard_rows)
        path = data / f"train-{shard:05d}-of-{shards:05d}.parquet"
        with pq.ParquetWriter(path, schema) as writer:
            for group in range(start, stop, ROW_GROUP):
                rows = [
                    battle(n, random_png(image_bytes, pixels, n))
                    for n in range(group, min(stop, group + ROW_GROUP))
                ]
                writer.write_table(pa.Table.from_pylist(rows, schema=schema))


def _own_usage() -> dict[str, float]:
    """This process's CPU time and peak resident memory. The peak is VmHWM, not ``ru_maxrss``:
    Linux carries ``ru_maxrss`` across fork and exec, so a child would report the bench's own
    peak (the generator's) if that was higher."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    status = Path("/proc/self/status").read_text(encoding="ascii").splitlines()
    (high_water,) = [line.split()[1] for line in status if line.startswith("VmHWM:")]
    return {"cpu": usage.ru_utime + usage.ru_stime, "peak_mb": int(high_water) / 1024}


def import_only(folder: str, bundle: str) -> None:
    """The child process: only the import, so its peak memory is the import's."""
    from workbench.services.importing import import_files

    started = time.perf_counter()
    result = import_files(bundle, [folder], "arena-battles")
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "counts": result.counts, **_own_usage()}))


def floor_only(folder: str) -> None:
    """The child process of the reference: read every shard as the importer does (one row group
    at a time, batches of the importer's size) and hash every file and every image."""
    import pyarrow.parquet as pq

    from workbench.importers.tables import BATCH_ROWS

    started = time.perf_counter()
    images = 0
    for path in sorted(Path(folder).rglob("*.parquet")):
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        parquet = pq.ParquetFile(path)
        for group in range(parquet.metadata.num_row_groups):
            for batch in parquet.iter_batches(
                batch_size=BATCH_ROWS, row_groups=[group], use_threads=False
            ):
                for value in batch.column("images").flatten().field("bytes"):
                    hashlib.sha256(value.as_buffer()).hexdigest()
                    images += 1
        parquet.close()
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "images": images, **_own_usage()}))


def _child(*args: str, env: dict[str, str]) -> dict[str, Any] | None:
    child = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, env=env, check=False
    )
    if child.returncode != 0:
        print(child.stderr, file=sys.stderr)
        return None
    outcome: dict[str, Any] = json.loads(child.stdout.strip().splitlines()[-1])
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=30_000, help="battles (one image each)")
    parser.add_argument("--image-kb", type=int, default=200, help="size of each image")
    parser.add_argument("--shard-rows", type=int, default=2_000, help="battles per parquet file")
    parser.add_argument(
        "--import-only", nargs=2, metavar=("FOLDER", "BUNDLE"), help=argparse.SUPPRESS
    )
    parser.add_argument("--floor-only", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.import_only:
        import_only(*args.import_only)
        return 0
    if args.floor_only:
        floor_only(args.floor_only)
        return 0

    scratch = Path(tempfile.mkdtemp(prefix="bench-import-parquet-"))
    try:
        started = time.perf_counter()
        generate(scratch / "dataset", args.count, args.image_kb * 1024, args.shard_rows)
        size = sum(path.stat().st_size for path in (scratch / "dataset").rglob("*.parquet"))
        print(
            f"generated {args.count} battles, {size / 1e6:.0f} MB of parquet, "
            f"in {time.perf_counter() - started:.1f} s",
            flush=True,
        )
        env = {**os.environ, "VLM_WORKBENCH_HOME": str(scratch / "home")}
        loads = [os.getloadavg()[0]]
        floor = _child("--floor-only", str(scratch / "dataset"), env=env)
        loads.append(os.getloadavg()[0])
        outcome = _child("--import-only", str(scratch / "dataset"), str(scratch / "b.wbb"), env=env)
        loads.append(os.getloadavg()[0])
        if floor is None or outcome is None:
            return 1
        rate = args.count / outcome["seconds"]
        bundle_mb = (scratch / "b.wbb").stat().st_size / 1e6
        load = f"{min(loads):.1f}-{max(loads):.1f}"
        print(
            "| step | seconds | battles/s | CPU s | battles per CPU s | peak RSS MB | "
            "bundle MB | images | load average |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        print(
            f"| floor: read + SHA-256 | {floor['seconds']:.1f} | "
            f"{args.count / floor['seconds']:.0f} | {floor['cpu']:.1f} | "
            f"{args.count / floor['cpu']:.0f} | {floor['peak_mb']:.0f} | | {floor['images']} "
            f"| {load} |"
        )
        print(
            f"| import | {outcome['seconds']:.1f} | {rate:.0f} | {outcome['cpu']:.1f} | "
            f"{args.count / outcome['cpu']:.0f} | {outcome['peak_mb']:.0f} | {bundle_mb:.0f} | "
            f"{outcome['counts'].get('images_added', 0)} | {load} |"
        )
        print(
            f"import / floor: {outcome['seconds'] / floor['seconds']:.2f}x wall, "
            f"{outcome['cpu'] / floor['cpu']:.2f}x CPU ({args.count} battles, "
            f"{args.image_kb} KB images)"
        )
        peak_mb = outcome["peak_mb"]
        print(
            f"targets: {TARGET_RATE:.0f} battles/s ({'met' if rate >= TARGET_RATE else 'MISSED'}), "
            f"{TARGET_MB:.0f} MB ({'met' if peak_mb <= TARGET_MB else 'MISSED'})"
        )
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
