"""Adjudication: the tasks where annotators disagree (and where humans and a judge do), a settled
answer recorded with note, adjudicator and time, checked like a vote, and read back as an
evaluator of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from tests.services.campaign_ops_bundle import CAMPAIGN, PLUGINS, build_ops_bundle
from workbench.cli import main
from workbench.services import analysis
from workbench.services.adjudication import disagreements, record_adjudication
from workbench.services.campaign_errors import AnswerError, CampaignError
from workbench.storage import Bundle
from workbench.storage.judgments import (
    ADJUDICATED,
    ADJUDICATION,
    OutcomeFilter,
    counts_per_item,
    fingerprint,
    read_judgments,
)
from workbench.storage.models import Adjudication, JudgeRun, JudgeVerdict, ScheduledPair, Vote


@pytest.fixture
def ops(tmp_path: Path) -> tuple[Path, dict[tuple[int, str], str]]:
    return build_ops_bundle(tmp_path)


def disputed(cast: dict[tuple[int, str], str]) -> set[int]:
    answers: dict[int, set[str]] = {}
    for (sequence, _), answer in cast.items():
        if answer != "skip":
            answers.setdefault(sequence, set()).add(answer)
    return {sequence for sequence, given in answers.items() if len(given) > 1}


def test_lists_exactly_the_tasks_whose_annotators_disagree(
    ops: tuple[Path, dict[tuple[int, str], str]],
) -> None:
    path, cast = ops
    with Bundle.open(path) as bundle:
        rows = disagreements(bundle, CAMPAIGN)
    expected = disputed(cast) - {_gold_sequence(path)}
    assert expected and {row["task"] for row in rows} == expected
    for row in rows:
        assert {vote["answer"] for vote in row["votes"]} == {"a", "b"}
        assert row["left"] and row["right"] and row["adjudication"] is None
        assert row["reason"] == "annotators"


def _gold_sequence(path: Path) -> int:
    with Bundle.open(path) as bundle, bundle.read_session() as read:
        return read.execute(
            select(ScheduledPair.sequence).where(ScheduledPair.gold_choice.is_not(None))
        ).scalar_one()


def test_a_settled_answer_is_kept_with_note_adjudicator_and_time(
    ops: tuple[Path, dict[tuple[int, str], str]],
) -> None:
    path, _ = ops
    with Bundle.open(path) as bundle:
        task = disagreements(bundle, CAMPAIGN)[0]["task"]
        first = record_adjudication(
            bundle, CAMPAIGN, task, "b", "the left answer miscounts", "lead", plugins=PLUGINS
        )
        again = record_adjudication(
            bundle, CAMPAIGN, task, "tie", "both fine", "lead2", None, PLUGINS
        )
        row = next(r for r in disagreements(bundle, CAMPAIGN) if r["task"] == task)
        with bundle.read_session() as read:
            stored = read.scalar(select(func.count()).select_from(Adjudication))
    assert first["answer"] == "b" and first["adjudicated_at"]
    # the record returned and the one read back state the time the same way
    assert again["adjudicated_at"] == row["adjudication"]["adjudicated_at"]
    assert row["adjudication"]["answer"] == "tie"
    assert row["adjudication"]["note"] == "both fine"
    assert row["adjudication"]["adjudicator"] == "lead2" == again["adjudicator"]
    assert stored == 1  # recording again replaced the first answer


@pytest.mark.parametrize(
    ("task", "answer", "adjudicator", "error", "message"),
    [
        (1, "left", "lead", AnswerError, "choose one of"),
        (999, "a", "lead", CampaignError, "has no task 999"),
        (1, "a", "  ", CampaignError, "say who adjudicates"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    ops: tuple[Path, dict[tuple[int, str], str]],
    task: int,
    answer: str,
    adjudicator: str,
    error: type[Exception],
    message: str,
) -> None:
    path, _ = ops
    with Bundle.open(path) as bundle:
        with pytest.raises(error, match=message):
            record_adjudication(bundle, CAMPAIGN, task, answer, "n", adjudicator, plugins=PLUGINS)
        with bundle.read_session() as read:
            assert read.scalar(select(func.count()).select_from(Adjudication)) == 0


def test_humans_against_a_judge_on_request(ops: tuple[Path, dict[tuple[int, str], str]]) -> None:
    path, _ = ops
    with Bundle.open(path) as bundle:
        with bundle.session() as write:
            # a judge that always prefers the right-hand response, shown the models swapped on
            # every task: its "a" (first shown = the right model) means the task's "b"
            run = JudgeRun(
                name="j1",
                template_name="t",
                template_version="1",
                template_text="",
                judge_model="m",
            )
            write.add(run)
            write.flush()
            for pair in write.scalars(
                select(ScheduledPair).where(ScheduledPair.gold_choice.is_(None))
            ):
                write.add(
                    JudgeVerdict(
                        run_id=run.id,
                        item_id=pair.item_id,
                        turn_index=pair.turn_index,
                        model_a_id=pair.right_model_id,
                        model_b_id=pair.left_model_id,
                        outcome="a",
                        request_hash=f"h{pair.id}",
                    )
                )
        humans_only = disagreements(bundle, CAMPAIGN)
        with_judge = disagreements(bundle, CAMPAIGN, judge_run="j1")
        with pytest.raises(CampaignError, match="no judge run named 'j2'"):
            disagreements(bundle, CAMPAIGN, judge_run="j2")
    assert {row["judge"]["answer"] for row in with_judge} == {"b"}
    # the judge disagrees with the unanimous "a" tasks too, which the humans alone do not list
    assert len(with_judge) > len(humans_only)
    assert {row["reason"] for row in with_judge} == {"annotators", "judge"}


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _settle_every_dispute(bundle: Bundle) -> list[dict[str, Any]]:
    """Each disputed task settled for the right response ("b"), by "lead"."""
    rows = disagreements(bundle, CAMPAIGN)
    for row in rows:
        record_adjudication(bundle, CAMPAIGN, row["task"], "b", "", "lead", plugins=PLUGINS)
    return rows


def test_adjudicated_answers_are_judgments_of_their_own_origin(
    ops: tuple[Path, dict[tuple[int, str], str]],
) -> None:
    path, _ = ops
    origin = OutcomeFilter(origins=(ADJUDICATION,))
    with Bundle.open(path) as bundle:
        with bundle.read_session() as read:
            before = fingerprint(read)
            assert read_judgments(read, origin)[1] == []
        disputed_rows = _settle_every_dispute(bundle)
        with bundle.read_session() as read:
            settled = fingerprint(read)
            names, rows = read_judgments(read, origin)
            by_default = read_judgments(read, OutcomeFilter(kinds=("human",)))[1]
            counts = counts_per_item(read)
        # settling a task again replaces its row in place, and still changes the fingerprint
        record_adjudication(
            bundle, CAMPAIGN, disputed_rows[0]["task"], "a", "", "lead", plugins=PLUGINS
        )
        with bundle.read_session() as read:
            resettled = fingerprint(read)
    assert before != settled != resettled
    found = [dict(zip(names, row, strict=True)) for row in rows]
    assert len(found) == len(disputed_rows) > 0
    for row, task in zip(found, disputed_rows, strict=True):
        assert row["origin"] == ADJUDICATION and row["kind"] == "human"
        assert row["evaluator"] == ADJUDICATED and row["rater"] == "lead"
        assert row["campaign"] == CAMPAIGN and row["annotator"] is None
        # the sides as the task showed them
        assert (row["model_a"], row["model_b"]) == (task["left"], task["right"])
        assert row["outcome"] == "b" and row["item_external_id"] == task["item"]
        assert row["group_key"].startswith("pair:") and row["time"] is not None
    # a settled answer repeats a decision whose votes count already: left out unless asked for
    assert all(row[names.index("origin")] != ADJUDICATION for row in by_default)
    assert sum(counts.values()) == len(by_default) + len(found)


def test_leaderboard_by_the_adjudication_origin_counts_settled_answers(
    ops: tuple[Path, dict[tuple[int, str], str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = ops
    with Bundle.open(path) as bundle:
        settled = len(_settle_every_dispute(bundle))
    printed = cli_json(
        capsys,
        "leaderboard",
        str(path),
        "--origin",
        "adjudication",
        "--bootstrap",
        "5",
        "--min-battles",
        "0",
    )
    request = analysis.LeaderboardRequest(origins=(ADJUDICATION,), bootstrap=5, min_battles=0)
    with Bundle.open(path) as bundle:
        result = analysis.leaderboard(bundle, request)
        votes = analysis.leaderboard(
            bundle, analysis.LeaderboardRequest(bootstrap=0, min_battles=0)
        )
    assert printed == json.loads(json.dumps(result.to_json()))
    assert printed["battles"] == settled
    assert votes.battles == sum(1 for _ in _cast_votes(path))


def test_agreement_between_the_campaign_and_its_adjudication(
    ops: tuple[Path, dict[tuple[int, str], str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = ops
    with Bundle.open(path) as bundle:
        _settle_every_dispute(bundle)
    printed = cli_json(
        capsys,
        "agreement",
        str(path),
        "--a",
        "campaign",
        "--b",
        "adjudication",
        "--bootstrap",
        "5",
    )
    with Bundle.open(path) as bundle:
        result = analysis.agreement(bundle, "campaign", "adjudication", OutcomeFilter(), 5)
    assert printed == json.loads(json.dumps(result.to_json()))


def _cast_votes(path: Path) -> list[int]:
    with Bundle.open(path) as bundle, bundle.read_session() as read:
        return list(
            read.scalars(
                select(Vote.id).where(Vote.retracted_at.is_(None), Vote.choice.in_(["a", "b"]))
            )
        )
