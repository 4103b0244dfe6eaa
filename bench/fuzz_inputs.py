"""Run the whole bad-input corpus against every importer and verdict parser; print a JSON summary.

    python bench/fuzz_inputs.py [--offsets 40] [--texts 5000] [--per-group N] [--out summary.json]

Every damaged input (tests/reliability/fuzz_cases.py) is imported into a new bundle path and
into a copy of an existing bundle. The summary counts the cases per importer and per kind of
damage, their outcomes (clear error / rows rejected / imported / crash = an exception other than
WorkbenchError), whether the existing bundle stayed byte-identical, and every failure. Random
judge answers go through every verdict parser. docs/RELIABILITY.md quotes the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))  # the corpus lives with the tests it serves

from workbench_arena.verdicts import (  # noqa: E402
    BRACKETED_LABEL,
    VERDICT_LABELS,
    parse_verdict,
    verdict_from_text,
)
from workbench_visit_bench.judge_templates import VERDICT_SENTENCE  # noqa: E402

from tests.reliability.fuzz_cases import (  # noqa: E402
    CaseRun,
    all_cases,
    make_base_bundle,
    random_judge_text,
    run_case,
    sample,
)
from workbench.domain import Outcome  # noqa: E402
from workbench.judge.parsing import ParseResult  # noqa: E402
from workbench.plugins import registry  # noqa: E402


def _group_summary(runs: list[CaseRun]) -> dict[str, Any]:
    unchanged = Counter(
        {True: "yes", False: "no", None: "imported"}[run.bundle_unchanged] for run in runs
    )
    return {
        "cases": len(runs),
        "outcomes": dict(sorted(Counter(run.outcome for run in runs).items())),
        "existing_bundle_unchanged": dict(sorted(unchanged.items())),
        "failures": sum(bool(run.failures) for run in runs),
    }


def importer_summary(offsets: int, per_group: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="fuzz-inputs-") as scratch:
        folder = Path(scratch)
        base = make_base_bundle(folder / "base")
        cases = all_cases(folder / "valid", offsets)
        if per_group is not None:
            cases = sample(cases, per_group)
        started = time.perf_counter()
        runs = []
        for number, case in enumerate(cases):
            runs.append(run_case(case, folder / f"case{number}", base))
            if (number + 1) % 250 == 0:
                print(f"{number + 1}/{len(cases)} cases", file=sys.stderr, flush=True)
        seconds = time.perf_counter() - started
    by_format: dict[str, list[CaseRun]] = defaultdict(list)
    by_damage: dict[str, list[CaseRun]] = defaultdict(list)
    for run in runs:
        by_format[run.case.format].append(run)
        by_damage[run.case.damage].append(run)
    return {
        "cases_tried": len(runs),
        "imports_run": sum(len(run.attempts) for run in runs),
        "seconds": round(seconds, 1),
        "total": _group_summary(runs),
        "by_importer": {name: _group_summary(group) for name, group in sorted(by_format.items())},
        "by_damage": {name: _group_summary(group) for name, group in sorted(by_damage.items())},
        "crashes": [
            {
                "case": run.case.id,
                "errors": [a.message for a in run.attempts if a.outcome == "crash"],
            }
            for run in runs
            if run.outcome == "crash"
        ],
        "failures": [
            {"case": run.case.id, "failures": run.failures} for run in runs if run.failures
        ],
    }


def _valid(result: ParseResult) -> bool:
    return isinstance(result, ParseResult) and all(
        (v.outcome is None or isinstance(v.outcome, Outcome)) and v.strength in (1, 2)
        for v in result.verdicts
    )


def _no_label(text: str) -> bool:
    return not BRACKETED_LABEL.search(text)


def parser_summary(texts: int, seed: int = 0) -> dict[str, Any]:
    """Random judge answers through every template's parser; labels and sentences hidden in
    noise must be found."""
    rng = random.Random(seed)
    corpus = [random_judge_text(rng) for _ in range(texts)]
    parsers = []
    for template in registry().judge_templates():
        parsers.append((template.name, template.parse))
        if template.extraction is not None:
            parsers.append((f"{template.name}:extraction", template.extraction.parse))
    summary: dict[str, Any] = {}
    for name, parser in parsers:
        raised = invalid = with_verdict = 0
        for text in corpus:
            try:
                result = parser(text)
            except Exception:  # counted, not raised: this is what the run measures
                raised += 1
                continue
            invalid += not _valid(result)
            with_verdict += bool(result.verdicts)
        summary[name] = {
            "texts": len(corpus),
            "raised": raised,
            "invalid_results": invalid,
            "with_a_verdict": with_verdict,
        }

    noises = [text for text in corpus if _no_label(text)]
    found = sum(
        verdict_from_text(f"{noise[:40]}[[{label}]]{noise[40:]}") == parse_verdict(label)
        for noise in noises
        for label in VERDICT_LABELS
    )
    summary["five-level label hidden in noise (both orders)"] = {
        "texts": len(noises) * len(VERDICT_LABELS),
        "found": found,
    }
    sentence_found = 0
    tried = 0
    for noise in corpus:
        for choice in ("A", "B"):
            tail = noise.replace("o", "").replace("O", "")  # nothing after may restate it
            result = VERDICT_SENTENCE(f"{noise}\nOverall, Response {choice} is better.{tail}")
            tried += 1
            sentence_found += [v.outcome for v in result.verdicts] == [Outcome(choice.lower())]
    summary["visit-bench sentence after noise (A and B)"] = {
        "texts": tried,
        "found": sentence_found,
    }
    return summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offsets", type=int, default=40, help="truncation points per file")
    parser.add_argument("--texts", type=int, default=5000, help="random answers per parser")
    parser.add_argument("--per-group", type=int, help="only N cases per (importer, damage)")
    parser.add_argument("--out", type=Path, help="also write the summary to this file")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning is a case, not news
    summary = {
        "command": "python bench/fuzz_inputs.py",
        "importers": importer_summary(args.offsets, args.per_group),
        "verdict_parsers": parser_summary(args.texts),
    }
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    importers = summary["importers"]
    return 1 if importers["crashes"] or importers["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
