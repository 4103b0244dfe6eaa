"""``workbench campaign``, ``workbench annotator`` and ``workbench pack``: create and show a
campaign, profiles, export and merge a pack; errors exit 1 with one line, bad usage 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.services.campaign_helpers import MODELS, build_campaign_bundle
from workbench.cli import main
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

PROTOCOL = "chirp-five-criteria"  # registered by its plugin's own manifest


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return build_campaign_bundle(tmp_path, items=4)


def create(
    capsys: pytest.CaptureFixture[str], bundle: Path, *extra: str | Path
) -> tuple[int, str, str]:
    return run(
        capsys,
        "campaign",
        "create",
        bundle,
        "--name",
        "c1",
        "--protocol",
        PROTOCOL,
        "--models",
        ",".join(MODELS[:3]),
        "--items",
        "all",
        "--votes-per-pair",
        "2",
        "--seed",
        "7",
        *extra,
    )


def test_create_show_and_list(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = create(capsys, bundle)
    assert code == 0 and "12 comparisons to judge, on 4 items, 2 vote(s) each" in out
    assert "seed 7" in out and "slots" not in out
    code, out, _ = run(capsys, "campaign", "show", bundle, "c1", "--json")
    details = json.loads(out)
    assert code == 0 and details["protocol"] == PROTOCOL and details["votes_per_pair"] == 2
    assert len(details["schedule"]) == 12
    assert {row["left"] for row in details["schedule"]} == set(MODELS[:3])
    code, out, _ = run(capsys, "campaign", "show", bundle, "c1")
    assert code == 0 and "12 tasks, 0 complete" in out
    code, out, _ = run(capsys, "campaign", "list", bundle, "--json")
    assert code == 0 and [c["name"] for c in json.loads(out)] == ["c1"]
    code, out, _ = run(capsys, "campaign", "list", bundle)
    assert "c1: chirp-five-criteria, 12 tasks" in out


def test_same_seed_same_schedule_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schedules = []
    for name in ("a", "b"):
        path = build_campaign_bundle(tmp_path / name, items=4)
        assert create(capsys, path)[0] == 0
        schedules.append(json.loads(run(capsys, "campaign", "show", path, "c1", "--json")[1]))
    first, second = ([(r["item"], r["left"], r["right"]) for r in s["schedule"]] for s in schedules)
    assert first == second


def test_balanced_and_anchor_pairing(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        *("campaign", "create", bundle, "--name", "bal", "--protocol", PROTOCOL),
        *("--pairing", "balanced", "--pairs-per-model-pair", "3", "--json"),
    )
    summary = json.loads(out)
    assert code == 0 and summary["tasks"] == 6 * 3 and summary["pairing"] == "balanced"
    code, out, _ = run(
        capsys,
        *("campaign", "create", bundle, "--name", "anc", "--protocol", PROTOCOL),
        *("--pairing", "anchor", "--anchor", "reference", "--json"),
    )
    assert code == 0 and json.loads(out)["tasks"] == 4 * 4


def test_gold_file(bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "gold.jsonl"
    line = {"item": "q001", "answer": "a", "first": MODELS[0], "second": MODELS[1]}
    gold.write_text(json.dumps(line) + "\n\n", encoding="utf-8")
    code, out, _ = create(capsys, bundle, "--gold", gold)
    assert code == 0 and "1 attention checks" in out
    gold.write_text('{"answer": "a"}\n', encoding="utf-8")
    code, _, err = run(
        capsys, "campaign", "create", bundle, "--name", "c2", "--protocol", PROTOCOL, "--gold", gold
    )
    assert code == 1 and "gold.jsonl, row 1" in err


def test_practice_file(bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    practice = tmp_path / "practice.jsonl"
    rows = [
        {"item": item, "answer": "a", "first": MODELS[0], "second": MODELS[1], "explanation": why}
        for item, why in (("q002", "Response 1 names the colour."), ("q003", "It counts right."))
    ]
    practice.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    base = ("campaign", "create", bundle, "--protocol", "arena-battle", "--models")
    models = ",".join(MODELS[:2])
    code, out, _ = run(
        capsys,
        *base,
        models,
        *("--name", "p", "--items", "q000,q001", "--practice-file", practice, "--practice", "1"),
        "--practice-required",
    )
    assert code == 0 and "a practice round of 1" in out
    code, out, _ = run(capsys, "campaign", "show", bundle, "p", "--json")
    settings = json.loads(out)["settings"]
    assert len(settings["practice"]) == 1 and settings["practice_optional"] is False
    # every practice task is on a scheduled item: refused, nothing created
    code, _, err = run(
        capsys, *base, models, "--name", "q", "--practice-file", practice, "--practice", "1"
    )
    assert code == 1 and "practice round needs 1" in err
    code, out, _ = run(capsys, "campaign", "list", bundle, "--json")
    assert [row["name"] for row in json.loads(out)] == ["p"]


def test_annotators_and_packs(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    create(capsys, bundle)
    code, out, _ = run(
        capsys, "annotator", "add", bundle, "ann", "--name", "Ann", "--expertise", "radiology"
    )
    assert code == 0 and "added annotator ann" in out
    code, out, _ = run(capsys, "annotator", "list", bundle, "--json")
    assert json.loads(out) == [{"handle": "ann", "display_name": "Ann", "expertise": "radiology"}]
    pack = tmp_path / "ann.wbb"
    code, out, _ = run(
        capsys,
        *("pack", "export", bundle, "--campaign", "c1", "--annotator", "ann", "--out", pack),
        *("--limit", "5"),
    )
    assert code == 0 and "5 tasks" in out
    with Bundle.open(pack) as opened:
        session = AnnotationSession(opened, "c1", "ann")
        for _ in range(3):
            task = session.next_task()
            assert task is not None
            session.cast(
                task.token, dict.fromkeys((c.name for c in session.protocol.criteria), "a")
            )
    code, out, _ = run(capsys, "pack", "merge", bundle, pack, "--json")
    report = json.loads(out)
    assert code == 0 and report["added"] == 15 and report["conflicts"] == []
    code, out, _ = run(capsys, "pack", "merge", bundle, pack)
    assert code == 0 and "0 vote rows added, 15 already there" in out
    details = json.loads(run(capsys, "campaign", "show", bundle, "c1", "--json")[1])
    assert details["annotators"] == {"ann": {"answered": 3, "skipped": 0}}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("campaign", "show", "{bundle}", "nope"), "no campaign named 'nope'"),
        (
            ("campaign", "create", "{bundle}", "--name", "x", "--protocol", "nope"),
            "unknown annotation protocol 'nope'",
        ),
        (
            (
                "campaign",
                "create",
                "{bundle}",
                "--name",
                "x",
                "--protocol",
                PROTOCOL,
                "--items",
                "zz",
            ),
            "no item with id zz",
        ),
        (
            ("pack", "export", "{bundle}", "--campaign", "c", "--annotator", "a", "--out", "p.wbb"),
            "no campaign named 'c'",
        ),
        (("annotator", "add", "{bundle}", " "), "needs a handle"),
    ],
)
def test_errors_exit_1_with_one_line(
    bundle: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, _, err = run(capsys, *(arg.format(bundle=bundle) for arg in argv))
    assert code == 1 and message in err and err.count("\n") == 1


def test_bad_usage_exits_2(bundle: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["campaign", "create", str(bundle), "--name", "x"])
    assert exit_.value.code == 2 and "--protocol" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(
            ["campaign", "create", str(bundle), "--name", "x", "--protocol", "p", "--pairing", "z"]
        )
    assert exit_.value.code == 2


def test_protocols_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "campaign", "protocols", "--json")
    chirp = next(p for p in json.loads(out) if p["name"] == PROTOCOL)
    assert code == 0 and chirp["choices"] == {"1": "Response 1", "2": "Response 2", "3": "Tie"}
    assert len(chirp["criteria"]) == 5
