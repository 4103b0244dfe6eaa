"""Annotating through the service the annotation view uses: blind tasks, votes mapped back to
models, skip, undo, resume, votes per pair across annotators, attention checks; for every
protocol the plugins provide."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from tests.backends import BundleBackend
from tests.services.campaign_helpers import (
    MODELS,
    build_campaign_bundle,
    registry_with_all_protocols,
    same_task,
)
from workbench.domain import AnnotationProtocol, Display
from workbench.plugins import Registry
from workbench.services.blind_tasks import BlindTask
from workbench.services.campaign_errors import AnswerError, StaleTaskError, UnknownAnnotatorError
from workbench.services.campaigns import (
    CampaignSpec,
    GoldSpec,
    add_annotator,
    campaign_details,
    create_campaign,
    find_campaign,
    gold_report,
)
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import (
    Campaign,
    Model,
    Output,
    PairLease,
    Reference,
    ScheduledPair,
    Turn,
    Vote,
)

PLUGINS = registry_with_all_protocols()
PROTOCOLS = [protocol.name for protocol in PLUGINS.protocols()]

#: every field name a blind task may contain; anything new must be reviewed for leaks
BLIND_FIELDS = {
    "token",
    "protocol",
    "images",
    "captions",
    "turns",
    "judged_turn",
    "response_labels",
    "progress",
    "position",
    "data",
    "format",
    "image_position",
    "text",
    "index",
    "prompt",
    "reference",
    "responses",
    "done",
    "remaining",
    "skipped",
    "campaign_tasks",
    "flagged",
}


@pytest.fixture(scope="module")
def template(bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory) -> Path | str:
    return build_campaign_bundle(
        tmp_path_factory.mktemp("template"), items=3, into=bundle_backend.new_location()
    )


@pytest.fixture
def bundle(template: Path | str, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    with bundle_backend.opened_copy(template) as opened:
        add_annotator(opened, "ann")
        add_annotator(opened, "bob")
        yield opened


def make_campaign(bundle: Bundle, protocol: str, **overrides: Any) -> None:
    create_campaign(bundle, CampaignSpec("c", protocol, seed=5, **overrides), PLUGINS)


def answer_for(protocol: AnnotationProtocol, pick: int = 0) -> dict[str, Any]:
    if protocol.grade_scale is not None:
        value: Any = protocol.grade_scale.values()[pick % len(protocol.grade_scale.values())]
    else:
        plain = [c for c in protocol.choices if c.value not in protocol.comment_required_for]
        value = plain[pick % len(plain)].value
    return {criterion.name: value for criterion in protocol.criteria}


def field_names(value: Any) -> set[str]:
    names: set[str] = set()
    if dataclasses.is_dataclass(value):
        for item in dataclasses.fields(value):
            names.add(item.name)
            names |= field_names(getattr(value, item.name))
    elif isinstance(value, tuple):
        for element in value:
            names |= field_names(element)
    return names


def as_text(task: BlindTask) -> str:
    def encode(value: Any) -> Any:
        return value.hex() if isinstance(value, bytes) else str(value)

    return json.dumps(dataclasses.asdict(task), default=encode) + repr(task)


def expected_texts(
    bundle: Bundle, row: dict[str, Any], protocol: AnnotationProtocol
) -> list[tuple[Any, ...]]:
    """Per shown turn, the texts the schedule says should be on the left and right."""
    with bundle.read_session() as session:
        turns = session.execute(
            select(Turn.id, Turn.index)
            .join(Turn.item)
            .where(Turn.item.has(external_id=row["item"]))
            .order_by(Turn.index)
        ).all()
        result = []
        for turn_id, index in turns:
            if row["turn"] is not None and index > row["turn"]:
                continue
            texts = []
            for side in ("left", "right")[: protocol.output_count]:
                name = row[side]
                if name is None:
                    texts.append(
                        session.scalar(select(Reference.text).where(Reference.turn_id == turn_id))
                    )
                else:
                    texts.append(
                        session.scalar(
                            select(Output.text)
                            .join(Model)
                            .where(Output.turn_id == turn_id, Model.name == name)
                        )
                    )
            result.append(tuple(texts))
        return result


@pytest.mark.parametrize("protocol_name", PROTOCOLS)
def test_every_task_of_a_campaign_is_blind_and_in_its_scheduled_positions(
    bundle: Bundle, protocol_name: str, caplog: pytest.LogCaptureFixture
) -> None:
    make_campaign(bundle, protocol_name)
    schedule = campaign_details(bundle, "c")["schedule"]
    protocol = PLUGINS.protocol(protocol_name)
    session = AnnotationSession(bundle, "c", "ann", PLUGINS)
    with bundle.read_session() as read:
        model_ids = {str(model_id) for model_id in read.scalars(select(Model.id))}
    forbidden = [*MODELS, "model_id", "model", "output", "external_id", "items.jsonl", "a.png"]
    caplog.set_level(logging.DEBUG)
    for seen, row in enumerate(schedule):
        task = session.next_task()
        assert task is not None
        assert field_names(task) <= BLIND_FIELDS
        text = as_text(task).lower()
        for word in forbidden:
            assert word.lower() not in text, (word, row["sequence"])
        assert task.token not in model_ids and len(task.token) >= 16
        shown = [turn.responses for turn in task.turns]
        assert shown == expected_texts(bundle, row, protocol)
        assert task.response_labels == ("Response 1", "Response 2")[: protocol.output_count]
        assert task.judged_turn == row["turn"]
        assert task.progress.done == seen and task.progress.total == len(schedule)
        references = [turn.reference for turn in task.turns]
        if protocol.shows_reference:
            assert all(reference for reference in references)
        else:
            assert references == [None] * len(task.turns)
        assert bool(task.captions) == protocol.shows_caption
        assert [image.position for image in task.images] == [0]
        assert task.images[0].data and task.images[0].format == "png"
        session.cast(task.token, answer_for(protocol, seen), comment="fine")
    assert session.next_task() is None
    logged = caplog.text.lower()
    assert not any(model.lower() in logged for model in MODELS)


@pytest.mark.parametrize("protocol_name", PROTOCOLS)
def test_vote_skip_undo_resume(bundle: Bundle, protocol_name: str) -> None:
    make_campaign(bundle, protocol_name)
    protocol = PLUGINS.protocol(protocol_name)
    schedule = campaign_details(bundle, "c")["schedule"]
    session = AnnotationSession(bundle, "c", "ann", PLUGINS)

    first = session.next_task()
    assert first is not None
    assert session.next_task() == first  # the same task until it is answered
    receipt = session.cast(first.token, answer_for(protocol))
    assert len(receipt.uuids) == len(protocol.criteria)
    assert receipt.progress.done == 1 and receipt.progress.total == len(schedule)

    second = session.next_task()
    assert second is not None
    assert second.turns != first.turns or second.token != first.token
    session.skip(second.token, "image does not load")
    third = session.next_task()
    assert third is not None
    assert third.progress.done == 2

    back = session.undo()  # takes back the skip: the second task is current again
    assert back is not None
    assert back is not None and back.turns == second.turns and back.token != second.token
    assert session.next_task() == back
    with pytest.raises(StaleTaskError):
        assert third is not None
        session.cast(third.token, answer_for(protocol))

    resumed = AnnotationSession(bundle, "c", "ann", PLUGINS)  # as after a crash
    again = resumed.next_task()
    assert again is not None
    assert again.turns == second.turns and again.progress.done == 1
    with pytest.raises(StaleTaskError):
        assert second is not None
        session.cast(second.token, answer_for(protocol))  # an old token means nothing
    resumed.cast(again.token, answer_for(protocol, 1), comment="  considered  ")
    with pytest.raises(StaleTaskError):
        resumed.cast(again.token, answer_for(protocol))  # one answer per task
    given = resumed.next_task()
    assert given is not None
    assert given.turns == third.turns

    with bundle.read_session() as read:
        votes = list(read.scalars(select(Vote).order_by(Vote.id)))
        names: dict[int | None, str] = {
            model.id: model.name for model in read.scalars(select(Model))
        }
    by_sequence = {row["sequence"]: row for row in schedule}
    active = [vote for vote in votes if vote.retracted_at is None]
    (skip,) = [vote for vote in votes if vote.skip_reason is not None]
    assert skip.retracted_at is not None and skip.skip_reason == "image does not load"
    assert len(active) == 2 * len(protocol.criteria)
    with bundle.read_session() as read:
        sequences = {pair.id: pair.sequence for pair in read.scalars(select(ScheduledPair))}
    for vote in active:
        assert vote.pair_id is not None
        row = by_sequence[sequences[vote.pair_id]]
        # the vote keeps who was shown where: with the choice, that says which model won
        assert names.get(vote.model_a_id) == row["left"]
        assert names.get(vote.model_b_id) == row["right"]
        assert vote.shown_at is not None and vote.cast_at >= vote.shown_at
        assert vote.duration_ms is not None and vote.duration_ms >= 0
        assert len(vote.uuid) == 32
        assert (vote.grade is not None) == (protocol.grade_scale is not None)
        assert vote.criterion in {criterion.name for criterion in protocol.criteria}
    comments = [vote.comment for vote in active if vote.comment]
    assert comments == ["considered"]  # stripped, once per answer


def test_votes_per_pair_across_annotators_and_no_repeats(bundle: Bundle) -> None:
    make_campaign(bundle, "arena-battle", models=list(MODELS[:2]), votes_per_pair=2)
    add_annotator(bundle, "cat")
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    bob = AnnotationSession(bundle, "c", "bob", PLUGINS)
    cat = AnnotationSession(bundle, "c", "cat", PLUGINS)
    seen_by_ann = []
    while (task := ann.next_task()) is not None:
        seen_by_ann.append(task.turns)
        ann.cast(task.token, "a")
    assert len(seen_by_ann) == 3 and len({repr(turns) for turns in seen_by_ann}) == 3
    skipped = bob.next_task()
    assert skipped is not None
    bob.skip(skipped.token, "unsure")
    for _ in range(2):
        task = bob.next_task()
        assert task is not None
        # a skipped task is not given to them again
        assert skipped is not None
        assert same_task(task.turns, skipped.turns) is False
        bob.cast(task.token, "b")
    assert bob.next_task() is None
    # two tasks have their two votes; the one bob skipped still needs one, which cat gets (in
    # either order: ann saw it one way, bob the other)
    only = cat.next_task()
    assert only is not None
    assert same_task(only.turns, skipped.turns) and only.progress.total == 1
    cat.cast(only.token, "tie")
    assert cat.next_task() is None
    details = campaign_details(bundle, "c")
    assert details["complete_tasks"] == 3
    assert details["annotators"] == {
        "ann": {"answered": 3, "skipped": 0},
        "bob": {"answered": 2, "skipped": 1},
        "cat": {"answered": 1, "skipped": 0},
    }


def expire_leases(bundle: Bundle) -> None:
    with bundle.session() as session:
        session.execute(update(PairLease).values(expires_at=datetime.now(UTC) - timedelta(1)))


def test_undo_brings_a_task_back_even_when_others_filled_it(bundle: Bundle) -> None:
    make_campaign(bundle, "arena-battle", models=list(MODELS[:2]))
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    task = ann.next_task()
    assert task is not None
    ann.cast(task.token, "a")
    given = ann.undo()
    assert given is not None
    assert given.turns == task.turns
    bob = AnnotationSession(bundle, "c", "bob", PLUGINS)
    bobs = bob.next_task()
    assert bobs is not None
    assert bobs.turns != task.turns  # undo leased the task to ann again
    bob.cast(bobs.token, "b")
    expire_leases(bundle)  # ann left it on screen past the lease: bob may take it now
    bobs = bob.next_task()
    assert bobs is not None
    assert bobs.turns == task.turns
    bob.cast(bobs.token, "b")
    current = ann.next_task()
    assert current is not None
    assert current.turns == task.turns and current.progress.remaining >= 1
    ann.cast(current.token, "a")
    assert ann.undo() is not None and ann.undo() is None  # nothing older to undo


def test_answers_are_checked(bundle: Bundle) -> None:
    make_campaign(bundle, "chirp-five-criteria")
    session = AnnotationSession(bundle, "c", "ann", PLUGINS)
    task = session.next_task()
    with pytest.raises(AnswerError, match="answer each question"):
        assert task is not None
        session.cast(task.token, "a")
    with pytest.raises(AnswerError, match="missing: Detail"):
        assert task is not None
        session.cast(
            task.token,
            {
                "overall": "a",
                "relevance_completeness": "a",
                "understanding_reasoning": "b",
                "hallucination": "tie",
            },
        )
    with pytest.raises(AnswerError, match="choose one of: Response 1, Response 2, Tie"):
        assert task is not None
        session.cast(task.token, dict.fromkeys(answer_for(session.protocol), "both_bad"))
    with pytest.raises(AnswerError, match="no question speed"):
        assert task is not None
        session.cast(task.token, {**answer_for(session.protocol), "speed": "a"})
    with pytest.raises(AnswerError, match="say why"):
        assert task is not None
        session.skip(task.token, "  ")
    assert session.progress().done == 0


def test_grades_and_required_comments_are_checked(bundle: Bundle) -> None:
    make_campaign(bundle, "convbench-turn-grade")
    grading = AnnotationSession(bundle, "c", "ann", PLUGINS)
    task = grading.next_task()
    assert task is not None
    for bad in (11, -1, 2.5, "x", True):
        with pytest.raises(AnswerError):
            assert task is not None
            grading.cast(task.token, bad)
    grading.cast(task.token, "10")
    create_campaign(bundle, CampaignSpec("v", "visit-bench-verification"), PLUGINS)
    verifying = AnnotationSession(bundle, "v", "ann", PLUGINS)
    task = verifying.next_task()
    assert task is not None
    assert verifying.protocol.display is Display.NONE and task.turns[0].responses == ()
    with pytest.raises(AnswerError, match="needs a comment"):
        assert task is not None
        verifying.cast(task.token, "problem_in_caption")
    verifying.cast(task.token, "problem_in_caption", comment="the caption misses the dog")


def test_gold_checks_go_to_everyone_and_are_reported_apart(bundle: Bundle) -> None:
    gold = [GoldSpec("q000", "a", first="alphavision-7b", second="betachat-13b")]
    make_campaign(bundle, "chirp-five-criteria", models=list(MODELS[:2]), gold=gold)
    for handle, answers_right in (("ann", True), ("bob", False)):
        session = AnnotationSession(bundle, "c", handle, PLUGINS)
        while (task := session.next_task()) is not None:
            # the known answer is "alphavision-7b is better"; answer it by looking it up
            left_is_alpha = "variant 0" in task.turns[0].responses[0]
            correct = "a" if left_is_alpha else "b"
            choice = correct if answers_right else {"a": "b", "b": "a"}[correct]
            session.cast(task.token, dict.fromkeys(answer_for(session.protocol), choice))
    with bundle.read_session() as read:
        report = gold_report(read, find_campaign(read, "c"))
    assert report == {"ann": {"answered": 1, "correct": 1}, "bob": {"answered": 1, "correct": 0}}
    details = campaign_details(bundle, "c")
    assert details["gold"] == report
    # the gold task does not count toward completing the campaign's regular tasks
    assert details["complete_tasks"] == 3


def test_unknown_annotator(bundle: Bundle) -> None:
    make_campaign(bundle, "arena-battle")
    with pytest.raises(UnknownAnnotatorError, match="workbench annotator add"):
        AnnotationSession(bundle, "c", "nobody", PLUGINS)


def test_registry_is_used_for_the_protocol(bundle: Bundle) -> None:
    make_campaign(bundle, "arena-battle")
    session = AnnotationSession(bundle, "c", "ann", PLUGINS)
    assert isinstance(PLUGINS, Registry)
    assert session.protocol is PLUGINS.protocol("arena-battle")
    both_bad = session.protocol.choice_for_key("x")
    assert both_bad is not None and both_bad.value == "both_bad"


def test_a_vote_and_the_next_task_load_no_task_object_and_check_the_settings_once(
    bundle: Bundle, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's step reads the task's columns, not ORM objects of it (loading one cost CPU
    at every vote), does not check again on SQLite that the task it found open is open, and
    checks the campaign's settings again only when they change (changed settings are seen at
    the next hand-out)."""
    from sqlalchemy import event

    from workbench.services.campaign_settings import CampaignSettings, CampaignSettingsError

    make_campaign(bundle, "arena-battle", models=list(MODELS[:3]), votes_per_pair=1)
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    task = ann.next_task()
    assert task is not None
    loaded: list[int] = []
    checked: list[str] = []
    original = CampaignSettings.from_json

    def from_json(cls: type[CampaignSettings], data: Any, campaign: str) -> CampaignSettings:
        checked.append(campaign)
        return original(data, campaign)

    def load(target: ScheduledPair, _context: object) -> None:
        loaded.append(target.id)

    ran: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        ran.append(" ".join(statement.split()))

    monkeypatch.setattr(CampaignSettings, "from_json", classmethod(from_json))
    event.listen(ScheduledPair, "load", load)
    event.listen(bundle.engine, "before_cursor_execute", record)
    try:
        for _ in range(3):
            _receipt, task = ann.cast_and_next(task.token, "a")
            assert task is not None
    finally:
        event.remove(ScheduledPair, "load", load)
        event.remove(bundle.engine, "before_cursor_execute", record)
    assert loaded == []
    if bundle.engine.dialect.name == "sqlite":
        # the writer holds the database's lock from BEGIN: the task found open is still open
        assert not [s for s in ran if s.startswith("SELECT EXISTS (SELECT scheduled_pairs.id")]
    assert checked == []  # the settings read at each hand-out are the ones checked before
    with bundle.session() as session:
        campaign = session.scalars(select(Campaign).where(Campaign.name == "c")).one()
        campaign.settings = {**campaign.settings, "pair_choice": "changed"}
    with pytest.raises(CampaignSettingsError, match="pair_choice"):
        ann.cast_and_next(task.token, "a")  # changed settings are checked again


def test_a_vote_and_the_next_task_splice_no_list_of_ids_into_their_sql(bundle: Bundle) -> None:
    """Every statement of the worker's step names its task, item and models by plain
    parameters: a list of ids (SQLAlchemy's "expanding" parameter) is spliced into the SQL at
    every execution, which cost CPU at every vote."""
    from sqlalchemy import event

    make_campaign(bundle, "arena-battle", models=list(MODELS[:3]), votes_per_pair=1)
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    task = ann.next_task()
    assert task is not None
    spliced: list[str] = []
    ran: list[str] = []

    def record(
        _conn: Any, _cursor: Any, statement: str, _parameters: Any, context: Any, _many: bool
    ) -> None:
        ran.append(statement)
        if context.compiled is not None and context.compiled.post_compile_params:
            spliced.append(" ".join(statement.split()))

    event.listen(bundle.engine, "before_cursor_execute", record)
    try:
        for _ in range(2):
            _receipt, task = ann.cast_and_next(task.token, "a")
            assert task is not None
    finally:
        event.remove(bundle.engine, "before_cursor_execute", record)
    assert ran and spliced == []
    assert all(turn.responses[0] and turn.responses[1] for turn in task.turns)


def test_cast_and_next_commits_the_vote_and_the_next_lease_together(bundle: Bundle) -> None:
    """The view's step: the same tasks, votes and leases as cast then next_task,
    with the vote and the next lease in one write transaction."""
    from sqlalchemy import event

    make_campaign(bundle, "arena-battle", models=list(MODELS[:2]), votes_per_pair=1)
    ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
    bob = AnnotationSession(bundle, "c", "bob", PLUGINS)
    commits: list[int] = []

    def count(_connection: object) -> None:
        commits.append(1)

    event.listen(bundle.engine, "commit", count)
    try:
        first = ann.next_task()
        assert first is not None
        commits.clear()
        receipt, second = ann.cast_and_next(first.token, "a")
        together = len(commits)
        commits.clear()
        assert second is not None
        ann.cast(second.token, "b")  # the reference: the same step in two calls
        third = ann.next_task()
        apart = len(commits)
    finally:
        event.remove(bundle.engine, "commit", count)
    assert together == apart - 1  # one write transaction fewer; the task's read stays
    assert len(receipt.uuids) == 1 and receipt.progress.done == 1
    assert first is not None and second is not None and third is not None
    assert len({repr(task.turns) for task in (first, second, third)}) == 3
    with pytest.raises(StaleTaskError):  # the answered task's token is spent
        ann.cast(first.token, "b")
    assert bob.next_task() is None  # the third task is leased to ann
    assert third is not None
    receipt, last = ann.cast_and_next(third.token, "tie")
    assert last is None and receipt.progress.done == 3
    assert campaign_details(bundle, "c")["complete_tasks"] == 3
