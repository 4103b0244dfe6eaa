"""The papers' chains end to end through the command line, each figure printed: every chain the
papers' analyses are checked by (import the published files or a fixture in the published
schema, judge against a local fake endpoint, read the paper's table).

    python bench/papers_chains.py [visit-bench] [wildvision] [convbench] [arena] [chirp]
        [--out DIR]

- visit-bench: ../shared/data/visit-bench imported, a preference file in the published schema
  built from its rows, a judge run, then ``scores --benchmark visit-bench`` (agreement with
  the human majority by the paper's rule, beside an independent recount) and the run's board.
- wildvision: WildVision-Bench imported, ``judge --template visit-bench-pairwise --limit 510
  --text-only`` on three models (1,020 requests, two of them identical to another item's),
  and ``leaderboard --judge-run``: its battles.
- convbench: ConvBench imported, a model's answers to all 578 conversations in the standard
  context and both ablations, ``judge --context`` runs and a pairwise run, then ``scores
  --benchmark convbench`` (the ablation deltas, S and R table, the official convention).
- arena: a fixture in VisionArena-Battle's schema (no VisionArena data in ../shared): the OCR
  board and the Multi-Turn / Exclude Ties / Exclude Refusal boards against the fixture's count.
- chirp: fixtures in the Robin suite's layout and a survey of one participant per matchup (no
  CHIRP data is published): cycles, kappa with bands, larger-model preference, Elo, dCor and
  the median Elo per question category.

The fixtures, answers and fake judges are the end-to-end tests' own (tests/plugins/*), so this
prints what those tests assert, on the whole data where the tests take a part of it. Commands
run in this process through ``workbench.cli.main``; each is printed as ``$ workbench ...``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
sys.path[:0] = [str(ROOT), str(ROOT / "plugins"), str(ROOT / "tests" / "plugins" / "visit_bench")]

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import workbench.plugins  # noqa: E402
from tests.importers.canonical_helpers import write_jsonl  # noqa: E402
from tests.judge.fake_openai_server import FakeOpenAIServer  # noqa: E402
from tests.judge.helpers import FAKE_KEY, registry_with_all_templates  # noqa: E402
from workbench.cli import main as workbench_main  # noqa: E402

CHAINS = ("visit-bench", "wildvision", "convbench", "arena", "chirp")


def run(*argv: str) -> str:
    """``workbench ARGV`` in this process: its standard output; exits on a failure."""
    print("$ workbench " + " ".join(argv), flush=True)
    buffer = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(buffer):
        code = workbench_main(list(argv))
    print(f"  exit {code}, {time.perf_counter() - started:.1f} s", flush=True)
    if code != 0:
        sys.exit(f"failed: {buffer.getvalue()[-2000:]}")
    return buffer.getvalue()


def run_json(*argv: str) -> dict:
    return json.loads(run(*argv, "--json"))


def battles(bundle: str, *argv: str) -> int:
    return int(run_json("leaderboard", bundle, *argv, "--min-battles", "0")["battles"])


def visit_bench(folder: Path) -> None:
    from test_visit_bench_end_to_end import (
        BLIP2,
        GPT4,
        LongerAnswerJudge,
        expected_agreement,
        preference_file,
    )
    from visit_bench_helpers import MULTI_IMAGE_CSV, write_csv

    bundle = str(folder / "visit.wbb")
    run("import", str(SHARED / "visit-bench"), "--format", "visit-bench", "--into", bundle)
    preferences = preference_file(pd.read_csv(SHARED / "visit-bench" / MULTI_IMAGE_CSV))
    csv = write_csv(preferences, folder / "prefs", "preferences.csv")
    print(f"  {len(preferences)} preference tuples in the published schema: {csv}")
    run("import", str(csv), "--format", "visit-bench-preferences", "--into", bundle)
    judge = LongerAnswerJudge()
    with FakeOpenAIServer(responder=judge) as server:
        run(
            *("judge", bundle, "--base-url", server.base_url, "--model", "gpt-4o-mini"),
            *("--template", "visit-bench-pairwise", "--models", f"{GPT4},{BLIP2}"),
            *("--run", "visit-judge", "--yes"),
        )
    scores = run_json("scores", bundle, "--benchmark", "visit-bench")
    table = pd.DataFrame(scores["tables"]["judge_human_agreement"]).set_index("majority")
    print(table.to_string())
    recount = expected_agreement(preferences, judge.decisions)
    print(
        "  recount by the paper's rule: "
        + ", ".join(f"{level} {share:.4f} ({n})" for level, (n, share) in recount.items())
    )
    print(f"  the run's board: {battles(bundle, '--judge-run', 'visit-judge')} battles")


def wildvision(folder: Path) -> None:
    bundle = str(folder / "wildvision.wbb")
    source = str(SHARED / "wildvision-bench")
    run("import", source, "--format", "wildvision-bench", "--into", bundle)
    with FakeOpenAIServer() as server:
        run(
            *("judge", bundle, "--base-url", server.base_url, "--model", "gpt-4o-mini"),
            *("--template", "visit-bench-pairwise", "--limit", "510", "--text-only"),
            *("--models", "gpt-4o,Reka-Flash,claude-3-sonnet-20240229"),
            *("--run", "wildvision-text", "--max-requests", "0", "--yes"),
        )
        print(f"  requests sent: {server.stats.requests}")
    print(f"  the run's board: {battles(bundle, '--judge-run', 'wildvision-text')} battles")


def convbench(folder: Path) -> None:
    import tests.plugins.convbench.test_convbench_end_to_end as chain

    bundle = str(folder / "convbench.wbb")
    run("import", str(SHARED / "convbench"), "--format", "convbench", "--into", bundle)
    sheet = pd.read_excel(
        SHARED / "convbench" / "ConvBench.xlsx", sheet_name="multi_turn_benchmark"
    )
    chain.CONVERSATIONS = len(sheet)  # every conversation, where the test answers six
    answers = write_jsonl(folder / "answers", chain.answers(sheet))
    print(f"  {chain.MODEL}'s answers to {len(sheet)} conversations in 3 contexts: {answers}")
    run("import", str(answers), "--format", "jsonl", "--into", bundle)
    with FakeOpenAIServer(responder=chain.FakeJudge()) as server:
        judged = ("judge", bundle, "--base-url", server.base_url, "--model", "gpt-4o-mini")
        for context in chain.GRADES:
            run(
                *judged,
                *("--template", "convbench-direct", "--context", context, "--models", chain.MODEL),
                *("--max-requests", "0", "--yes"),
            )
        run(
            *judged,
            *("--template", "convbench-pairwise", "--models", f"{chain.MODEL},reference"),
            *("--max-requests", "0", "--yes"),
        )
        print(f"  requests sent: {server.stats.requests}")
    tables = run_json("scores", bundle, "--benchmark", "convbench")["tables"]
    for name in ("ablation_deltas", "scores", "pairwise_official"):
        print(f"{name}:\n{pd.DataFrame(tables[name]).to_string()}")
    sides = np.load(SHARED / "convbench" / "pairwise.npy")
    print(f"  pairwise.npy puts the model at B in {int((sides == 1).sum())} of {len(sides)}")


def arena(folder: Path) -> None:
    import tests.plugins.arena.test_arena_categories as chain
    from tests.plugins.arena.hf_tables import VISION_ARENA_BATTLE, write_parquet

    rows = chain.battle_rows()
    shard = folder / "data" / "train-00000-of-00001.parquet"
    write_parquet(shard, rows, VISION_ARENA_BATTLE)
    bundle = str(folder / "arena.wbb")
    run("import", str(shard), "--format", "arena-battles", "--into", bundle)
    tagged = sum(1 for row in rows if row["categories"]["ocr"])
    first = sum(1 for row in rows if next(k for k, v in row["categories"].items() if v) == "ocr")
    found = battles(bundle, "--category", "ocr")
    print(f"  OCR board: {found} battles; the fixture tags {tagged} OCR ({first} first)")
    for board in ("--multi-turn", "--exclude-ties", "--exclude-refusal"):
        print(f"  {board}: {battles(bundle, board)} of {len(rows)} battles")
    categories = run_json("categories", bundle)["categories"]
    print(pd.DataFrame(categories).to_string())


def chirp(folder: Path) -> None:
    import tests.plugins.chirp.test_chirp_end_to_end as chain
    import tests.plugins.chirp.test_chirp_question_categories as by_category

    bundle = str(folder / "chirp.wbb")
    run(
        "import",
        str(chain.robin_files(folder / "robin")),
        "--format",
        "chirp-robin",
        "--into",
        bundle,
    )
    survey = write_jsonl(folder / "survey", chain.survey(chain.QUESTIONS[1]))
    run("import", str(survey), "--format", "jsonl", "--into", bundle)
    sizes = folder / "sizes.csv"
    rows = zip(chain.MODELS, (7, 13, 34), chain.LOSSES, strict=True)
    sizes.write_text(
        "model,size,training_loss\n" + "".join(f"{m},{s},{loss}\n" for m, s, loss in rows)
    )
    judged = ("--model", "gpt-4o-mini", "--template", "chirp-five-criteria", "--no-swap", "--yes")
    with FakeOpenAIServer(responder=chain.fake_judge) as server:
        run("judge", bundle, "--base-url", server.base_url, *judged)
    scores = run_json("scores", bundle, "--benchmark", "chirp", "--model-attributes", str(sizes))
    for name in (
        "cycles",
        "kappa_with_human_survey",
        "prefers_larger_model",
        "elo",
        "elo_distance_correlation",
    ):
        frame = pd.DataFrame(scores["tables"][name])
        if "criterion" in frame:
            frame = frame[frame["criterion"].isin(["overall", "all"])]
        print(f"{name}:\n{frame.to_string()}")
    bundle = str(folder / "chirp-categories.wbb")
    lines, _ = by_category.question_lines()
    run(
        "import",
        str(write_jsonl(folder / "questions", lines)),
        "--format",
        "jsonl",
        "--into",
        bundle,
    )
    with FakeOpenAIServer(responder=chain.fake_judge) as server:
        run("judge", bundle, "--base-url", server.base_url, *judged)
    tables = run_json("scores", bundle, "--benchmark", "chirp")["tables"]
    per_category = pd.DataFrame(tables["elo_per_question_category"])
    overall = per_category[per_category["criterion"] == "overall"]
    print(f"elo_per_question_category (overall):\n{overall.to_string()}")
    not_rated = pd.DataFrame(tables["question_categories_not_rated"])
    print(f"question_categories_not_rated:\n{not_rated.to_string()}")


RUNS = {
    "visit-bench": visit_bench,
    "wildvision": wildvision,
    "convbench": convbench,
    "arena": arena,
    "chirp": chirp,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chains", nargs="*", metavar="CHAIN", help=f"any of {', '.join(CHAINS)}")
    parser.add_argument(
        "--out", type=Path, help="keep the bundles here (default: a temporary folder)"
    )
    args = parser.parse_args()
    unknown = [name for name in args.chains if name not in CHAINS]
    if unknown:
        parser.error(f"unknown chain {unknown[0]!r}: choose from {', '.join(CHAINS)}")
    registry = registry_with_all_templates()
    workbench.plugins.registry = lambda: registry  # every template, as the tests register
    os.environ.setdefault("OPENAI_API_KEY", FAKE_KEY)
    with tempfile.TemporaryDirectory(prefix="papers-chains-") as temporary:
        out = args.out or Path(temporary)
        for name in args.chains or CHAINS:
            print(f"\n## {name}", flush=True)
            folder = out / name
            folder.mkdir(parents=True, exist_ok=False)
            RUNS[name](folder)


if __name__ == "__main__":
    main()
