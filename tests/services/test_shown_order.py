"""The annotators of one task see it in alternating orders, every vote stores the order it was
shown in with its choice in the task's scheduled terms, and an offline pack carries the order
the main bundle leased."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.services.campaign_helpers import (
    MODELS,
    build_campaign_bundle,
    registry_with_all_protocols,
)
from workbench.services.campaign_settings import settings_of
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.packs import export_pack, merge_pack
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Annotator, Campaign, Flag, Output, ScheduledPair, Turn, Vote

PLUGINS = registry_with_all_protocols()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(build_campaign_bundle(tmp_path_factory.mktemp("shown"), items=6, turns=1))


def _campaign(path: Path, votes: int, annotators: tuple[str, ...]) -> Bundle:
    bundle = Bundle.open(path)
    for handle in annotators:
        add_annotator(bundle, handle)
    create_campaign(
        bundle,
        CampaignSpec("c", "arena-battle", models=list(MODELS), seed=11, votes_per_pair=votes),
        PLUGINS,
    )
    return bundle


def _first_shown(vote: Vote) -> int | None:
    return vote.model_b_id if vote.shown_swapped else vote.model_a_id


def _output_text(bundle: Bundle, pair_id: int, model_id: int | None) -> str:
    with bundle.read_session() as read:
        pair = read.get_one(ScheduledPair, pair_id)
        return read.scalars(
            select(Output.text)
            .join(Turn, Turn.id == Output.turn_id)
            .where(Turn.item_id == pair.item_id, Output.model_id == model_id)
        ).one()


def test_two_annotators_of_a_task_see_opposite_orders_and_each_model_first_half_the_time(
    template: Path, tmp_path: Path
) -> None:
    path = tmp_path / "b.wbb"
    path.write_bytes(template.read_bytes())
    handles = ("ann", "bob")
    with _campaign(path, 2, handles) as bundle:
        sessions = [AnnotationSession(bundle, "c", handle, PLUGINS) for handle in handles]
        shown_first: dict[str, list[str]] = defaultdict(list)
        while True:
            # in turns: each takes the task the other has just been given, or the next
            tasks = [session.next_task() for session in sessions]
            if all(task is None for task in tasks):
                break
            for session, task in zip(sessions, tasks, strict=True):
                if task is None:
                    continue
                shown_first[session.annotator_handle].append(task.turns[0].responses[0])
                session.cast(task.token, "a")  # Response 1, whichever model it is
        with bundle.read_session() as read:
            votes = list(read.scalars(select(Vote).where(Vote.retracted_at.is_(None))))
            task_count = len(list(read.scalars(select(ScheduledPair.id))))
            handle_of = dict(read.execute(select(Annotator.id, Annotator.handle)).all())
        by_task: dict[int, list[Vote]] = defaultdict(list)
        for vote in votes:
            assert vote.pair_id is not None
            by_task[vote.pair_id].append(vote)
        assert len(by_task) == task_count and all(len(pair) == 2 for pair in by_task.values())
        for pair_votes in by_task.values():
            # opposite orders; the choice is stored in the schedule's terms, so "Response 1"
            # reads "a" for the one shown the scheduled order and "b" for the other
            assert sorted(vote.shown_swapped for vote in pair_votes) == [False, True]
            for vote in pair_votes:
                assert vote.choice == ("b" if vote.shown_swapped else "a")
        # Response 1 on screen was the answer of the model the vote says was shown first
        for vote in votes[:6]:
            assert vote.pair_id is not None
            text = _output_text(bundle, vote.pair_id, _first_shown(vote))
            assert text in shown_first[handle_of[vote.annotator_id]]
        balance: dict[int, Counter[int | None]] = defaultdict(Counter)
        for vote in votes:
            first = _first_shown(vote)
            second = vote.model_a_id if vote.shown_swapped else vote.model_b_id
            balance[vote.annotator_id][first] += 1
            balance[vote.annotator_id][second] -= 1
        assert set(balance) == {1, 2}
        for tally in balance.values():
            assert len(tally) == len(MODELS)
            assert all(abs(difference) <= 1 for difference in tally.values()), tally


def test_three_annotators_of_a_task_see_each_order_within_one(
    template: Path, tmp_path: Path
) -> None:
    path = tmp_path / "b.wbb"
    path.write_bytes(template.read_bytes())
    handles = ("ann", "bob", "cat")
    with _campaign(path, 3, handles) as bundle:
        sessions = [AnnotationSession(bundle, "c", handle, PLUGINS) for handle in handles]
        # one after the other: ann does everything, then bob, then cat
        for session in sessions:
            while (task := session.next_task()) is not None:
                session.cast(task.token, "tie")
        with bundle.read_session() as read:
            votes = list(read.scalars(select(Vote)))
    swapped_per_task = Counter(vote.pair_id for vote in votes if vote.shown_swapped)
    shown_per_task = Counter(vote.pair_id for vote in votes)
    assert set(shown_per_task.values()) == {3}
    # each task: one or two of its three annotators saw it swapped, never none or all
    assert {swapped_per_task[pair] for pair in shown_per_task} == {1, 2}


def test_an_offline_pack_carries_the_order_and_its_votes_keep_it(
    template: Path, tmp_path: Path
) -> None:
    path = tmp_path / "b.wbb"
    path.write_bytes(template.read_bytes())
    with _campaign(path, 2, ("ann", "bob")) as bundle:
        ann = AnnotationSession(bundle, "c", "ann", PLUGINS)
        answered = 0
        while answered < 5 and (task := ann.next_task()) is not None:
            ann.cast(task.token, "a")
            answered += 1
        pack_path = tmp_path / "bob.wbpack"
        info = export_pack(bundle, "c", "bob", pack_path, limit=5)
        assert info.tasks == 5
        with Bundle.open(pack_path) as pack:
            with pack.read_session() as read:
                carried = settings_of(read.scalars(select(Campaign)).one()).shown_swapped
            # the five tasks ann answered in the schedule's order: bob gets them the other way
            assert carried is not None and len(carried) == 5
            bob = AnnotationSession(pack, "c", "bob", PLUGINS)
            flagged = False
            while (task := bob.next_task()) is not None:
                if not flagged:  # a flag raised in the pack comes home with the votes
                    bob.flag(task.token, "names_model", response=0)
                    flagged = True
                bob.cast(task.token, "a")
            with pack.read_session() as read:
                assert {vote.shown_swapped for vote in read.scalars(select(Vote))} == {True}
        report = merge_pack(bundle, pack_path)
        assert report.flags_added == 1
        assert merge_pack(bundle, pack_path).flags_added == 0  # merging again adds nothing
        with bundle.read_session() as read:
            flag = read.scalars(select(Flag)).one()
            first_vote = read.scalars(
                select(Vote).where(Vote.pair_id == flag.pair_id, Vote.shown_swapped.is_(True))
            ).one()
            # bob's Response 1 was the task's scheduled right model (shown swapped)
            assert flag.model_id == first_vote.model_b_id and flag.origin == "annotator"
            by_pair: dict[int | None, list[Vote]] = defaultdict(list)
            for vote in read.scalars(select(Vote)):
                by_pair[vote.pair_id].append(vote)
    assert len(by_pair) == 5
    for pair_votes in by_pair.values():
        assert sorted((v.shown_swapped, v.choice) for v in pair_votes) == [
            (False, "a"),
            (True, "b"),
        ]
