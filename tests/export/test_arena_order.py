"""An arena export keeps the bundle's order and the strength of its verdicts: FastChat's
online Elo, run over the exported file as ``elo_analysis.py --clean-battle-file`` reads it,
equals the bundle's own online Elo (``workbench leaderboard --method elo --json``), with
stored times, unknown times and "much better" verdicts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from tests.export.fastchat_rules import fastchat_online_elo, read_as_fastchat
from tests.export.helpers import wildvision_lines
from workbench.cli import main
from workbench.export import ExportOptions, export_bundle
from workbench.services.importing import import_files


def bundle_elo(capsys: pytest.CaptureFixture[str], bundle: Path) -> tuple[dict[str, float], str]:
    """The bundle's online Elo of every judgment the export writes (human votes and judge
    verdicts pooled, every model rated), and the model it pins."""
    capsys.readouterr()
    argv = ["leaderboard", str(bundle), "--method", "elo", "--bootstrap", "0", "--json"]
    assert main([*argv, "--kind", "all", "--pool-kinds", "--min-battles", "0"]) == 0
    printed = json.loads(capsys.readouterr().out)
    ratings = {row["model"]: row["rating"] for row in printed["models"]}
    return ratings, printed["request"]["anchor"]["model"]


def exported(bundle: Path, folder: Path) -> tuple[Path, list[dict[str, Any]]]:
    path = folder / "battles.json"
    export_bundle(bundle, path, ExportOptions(format="arena"))
    return path, json.loads(path.read_text("utf-8"))


def assert_same_elo(file: Path, board: tuple[dict[str, float], str]) -> None:
    expected, anchor = board
    ratings = fastchat_online_elo(read_as_fastchat(file))
    assert sorted(ratings) == sorted(expected)
    # FastChat starts every model at 1000 and pins none; the board pins its anchor at 1000
    shift = expected[anchor] - ratings[anchor]
    for model, rating in expected.items():
        assert ratings[model] + shift == pytest.approx(rating, abs=1e-9), model


def test_fastchat_elo_of_the_export_is_the_bundles_with_votes_and_verdicts(
    voted_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file, battles = exported(voted_bundle, tmp_path)
    stamps = [battle["tstamp"] for battle in battles]
    assert all(later > earlier for earlier, later in pairwise(stamps))
    assert all(battle["anony"] is True for battle in battles)
    # the imported verdicts have no time (synthetic, from 0), the votes keep their cast time
    assert stamps[0] == pytest.approx(0.001)
    assert stamps[-1] > datetime(2020, 1, 1, tzinfo=UTC).timestamp()
    assert_same_elo(file, bundle_elo(capsys, voted_bundle))


def test_much_better_verdicts_are_repeated_battles_in_stored_order(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = wildvision_lines(shared_data / "wildvision-bench", questions=12)
    source = tmp_path / "items.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    bundle = tmp_path / "imported.wbb"
    import_files(bundle, [source], "jsonl")
    file, battles = exported(bundle, tmp_path)

    expected_rows = []
    for line in lines:
        for judgment in line["judgments"]:
            if judgment["outcome"] is None:
                continue
            decisive = judgment["outcome"] in ("a", "b") and judgment["strength"] == 2
            expected_rows += [(line["id"], judgment["model_b"])] * (3 if decisive else 1)
    assert any(j["strength"] == 2 for line in lines for j in line["judgments"])
    assert [(b["question_id"], b["model_b"]) for b in battles] == expected_rows
    # no stored time anywhere: a synthetic, strictly increasing one
    assert [b["tstamp"] for b in battles] == pytest.approx(
        [0.001 * (index + 1) for index in range(len(battles))]
    )
    assert_same_elo(file, bundle_elo(capsys, bundle))

    # the repeated battles come back as battles, so the copy rates and exports the same
    copy = tmp_path / "copy.wbb"
    import_files(copy, [file], "arena-battles")
    again, _ = exported(copy, tmp_path / "again")
    assert again.read_bytes() == file.read_bytes()
    copied, copied_anchor = bundle_elo(capsys, copy)
    original, anchor = bundle_elo(capsys, bundle)
    assert copied_anchor == anchor and copied == pytest.approx(original, abs=1e-9)
