"""Adaptive campaigns: the next task's model pair is chosen from the votes so far, concentrates on
the pairs whose order is open, keeps blindness and counterbalanced positions, is logged and can
be replayed from the log; pairing can be switched before the first vote and not after."""

from __future__ import annotations

import json
import math
import random
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import func, select

from tests.backends import BundleBackend
from tests.services.campaign_helpers import build_campaign_bundle, registry_with_all_protocols
from workbench.cli import main
from workbench.plugins import Registry
from workbench.services import adaptive_pairing
from workbench.services.adaptive_pairing import (
    adaptive_standing,
    build_state,
    campaign_candidates,
    probabilities_digest,
    replay_choices,
    set_pair_choice,
)
from workbench.services.campaign_errors import CampaignError
from workbench.services.campaign_settings import changed_settings
from workbench.services.campaigns import (
    CampaignSpec,
    add_annotator,
    create_campaign,
    find_annotator,
    find_campaign,
)
from workbench.services.monitor import campaign_status
from workbench.services.packs import merge_pack, pack_info
from workbench.services.sync import copy_bundle_rows
from workbench.services.voting import AnnotationSession
from workbench.stats.active_sampling import pair_weights
from workbench.storage import Bundle
from workbench.storage.models import Model, PairChoice, ScheduledPair, Vote

#: true strengths (natural log-odds): two far apart, two close together (close enough that 150
#: votes leave their order open, far enough that more votes would settle it)
STRENGTHS = {"far-above": 3.0, "close-one": 0.4, "close-two": -0.4, "far-below": -3.0}
MODELS = tuple(STRENGTHS)
CLOSE = frozenset(("close-one", "close-two"))
VOTES = 150


@pytest.fixture(scope="module")
def plugins() -> Registry:
    return registry_with_all_protocols()


@pytest.fixture(scope="module")
def template(bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory) -> Path | str:
    return build_campaign_bundle(
        tmp_path_factory.mktemp("adaptive"),
        items=60,
        models=MODELS,
        turns=1,
        into=bundle_backend.new_location(),
    )


@pytest.fixture
def bundle(template: Path | str, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    with bundle_backend.opened_copy(template) as opened:
        add_annotator(opened, "ann")
        add_annotator(opened, "bea")
        yield opened


def create(bundle: Bundle, plugins: Registry, name: str, pair_choice: str, seed: int = 3) -> None:
    spec = CampaignSpec(name, "arena-battle", seed=seed, pair_choice=pair_choice)
    create_campaign(bundle, spec, plugins)


def shown_models(bundle: Bundle, session: AnnotationSession) -> tuple[str, str]:
    """The models of the task on screen in the order shown (the test's oracle, not the view)."""
    shown = session._shown
    assert shown is not None
    with bundle.read_session() as db:
        pair = db.get_one(ScheduledPair, shown.pair_id)
        # looked up by a pair's model ids, which the schema allows to be None (a reference)
        names: dict[int | None, str] = dict(db.execute(select(Model.id, Model.name)).all())
    left, right = names[pair.left_model_id], names[pair.right_model_id]
    return (right, left) if shown.swapped else (left, right)


def simulate(
    bundle: Bundle,
    plugins: Registry,
    name: str,
    votes: int,
    seed: int = 0,
    handle: str = "ann",
    strengths: dict[str, float] = STRENGTHS,
) -> list[frozenset[str]]:
    """An annotator answering ``votes`` tasks as the true strengths say (Bradley-Terry), and the
    model pair of each task in the order it was handed out."""
    rng = random.Random(seed)
    session = AnnotationSession(bundle, name, handle, plugins)
    pairs = []
    for _ in range(votes):
        task = session.next_task()
        if task is None:
            break
        left, right = shown_models(bundle, session)
        assert left not in repr(task) and right not in repr(task)
        pairs.append(frozenset((left, right)))
        p_left = 1 / (1 + math.exp(strengths[right] - strengths[left]))
        session.cast(task.token, "a" if rng.random() < p_left else "b")
    return pairs


def close_share(pairs: list[frozenset[str]]) -> float:
    return sum(pair == CLOSE for pair in pairs) / len(pairs)


@pytest.mark.parametrize("pair_choice", ["adaptive", "uniform"])
def test_adaptive_tasks_concentrate_on_the_close_pair(
    bundle: Bundle, plugins: Registry, pair_choice: str, capsys: pytest.CaptureFixture[str]
) -> None:
    create(bundle, plugins, "c", pair_choice)
    pairs = simulate(bundle, plugins, "c", VOTES)
    assert len(pairs) == VOTES
    later = close_share(pairs[VOTES // 2 :])
    # six candidate pairs: uniform pairing gives the close one about a sixth of the tasks; the
    # votes and draws are seeded, so each share is one fixed number (0.28 and 0.11 when written)
    if pair_choice == "adaptive":
        assert later >= 0.25, later
    else:
        assert later <= 0.2, later
    with bundle.read_session() as db:
        logged = db.scalars(select(PairChoice.ordinal).order_by(PairChoice.ordinal)).all()
    assert logged == (list(range(1, VOTES + 1)) if pair_choice == "adaptive" else [])
    status = campaign_status(bundle, "c")
    if pair_choice == "uniform":
        assert status["pairing"] == "uniform" and status["adaptive"] is None
        return
    # the monitor: the close pair has had the most battles, the far pair is resolved, and each
    # pair is resolved exactly when its interval excludes 0, unresolved ones listed first
    standing = status["adaptive"]
    rows = {frozenset((row["first"], row["second"])): row for row in standing["pairs"]}
    assert rows[CLOSE]["battles"] == max(row["battles"] for row in rows.values())
    far = rows[frozenset(("far-above", "far-below"))]
    assert far["resolved"] and far["low"] > 0
    for row in standing["pairs"]:
        assert row["resolved"] == (row["low"] > 0 or row["high"] < 0)
    resolved = [row["resolved"] for row in standing["pairs"]]
    assert resolved == sorted(resolved)  # unresolved first
    assert main(["campaign", "status", str(bundle.location), "c"]) == 0
    printed = capsys.readouterr().out
    assert f"{standing['unresolved']} of 6 pair(s) unresolved" in printed
    assert "adaptive pairing (adjacent-design rule)" in printed
    for row in standing["pairs"]:
        assert (f"{row['first']} - {row['second']}:" in printed) == (not row["resolved"])


def test_positions_stay_counterbalanced_and_every_choice_replays(
    bundle: Bundle, plugins: Registry, capsys: pytest.CaptureFixture[str]
) -> None:
    create(bundle, plugins, "c", "adaptive")
    simulate(bundle, plugins, "c", 40, handle="ann")
    simulate(bundle, plugins, "c", 20, seed=1, handle="bea")
    with bundle.read_session() as db:
        voted = db.execute(
            select(Vote.shown_swapped, ScheduledPair.left_model_id, ScheduledPair.right_model_id)
            .join(ScheduledPair, ScheduledPair.id == Vote.pair_id)
            .where(Vote.annotator_id.is_not(None))
        ).all()
        standing = adaptive_standing(db, find_campaign(db, "c"))
    first_shown: Counter[int | None] = Counter()
    for swapped, left, right in voted:
        first_shown[right if swapped else left] += 1
        first_shown[left if swapped else right] -= 1
    # the schedule is counterbalanced and the choice does not look at positions
    assert max(abs(value) for value in first_shown.values()) <= 10
    replay = replay_choices(bundle, "c")
    assert replay.ok and replay.choices == replay.replayed == 60
    assert standing["choices_logged"] == 60
    assert {row["first"] for row in standing["pairs"]} <= set(MODELS)
    assert standing["unresolved"] == sum(not row["resolved"] for row in standing["pairs"])
    assert main(["campaign", "replay-choices", str(bundle.location), "c"]) == 0
    assert "60 of 60 logged choice(s)" in capsys.readouterr().out
    assert main(["campaign", "status", str(bundle.location), "c", "--verify"]) == 0
    assert "verify: c (adaptive pairing): 60 of 60 logged choice(s)" in capsys.readouterr().out


#: three models a little apart: after a few votes every adjacent difference is settled at the
#: campaign's horizon, where the design's criterion vanishes and its ordering term decides
SPREAD = {"far-above": 0.8, "close-one": 0.0, "far-below": -0.8}


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_campaign_whose_order_is_settled_keeps_choosing_among_its_open_pairs(
    plugins: Registry, bundle_backend: BundleBackend, tmp_path: Path
) -> None:
    location = build_campaign_bundle(
        tmp_path, items=10, models=tuple(SPREAD), turns=1, into=bundle_backend.new_location()
    )
    with Bundle.open(location) as bundle:
        add_annotator(bundle, "ann")
        create(bundle, plugins, "c", "adaptive")
        # the rounding of a vanished criterion once made every probability NaN (with a
        # RuntimeWarning), and each draw then fell on the last candidate pair, open or not
        pairs = simulate(bundle, plugins, "c", 30, strengths=SPREAD)
        assert len(pairs) == 30
        assert len(set(pairs)) == 3
        replay = replay_choices(bundle, "c")
        assert replay.ok and replay.replayed == 30
        with bundle.read_session() as db:
            standing = adaptive_standing(db, find_campaign(db, "c"))
        assert all(math.isfinite(row["next_probability"]) for row in standing["pairs"])


@pytest.fixture(scope="module")
def twelve_choices(
    template: Path | str, bundle_backend: BundleBackend, plugins: Registry
) -> Path | str:
    """The ``bundle`` of a test with campaign "c" (adaptive) and its first 12 choices voted,
    made once for the tests that each tamper with a copy of its log; read-only."""
    location = bundle_backend.copy(template)
    with Bundle.open(location) as opened:
        add_annotator(opened, "ann")
        add_annotator(opened, "bea")
        create(opened, plugins, "c", "adaptive")
        simulate(opened, plugins, "c", 12)
    return location


@pytest.fixture
def voted_twelve(twelve_choices: Path | str, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    """A copy of ``twelve_choices``, open, for a test to write to."""
    with bundle_backend.opened_copy(twelve_choices) as opened:
        yield opened


@pytest.mark.parametrize("column", ["chosen", "draw", "votes_added"])
def test_a_tampered_log_fails_replay(
    voted_twelve: Bundle, column: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = voted_twelve
    with bundle.session() as db:
        row = db.scalars(select(PairChoice).where(PairChoice.ordinal == 7)).one()
        if column == "chosen":
            others = [number for number in row.available if number != row.chosen]
            row.chosen = others[0]
        elif column == "draw":
            row.draw = (row.draw + 0.5) % 1
        else:
            row.votes_added = [*row.votes_added[1:]] if row.votes_added else ["0" * 32]
    replay = replay_choices(bundle, "c")
    assert not replay.ok
    assert replay.first_mismatch is not None and replay.first_mismatch["ordinal"] == 7
    assert replay.replayed == 6
    assert main(["campaign", "replay-choices", str(bundle.location), "c"]) == 1
    assert "choice 7 differs" in capsys.readouterr().out
    # status checks the log by the same replay when asked, and only then
    assert main(["campaign", "status", str(bundle.location), "c"]) == 0
    assert "verify" not in capsys.readouterr().out
    assert main(["campaign", "status", str(bundle.location), "c", "--verify"]) == 1
    printed = capsys.readouterr().out
    assert "6 of 12 logged choice(s)" in printed and "the log does not match" in printed
    assert f"choice 7 differs in {replay.first_mismatch['what']}" in printed
    assert main(["campaign", "status", str(bundle.location), "c", "--verify", "--json"]) == 1
    verify = json.loads(capsys.readouterr().out)["verify"]
    assert verify["ok"] is False and verify["first_mismatch"]["ordinal"] == 7


def test_pairing_switches_before_the_first_vote_and_not_after(
    bundle: Bundle, plugins: Registry, capsys: pytest.CaptureFixture[str]
) -> None:
    create(bundle, plugins, "c", "uniform")
    # an annotator's session is open while the campaign is switched: its next task follows
    session = AnnotationSession(bundle, "c", "ann", plugins)
    location = str(bundle.location)
    assert main(["campaign", "set-pairing", location, "c", "adaptive"]) == 0
    assert "uniform pairing -> adaptive pairing" in capsys.readouterr().out
    task = session.next_task()
    assert task is not None
    with bundle.read_session() as db:
        assert session._shown is not None
        assert db.scalars(select(PairChoice.pair_id)).all() == [session._shown.pair_id]
    session.cast(task.token, "tie")
    with pytest.raises(CampaignError, match="cannot change once voting has started"):
        set_pair_choice(bundle, "c", "uniform")
    assert main(["campaign", "set-pairing", location, "c", "uniform"]) != 0
    assert "cannot change once voting has started" in capsys.readouterr().err
    with bundle.read_session() as db:
        assert find_campaign(db, "c").settings["pair_choice"] == "adaptive"


def test_create_states_adaptive_pairing_and_refuses_it_where_it_cannot_apply(
    bundle: Bundle, plugins: Registry, capsys: pytest.CaptureFixture[str]
) -> None:
    location = str(bundle.location)
    args = ["campaign", "create", location, "--name", "c", "--protocol", "arena-battle"]
    assert main([*args, "--pairing", "adaptive", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would create campaign 'c'" in out and "adaptive pairing over all pairs" in out
    assert main([*args, "--dry-run"]) == 0
    assert "(arena-battle, all pairing," in capsys.readouterr().out
    with pytest.raises(CampaignError, match="--pairing adaptive"):
        create_campaign(
            bundle, CampaignSpec("g", "convbench-turn-grade", pair_choice="adaptive"), plugins
        )
    with bundle.read_session() as db:
        assert db.scalar(select(PairChoice.id)) is None


def test_several_annotators_at_once_each_choice_logged_once(
    bundle: Bundle, plugins: Registry
) -> None:
    create(bundle, plugins, "c", "adaptive")
    errors: list[BaseException] = []

    def work(handle: str, seed: int) -> None:
        try:
            with Bundle.open(bundle.location) as own:
                simulate(own, plugins, "c", 15, seed=seed, handle=handle)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(h, n)) for n, h in enumerate(("ann", "bea"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    with bundle.read_session() as db:
        ordinals = db.scalars(select(PairChoice.ordinal).order_by(PairChoice.ordinal)).all()
        voted = Counter(db.scalars(select(Vote.pair_id).where(Vote.retracted_at.is_(None))))
    assert ordinals == list(range(1, 31))
    # one vote per task: no task was handed to both
    assert sum(voted.values()) == 30 and max(voted.values()) == 1
    assert replay_choices(bundle, "c").ok


def test_a_pack_carries_a_batch_chosen_at_packing_time_and_merging_counts_its_votes(
    bundle: Bundle, plugins: Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    create(bundle, plugins, "c", "adaptive")
    simulate(bundle, plugins, "c", 30)  # the far pairs' order is settled by now
    out = tmp_path / "pack.wbb"
    location = str(bundle.location)
    command = ["pack", "export", location, "--campaign", "c", "--annotator", "bea"]
    assert main([*command, "--out", str(out), "--limit", "20"]) == 0
    printed = capsys.readouterr().out
    assert "adaptive pairing: 20 task(s) chosen now" in printed
    assert "(logged choices 31-50)" in printed
    with Bundle.open(out) as pack:
        info = pack_info(pack)
        assert info is not None and info.pairing == "adaptive" and info.choices == (31, 50)
    with bundle.read_session() as db:
        packed = db.execute(
            select(PairChoice.pair_id, PairChoice.origin).where(PairChoice.ordinal > 30)
        ).all()
        names: dict[int | None, str] = dict(db.execute(select(Model.id, Model.name)).all())
        packed_pairs = [
            frozenset((names[task.left_model_id], names[task.right_model_id]))
            for task in db.scalars(
                select(ScheduledPair).where(ScheduledPair.id.in_([p for p, _ in packed]))
            )
        ]
    assert {origin for _, origin in packed} == {"pack"} and len(packed) == 20
    # one state for the whole batch (no vote can arrive while it is drawn), several pairs
    assert len(set(packed_pairs)) > 1
    with bundle.read_session() as db:
        states = set(db.scalars(select(PairChoice.state_sha256).where(PairChoice.ordinal > 30)))
    assert len(states) == 1
    # the annotator answers the pack offline; merging brings the votes back
    with Bundle.open(out) as pack:
        session = AnnotationSession(pack, "c", "bea", plugins)
        while (task := session.next_task()) is not None:
            session.cast(task.token, "tie")
    report = merge_pack(bundle, out)
    assert report.added == 20 and report.adaptive_choices == list(range(31, 51))
    # the next choice counts the pack's votes, and the whole log replays
    simulate(bundle, plugins, "c", 1)
    with bundle.read_session() as db:
        added = db.scalars(select(PairChoice.votes_added).where(PairChoice.ordinal == 51)).one()
        bea = find_annotator(db, "bea").id
        from_pack = set(db.scalars(select(Vote.uuid).where(Vote.annotator_id == bea)))
    assert set(added) == from_pack and len(from_pack) == 20
    assert replay_choices(bundle, "c").ok


def test_a_copy_of_the_bundle_carries_the_choice_log_and_replays(
    bundle: Bundle, plugins: Registry, tmp_path: Path
) -> None:
    create(bundle, plugins, "c", "adaptive")
    simulate(bundle, plugins, "c", 8)
    copy = tmp_path / "copy.wbb"
    copy_bundle_rows(bundle.location, copy)
    with Bundle.open(copy) as copied:
        replay = replay_choices(copied, "c")
    assert replay.ok and replay.choices == 8


def test_an_undone_vote_leaves_the_state_of_the_next_choice_and_the_log_replays(
    bundle: Bundle, plugins: Registry
) -> None:
    create(bundle, plugins, "c", "adaptive")
    simulate(bundle, plugins, "c", 5)
    session = AnnotationSession(bundle, "c", "ann", plugins)
    task = session.next_task()  # choice 6
    assert task is not None
    session.cast(task.token, "a")
    assert session.next_task() is not None  # choice 7 counts the vote
    again = session.undo()  # the vote is retracted, its task comes back without a choice
    assert again is not None
    with bundle.read_session() as db:
        assert db.scalar(select(func.max(PairChoice.ordinal))) == 7
        [retracted] = db.scalars(select(Vote.uuid).where(Vote.retracted_at.is_not(None))).all()
        seventh = db.scalars(select(PairChoice).where(PairChoice.ordinal == 7)).one()
        assert retracted in seventh.votes_added
    session.skip(again.token, "cannot tell")
    assert session.next_task() is not None  # choice 8 no longer counts it
    with bundle.read_session() as db:
        eighth = db.scalars(select(PairChoice).where(PairChoice.ordinal == 8)).one()
        assert eighth.votes_removed == [retracted] and eighth.votes_added == []
    assert replay_choices(bundle, "c").ok


def test_a_hand_out_reads_the_log_after_the_choice_it_remembers_and_only_once_committed(
    bundle: Bundle, plugins: Registry
) -> None:
    create(bundle, plugins, "c", "adaptive")
    simulate(bundle, plugins, "c", 5)
    with bundle.read_session() as db:
        campaign_id = find_campaign(db, "c").id
        last_vote = db.scalars(select(Vote.uuid).order_by(Vote.id.desc()).limit(1)).one()
    remembered = adaptive_pairing._LOGGED_PREFIXES[bundle.engine][campaign_id]
    assert remembered.ordinal == 5 and len(remembered.logged) == 4
    # a hand-out that rolls back is not remembered
    annotator = AnnotationSession(bundle, "c", "bea", plugins)
    with pytest.raises(RuntimeError), bundle.session() as db:
        assert annotator._claim(db) is not None
        raise RuntimeError("the transaction fails")
    assert adaptive_pairing._LOGGED_PREFIXES[bundle.engine][campaign_id] == remembered
    # a remembered choice whose row is not the log's is dropped and the whole log read again
    adaptive_pairing._LOGGED_PREFIXES[bundle.engine][campaign_id] = replace(
        remembered, row=(0, "0" * 64, 0), logged=frozenset()
    )
    assert annotator.next_task() is not None
    with bundle.read_session() as db:
        sixth = db.scalars(select(PairChoice).where(PairChoice.ordinal == 6)).one()
    assert sixth.votes_added == [last_vote] and sixth.votes_removed == []
    assert replay_choices(bundle, "c").ok


def test_the_open_pairs_are_those_with_a_task_short_of_its_votes(
    bundle: Bundle, plugins: Registry
) -> None:
    create(bundle, plugins, "c", "adaptive")
    simulate(bundle, plugins, "c", 6)
    with bundle.session() as db:
        campaign_id = find_campaign(db, "c").id
        # every task of one pair gets all its votes (by the counters)
        target = db.scalars(
            select(ScheduledPair).where(ScheduledPair.campaign_id == campaign_id).limit(1)
        ).one()
        full = adaptive_pairing.campaign_candidates(db, campaign_id).index_of_task(
            target.left_model_id, target.right_model_id
        )
        assert full is not None
        for task in db.scalars(
            select(ScheduledPair).where(
                ScheduledPair.campaign_id == campaign_id,
                adaptive_pairing.of_pair(
                    adaptive_pairing.campaign_candidates(db, campaign_id), full
                ),
            )
        ):
            task.votes_target = 0
        db.flush()
        candidates, unfinished = adaptive_pairing.candidates_and_unfinished(db, campaign_id)
        assert candidates == adaptive_pairing.campaign_candidates(db, campaign_id)
        assert len(candidates.pairs) == 6
        assert unfinished == [number for number in range(6) if number != full]


def test_a_campaign_naming_no_rule_chooses_and_replays_by_the_published_one(
    bundle: Bundle, plugins: Registry
) -> None:
    create(bundle, plugins, "new", "adaptive")
    create(bundle, plugins, "old", "adaptive")
    with bundle.session() as db:
        new, old = find_campaign(db, "new"), find_campaign(db, "old")
        assert new.settings["pair_rule"] == "adjacent-design"
        # a campaign stored before rules had names
        old.settings = changed_settings(old, pair_rule=None)
        assert "pair_rule" not in old.settings
    for name in ("new", "old"):
        simulate(bundle, plugins, name, 12)
        assert replay_choices(bundle, name).ok
    with bundle.read_session() as db:
        campaign = find_campaign(db, "old")
        candidates = campaign_candidates(db, campaign.id)
        first = db.scalars(
            select(PairChoice).where(PairChoice.campaign_id == campaign.id, PairChoice.ordinal == 1)
        ).one()
        standing = adaptive_standing(db, find_campaign(db, "new"))
    # the published rule's digest of the first (empty) state, without a rule name in it
    empty = build_state(candidates, [])
    published = probabilities_digest(pair_weights(empty).probabilities)
    assert first.probabilities_sha256 == published
    assert standing["rule"] == "adjacent-design"


def test_a_log_replayed_by_another_rule_fails_at_its_first_choice(
    bundle: Bundle, plugins: Registry
) -> None:
    create(bundle, plugins, "c", "adaptive")
    simulate(bundle, plugins, "c", 6)
    with bundle.session() as db:
        campaign = find_campaign(db, "c")
        campaign.settings = changed_settings(campaign, pair_rule="edge-weighted")
    replay = replay_choices(bundle, "c")
    assert replay.first_mismatch is not None
    assert replay.first_mismatch["ordinal"] == 1
    assert replay.first_mismatch["what"] == "probabilities_sha256"


def test_a_campaign_switched_to_adaptive_names_the_current_rule(
    bundle: Bundle, plugins: Registry
) -> None:
    create(bundle, plugins, "c", "uniform")
    with bundle.read_session() as db:
        assert find_campaign(db, "c").settings.get("pair_rule") is None
    set_pair_choice(bundle, "c", "adaptive")
    with bundle.read_session() as db:
        assert find_campaign(db, "c").settings["pair_rule"] == "adjacent-design"
