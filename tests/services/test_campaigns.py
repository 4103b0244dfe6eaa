"""Creating campaigns: the stored schedule is reproducible, counterbalanced, drawn as the
pairing asks; bad specifications fail with messages naming what to change."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.backends import BundleBackend
from tests.importers.canonical_helpers import item_line, write_jsonl
from tests.services.campaign_helpers import (
    MODELS,
    build_campaign_bundle,
    registry_with_all_protocols,
)
from workbench.errors import WorkbenchError
from workbench.plugins import Registry
from workbench.services.campaign_errors import CampaignError, SelectionError
from workbench.services.campaign_items import ItemSpec
from workbench.services.campaigns import (
    CampaignSpec,
    GoldSpec,
    add_annotator,
    campaign_details,
    create_campaign,
    list_annotators,
    list_campaigns,
)
from workbench.services.importing import import_files
from workbench.services.scheduling import Pairing
from workbench.storage import Bundle


@pytest.fixture(scope="module")
def plugins() -> Registry:
    return registry_with_all_protocols()


@pytest.fixture(scope="module")
def template(bundle_backend: BundleBackend, tmp_path_factory: pytest.TempPathFactory) -> Path | str:
    return build_campaign_bundle(
        tmp_path_factory.mktemp("template"), items=8, into=bundle_backend.new_location()
    )


@pytest.fixture
def bundle(template: Path | str, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    with bundle_backend.opened_copy(template) as opened:
        yield opened


def schedule(bundle: Bundle, name: str) -> list[dict[str, Any]]:
    return cast("list[dict[str, Any]]", campaign_details(bundle, name)["schedule"])


def positions(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["source"], r["item"], r["turn"], r["left"], r["right"]) for r in rows]


def test_same_seed_same_schedule_in_another_bundle(
    bundle: Bundle, bundle_location: Path | str, tmp_path: Path, plugins: Registry
) -> None:
    spec = CampaignSpec("c", "arena-battle", seed=11, votes_per_pair=3)
    first = create_campaign(bundle, spec, plugins)
    # the other bundle imported the same content separately; ids may differ, the schedule not
    other_path = build_campaign_bundle(tmp_path / "other", items=8, into=bundle_location)
    with Bundle.open(other_path) as other:
        again = create_campaign(other, spec, plugins)
        assert positions(schedule(other, "c")) == positions(schedule(bundle, "c"))
    assert again.schedule_sha256 == first.schedule_sha256
    different = create_campaign(bundle, CampaignSpec("d", "arena-battle", seed=12), plugins)
    assert different.schedule_sha256 != first.schedule_sha256
    assert positions(schedule(bundle, "d")) != positions(schedule(bundle, "c"))
    assert sorted(positions(schedule(bundle, "d"))) != sorted(positions(schedule(bundle, "c")))
    assert all(row["votes_target"] == 3 for row in schedule(bundle, "c"))


def check_counterbalanced(rows: list[dict[str, Any]]) -> None:
    per_pair: dict[frozenset[str], Counter[str]] = {}
    per_model: Counter[tuple[str, str]] = Counter()
    for row in rows:
        left = row["left"] or "reference"
        right = row["right"] or "reference"
        per_pair.setdefault(frozenset((left, right)), Counter())[left] += 1
        per_model[(left, "left")] += 1
        per_model[(right, "right")] += 1
    for pair, lefts in per_pair.items():
        first, second = sorted(pair)
        assert abs(lefts[first] - lefts[second]) <= 1, pair
    for model in {model for model, _ in per_model}:
        assert abs(per_model[(model, "left")] - per_model[(model, "right")]) <= 1


#: a new campaign name for each example: the examples share one bundle
_EXAMPLE_NAMES = (f"c{number}" for number in itertools.count())


@pytest.fixture(scope="module")
def shared_bundle(template: Path | str, bundle_backend: BundleBackend) -> Iterator[Bundle]:
    """One copy of the template, open, for the tests that add nothing to it but campaigns of
    names of their own (a campaign's schedule depends on its spec and the items, never on the
    other campaigns) or nothing at all, instead of a copy and an open bundle each."""
    with bundle_backend.opened_copy(template) as opened:
        yield opened


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    model_count=st.integers(min_value=2, max_value=4),
    seed=st.integers(min_value=0, max_value=10**9),
    pairing=st.sampled_from(["all", "balanced", "anchor"]),
)
def test_stored_schedules_are_counterbalanced(
    shared_bundle: Bundle, plugins: Registry, model_count: int, seed: int, pairing: str
) -> None:
    name = next(_EXAMPLE_NAMES)
    models = list(MODELS[:model_count])
    spec = CampaignSpec(
        name,
        "chirp-five-criteria",
        models=models,
        seed=seed,
        pairing=Pairing(pairing),
        anchor=models[0] if pairing == "anchor" else None,
        pairs_per_model_pair=5 if pairing == "balanced" else None,
    )
    create_campaign(shared_bundle, spec, plugins)
    rows = schedule(shared_bundle, name)
    check_counterbalanced(rows)
    pairs = Counter(frozenset((row["left"], row["right"])) for row in rows)
    if pairing == "all":
        assert set(pairs.values()) == {8} and len(pairs) == model_count * (model_count - 1) // 2
    elif pairing == "balanced":
        assert set(pairs.values()) == {5}
    else:
        assert all(models[0] in pair for pair in pairs) and set(pairs.values()) == {8}


def test_per_turn_protocols_schedule_each_turn(bundle: Bundle, plugins: Registry) -> None:
    create_campaign(bundle, CampaignSpec("grade", "convbench-turn-grade", seed=1), plugins)
    rows = schedule(bundle, "grade")
    assert len(rows) == 8 * 2 * len(MODELS)
    assert Counter(row["turn"] for row in rows) == {1: 32, 2: 32}
    assert all(row["right"] is None and row["reference_side"] is None for row in rows)

    create_campaign(bundle, CampaignSpec("pw", "convbench-turn-pairwise", seed=1), plugins)
    rows = schedule(bundle, "pw")
    assert len(rows) == 8 * 2 * len(MODELS)
    sides = Counter(row["reference_side"] for row in rows)
    assert sides["left"] == sides["right"] == 32
    check_counterbalanced(rows)
    details = campaign_details(bundle, "pw")
    assert details["settings"]["pairing"] == "anchor"
    assert details["settings"]["anchor"] == "reference"


def test_verification_schedules_each_item_once(bundle: Bundle, plugins: Registry) -> None:
    summary = create_campaign(
        bundle, CampaignSpec("v", "visit-bench-verification", votes_per_pair=5), plugins
    )
    rows = schedule(bundle, "v")
    assert summary.tasks == 8 and summary.contestants == ()
    assert sorted(row["item"] for row in rows) == [f"q{n:03d}" for n in range(8)]
    assert all(row["left"] is None and row["right"] is None for row in rows)


def test_forced_choice_against_the_reference(bundle: Bundle, plugins: Registry) -> None:
    spec = CampaignSpec(
        "vr",
        "visit-bench-preference",
        models=["alphavision-7b", "betachat-13b"],
        pairing=Pairing.ANCHOR,
        anchor="reference",
        seed=4,
    )
    create_campaign(bundle, spec, plugins)
    rows = schedule(bundle, "vr")
    assert len(rows) == 16
    assert all(row["reference_side"] in ("left", "right") for row in rows)
    check_counterbalanced(rows)


def test_item_selection(bundle: Bundle, plugins: Registry) -> None:
    spec = CampaignSpec("s", "arena-battle", items=ItemSpec("q001, q004"), models=MODELS[:2])
    assert create_campaign(bundle, spec, plugins).tasks == 2
    assert {row["item"] for row in schedule(bundle, "s")} == {"q001", "q004"}
    spec = CampaignSpec("t", "arena-battle", items=ItemSpec("tests"), models=MODELS[:2])
    assert create_campaign(bundle, spec, plugins).tasks == 8
    spec = CampaignSpec("u", "arena-battle", items=ItemSpec("tests:q002"), models=MODELS[:2])
    assert create_campaign(bundle, spec, plugins).tasks == 1
    with pytest.raises(SelectionError, match="no item with id nope"):
        spec = CampaignSpec("x", "arena-battle", items=ItemSpec("nope"))
        create_campaign(bundle, spec, plugins)


def test_models_missing_outputs_are_left_out_of_those_items(
    tmp_path: Path, plugins: Registry
) -> None:
    lines = [
        item_line("full", outputs=[{"model": m, "text": f"{m} says"} for m in ("m1", "m2", "m3")]),
        item_line("partial", outputs=[{"model": m, "text": f"{m} says"} for m in ("m1", "m2")]),
    ]
    source = write_jsonl(tmp_path / "src", lines)
    import_files(tmp_path / "b.wbb", [source], "jsonl")
    with Bundle.open(tmp_path / "b.wbb") as bundle:
        summary = create_campaign(bundle, CampaignSpec("c", "arena-battle"), plugins)
        rows = schedule(bundle, "c")
    assert summary.tasks == 4
    assert Counter(row["item"] for row in rows) == {"full": 3, "partial": 1}


def test_gold_checks_are_scheduled_with_answers_by_position(
    bundle: Bundle, plugins: Registry
) -> None:
    gold = [
        GoldSpec("q000", "a", first="alphavision-7b", second="betachat-13b"),
        GoldSpec("q001", "b", first="alphavision-7b", second="betachat-13b"),
        GoldSpec("q002", "tie", first="gammaomni-xl", second="deltalens-2"),
    ]
    spec = CampaignSpec("g", "arena-battle", models=MODELS[:2], gold=gold, seed=9)
    summary = create_campaign(bundle, spec, plugins)
    assert summary.gold_tasks == 3 and summary.tasks == 8 + 3
    by_item = {row["item"]: row for row in schedule(bundle, "g") if row["gold"]}
    for spec_gold in gold:
        row = by_item[spec_gold.item]
        if spec_gold.answer == "tie":
            assert row["gold"] == "tie"
            continue
        better = spec_gold.first if spec_gold.answer == "a" else spec_gold.second
        assert (row["left"] if row["gold"] == "a" else row["right"]) == better


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (CampaignSpec("", "arena-battle"), "needs a name"),
        (CampaignSpec("c", "arena-battle", votes_per_pair=0), "at least 1"),
        (CampaignSpec("c", "nope"), "unknown annotation protocol 'nope'"),
        (CampaignSpec("c", "arena-battle", pairing=Pairing.ANCHOR), "needs an anchor"),
        (CampaignSpec("c", "arena-battle", pairing=Pairing.BALANCED), "target count"),
        (CampaignSpec("c", "arena-battle", pairs_per_model_pair=3), "--pairing balanced"),
        (CampaignSpec("c", "arena-battle", anchor="alphavision-7b"), "needs --pairing"),
        (CampaignSpec("c", "arena-battle", models=["ghost"]), "no model named 'ghost'"),
        (CampaignSpec("c", "arena-battle", models=["alphavision-7b"]), "needs 2 contestants"),
        (CampaignSpec("c", "visit-bench-verification", models=["x"]), "shows no model output"),
        (CampaignSpec("c", "convbench-turn-grade", anchor="x"), "has no anchor"),
        (
            CampaignSpec("c", "convbench-turn-pairwise", pairing=Pairing.ALL),
            "compares each model with the reference",
        ),
        (
            CampaignSpec("c", "visit-bench-preference-with-reference", models=["reference", "x"]),
            "annotators would recognise it",
        ),
        (
            CampaignSpec("c", "convbench-turn-grade", gold=[GoldSpec("q000", "7")]),
            "attention checks need a protocol with choices",
        ),
        (
            CampaignSpec("c", "arena-battle", gold=[GoldSpec("q000", "left", "x", "y")]),
            "is not one of",
        ),
    ],
)
def test_bad_specs_say_what_to_change(
    shared_bundle: Bundle, plugins: Registry, spec: CampaignSpec, message: str
) -> None:
    # the shared bundle holds only the schedule examples' campaigns, named c<number>
    before = list_campaigns(shared_bundle)
    with pytest.raises(WorkbenchError, match=message):
        create_campaign(shared_bundle, spec, plugins)
    assert list_campaigns(shared_bundle) == before
    assert all(campaign["name"] != spec.name for campaign in before)


def test_duplicate_name_is_refused(bundle: Bundle, plugins: Registry) -> None:
    create_campaign(bundle, CampaignSpec("c", "arena-battle"), plugins)
    with pytest.raises(CampaignError, match="already exists"):
        create_campaign(bundle, CampaignSpec("c", "arena-battle"), plugins)
    (listing,) = list_campaigns(bundle)
    assert listing["name"] == "c" and listing["tasks"] == 8 * 6


def test_annotators(bundle: Bundle) -> None:
    add_annotator(bundle, "rad1", "Dr. One", "radiology")
    add_annotator(bundle, "lay2")
    with pytest.raises(CampaignError, match="already exists"):
        add_annotator(bundle, "rad1")
    with pytest.raises(CampaignError, match="needs a handle"):
        add_annotator(bundle, "  ")
    assert [a.as_dict() for a in list_annotators(bundle)] == [
        {"handle": "lay2", "display_name": None, "expertise": None},
        {"handle": "rad1", "display_name": "Dr. One", "expertise": "radiology"},
    ]


def test_details_keep_the_pack_salt_private(bundle: Bundle, plugins: Registry) -> None:
    create_campaign(bundle, CampaignSpec("c", "arena-battle"), plugins)
    details = campaign_details(bundle, "c")
    assert "pack_salt" not in details["settings"]
    assert details["settings"]["contestants"] == sorted(MODELS)
