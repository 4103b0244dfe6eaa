"""An import longer than one batch streams: read, checked and written batch by batch into one
transaction, with the same rows, the same refusals and the same warnings as read whole."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import aliased

from workbench.domain import JudgmentRecord
from workbench.importers.base import ImportRejectedError, ImportReport
from workbench.importers.limits import DEFAULT_LIMITS
from workbench.plugins import registry
from workbench.services import importing
from workbench.services.importing import import_files
from workbench.storage import Bundle
from workbench.storage.import_writer import ImportWriter
from workbench.storage.models import Import, Model, PriorJudgment

FORMAT = "arena-battles"
WINNERS = ("model_a", "model_b", "tie")


def battle_log(path: Path, count: int, names: tuple[str, ...] = ("m-a", "m-b", "m-c")) -> Path:
    """``count`` battles without conversations, as FastChat's battle JSONL."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n in range(count):
        first, second = names[n % len(names)], names[(n + 1) % len(names)]
        battle = {"model_a": first, "model_b": second, "winner": WINNERS[n % 3], "tstamp": n}
        lines.append(json.dumps(battle) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def stored(bundle: Path) -> list[tuple[str, str, str, Any]]:
    model_a, model_b = aliased(Model), aliased(Model)
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        rows = session.execute(
            select(model_a.name, model_b.name, PriorJudgment.outcome, PriorJudgment.metadata_)
            .join(model_a, PriorJudgment.model_a_id == model_a.id)
            .join(model_b, PriorJudgment.model_b_id == model_b.id)
            .order_by(PriorJudgment.id)
        ).all()
    return [tuple(row) for row in rows]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def batches_of_seven(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Batches of 7 records; returns the size of every batch the writer was given."""
    monkeypatch.setattr(importing, "BATCH_RECORDS", 7)
    sizes: list[int] = []
    add = ImportWriter.add

    def counted(self: ImportWriter, records: Any, images: Any) -> None:
        sizes.append(len(records))
        add(self, records, images)

    monkeypatch.setattr(ImportWriter, "add", counted)
    return sizes


def test_a_battle_log_streams_in_batches_and_lands_as_read_whole(
    tmp_path: Path, batches_of_seven: list[int]
) -> None:
    source = battle_log(tmp_path / "log" / "battles.jsonl", 60)
    result = import_files(tmp_path / "streamed.wbb", [source], FORMAT)
    assert len(batches_of_seven) == 9 and max(batches_of_seven) == 7, batches_of_seven
    importing.BATCH_RECORDS = 1_000  # undone by monkeypatch
    whole = import_files(tmp_path / "whole.wbb", [source], FORMAT)
    assert batches_of_seven[9:] == [60]
    assert stored(tmp_path / "streamed.wbb") == stored(tmp_path / "whole.wbb")
    assert result.counts == whole.counts
    assert result.counts["judgments_added"] == 60 and result.counts["models_added"] == 3


def plain_battle_log(path: Path, count: int) -> Path:
    """``count`` battles of the three keys alone, a whole battle log's shape."""
    path.parent.mkdir(parents=True, exist_ok=True)
    names = ("m-a", "m-b", "m-c")
    rows = (
        {"model_a": names[n % 3], "model_b": names[(n + 1) % 3], "winner": WINNERS[n % 3]}
        for n in range(count)
    )
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def judgment_indexes(session: Any) -> list[str]:
    return sorted(
        session.execute(
            text(
                "SELECT sql FROM sqlite_master WHERE type = 'index' "
                "AND tbl_name = 'prior_judgments' AND sql IS NOT NULL"
            )
        ).scalars()
    )


def test_a_new_bundle_gets_its_judgment_indexes_after_the_last_batch(
    tmp_path: Path, batches_of_seven: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from workbench.storage import import_writer
    from workbench.storage.batching import insert_rows

    with Bundle.create(tmp_path / "empty.wbb") as empty, empty.read_session() as session:
        declared = judgment_indexes(session)
    assert len(declared) == 4
    while_written: list[list[str]] = []

    def watched(session: Any, table: Any, rows: Any) -> None:
        while_written.append(judgment_indexes(session))
        insert_rows(session, table, rows)

    monkeypatch.setattr(import_writer, "insert_rows", watched)
    source = plain_battle_log(tmp_path / "log" / "battles.jsonl", 30)
    import_files(tmp_path / "streamed.wbb", [source], FORMAT)
    assert len(while_written) == 5 and all(found == [] for found in while_written)
    with Bundle.open(tmp_path / "streamed.wbb") as opened, opened.read_session() as session:
        assert judgment_indexes(session) == declared
        plan = " ".join(
            str(row[-1])
            for row in session.execute(
                text("EXPLAIN QUERY PLAN SELECT id FROM prior_judgments WHERE model_a_id = 1")
            )
        )
    assert "ix_prior_judgments_models" in plan
    # into a bundle that exists, rows are added under its indexes, which stay
    while_written.clear()
    import_files(
        tmp_path / "streamed.wbb", [plain_battle_log(tmp_path / "more" / "b.jsonl", 9)], FORMAT
    )
    assert while_written and all(found == declared for found in while_written)


def test_a_plain_battle_log_lands_as_the_same_battles_with_a_fact(
    tmp_path: Path, batches_of_seven: list[int]
) -> None:
    """Rows of the three keys alone take the quick way through reading and checking; what
    lands is what the full way makes of the same battles with a fact beside them."""
    plain = plain_battle_log(tmp_path / "plain" / "battles.jsonl", 30)
    faceted = tmp_path / "faceted" / "battles.jsonl"
    faceted.parent.mkdir()
    faceted.write_text(
        "".join(
            json.dumps({**json.loads(line), "language": "English"}) + "\n"
            for line in plain.read_text().splitlines()
        )
    )
    import_files(tmp_path / "plain.wbb", [plain], FORMAT)
    import_files(tmp_path / "faceted.wbb", [faceted], FORMAT)
    quick, full = stored(tmp_path / "plain.wbb"), stored(tmp_path / "faceted.wbb")
    assert [row[:3] for row in quick] == [row[:3] for row in full]
    assert {row[3]["language"] for row in full} == {"English"}
    assert all(row[3] == {} for row in quick)


def test_a_rejection_in_a_later_batch_leaves_the_bundle_as_it_was(
    tmp_path: Path, batches_of_seven: list[int]
) -> None:
    bundle = tmp_path / "b.wbb"
    import_files(bundle, [battle_log(tmp_path / "first" / "battles.jsonl", 5)], FORMAT)
    before = sha256(bundle)
    bad = battle_log(tmp_path / "bad" / "battles.jsonl", 40)
    lines = bad.read_text().splitlines(keepends=True)
    lines[34] = json.dumps({"model_a": "m-a", "model_b": "m-b", "winner": "nobody"}) + "\n"
    bad.write_text("".join(lines))
    batches_of_seven.clear()
    with pytest.raises(ImportRejectedError) as caught:
        import_files(bundle, [bad], FORMAT)
    assert "battles.jsonl, row 35, field 'winner'" in str(caught.value)
    assert len(batches_of_seven) == 4  # four batches were written before the fifth was refused
    assert sha256(bundle) == before
    with Bundle.open(bundle) as opened, opened.read_session() as session:
        assert session.scalar(select(Import.id).order_by(Import.id.desc())) == 1
    assert len(stored(bundle)) == 5
    with pytest.raises(ImportRejectedError):
        import_files(tmp_path / "new.wbb", [bad], FORMAT)
    assert not (tmp_path / "new.wbb").exists()


def test_skip_rejected_lands_every_valid_row_of_every_batch(
    tmp_path: Path, batches_of_seven: list[int]
) -> None:
    bad = battle_log(tmp_path / "bad" / "battles.jsonl", 30)
    lines = bad.read_text().splitlines(keepends=True)
    lines[3] = lines[20] = "{oops\n"
    bad.write_text("".join(lines))
    result = import_files(tmp_path / "b.wbb", [bad], FORMAT, skip_rejected=True)
    assert [problem.row for problem in result.rejections] == [4, 21]
    assert result.counts["judgments_added"] == 28


def test_look_alike_and_respelled_names_are_reported_across_batches(
    tmp_path: Path, batches_of_seven: list[int]
) -> None:
    folder = tmp_path / "log"
    battle_log(folder / "1.jsonl", 10, ("gpt-4o", "claude"))
    # a Cyrillic "о" in a later batch, and a trailing space in two batches
    battle_log(folder / "2.jsonl", 20, ("gpt-4\u043e", "claude "))
    result = import_files(tmp_path / "b.wbb", [folder], FORMAT)
    assert len(batches_of_seven) > 3
    warnings = [str(warning) for warning in result.warnings]
    look_alike = [w for w in warnings if "look alike" in w]
    assert len(look_alike) == 1 and "'gpt-4o'" in look_alike[0], warnings
    respelled = [w for w in warnings if "is stored as 'claude'" in w]
    assert len(respelled) == 1, warnings
    assert result.counts["models_added"] == 3


def test_a_battle_log_is_handed_on_before_the_file_is_read_to_its_end(tmp_path: Path) -> None:
    source = battle_log(tmp_path / "log" / "battles.jsonl", 50)
    with source.open("a") as handle:
        handle.write("{oops\n")
    report = ImportReport()
    records = registry().importer(FORMAT).read([source], report)
    first = next(records)
    assert isinstance(first, JudgmentRecord)
    assert (first.model_a, first.model_b) == ("m-a", "m-b")
    assert report.rejections == []  # the last line is not parsed yet
    rest = list(records)
    assert len(rest) == 49 and [p.row for p in report.rejections] == [51]


@pytest.mark.parametrize(
    "text",
    [
        '[{"a": 1}, {"b": [1, 2, {"c": "]"}]},\n  "x", 3.5, null]\n',
        "  [ ]  ",
        '[{"a": 1},\n {"b": 2}\n',
        '[{"a": 1}, ]',
        '[{"a": 1} {"b": 2}]',
        '[{"a": 1}] [2]',
        '[{"a": 1},\n {"b": nope}]',
    ],
)
def test_a_list_decoded_element_by_element_reads_as_json_loads(text: str) -> None:
    from workbench_arena.jsonfiles import _list_rows

    report = ImportReport()
    rows = [value for _, value in _list_rows(text, "f.json", report, DEFAULT_LIMITS)]
    try:
        expected = json.loads(text)
    except json.JSONDecodeError as error:
        assert len(report.rejections) == 1
        where = f"at line {error.lineno}, column {error.colno}"
        assert report.rejections[0].reason == f"not valid JSON: {error.msg} {where}"
    else:
        assert rows == expected and report.rejections == []
