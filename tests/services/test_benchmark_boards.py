"""The boards a benchmark page reads off the app's leaderboards (services/benchmark_boards.py)
are fitted with the bootstrap rounds and seed asked for, by ``workbench scores --bootstrap``,
``report --bootstrap`` or the Benchmark panel, and say so: each board's rounds, its printed
command, and the scores' command (a VisionArena-Battle fixture in the published schema)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from tests.plugins.arena.hf_tables import VISION_ARENA_BATTLE, write_parquet
from tests.plugins.arena.test_arena_categories import battle_rows
from workbench.cli import main
from workbench.services.benchmark_boards import BundleBoards
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.judgments import OutcomeFilter

ROUNDS, SEED = 7, 3


@pytest.fixture(scope="module")
def arena_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("vision-arena-rounds")
    shard = write_parquet(
        folder / "data" / "train-00000-of-00001.parquet", battle_rows(), VISION_ARENA_BATTLE
    )
    bundle = folder / "arena.wbb"
    import_files(bundle, [shard], "arena-battles")
    return bundle


def _scores(capsys: pytest.CaptureFixture[str], bundle: Path, *flags: str) -> dict[str, Any]:
    capsys.readouterr()
    argv = ["scores", str(bundle), "--benchmark", "visionarena", *flags, "--json"]
    assert main(argv) == 0, capsys.readouterr().err
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


def _leaderboard(capsys: pytest.CaptureFixture[str], bundle: Path, command: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(command.replace("BUNDLE", str(bundle)).split()[1:]) == 0
    return cast("dict[str, Any]", json.loads(capsys.readouterr().out))


def test_a_board_is_fitted_with_the_rounds_asked_for(arena_bundle: Path) -> None:
    with Bundle.open(arena_bundle, read_only=True) as bundle:
        boards = BundleBoards(bundle, OutcomeFilter(), "arena", ROUNDS, SEED)
        assert boards.rounds() == ROUNDS
        assert f"--bootstrap {ROUNDS} --seed {SEED}" in boards.command()
        assert BundleBoards(bundle, OutcomeFilter(), "arena").rounds() == 100


def test_scores_bootstrap_reaches_every_board_and_is_stated(
    arena_bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = _scores(capsys, arena_bundle, "--bootstrap", str(ROUNDS), "--seed", str(SEED))
    assert f"--bootstrap {ROUNDS} --seed {SEED}" in printed["command"]
    rows = printed["tables"]["board_battles"]
    assert {row["board"] for row in rows} >= {"overall", "exclude ties", "style control"}
    boards = printed["tables"]["boards"]
    for row in rows:
        assert row["bootstrap_rounds"] == ROUNDS, row["board"]
        assert f"--bootstrap {ROUNDS} --seed {SEED}" in row["command"], row["board"]
        if row["board"] == "style control":
            continue
        # the board's intervals are its printed command's, drawn with those rounds
        board = _leaderboard(capsys, arena_bundle, row["command"])
        assert board["bootstrap"] == ROUNDS
        ours = {
            line["model"]: (line["ci_lower"], line["ci_upper"])
            for line in boards
            if line["board"] == row["board"]
        }
        assert ours == {
            line["model"]: (line["ci_lower"], line["ci_upper"]) for line in board["models"]
        }
    default = _scores(capsys, arena_bundle)
    assert {row["bootstrap_rounds"] for row in default["tables"]["board_battles"]} == {100}
    assert "--bootstrap 100 --seed 0" in default["command"]

    capsys.readouterr()
    argv = ["scores", str(arena_bundle), "--benchmark", "visionarena", "--bootstrap", "9"]
    assert main(argv) == 0
    assert "boards: 95% CI from 9 bootstrap rounds (seed 0)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (("--benchmark", "chirp", "--bootstrap", "50"), "--bootstrap: the chirp scores"),
        (("--benchmark", "visionarena", "--bootstrap", "-1"), "--bootstrap cannot be negative"),
        (("--benchmark", "visionarena", "--seed", "-2"), "--seed cannot be negative"),
    ],
)
def test_a_bootstrap_the_scores_cannot_use_is_refused_naming_the_flag(
    arena_bundle: Path, capsys: pytest.CaptureFixture[str], flags: tuple[str, ...], named: str
) -> None:
    capsys.readouterr()
    assert main(["scores", str(arena_bundle), *flags]) == 2
    assert named in capsys.readouterr().err


def test_the_report_boards_use_the_report_bootstrap(
    arena_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(arena_bundle), "--out", str(out), "--bootstrap", str(ROUNDS)]) == 0
    html = out.read_text()
    assert f"--benchmark visionarena --bootstrap {ROUNDS} --seed 0" in html
    assert "--benchmark visionarena --bootstrap 100" not in html
