"""The leaderboard dock: the engine's numbers, background recomputation, live refresh, export."""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pytest
from pytest import MonkeyPatch
from pytestqt.qtbot import QtBot

from tests.gui.panel_bundle import add_late_votes
from tests.gui.panel_window import opened_panel_window, wait_for_file
from tests.patience import HANG_GUARD_MS
from workbench.gui.panel_process import ProcessRunner
from workbench.services.outcomes import OutcomeFilter, judgments_frame, pairwise_outcomes
from workbench.stats.bradley_terry import Anchor
from workbench.stats.leaderboard import Method, compute_leaderboard
from workbench.storage import Bundle

if TYPE_CHECKING:
    from workbench.gui.jobs import Job
    from workbench.gui.main_window import MainWindow
    from workbench.gui.panels.leaderboard_panel import LeaderboardPanel
    from workbench.services.analysis import LeaderboardResult


pytestmark = pytest.mark.gui


@pytest.fixture
def panel_window(qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    with opened_panel_window(qtbot, tmp_path / "panels") as window:
        yield window


def engine_table(path: Path, anchor: str, method: Method = "bt") -> pd.DataFrame:
    """The engine's board of the human judgments (the panel's default: there are some)."""
    with Bundle.open(path) as bundle, bundle.read_session() as session:
        battles = pairwise_outcomes(judgments_frame(session, OutcomeFilter(kinds=("human",))))
    board = compute_leaderboard(battles, method, Anchor(anchor, 1000.0), bootstrap=100, seed=0)
    return board.table


def shown_rows(panel: LeaderboardPanel) -> list[list[str]]:
    model = panel.model
    return [
        [model.index(row, column).data() for column in range(model.columnCount())]
        for row in range(model.rowCount())
    ]


@pytest.mark.parametrize("method", ["bt", "elo"])
def test_table_shows_the_engine_ratings(
    qtbot: QtBot, panel_window: MainWindow, method: Method
) -> None:
    panel = panel_window.analysis.leaderboard
    if method != panel.method.currentData():
        previous = panel.result
        panel.method.setCurrentIndex(panel.method.findData(method))
        qtbot.waitUntil(
            lambda: panel.result is not previous and not panel.busy, timeout=HANG_GUARD_MS
        )
    assert panel.result is not None
    assert panel.result.board.anchor is not None
    anchor = panel.result.board.anchor.model
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    expected = engine_table(panel_window.bundle.path, anchor, method)
    rows = shown_rows(panel)
    assert [row[0] for row in rows] == list(expected["model"])
    for row, engine in zip(rows, expected.itertuples(index=False), strict=True):
        assert row[1] == f"{engine.rating:.1f}"
        assert row[2] == f"{engine.ci_lower:.1f} .. {engine.ci_upper:.1f}"
        assert row[3] == f"{100 * engine.win_rate_vs_anchor:.1f}%"
        assert row[4] == str(engine.n)
    if method == "bt":
        # the prior votes order the models m-a > m-b > m-c > m-d
        assert [row[0] for row in rows] == ["m-a", "m-b", "m-c", "m-d"]


def test_recompute_runs_in_the_worker_process_and_keeps_the_old_result(
    qtbot: QtBot, panel_window: MainWindow, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    panel = panel_window.analysis.leaderboard
    process = panel_window.analysis.process
    old_result, old_rows = panel.result, shown_rows(panel)
    submitted: list[str] = []
    real_run = ProcessRunner.run

    def recording_run(runner: ProcessRunner, function: partial[Any], *callbacks: Any) -> Job:
        submitted.append(function.func.__name__)
        return real_run(runner, function, *callbacks)

    monkeypatch.setattr(ProcessRunner, "run", recording_run)
    # the worker runs one job at a time: this one holds it until the file appears
    go = tmp_path / "go"
    waited: list[bool] = []
    process.run(partial(wait_for_file, str(go)), waited.append)
    panel.refresh_button.click()
    assert submitted == ["leaderboard"]
    qtbot.wait(100)  # the event loop keeps running while the worker is busy
    assert panel.busy and panel.result is old_result and shown_rows(panel) == old_rows
    assert panel.forest.figure is not None
    go.touch()
    qtbot.waitUntil(
        lambda: panel.result is not old_result and not panel.busy, timeout=HANG_GUARD_MS
    )
    assert waited == [True] and process.worker_pid not in (None, os.getpid())
    assert shown_rows(panel) == old_rows  # the same judgments: the same numbers


def test_new_votes_trigger_a_refresh(
    qtbot: QtBot, panel_window: MainWindow, tmp_path: Path
) -> None:
    panel = panel_window.analysis.leaderboard
    agreement = panel_window.analysis.agreement  # in a tab behind the graph
    assert agreement.visibleRegion().isEmpty()
    before, agreement_before = panel.result, agreement.result
    assert before is not None
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    assert before.battles == engine_table(panel_window.bundle.path, "m-a")["n"].sum() // 2
    add_late_votes(panel_window.bundle.path, tmp_path / "late")
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    assert panel.result is not None
    assert panel.result.battles == before.battles + 6
    assert panel.result.board.anchor is not None
    expected = engine_table(panel_window.bundle.path, panel.result.board.anchor.model)
    assert shown_rows(panel)[0][0] == expected["model"].iloc[0]
    # a hidden panel catches up when it is shown, not before
    assert agreement.result is agreement_before
    panel_window.analysis.docks["agreement"].raise_()
    qtbot.waitUntil(lambda: agreement.result is not agreement_before, timeout=HANG_GUARD_MS)


def test_exports_write_plots_and_csv(panel_window: MainWindow, tmp_path: Path) -> None:
    import pandas as pd

    panel = panel_window.analysis.leaderboard
    targets = {
        "csv": tmp_path / "table.csv",
        "forest": tmp_path / "forest.png",
        "heatmap": tmp_path / "heatmap.svg",
    }
    for kind, path in targets.items():
        panel.export(kind, path)
    assert targets["forest"].read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in targets["heatmap"].read_bytes()[:500]
    # the first line names the request and the command that prints the table
    first = targets["csv"].read_text(encoding="utf-8").splitlines()[0]
    command = panel.command()
    assert first.startswith("# request: judgments: human")
    assert command is not None and command in first
    written = pd.read_csv(targets["csv"], skiprows=1)
    assert panel.result is not None
    assert list(written["model"]) == list(panel.result.table["model"])
    assert written["rating"].to_numpy() == pytest.approx(panel.result.table["rating"].to_numpy())
    panel.export("forest", tmp_path / "forest.pdf")
    assert (tmp_path / "forest.pdf").read_bytes().startswith(b"%PDF")


def test_an_empty_selection_is_explained_and_clears_the_table(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    panel = panel_window.analysis.leaderboard
    errors: list[str] = []
    panel.failed.connect(errors.append)
    panel.min_battles.setValue(0)  # the cycle item's few battles are rated anyway
    panel.category.setCurrentIndex(panel.category.findData("cyclic"))
    qtbot.waitUntil(lambda: not panel.busy, timeout=HANG_GUARD_MS)
    # only the cycle item: its three models, rated alike
    assert not errors and sorted(row[0] for row in shown_rows(panel)) == ["m-a", "m-b", "m-c"]
    panel.source.setCurrentIndex(panel.source.findData("judge"))
    qtbot.waitUntil(lambda: bool(errors), timeout=HANG_GUARD_MS)
    assert "--kind judge: this selection has no judge judgments" in errors[0]
    assert panel.request_line.text() == "Request: none yet"
    assert not panel.copy_command_button.isEnabled()
    assert panel.model.rowCount() == 0 and panel.forest.figure is None
    assert panel.status.text().startswith("Cannot compute")


def test_language_and_campaign_switches_filter_the_leaderboard(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    panel = panel_window.analysis.leaderboard
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    with Bundle.open(panel_window.bundle.path) as bundle, bundle.read_session() as session:
        frame = judgments_frame(session)
    languages = sorted(frame["language"].dropna().unique())
    assert [panel.language.itemData(i) for i in range(1, panel.language.count())] == languages
    assert panel.campaign.count() == 1 + frame["campaign"].dropna().nunique()
    before = panel.result
    panel.min_battles.setValue(0)
    panel.language.setCurrentIndex(panel.language.findData(languages[0]))
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    assert panel.request().languages == (languages[0],)
    human = frame[frame["kind"] == "human"]
    in_language = pairwise_outcomes(human[human["language"] == languages[0]])
    assert panel.result is not None
    assert panel.result.battles == len(in_language)


def test_rater_and_origin_pickers_offer_the_cli_choices(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    from workbench.services.analysis import LeaderboardRequest, analysis_choices, leaderboard

    panel = panel_window.analysis.leaderboard
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    with Bundle.open(panel_window.bundle.path) as bundle:
        choices = analysis_choices(bundle)
        offered = [panel.origin.itemData(index) for index in range(1, panel.origin.count())]
        assert offered == list(choices.origins)
        raters = [panel.rater.itemData(index) for index in range(1, panel.rater.count())]
        assert raters == list(choices.raters) and raters
        panel.min_battles.setValue(0)  # the judge judged once
        panel.rater.setCurrentIndex(panel.rater.findData("gpt-judge"))
        qtbot.waitUntil(
            lambda: (
                panel.result is not None
                and panel.result.request.raters == ("gpt-judge",)
                and not panel.busy
            ),  # the intervals come after the ratings
            timeout=HANG_GUARD_MS,
        )
        # the judge's rows only: the default rule counts the judge, as there is no human here
        assert panel.result is not None
        assert panel.result.request.kind == "judge"
        expected = leaderboard(bundle, LeaderboardRequest(raters=("gpt-judge",), min_battles=0))
    assert expected is not None
    assert panel.result is not None
    assert panel.result.battles == expected.battles
    pd.testing.assert_frame_equal(panel.result.table, expected.table)


def test_opening_a_bundle_reads_the_choices_in_the_worker_process(
    qtbot: QtBot, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    submitted: list[str] = []
    real_run = ProcessRunner.run

    def recording_run(runner: ProcessRunner, function: partial[Any], *callbacks: Any) -> Job:
        submitted.append(function.func.__name__)
        return real_run(runner, function, *callbacks)

    monkeypatch.setattr(ProcessRunner, "run", recording_run)
    with opened_panel_window(qtbot, tmp_path / "panels") as window:
        assert window.analysis.leaderboard.category.count() > 1
        assert window.analysis.process.worker_pid not in (None, os.getpid())
    # a ProcessRunner runs nothing itself: it only hands picklable jobs to the worker
    assert "read_choices" in submitted


def test_the_leaderboard_never_waits_for_the_other_panels_worker(
    qtbot: QtBot, panel_window: MainWindow, tmp_path: Path
) -> None:
    """The graph, failure and agreement panels compute in a worker of their own: a long job
    there (a count of cycles on a big bundle) does not hold up the leaderboard after a vote."""
    panel = panel_window.analysis.leaderboard
    others = panel_window.analysis.other_process
    assert others is not panel_window.analysis.process
    go = tmp_path / "go"
    waited: list[bool] = []
    others.run(partial(wait_for_file, str(go)), waited.append)
    before = panel.result
    panel.refresh_button.click()
    try:
        qtbot.waitUntil(lambda: panel.result is not before, timeout=HANG_GUARD_MS)
        assert others.busy and not waited  # the other worker is still held
    finally:
        go.touch()
    qtbot.waitUntil(lambda: waited == [True], timeout=HANG_GUARD_MS)


@pytest.mark.parametrize("style_control", [False, True])
def test_bradley_terry_ratings_come_first_and_their_intervals_after(
    qtbot: QtBot, panel_window: MainWindow, style_control: bool
) -> None:
    """After a change the new point ratings are on screen before the bootstrap is done (at 100
    models the rounds are most of a refresh); the ratings then equal the final ones and the
    intervals follow, with the plots drawn once."""
    panel = panel_window.analysis.leaderboard
    assert panel.method.currentData() == "bt"
    if style_control:
        previous = panel.result
        panel.style_control.setChecked(True)
        qtbot.waitUntil(
            lambda: panel.result is not previous and not panel.busy, timeout=HANG_GUARD_MS
        )
    points: list[LeaderboardResult] = []
    finals: list[LeaderboardResult] = []
    statuses: list[str] = []

    def shown(result: LeaderboardResult) -> None:
        points.append(result)
        statuses.append(panel.status.text())

    panel.ratingsShown.connect(shown)
    panel.computed.connect(finals.append)
    panel.refresh()
    qtbot.waitUntil(lambda: bool(finals) and not panel.busy, timeout=HANG_GUARD_MS)
    assert len(points) == 2 and len(finals) == 1  # points, then the final result
    first, final = points[0], finals[0]
    assert first.board.bootstrap == 0 and final.board.bootstrap == panel.rounds.value() > 0
    assert "bootstrap rounds computing" in statuses[0]
    assert first.table["ci_lower"].isna().all() and final.table["ci_lower"].notna().all()
    pd.testing.assert_series_equal(first.table["rating"], final.table["rating"])
    pd.testing.assert_series_equal(first.table["model"], final.table["model"])


def test_online_elo_with_a_bootstrap_waits_for_its_rounds(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    """Online Elo with a bootstrap shows the rounds' median: there is no earlier rating."""
    panel = panel_window.analysis.leaderboard
    previous = panel.result
    panel.method.setCurrentIndex(panel.method.findData("elo"))
    qtbot.waitUntil(lambda: panel.result is not previous and not panel.busy, timeout=HANG_GUARD_MS)
    points: list[LeaderboardResult] = []
    panel.ratingsShown.connect(points.append)
    panel.refresh()
    qtbot.waitUntil(lambda: bool(points) and not panel.busy, timeout=HANG_GUARD_MS)
    assert len(points) == 1 and points[0].board.bootstrap == panel.rounds.value()


def test_the_request_line_names_the_request_and_copies_the_command_that_prints_it(
    qtbot: QtBot, panel_window: MainWindow, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    import shlex

    from PySide6.QtWidgets import QApplication

    from workbench.cli import main
    from workbench.services.analysis_request import POOLED_LABEL

    panel = panel_window.analysis.leaderboard
    assert panel.result is not None
    request = panel.result.request
    assert panel.request_line.text() == f"Request: {request.describe()}"
    assert "judgments: human" in panel.request_line.text()
    panel.copy_command_button.click()
    command = QApplication.clipboard().text()
    assert command == request.to_command() and "--kind human" in command
    # the copied command prints the panel's numbers
    words = shlex.split(command)
    assert panel_window.bundle is not None
    assert main([*words[1:2], str(panel_window.bundle.path), *words[3:], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [row["model"] for row in printed["models"]] == list(panel.result.table["model"])
    assert [row["rating"] for row in printed["models"]] == pytest.approx(
        list(panel.result.table["rating"]), abs=1e-6
    )
    # pooling both kinds is a choice of its own, labelled as pooled
    before = panel.result
    panel.source.setCurrentIndex(panel.source.findData("pooled"))
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    assert f"judgments: {POOLED_LABEL}" in panel.request_line.text()
    assert POOLED_LABEL in panel.status.text()
    assert "--kind all --pool-kinds" in (panel.command() or "")


def test_the_prediction_powered_board_states_its_inputs_and_copies_its_command(
    qtbot: QtBot, panel_window: MainWindow, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    import shlex

    from PySide6.QtWidgets import QApplication

    from workbench.cli import main

    panel = panel_window.analysis.leaderboard
    # the judge judged one comparison of this bundle: every model with a human vote on it counts
    panel.min_battles.setValue(0)
    before = panel.result
    panel.method.setCurrentIndex(panel.method.findData("ppi"))
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    assert panel.result is not None
    assert panel.result.powered is not None
    assert not panel.source.isEnabled() and not panel.rounds.isEnabled()
    status = panel.status.text()
    assert status.startswith("prediction-powered: ")
    assert "human votes on 1 comparisons the judge also judged" in status
    assert "95% rank-sets: " in status
    assert "prediction-powered Bradley-Terry" in panel.request_line.text()
    panel.copy_command_button.click()
    words = shlex.split(QApplication.clipboard().text())
    assert "--method" in words and words[words.index("--method") + 1] == "ppi"
    capsys.readouterr()
    assert panel_window.bundle is not None
    assert main([*words[1:2], str(panel_window.bundle.path), *words[3:], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [row["model"] for row in printed["models"]] == list(panel.result.table["model"])
    assert [row["rating"] for row in printed["models"]] == pytest.approx(
        list(panel.result.table["rating"]), abs=1e-6
    )
    assert printed["prediction_powered"] == panel.result.powered.to_json()


def test_board_filters_are_pickers_of_the_request(qtbot: QtBot, panel_window: MainWindow) -> None:
    panel = panel_window.analysis.leaderboard
    assert not panel.request().boards
    before = panel.result
    panel.min_battles.setValue(0)
    panel.exclude_ties.setChecked(True)
    panel.exclude_refusal.setChecked(True)
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    request = panel.request()
    assert request.exclude_ties and request.exclude_refusal and not request.multi_turn
    assert "--exclude-ties --exclude-refusal" in request.to_command()
    assert "ties excluded" in panel.request_line.text()


def _run_compare_command(
    command: str, bundle: Path, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    import json
    import shlex

    from workbench.cli import main

    words = [str(bundle) if word == "BUNDLE" else word for word in shlex.split(command)]
    assert words[:2] == ["workbench", "compare-rankings"] and "--json" in words
    capsys.readouterr()
    assert main(words[1:]) == 0
    printed: dict[str, Any] = json.loads(capsys.readouterr().out)
    return printed


def test_compare_with_gives_the_figures_of_the_command_it_copies(
    qtbot: QtBot, panel_window: MainWindow, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from PySide6.QtWidgets import QApplication

    from tests.gui.panel_bundle import build_panel_bundle

    panel = panel_window.analysis.leaderboard
    before = panel.result
    panel.min_battles.setValue(0)
    panel.refresh()
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    dialog = panel.open_compare()
    assert dialog is not None
    assert dialog is not None and dialog.shown == panel.shown_request()
    # the shown board (every category) against its own request on one category
    dialog.category.setCurrentIndex(dialog.category.findData("ordered"))
    dialog.compare_button.click()
    qtbot.waitUntil(
        lambda: dialog.comparison is not None and not dialog.busy, timeout=HANG_GUARD_MS
    )
    result = dialog.comparison
    assert result is not None
    found = result.comparison
    assert f"Spearman: {found.spearman:.4f}" in dialog.figures.text()
    assert f"Kendall tau-b: {found.kendall_tau:.4f}" in dialog.figures.text()
    assert f"Pearson (ratings): {found.pearson:.4f}" in dialog.figures.text()
    assert "Confidence agreement: " in dialog.figures.text()
    assert dialog.model.rowCount() == len(found.models) == 4
    assert dialog.request_row.text() == f"Request: {result.describe()}"
    QApplication.clipboard().clear()
    dialog.request_row.copy_button.click()
    command = QApplication.clipboard().text()
    assert command == result.command() and "--category ordered" in command
    assert panel_window.bundle is not None
    assert panel_window.bundle.path is not None
    printed = _run_compare_command(command, panel_window.bundle.path, capsys)
    shown = json.loads(json.dumps(result.to_json()))
    for key in ("spearman", "kendall_tau", "pearson", "confidence_agreement", "ranks"):
        assert printed[key] == shown[key], key
    shown_request = panel.shown_request()
    assert shown_request is not None
    assert printed["a"]["request"] == json.loads(json.dumps(shown_request.to_json()))
    # another bundle: named by its path in the command, this one stays BUNDLE
    other = build_panel_bundle(tmp_path / "other")
    dialog.choose_other_bundle(str(other))
    dialog.category.setCurrentIndex(0)
    previous = dialog.comparison
    dialog.compare_button.click()
    qtbot.waitUntil(
        lambda: dialog.comparison is not previous and not dialog.busy, timeout=HANG_GUARD_MS
    )
    assert dialog.comparison is not None
    command = dialog.comparison.command()
    assert command.startswith(f"workbench compare-rankings BUNDLE {other} ")
    printed = _run_compare_command(command, panel_window.bundle.path, capsys)
    # the same judgments on both sides: the same order
    assert printed["spearman"] == pytest.approx(1.0) == dialog.comparison.comparison.spearman


def test_exclude_category_and_the_estimator_are_in_the_request_and_its_command(
    qtbot: QtBot, panel_window: MainWindow, capsys: pytest.CaptureFixture[str]
) -> None:
    import json
    import shlex

    from PySide6.QtWidgets import QApplication

    from workbench.cli import main

    panel = panel_window.analysis.leaderboard
    offered = [
        panel.exclude_category.itemData(index) for index in range(1, panel.exclude_category.count())
    ]
    assert offered == ["cyclic", "ordered"]
    assert panel.exclude_category.currentData() is None and not panel.request().exclude_categories
    # the estimator is a choice of style control: off until style control is on
    assert not panel.style_estimator.isEnabled()
    before = panel.result
    panel.exclude_category.setCurrentIndex(panel.exclude_category.findData("cyclic"))
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    assert panel.result is not None
    assert panel.result.request.exclude_categories == ("cyclic",)
    assert "category not cyclic" in panel.request_line.text()
    assert "--exclude-category cyclic" in (panel.command() or "")
    before = panel.result
    panel.style_control.setChecked(True)
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    assert panel.style_estimator.isEnabled()
    assert "--style-control fastchat-2024" in (panel.command() or "")
    before = panel.result
    panel.style_estimator.setCurrentIndex(panel.style_estimator.findData("lmarena"))
    qtbot.waitUntil(lambda: panel.result is not before and not panel.busy, timeout=HANG_GUARD_MS)
    assert "with style control (lmarena)" in panel.request_line.text()
    QApplication.clipboard().clear()
    panel.copy_command_button.click()
    command = QApplication.clipboard().text()
    assert "--style-control lmarena" in command and "--exclude-category cyclic" in command
    words = shlex.split(command)
    capsys.readouterr()
    assert panel_window.bundle is not None
    assert main([*words[1:2], str(panel_window.bundle.path), *words[3:], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["request"]["style_estimator"] == "lmarena"
    assert printed["request"]["boards"]["exclude_categories"] == ["cyclic"]
    assert printed["battles"] == panel.result.battles
    assert [row["model"] for row in printed["models"]] == list(panel.result.table["model"])
    assert [row["rating"] for row in printed["models"]] == pytest.approx(
        list(panel.result.table["rating"]), abs=1e-6
    )
    # turning style control off leaves the estimator without effect, and the picker off
    panel.style_control.setChecked(False)
    assert not panel.style_estimator.isEnabled()
    qtbot.waitUntil(lambda: not panel.busy, timeout=HANG_GUARD_MS)
    assert "--style-control" not in (panel.command() or "")


def test_the_board_says_its_flagged_judgments_and_the_box_leaves_them_out(
    qtbot: QtBot, panel_window: MainWindow
) -> None:
    from workbench.services.analysis_request import flagged_note
    from workbench.services.flags import add_flag
    from workbench.storage.judgments import flagged_judgments, read_judgments

    panel = panel_window.analysis.leaderboard
    bundle = panel_window.bundle
    assert bundle is not None
    with bundle.read_session() as read:
        _names, rows = read_judgments(read, OutcomeFilter(kinds=("human",)), columns=("item",))
    with bundle.session() as session:  # an annotator flags the first judged item whole
        add_flag(
            session, item_id=rows[0][0], model_id=None, reason="broken_image", note="",
            origin="annotator",
        )  # fmt: skip

    def recomputed(exclude: bool) -> None:
        previous = panel.result
        if panel.exclude_flagged.isChecked() == exclude:
            panel.refresh()
        else:
            panel.exclude_flagged.setChecked(exclude)
        qtbot.waitUntil(
            lambda: panel.result is not previous and not panel.busy, timeout=HANG_GUARD_MS
        )

    recomputed(False)
    assert bundle is not None
    with bundle.read_session() as read:
        assert panel.result is not None
        flagged = flagged_judgments(read, panel.result.request.filters())
    assert flagged > 0
    note = flagged_note(flagged, False)
    assert note is not None and note in panel.status.text()
    assert panel.result is not None
    counted = panel.result.battles
    recomputed(True)
    note = flagged_note(flagged, True)
    assert note is not None and note in panel.status.text()
    assert panel.result.battles == counted - flagged
    assert "--exclude-flagged" in (panel.command() or "")
    assert "flagged comparisons excluded" in panel.request_line.text()
