"""Flags on the leaderboard side: a judge run flags the answers it sends that name their model
(the importer's rule, for a bundle imported before it existed); a board counts the judgments on
flagged comparisons and says how many, ``--exclude-flagged`` leaves them out, and the request
block and its command say so."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.judge.helpers import build_bundle
from workbench.cli import main
from workbench.services.analysis import leaderboard
from workbench.services.analysis_request import AnalysisRequest, flagged_note
from workbench.services.flags import JUDGE_RUN, add_flag, flag_sent_answers
from workbench.services.quick_leaderboard import quick_leaderboard
from workbench.storage import Bundle
from workbench.storage.judgments import OutcomeFilter, read_judgments
from workbench.storage.models import Flag, Item, Model

MODELS = ("m1", "m2", "m3")
#: the answer given the words of WildVision-Bench's Reka-Flash ("I am Yasa")
NAMING = "I am Yasa, an AI assistant created by Reka. The photo shows a cat."


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 items judged by a (non-simulated) judge run, one answer of m1 rewritten after the
    import to name its model, as in a bundle imported before the importer's rule existed."""
    bundle = build_bundle(tmp_path_factory.mktemp("flagged"), 12, models=MODELS)
    with closing(sqlite3.connect(bundle)) as connection, connection:
        connection.execute(
            "UPDATE outputs SET text = ? WHERE model_id = (SELECT id FROM models WHERE name = "
            "'m1') AND turn_id = (SELECT turns.id FROM turns JOIN items ON items.id = "
            "turns.item_id WHERE items.external_id = 'q0003')",
            (NAMING,),
        )
        assert connection.execute("SELECT count(*) FROM flags").fetchone() == (0,)
    argv = ["judge", str(bundle), "--simulated", "--template", "visit-bench-pairwise"]
    assert main([*argv, "--run", "local", "--no-cache", "--yes", "--json"]) == 0
    with closing(sqlite3.connect(bundle)) as connection, connection:
        connection.execute("UPDATE judge_runs SET judge_model = 'local-judge'")
    return bundle


def _copy(bundle: Path, path: Path) -> Path:
    """A copy of ``bundle`` as one file (its write-ahead log checkpointed into it)."""
    with closing(sqlite3.connect(bundle)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path.write_bytes(bundle.read_bytes())
    return path


def _item_id(bundle: Bundle, external_id: str) -> int:
    with bundle.read_session() as read:
        return read.execute(select(Item.id).where(Item.external_id == external_id)).scalar_one()


def test_a_judge_run_flags_the_answers_it_sends_that_name_their_model(judged: Path) -> None:
    with Bundle.open(judged) as bundle:
        with bundle.read_session() as read:
            flags = read.execute(
                select(Item.external_id, Model.name, Flag.reason, Flag.origin, Flag.note)
                .join(Item, Item.id == Flag.item_id)
                .join(Model, Model.id == Flag.model_id)
            ).all()
            m1 = read.execute(select(Model.id).where(Model.name == "m1")).scalar_one()
        assert flags == [("q0003", "m1", "names_model", JUDGE_RUN, "I am Yasa (judge run local)")]
        # the next run sending the same answer adds no second flag
        item = _item_id(bundle, "q0003")
        with bundle.session() as session:
            assert flag_sent_answers(session, "again", {(item, m1)}, "standard") == 0


def _flagged_rows(bundle: Bundle, items: dict[int, str | None]) -> int:
    """The judge's pairwise verdicts on the flagged comparisons, counted from the rows (an item
    flagged whole: every verdict on it; an answer: those with its model on a side)."""
    with bundle.read_session() as read:
        _names, rows = read_judgments(
            read, OutcomeFilter(), columns=("item", "model_a", "model_b"), pairwise=True
        )
    return sum(
        1 for item, a, b in rows if item in items and (items[item] is None or items[item] in (a, b))
    )


def test_a_board_counts_and_states_the_flagged_judgments_and_can_leave_them_out(
    judged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _copy(judged, tmp_path / "flags.wbb")
    with Bundle.open(path) as bundle:
        broken, retracted = _item_id(bundle, "q0007"), _item_id(bundle, "q0009")
        with bundle.session() as session:
            add_flag(
                session,
                item_id=broken,
                model_id=None,
                reason="broken_image",
                note="",
                origin="annotator",
            )
            add_flag(
                session,
                item_id=retracted,
                model_id=None,
                reason="offensive",
                note="",
                origin="annotator",
            ).retracted_at = session.scalar(select(Flag.created_at).limit(1))
        flagged = _flagged_rows(bundle, {_item_id(bundle, "q0003"): "m1", broken: None})
        assert flagged == 4 + 6  # m1's two pairs in both orders, the item's three pairs so
        counted = leaderboard(bundle, AnalysisRequest(bootstrap=0))
        excluded = leaderboard(bundle, AnalysisRequest(bootstrap=0, exclude_flagged=True))
    assert counted.flagged_judgments == excluded.flagged_judgments == flagged
    assert excluded.battles == counted.battles - flagged
    assert counted.to_json()["flagged_judgments"] == {"judgments": flagged, "left_out": False}
    assert excluded.to_json()["flagged_judgments"] == {"judgments": flagged, "left_out": True}
    # the request block and the copied command name the option
    assert "--exclude-flagged" not in counted.request.to_command()
    assert "--exclude-flagged" in excluded.request.to_command()
    assert "flagged comparisons excluded" in excluded.request.describe()
    assert excluded.request.to_json()["judgments"]["exclude_flagged"] is True
    # the quick reader counts them too, as the read model does
    quick = quick_leaderboard(path, AnalysisRequest(bootstrap=0))
    assert quick is not None
    assert json.loads(json.dumps(quick)) == json.loads(json.dumps(counted.to_json()))
    capsys.readouterr()
    assert main(["leaderboard", str(path), "--bootstrap", "0", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["flagged_judgments"] == {"judgments": flagged, "left_out": False}
    assert main(["leaderboard", str(path), "--bootstrap", "0", "--exclude-flagged"]) == 0
    out = capsys.readouterr().out
    assert f"flags: {flagged_note(flagged, True)}" in out
    command = next(line for line in out.splitlines() if line.startswith("command: "))
    assert " --exclude-flagged " in command
    assert f"{excluded.battles} battles" in out

    # the other analysis commands select through the same filter: the item flagged whole has
    # no preference graph left (the flagged answer's item keeps its other pair)
    def graphs(*extra: str) -> int:
        capsys.readouterr()
        assert main(["contradictions", str(path), "--json", *extra]) == 0
        return int(json.loads(capsys.readouterr().out)["graphs"])

    assert graphs("--exclude-flagged") == graphs() - 1


def test_a_board_without_flags_says_nothing_of_them_on_either_path(judged: Path) -> None:
    path = _copy(judged, judged.with_name("no-flags.wbb"))
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("DELETE FROM flags")
    request = AnalysisRequest(bootstrap=0)
    quick = quick_leaderboard(path, request)
    assert quick is not None
    with Bundle.open(path, read_only=True) as bundle:
        full = leaderboard(bundle, request).to_json()
    assert json.loads(json.dumps(quick)) == json.loads(json.dumps(full))
    assert full["flagged_judgments"] == {"judgments": 0, "left_out": False}
    assert flagged_note(0, False) is None
