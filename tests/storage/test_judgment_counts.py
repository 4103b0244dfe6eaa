"""The judgment counts kept per cell (storage.judgment_counts) stay equal to a recount from the
judgments through every write path (an import, campaign votes, a skip, an undo, an adjudication
recorded and replaced, a judge run and its replacement, a simulated run, an offline pack merged,
a copy to another bundle), and every battle count read from them equals the scan's, filter by
filter, in the same order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from workbench_visit_bench.judge_templates import REFERENCE_FREE

from tests.backends import BundleBackend, Location
from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer
from tests.judge.helpers import FAKE_KEY
from tests.judge.judging import settings_for
from tests.services.campaign_helpers import registry_with_all_protocols
from workbench.demo.judge_run import SimulatedVerdict, store_judge_run
from workbench.domain import Outcome
from workbench.judge.secrets import Secret
from workbench.services.adjudication import record_adjudication
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.services.judging.runner import JudgeRunner, plan_run
from workbench.services.judging.worklist import JudgeScope
from workbench.services.packs import export_pack, merge_pack
from workbench.services.sync import copy_bundle_rows
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.judgment_counts import kept_cells, recount, recounted_cells
from workbench.storage.judgments import (
    OutcomeFilter,
    _kept_will_do,
    fingerprint,
    positioned_battle_counts,
    simulated_left_out,
)
from workbench.storage.models import JudgmentCount, PriorJudgment, ScheduledPair

PLUGINS = registry_with_all_protocols()
MODELS = ("llava-13b", "otter-9b", "mplug-owl")


def answer(model: str, item: str) -> str:
    return f"{model} answers {item}."


def judgment(a: str, b: str | None, outcome: str, **more: Any) -> dict[str, Any]:
    return {"kind": "human", "model_a": a, "model_b": b, "outcome": outcome, **more}


def source_lines() -> list[dict[str, Any]]:
    """Items with outputs of every model and imported judgments of every shape a cell keeps:
    strength 2, each outcome, a judge's, a turn's, another criterion and context, a derived
    one, and one against the reference answer."""
    lines = []
    for number in range(4):
        item = f"q{number}"
        judged = [
            judgment(MODELS[0], MODELS[1], "a", rater="r1"),
            judgment(MODELS[1], MODELS[0], "b", strength=2, rater="r2"),
            judgment(MODELS[0], MODELS[2], "tie"),
            judgment(MODELS[2], MODELS[1], "both_bad", kind="judge", rater="gpt-4"),
            judgment(MODELS[1], MODELS[2], "a", turn=1, criterion="helpfulness"),
            judgment(MODELS[0], MODELS[1], "b", metadata={"context": "perfect_perception"}),
            judgment(MODELS[0], MODELS[2], "a", metadata={"derived": "from verdicts"}),
            judgment(MODELS[2], None, "a"),
        ]
        outputs = [{"model": model, "text": answer(model, item)} for model in MODELS]
        lines.append(
            item_line(
                item,
                outputs=outputs,
                judgments=judged[number:] + judged[:number],
                images=[],
                captions=[],
                source="tests" if number % 2 else "more",
            )
        )
    return lines


#: filters a board can ask, each answered from the kept counts (checked) and by the scan
FILTERS = (
    OutcomeFilter(),
    OutcomeFilter(include_derived=True),
    OutcomeFilter(include_simulated=True),
    OutcomeFilter(kinds=("human",)),
    OutcomeFilter(kinds=("judge",), include_simulated=True),
    OutcomeFilter(campaigns=("pilot",)),
    OutcomeFilter(annotators=("ana",)),
    OutcomeFilter(judge_runs=("scripted",)),
    OutcomeFilter(origins=("adjudication",)),
    OutcomeFilter(sources=("more",)),
    OutcomeFilter(turns=(1,)),
    OutcomeFilter(criteria=("helpfulness",)),
    OutcomeFilter(contexts=("perfect_perception",)),
    OutcomeFilter(exclude_ties=True),
)


def check(location: Location) -> None:
    """The kept counts equal a recount, and every filter's battle counts read from them equal
    the scan's (the scan of every judgment stored after an empty fingerprint)."""
    with Bundle.open(location) as bundle:
        check_bundle(bundle)


def check_bundle(bundle: Bundle) -> None:
    """:func:`check` on an open bundle, in a new read session."""
    with bundle.read_session() as session:
        assert kept_cells(session) == recounted_cells(session)
        everything = tuple(0 for _ in fingerprint(session))
        scans: dict[OutcomeFilter, list[tuple[str, str, str, float, int, int]]] = {}

        def scanned(one: OutcomeFilter) -> list[tuple[str, str, str, float, int, int]]:
            if one not in scans:
                scans[one] = positioned_battle_counts(
                    session, one, decisive_weight=3.0, after=everything
                )
            return scans[one]

        for one in FILTERS:
            assert _kept_will_do([one])
            kept = positioned_battle_counts(session, one, decisive_weight=3.0)
            assert kept == scanned(one), one.describe()
            assert simulated_left_out(session, one) == _scanned_simulated(one, scanned)


def _scanned_simulated(
    one: OutcomeFilter,
    scanned: Callable[[OutcomeFilter], list[tuple[str, str, str, float, int, int]]],
) -> int:
    if one.keeps_simulated():
        return 0
    # the judgments behind each row (its fifth field) do not depend on the decisive weight
    kept = scanned(replace(one, include_simulated=True))
    return sum(row[4] for row in kept) - sum(row[4] for row in scanned(one))


class Readers:
    """One open bundle per location for a test's checks: a statement is compiled once per
    engine (a new one starts with an empty statement cache), and compiling the scans cost
    three times what running them on these small bundles does."""

    def __init__(self) -> None:
        self._open: dict[str, Bundle] = {}

    def check(self, location: Location) -> None:
        """:func:`check`, reading through this location's bundle, opened at its first check."""
        key = str(location)
        if key not in self._open:
            self._open[key] = Bundle.open(location)
        check_bundle(self._open[key])

    def __enter__(self) -> Readers:
        return self

    def __exit__(self, *exc: object) -> None:
        for bundle in self._open.values():
            bundle.close()


class Judge:
    """The fake judge: prefers the answer of ``winner`` when it is shown."""

    def __init__(self) -> None:
        self.winner = MODELS[0]

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        text = str(messages[-1]["content"])
        first = text.find(answer(self.winner, ""))
        if first < 0:
            return "Response A is better."
        return (
            "Response A is better." if first < text.find("Response B") else "Response B is better."
        )


@pytest.fixture(scope="module")
def judge() -> Iterator[tuple[FakeOpenAIServer, Judge]]:
    scripted = Judge()
    with FakeOpenAIServer(responder=scripted) as server:
        yield server, scripted


def vote(bundle: Bundle, campaign: str, handle: str, choices: list[str]) -> AnnotationSession:
    session = AnnotationSession(bundle, campaign, handle, PLUGINS)
    for choice in choices:
        task = session.next_task()
        assert task is not None
        if choice == "skip":
            session.skip(task.token, "the image does not load")
        else:
            session.cast(task.token, choice)
    return session


def test_every_write_path_keeps_the_counts(
    judge: tuple[FakeOpenAIServer, Judge], tmp_path: Path, bundle_backend: BundleBackend
) -> None:
    """On SQLite and on a server bundle (the pack and the copy are files either way)."""
    with Readers() as readers:
        server, scripted = judge
        path = bundle_backend.new_location()
        import_files(path, [write_jsonl(tmp_path / "src", source_lines())], "jsonl")
        readers.check(path)

        with Bundle.open(path) as bundle:
            for handle in ("ana", "bob", "cy"):
                add_annotator(bundle, handle)
            create_campaign(
                bundle, CampaignSpec("pilot", "arena-battle", seed=1, votes_per_pair=2), PLUGINS
            )
            ana = vote(bundle, "pilot", "ana", ["a", "b", "tie", "skip", "both_bad"])
        readers.check(path)
        with Bundle.open(path) as bundle:
            ana = AnnotationSession(bundle, "pilot", "ana", PLUGINS)
            assert ana.undo() is not None
            assert ana.undo() is not None
        readers.check(path)
        with Bundle.open(path) as bundle:
            vote(bundle, "pilot", "ana", ["b"])
            vote(bundle, "pilot", "bob", ["a", "a"])
            with bundle.read_session() as read:
                task = read.scalars(
                    select(ScheduledPair.sequence).order_by(ScheduledPair.sequence)
                ).first()
            assert task is not None
            record_adjudication(bundle, "pilot", task, "a", "", "lead", plugins=PLUGINS)
            readers.check(path)
            record_adjudication(bundle, "pilot", task, "tie", "again", "lead", plugins=PLUGINS)
        readers.check(path)

        options = settings_for(server, REFERENCE_FREE, selection=JudgeScope(models=MODELS[:2]))
        options = replace(options, run_name="scripted")
        plan = plan_run(path, options, template=REFERENCE_FREE)
        asyncio.run(JudgeRunner(path, plan, Secret(FAKE_KEY)).run())
        readers.check(path)
        # judged again without the cache: each verdict replaced by a new one
        scripted.winner = MODELS[1]
        again = plan_run(path, replace(options, use_cache=False), template=REFERENCE_FREE)
        asyncio.run(JudgeRunner(path, again, Secret(FAKE_KEY)).run())
        readers.check(path)

        with Bundle.open(path) as bundle:
            simulated = [
                SimulatedVerdict(f"q{n}", 1, MODELS[2], MODELS[0], outcome)
                for n, outcome in enumerate((Outcome.A, Outcome.B, Outcome.TIE))
            ]
            store_judge_run(bundle, simulated, seed=0)
            pack = tmp_path / "cy.wbb"
            export_pack(bundle, "pilot", "cy", pack, 3)
        readers.check(path)
        with Bundle.open(pack) as packed:
            vote(packed, "pilot", "cy", ["a", "b"])
        readers.check(pack)
        with Bundle.open(path) as bundle:
            assert merge_pack(bundle, pack).added == 2
        readers.check(path)

        copy = tmp_path / "copy.wbb"
        copy_bundle_rows(path, copy)
        readers.check(copy)
        with Bundle.open(path) as bundle, bundle.read_session() as read:
            assert read.scalar(select(JudgmentCount.judgments).limit(1))


def test_a_forgotten_write_is_seen(tmp_path: Path) -> None:
    """The check above fails when a write does not reach the kept counts: a judgment added
    behind their back (a plain insert) makes kept and recounted cells differ until a recount."""
    path = tmp_path / "bundle.wbb"
    import_files(path, [write_jsonl(tmp_path / "src", source_lines())], "jsonl")
    with Bundle.open(path) as bundle, bundle.session() as session:
        row = session.scalars(select(PriorJudgment).limit(1)).one()
        session.add(
            PriorJudgment(
                import_id=row.import_id,
                kind="human",
                criterion="overall",
                model_a_id=row.model_a_id,
                model_b_id=row.model_b_id,
                outcome="a",
                metadata_={},
            )
        )
    with pytest.raises(AssertionError):
        check(path)
    with Bundle.open(path) as bundle, bundle.session() as session:
        recount(session)
    check(path)


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(("ana", "bob")), st.sampled_from(("a", "b", "tie", "skip", "undo"))
        ),
        min_size=1,
        max_size=12,
    )
)
def test_votes_and_undos_in_any_order_keep_the_counts(
    campaign_template: Path, reopened: Bundle, steps: list[tuple[str, str]]
) -> None:
    restore(reopened, campaign_template)
    with reopened as bundle:
        sessions = {
            handle: AnnotationSession(bundle, "pilot", handle, PLUGINS) for handle in ("ana", "bob")
        }
        for handle, step in steps:
            session = sessions[handle]
            if step == "undo":
                session.undo()
                continue
            task = session.next_task()
            if task is None:
                continue
            if step == "skip":
                session.skip(task.token, "unreadable")
            else:
                session.cast(task.token, step)
        check_bundle(bundle)


@pytest.fixture(scope="module")
def campaign_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("template")
    path = folder / "bundle.wbb"
    import_files(path, [write_jsonl(folder / "src", source_lines())], "jsonl")
    with Bundle.open(path) as bundle:
        for handle in ("ana", "bob"):
            add_annotator(bundle, handle)
        create_campaign(
            bundle, CampaignSpec("pilot", "arena-battle", seed=1, votes_per_pair=2), PLUGINS
        )
    return path


@pytest.fixture(scope="module")
def reopened(tmp_path_factory: pytest.TempPathFactory, campaign_template: Path) -> Iterator[Bundle]:
    """One bundle object for every example, its file put back to the template by
    :func:`restore` before each: its engine keeps the statements it compiled, which a new
    engine compiles again (most of an example's time, on a bundle this small)."""
    path = tmp_path_factory.mktemp("votes") / "bundle.wbb"
    path.write_bytes(campaign_template.read_bytes())
    bundle = Bundle.open(path)
    yield bundle
    bundle.close()


def restore(bundle: Bundle, template: Path) -> None:
    """Put ``bundle``'s file back to ``template``: its connections are closed first (an engine
    disposed of opens new ones when next used), and the write-ahead log of the last example
    goes with them."""
    bundle.close()
    path = bundle.path
    assert path is not None
    for journal in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        journal.unlink(missing_ok=True)
    path.write_bytes(template.read_bytes())
