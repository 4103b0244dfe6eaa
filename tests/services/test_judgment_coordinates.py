"""One comparison built through each path a judgment takes into a bundle (a VisIT-Bench
preference file imported, a campaign vote, a judge run against a local fake endpoint) reads as
one row shape in the read model, with the same coordinates: the item, no turn (the whole item),
the criterion, the context, and the preferred model (or a tie: a judge answer with no readable
verdict counts as one, flagged ``unparsed``)."""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from workbench_visit_bench.judge_templates import REFERENCE_FREE

from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.judge.fake_openai_server import FakeOpenAIServer, message_text
from tests.judge.helpers import FAKE_KEY
from tests.judge.judging import settings_for
from tests.services.campaign_helpers import registry_with_all_protocols
from workbench.judge.secrets import Secret
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.services.judging.runner import JudgeRunner, plan_run
from workbench.services.judging.worklist import JudgeScope
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.judgments import COLUMNS, OutcomeFilter, read_judgments
from workbench.storage.models import Model, ScheduledPair

PLUGINS = registry_with_all_protocols()
NAMES = ("llava-13b", "otter-9b", "mplug-owl", "instructblip", "minigpt-4")
TIE = "tie"
RESPONSES = re.compile(r"Response A:\n(?P<a>.*)\n\nResponse B:\n(?P<b>.*)\Z", re.DOTALL)
COORDINATES = ("item", "item_external_id", "turn", "criterion", "context", "source", "category")


@dataclass
class Wanted:
    """What the fake judge answers for the current example."""

    winner: str | None = None  # a model's name, or None: no readable verdict


class ScriptedJudge:
    def __init__(self) -> None:
        self.wanted = Wanted()

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        system, user = message_text(messages, "system"), message_text(messages, "user")
        if "report the decision" in system:
            return "Unknown"
        if self.wanted.winner is None:
            return "Both answers have their merits."
        shown = RESPONSES.search(user)
        assert shown is not None
        side = "A" if self.wanted.winner in shown["a"] else "B"
        return f"Overall, Response {side} is better."


@pytest.fixture(scope="module")
def scripted() -> Iterator[tuple[FakeOpenAIServer, ScriptedJudge]]:
    judge = ScriptedJudge()
    with FakeOpenAIServer(responder=judge) as server:
        yield server, judge


def answer(model: str) -> str:
    return f"{model} says the storefront has a ramp."


def preference_csv(folder: Path, shown: tuple[str, str], chose: str) -> Path:
    """One tuple in VisIT-Bench's published preference schema, one rater."""
    frame = pd.DataFrame(
        [
            {
                "image_url": "https://visit-instruction-tuning.s3.amazonaws.com/v/storefront.png",
                "instruction": "Is this storefront accessible to wheelchair users?",
                "A": answer(shown[0]),
                "B": answer(shown[1]),
                "A_model": shown[0],
                "B_model": shown[1],
                "model_selection.A": chose == "A",
                "model_selection.B": chose == "B",
                "worker_1": chose,
            }
        ]
    )
    path = folder / "preferences.csv"
    frame.to_csv(path, index=False)
    return path


def preferred(row: dict[str, Any]) -> str:
    return cast(
        "str", {"a": row["model_a"], "b": row["model_b"]}.get(row["outcome"], row["outcome"])
    )


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    models=st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True),
    file_order=st.booleans(),
    human_prefers_first=st.booleans(),
    vote=st.sampled_from(("first", "second", TIE)),
    judge_answer=st.sampled_from(("first", "second", None)),
)
def test_the_same_comparison_through_every_path_has_the_same_coordinates(
    scripted: tuple[FakeOpenAIServer, ScriptedJudge],
    models: list[str],
    file_order: bool,
    human_prefers_first: bool,
    vote: str,
    judge_answer: str | None,
) -> None:
    server, judge = scripted
    first, second = models
    shown = (first, second) if file_order else (second, first)
    human = first if human_prefers_first else second
    with tempfile.TemporaryDirectory() as folder:
        bundle_path = Path(folder) / "bundle.wbb"
        csv = preference_csv(Path(folder), shown, "A" if shown[0] == human else "B")
        imported = import_files(bundle_path, [csv], "visit-bench-preferences")
        assert imported.rejections == []

        with Bundle.open(bundle_path) as bundle:
            add_annotator(bundle, "ana")
            create_campaign(bundle, CampaignSpec("pilot", "arena-battle", seed=1), PLUGINS)
            with bundle.read_session() as session:
                left = session.scalar(
                    select(Model.name).join(ScheduledPair, ScheduledPair.left_model_id == Model.id)
                )
            voter = AnnotationSession(bundle, "pilot", "ana", PLUGINS)
            task = voter.next_task()
            assert task is not None
            voted = {"first": first, "second": second}.get(vote, TIE)
            voter.cast(task.token, TIE if voted == TIE else "a" if voted == left else "b")

        judged = {"first": first, "second": second}.get(judge_answer or "")
        judge.wanted = Wanted(judged)
        options = settings_for(
            server, REFERENCE_FREE, selection=JudgeScope(models=(first, second), swap=False)
        )
        plan = plan_run(bundle_path, options, template=REFERENCE_FREE)
        asyncio.run(JudgeRunner(bundle_path, plan, Secret(FAKE_KEY)).run())

        with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
            names, rows = read_judgments(session, OutcomeFilter())
    found = {row["origin"]: row for row in (dict(zip(names, r, strict=True)) for r in rows)}

    assert set(found) == {"imported", "campaign", "judge-run"}
    assert all(list(row) == list(COLUMNS) for row in found.values())
    coordinates = {tuple(row[c] for c in COORDINATES) for row in found.values()}
    assert len(coordinates) == 1, coordinates
    ((_, _, turn, criterion, context, *_),) = coordinates
    assert (turn, criterion, context) == (None, "overall", "standard")
    assert all({row["model_a"], row["model_b"]} == {first, second} for row in found.values())
    assert preferred(found["imported"]) == human
    assert preferred(found["campaign"]) == voted
    assert preferred(found["judge-run"]) == (judged or TIE)
    assert [found[origin]["unparsed"] for origin in ("imported", "campaign", "judge-run")] == [
        False,
        False,
        judged is None,
    ]


ABLATION = "perfect_perception"


def test_an_ablation_context_reads_the_same_from_a_campaign_and_a_judge_run(
    scripted: tuple[FakeOpenAIServer, ScriptedJudge], tmp_path: Path
) -> None:
    """A campaign and a judge run over the outputs of an ablation (ConvBench's perfect
    perception) both say so in the read model's ``context``; the standard ones say standard."""
    server, judge = scripted
    outputs = [
        {"model": model, "text": answer(model), "context": context}
        for model in NAMES[:2]
        for context in ("standard", ABLATION)
    ]
    line = item_line("q1", outputs=outputs, judgments=[], images=[], captions=[])
    bundle_path = tmp_path / "bundle.wbb"
    import_files(bundle_path, [write_jsonl(tmp_path / "src", [line])], "jsonl")
    with Bundle.open(bundle_path) as bundle:
        add_annotator(bundle, "ana")
        for context in ("standard", ABLATION):
            spec = CampaignSpec(context, "arena-battle", seed=1, output_context=context)
            create_campaign(bundle, spec, PLUGINS)
            voter = AnnotationSession(bundle, context, "ana", PLUGINS)
            task = voter.next_task()
            assert task is not None
            voter.cast(task.token, "a")
    judge.wanted = Wanted(NAMES[0])
    for context in ("standard", ABLATION):
        scope = JudgeScope(models=NAMES[:2], swap=False, context=context)
        options = settings_for(server, REFERENCE_FREE, selection=scope)
        plan = plan_run(bundle_path, options, template=REFERENCE_FREE)
        asyncio.run(JudgeRunner(bundle_path, plan, Secret(FAKE_KEY)).run())
    with Bundle.open(bundle_path) as bundle, bundle.read_session() as session:
        _, rows = read_judgments(session, columns=("origin", "context", "campaign"))
        _, ablation = read_judgments(
            session, OutcomeFilter(contexts=(ABLATION,)), columns=("origin",)
        )
    assert sorted(rows, key=str) == sorted(
        [
            ("campaign", "standard", "standard"),
            ("campaign", ABLATION, ABLATION),
            ("judge-run", "standard", None),
            ("judge-run", ABLATION, None),
        ],
        key=str,
    )
    assert sorted(ablation) == [("campaign",), ("judge-run",)]
