"""The practice round (workbench/services/practice.py, drawn by create_campaign): practice
tasks are disjoint from the schedule and the attention checks, shown blind, checked with
feedback, and never stored as votes or counted anywhere."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from tests.backends import BundleBackend
from tests.services.campaign_helpers import (
    MODELS,
    build_campaign_bundle,
    registry_with_all_protocols,
)
from workbench.demo import generate_demo_bundle
from workbench.errors import WorkbenchError
from workbench.services.campaign_errors import AnswerError, StaleTaskError
from workbench.services.campaign_items import ItemSpec
from workbench.services.campaigns import (
    CampaignSpec,
    GoldSpec,
    PracticeSpec,
    add_annotator,
    campaign_details,
    create_campaign,
)
from workbench.services.practice import COMPLETED, SKIPPED
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import (
    CampaignAnnotatorCount,
    CampaignPairCount,
    Item,
    Model,
    Output,
    Turn,
    Vote,
)

PLUGINS = registry_with_all_protocols()
PAIR: dict[str, Any] = {"first": "alphavision-7b", "second": "betachat-13b"}


@pytest.fixture(scope="module")
def template(bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory) -> Path | str:
    return build_campaign_bundle(
        tmp_path_factory.mktemp("template"), items=8, into=bundle_backend.new_location()
    )


@pytest.fixture
def bundle(template: Path | str, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    with bundle_backend.opened_copy(template) as opened:
        add_annotator(opened, "ann")
        yield opened


@pytest.fixture(scope="module")
def refusing_bundle(template: Path | str, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    """A ``bundle`` shared by the cases whose campaign is refused (a refusal changes
    nothing), instead of a copy each."""
    with bundle_backend.opened_copy(template) as opened:
        add_annotator(opened, "ann")
        yield opened


def practice_specs() -> list[PracticeSpec]:
    """Candidates on every item: those on scheduled items (q000..q003) must be left out."""
    return [
        PracticeSpec(f"q{n:03d}", "a", **PAIR, explanation=f"Response from item {n} is right.")
        for n in range(8)
    ]


def spec(**overrides: object) -> CampaignSpec:
    values: dict[str, Any] = {
        "name": "c",
        "protocol": "arena-battle",
        "items": ItemSpec("q000,q001,q002"),
        "models": MODELS[:2],
        "seed": 3,
        "gold": [GoldSpec("q003", "b", **PAIR)],
        "practice": practice_specs(),
    }
    values.update(overrides)
    return CampaignSpec(**values)


def test_practice_set_is_drawn_apart_from_the_schedule_and_the_attention_checks(
    bundle: Bundle,
) -> None:
    summary = create_campaign(bundle, spec(practice_count=3), PLUGINS)
    assert summary.practice_tasks == 3
    details = campaign_details(bundle, "c")
    scheduled = {(row["source"], row["item"]) for row in details["schedule"]}
    assert {item for _, item in scheduled} == {"q000", "q001", "q002", "q003"}
    chosen = {row["item"] for row in details["settings"]["practice"]}
    assert len(chosen) == 3 and chosen <= {"q004", "q005", "q006", "q007"}
    # the answer is stored from the shown side: the better model is the first one named
    for row in details["settings"]["practice"]:
        assert (row["source"], row["turn"]) == ("tests", None)
        assert (row["left"] if row["answer"] == "a" else row["right"]) == "alphavision-7b"
        assert row["explanation"].startswith("Response from item")


def test_same_seed_same_practice_set(bundle: Bundle) -> None:
    create_campaign(bundle, spec(practice_count=2), PLUGINS)
    first = campaign_details(bundle, "c")["settings"]["practice"]
    create_campaign(bundle, spec(name="d", practice_count=2), PLUGINS)
    assert campaign_details(bundle, "d")["settings"]["practice"] == first


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"practice_count": 5}, "4 of the 8 practice tasks .* needs 5"),
        ({"practice": (), "practice_count": 2}, "marks right and wrong .* give a practice file"),
        ({"practice": [PracticeSpec("q004", "left", **PAIR)]}, "practice task on q004"),
        ({"practice_count": 0}, "at least 1 task"),
    ],
)
def test_bad_practice_says_what_to_change(
    refusing_bundle: Bundle, overrides: dict[str, Any], message: str
) -> None:
    bundle = refusing_bundle
    with pytest.raises(WorkbenchError, match=message):
        create_campaign(bundle, spec(**overrides), PLUGINS)
    with pytest.raises(WorkbenchError, match="no campaign named"):
        campaign_details(bundle, "c")


def rows_in(bundle: Bundle, model: type) -> int:
    with bundle.read_session() as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def counter_sum(bundle: Bundle) -> tuple[int, int]:
    with bundle.read_session() as session:
        answered = session.scalar(select(func.sum(CampaignAnnotatorCount.answered))) or 0
        votes = session.scalar(select(func.sum(CampaignPairCount.votes))) or 0
    return answered, votes


def test_practice_answers_get_feedback_and_are_never_stored(bundle: Bundle) -> None:
    create_campaign(bundle, spec(practice_count=2), PLUGINS)
    session = AnnotationSession(bundle, "c", "ann", PLUGINS)
    assert session.practice.pending and len(session.practice) == 2
    progress_before = session.progress()
    rows = campaign_details(bundle, "c")["settings"]["practice"]
    expected = [row["answer"] for row in rows]
    for index, answer in enumerate(expected):
        task = session.practice.task(index)
        assert (task.progress.done, task.progress.remaining) == (index, 2 - index)
        # the stored item and sides are the ones shown (campaign_helpers' answer texts)
        variants = [MODELS.index(rows[index][side]) for side in ("left", "right")]
        assert task.turns[-1].responses == tuple(
            f"Answer 2 to {rows[index]['item']}, variant {n}." for n in variants
        )
        wrong = "b" if answer == "a" else "a"
        feedback = session.check_practice(task.token, wrong)
        assert not feedback.correct
        assert feedback.expected == session.protocol.choice(answer).label
        assert feedback.explanation.startswith("Response from item")
        assert session.check_practice(task.token, answer).correct
    with pytest.raises(StaleTaskError):
        session.check_practice("not-a-token", "a")
    with pytest.raises(AnswerError):
        session.check_practice(task.token, "left")
    assert rows_in(bundle, Vote) == 0
    assert counter_sum(bundle) == (0, 0)
    assert session.progress() == progress_before
    session.practice.finish()
    assert campaign_details(bundle, "c")["settings"]["practice_done"] == {"ann": COMPLETED}
    # remembered: a new session (after a restart) does not offer the round again
    assert not AnnotationSession(bundle, "c", "ann", PLUGINS).practice.pending
    assert rows_in(bundle, Vote) == 0 and counter_sum(bundle) == (0, 0)
    # the real queue starts at the first scheduled task, as if there had been no practice
    first = session.next_task()
    assert first is not None and first.progress.done == 0


def test_skipping_is_allowed_only_when_the_campaign_says_so(bundle: Bundle) -> None:
    add_annotator(bundle, "bob")
    create_campaign(bundle, spec(practice_count=1, practice_optional=False), PLUGINS)
    session = AnnotationSession(bundle, "c", "ann", PLUGINS)
    with pytest.raises(AnswerError, match="asks every annotator"):
        session.practice.finish(skipped=True)
    assert session.practice.pending
    create_campaign(bundle, spec(name="d", practice_count=1), PLUGINS)
    optional = AnnotationSession(bundle, "d", "bob", PLUGINS)
    optional.practice.finish(skipped=True)
    assert campaign_details(bundle, "d")["settings"]["practice_done"] == {"bob": SKIPPED}
    assert AnnotationSession(bundle, "d", "ann", PLUGINS).practice.pending


def test_a_preview_and_a_campaign_without_practice_offer_no_round(bundle: Bundle) -> None:
    create_campaign(bundle, spec(practice_count=1), PLUGINS)
    assert not AnnotationSession(bundle, "c", None, PLUGINS, preview=True).practice.pending
    create_campaign(bundle, spec(name="plain", practice=()), PLUGINS)
    session = AnnotationSession(bundle, "plain", "ann", PLUGINS)
    assert not session.practice.pending and len(session.practice) == 0
    assert campaign_details(bundle, "plain")["settings"]["practice"] == []


def correct_flags(bundle: Bundle, item: str, model: str) -> set[bool]:
    with bundle.read_session() as session:
        outputs = session.scalars(
            select(Output)
            .join(Turn)
            .join(Item)
            .join(Model)
            .where(Item.external_id == item, Model.name == model)
        )
        return {output.metadata_["correct"] for output in outputs}


def test_practice_from_answers_marked_right_and_wrong(tmp_path: Path) -> None:
    """Without a practice file, the demo's answers (marked correct or not by their source) give
    practice tasks whose expected side is the right answer."""
    path = generate_demo_bundle(tmp_path / "demo.wbb", seed=0)
    with Bundle.open(path) as bundle:
        with bundle.read_session() as session:
            scheduled = sorted(session.scalars(select(Item.external_id)))[:5]
        chosen = ItemSpec(",".join(scheduled))
        spec = CampaignSpec("c", "arena-battle", items=chosen, seed=2, practice_count=3)
        assert create_campaign(bundle, spec, PLUGINS).practice_tasks == 3
        for row in campaign_details(bundle, "c")["settings"]["practice"]:
            assert row["item"] not in scheduled
            sides = [row["left"], row["right"]]
            better, worse = sides if row["answer"] == "a" else sides[::-1]
            assert correct_flags(bundle, row["item"], better) == {True}
            assert correct_flags(bundle, row["item"], worse) == {False}
        # a protocol with no known answer in the data asks for a practice file
        verification = CampaignSpec("v", "visit-bench-verification", practice_count=1)
        with pytest.raises(WorkbenchError, match="give a practice file"):
            create_campaign(bundle, verification, PLUGINS)


def test_an_offline_pack_carries_the_practice_round(bundle: Bundle, tmp_path: Path) -> None:
    """An annotator who opens a pack gets the campaign's practice round as in the app: the same
    tasks shown the same way (contestants named only by the pack's hashes), the same expected
    answers and required flag; having done it in the pack counts in the app after the merge,
    and having done it in the app counts in a pack."""
    from workbench.services.packs import export_pack, merge_pack

    add_annotator(bundle, "bob")
    create_campaign(bundle, spec(practice_count=2, practice_optional=False), PLUGINS)
    expected = [row["answer"] for row in campaign_details(bundle, "c")["settings"]["practice"]]
    in_app = AnnotationSession(bundle, "c", "ann", PLUGINS, preview=False)
    shown_in_app = [in_app.practice.task(index).turns for index in range(2)]
    pack = export_pack(bundle, "c", "ann", tmp_path / "ann.wbb", limit=1)
    assert pack.tasks == 1
    raw = (tmp_path / "ann.wbb").read_bytes()
    assert not any(name.encode() in raw for name in MODELS)
    with Bundle.open(tmp_path / "ann.wbb") as opened:
        session = AnnotationSession(opened, "c", "ann", PLUGINS)
        assert session.practice.pending and len(session.practice) == 2
        assert not session.practice.optional
        for index, answer in enumerate(expected):
            task = session.practice.task(index)
            assert task.turns == shown_in_app[index]
            feedback = session.check_practice(task.token, answer)
            assert feedback.correct and feedback.explanation.startswith("Response from item")
        with pytest.raises(AnswerError, match="asks every annotator"):
            session.practice.finish(skipped=True)
        session.practice.finish()
    merge_pack(bundle, tmp_path / "ann.wbb")
    assert campaign_details(bundle, "c")["settings"]["practice_done"] == {"ann": COMPLETED}
    assert not AnnotationSession(bundle, "c", "ann", PLUGINS).practice.pending

    AnnotationSession(bundle, "c", "bob", PLUGINS).practice.finish()
    export_pack(bundle, "c", "bob", tmp_path / "bob.wbb", limit=1)
    with Bundle.open(tmp_path / "bob.wbb") as opened:
        assert not AnnotationSession(opened, "c", "bob", PLUGINS).practice.pending
