"""Adjudication: the tasks where annotators disagree (and where humans and a judge do), a settled
answer recorded with note, adjudicator and time, checked like a vote, and read back as an
evaluator of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from tests.services.campaign_ops_bundle import CAMPAIGN, PLUGINS, build_ops_bundle
from workbench.services.adjudication import (
    ADJUDICATED,
    ADJUDICATED_COLUMNS,
    adjudicated_judgments,
    disagreements,
    record_adjudication,
)
from workbench.services.campaign_errors import AnswerError, CampaignError
from workbench.storage import Bundle
from workbench.storage.models import Adjudication, JudgeRun, JudgeVerdict, ScheduledPair


@pytest.fixture
def ops(tmp_path: Path) -> tuple[Path, dict[tuple[int, str], str]]:
    return build_ops_bundle(tmp_path)


def disputed(cast: dict[tuple[int, str], str]) -> set[int]:
    answers: dict[int, set[str]] = {}
    for (sequence, _), answer in cast.items():
        if answer != "skip":
            answers.setdefault(sequence, set()).add(answer)
    return {sequence for sequence, given in answers.items() if len(given) > 1}


def test_lists_exactly_the_tasks_whose_annotators_disagree(ops) -> None:
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
        return read.scalar(
            select(ScheduledPair.sequence).where(ScheduledPair.gold_choice.is_not(None))
        )


def test_a_settled_answer_is_kept_with_note_adjudicator_and_time(ops) -> None:
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
def test_bad_input_is_refused_and_changes_nothing(ops, task, answer, adjudicator, error, message):
    path, _ = ops
    with Bundle.open(path) as bundle:
        with pytest.raises(error, match=message):
            record_adjudication(bundle, CAMPAIGN, task, answer, "n", adjudicator, plugins=PLUGINS)
        with bundle.read_session() as read:
            assert read.scalar(select(func.count()).select_from(Adjudication)) == 0


def test_humans_against_a_judge_on_request(ops) -> None:
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


def test_adjudicated_answers_read_as_their_own_evaluator(ops) -> None:
    path, _ = ops
    with Bundle.open(path) as bundle:
        empty_frame = _frame(bundle)
        task = disagreements(bundle, CAMPAIGN)[0]["task"]
        record_adjudication(bundle, CAMPAIGN, task, "b", "note", "lead", plugins=PLUGINS)
        frame = _frame(bundle)
    assert empty_frame.empty and list(empty_frame.columns) == list(ADJUDICATED_COLUMNS)
    assert len(frame) == 1
    row = frame.iloc[0]
    assert row["origin"] == row["evaluator"] == ADJUDICATED
    assert row["outcome"] == "b" and row["rater"] == "lead" and row["campaign"] == CAMPAIGN
    assert row["model_a"] and row["model_b"] and row["group_key"].startswith("pair:")


def _frame(bundle: Bundle):
    with bundle.read_session() as read:
        return adjudicated_judgments(read)
