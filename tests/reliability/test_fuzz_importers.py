"""Bad input never loses data: every importer, fed damaged files, gives a clear error or rejects
rows, and leaves an existing bundle byte-identical and no new bundle behind.

CI runs one case of each (format, kind of damage) pair and a few hypothesis examples; the full
corpus and longer hypothesis runs are marked ``long`` (``pytest -m long tests/reliability``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.backends import BundleBackend
from tests.reliability.fuzz_cases import (
    FORMATS,
    SPECS,
    Case,
    CaseRun,
    all_cases,
    built,
    get_path,
    json_paths,
    make_base_bundle,
    run_case,
    sample,
    set_path,
)
from workbench.importers.base import ImportRejectedError
from workbench.services.importing import import_files
from workbench.storage.bundle import Bundle, head_revision
from workbench.storage.queries import bundle_counts

#: the bomb cases make Pillow warn before the import refuses them; the refusal is what is tested
pytestmark = pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")

#: cases of each (format, damage) pair in the CI sample
CI_CASES_PER_GROUP = 1


@pytest.fixture(scope="session")
def base_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_base_bundle(tmp_path_factory.mktemp("fuzz-base"))


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    return all_cases(tmp_path_factory.mktemp("fuzz-scratch"))


def _run_all(cases: list[Case], base_bundle: Path, workdir: Path) -> list[CaseRun]:
    return [run_case(case, workdir / f"case{n}", base_bundle) for n, case in enumerate(cases)]


def _assert_no_failures(runs: list[CaseRun], record_property: Callable[[str, Any], None]) -> None:
    outcomes = Counter(run.outcome for run in runs)
    record_property("cases_tried", len(runs))
    record_property("outcomes", dict(outcomes))
    print(f"{len(runs)} damaged inputs tried: {dict(outcomes)}")
    failures = [f"{run.case.id}: {'; '.join(run.failures)}" for run in runs if run.failures]
    assert not failures, f"{len(failures)} of {len(runs)} cases failed:\n" + "\n".join(failures)


def test_the_corpus_covers_every_importer_and_kind_of_damage(corpus: list[Case]) -> None:
    assert {case.format for case in corpus} == set(FORMATS)
    damages = {case.damage for case in corpus}
    for wanted in (
        "truncated",
        "binary-garbage",
        "encoding",
        "huge-field",
        "duplicate-id",
        "image-not-an-image",
        "image-path-escape",
        "missing-file",
        "too-long-for-column",
    ):
        assert wanted in damages
    assert any(case.damage.startswith("json-wrong-type") for case in corpus)
    assert any(case.damage == "cell-missing" for case in corpus)
    # every format's image references are tried with every way out of the folder
    escapes = {case.format for case in corpus if case.name == "symlink-to-outside-file"}
    assert escapes == {name for name, spec in SPECS.items() if spec.set_image_ref is not None}


@pytest.mark.parametrize("format_name", FORMATS)
def test_a_sample_of_damaged_inputs_is_refused_cleanly(
    format_name: str,
    corpus: list[Case],
    base_bundle: Path,
    tmp_path: Path,
    record_property: Callable[[str, Any], None],
) -> None:
    cases = sample([c for c in corpus if c.format == format_name], CI_CASES_PER_GROUP)
    _assert_no_failures(_run_all(cases, base_bundle, tmp_path), record_property)


@pytest.mark.long
@pytest.mark.parametrize("format_name", FORMATS)
def test_every_damaged_input_is_refused_cleanly(
    format_name: str,
    corpus: list[Case],
    base_bundle: Path,
    tmp_path: Path,
    record_property: Callable[[str, Any], None],
) -> None:
    cases = [c for c in corpus if c.format == format_name]
    _assert_no_failures(_run_all(cases, base_bundle, tmp_path), record_property)


def test_a_failed_import_reports_each_problem_with_file_row_and_field(
    base_bundle: Path, tmp_path: Path
) -> None:
    spec = SPECS["jsonl"]

    def edit(files: dict[str, Any], _root: Path) -> None:
        files["items.jsonl"][1]["judgments"][0]["turn"] = 2**70

    run = run_case(
        Case("jsonl", "example", "turn-too-big", built(spec, edit)), tmp_path, base_bundle
    )
    assert not run.failures
    message = run.attempts[0].message
    assert "items.jsonl, row 2, field 'turn'" in message
    assert "out of range for a 64-bit integer" in message


# --- hypothesis: random JSON in every field, random bytes at the end ------------------------------

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=2)
)
_JSON_NESTED = st.lists(JSON_SCALARS, max_size=3) | st.dictionaries(
    st.text(max_size=8), JSON_SCALARS, max_size=3
)
JSON_VALUES = (
    JSON_SCALARS
    | _JSON_NESTED
    | st.lists(_JSON_NESTED, max_size=2)
    | st.dictionaries(st.text(max_size=8), _JSON_NESTED, max_size=2)
)

#: the JSON formats and the files whose first row the property tests change
JSON_FILES = {
    "jsonl": "items.jsonl",
    "arena-battles": "battles.jsonl",
    "wildvision-bench": "model_judgements/model-one.jsonl.gz",
}


def _any_outcome_case(format_name: str, name: str, build: Callable[[Path], list[Path]]) -> Case:
    # The value may be valid for its field, so importing is a right answer too; what must hold
    # is the rest: no crash, a clear message, the bundles untouched.
    return Case(format_name, "hypothesis", name, build, must_refuse=False)


def _check_hypothesis_case(case: Case, base_bundle: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="fuzz-") as folder:
        run = run_case(case, Path(folder), base_bundle)
    assert not run.failures, run.failures


def _field_paths(format_name: str) -> list[tuple[Any, ...]]:
    rows = SPECS[format_name].inputs().files[JSON_FILES[format_name]]
    return list(json_paths(rows[0]))


def _property_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


def _random_json_in_a_field(format_name: str, data: st.DataObject, base_bundle: Path) -> None:
    path = data.draw(st.sampled_from(_field_paths(format_name)), label="field")
    value = data.draw(JSON_VALUES, label="value")
    file_name = JSON_FILES[format_name]

    def edit(files: dict[str, Any], _root: Path) -> None:
        set_path(files[file_name][0], path, value)

    build = built(SPECS[format_name], edit)
    _check_hypothesis_case(_any_outcome_case(format_name, "random-json", build), base_bundle)


@pytest.mark.parametrize("format_name", list(JSON_FILES))
@_property_settings(8)
@given(data=st.data())
def test_random_json_in_any_field_is_imported_or_refused_cleanly(
    format_name: str, data: st.DataObject, base_bundle: Path
) -> None:
    _random_json_in_a_field(format_name, data, base_bundle)


@pytest.mark.long
@pytest.mark.parametrize("format_name", list(JSON_FILES))
@_property_settings(300)
@given(data=st.data())
def test_random_json_in_any_field_long(
    format_name: str, data: st.DataObject, base_bundle: Path
) -> None:
    _random_json_in_a_field(format_name, data, base_bundle)


def _bytes_damaged(format_name: str, data: st.DataObject, base_bundle: Path) -> None:
    spec = SPECS[format_name]
    tail = data.draw(st.binary(max_size=64), label="appended")
    keep = data.draw(st.floats(min_value=0.0, max_value=1.0), label="kept share")

    def build(root: Path) -> list[Path]:
        sources = built(spec)(root)
        path = root / spec.data_file
        raw = path.read_bytes()
        path.write_bytes(raw[: round(len(raw) * keep)] + tail)
        return sources

    _check_hypothesis_case(_any_outcome_case(format_name, "random-bytes", build), base_bundle)


@pytest.mark.parametrize("format_name", FORMATS)
@_property_settings(4)
@given(data=st.data())
def test_random_bytes_cut_and_appended_are_refused_cleanly(
    format_name: str, data: st.DataObject, base_bundle: Path
) -> None:
    _bytes_damaged(format_name, data, base_bundle)


@pytest.mark.long
@pytest.mark.parametrize("format_name", FORMATS)
@_property_settings(200)
@given(data=st.data())
def test_random_bytes_cut_and_appended_long(
    format_name: str, data: st.DataObject, base_bundle: Path
) -> None:
    _bytes_damaged(format_name, data, base_bundle)


def test_the_unchanged_valid_inputs_import(base_bundle: Path, tmp_path: Path) -> None:
    """The corpus damages valid files: each format's undamaged input must import cleanly, or
    the refusals above would prove nothing."""
    for number, spec in enumerate(SPECS.values()):
        case = Case(spec.format, "none", "valid", built(spec), must_refuse=False)
        run = run_case(case, tmp_path / str(number), base_bundle)
        assert [a.outcome for a in run.attempts] == ["imported", "imported"], (
            spec.format,
            [a.message for a in run.attempts],
        )


def test_json_paths_reach_every_field() -> None:
    row = {"a": 1, "b": [{"c": None}], "d": {"e": []}}
    paths = list(json_paths(row))
    assert paths == [("a",), ("b",), ("b", 0), ("b", 0, "c"), ("d",), ("d", "e")]
    assert get_path(row, ("b", 0, "c")) is None


# --- the same refusals on a PostgreSQL bundle ---------------------------------------------------

#: inputs SQLite would store and PostgreSQL refuses (or neither can store): both must reject
#: them the same way, before anything is written
SERVER_SENSITIVE = ("too-long-for-column", "nul-char", "nul-byte-in-text", "lone-surrogate", "2^70")


def test_what_the_server_refuses_is_rejected_on_both_backends(
    bundle_backend: BundleBackend, corpus: list[Case], tmp_path: Path
) -> None:
    cases = [
        case
        for case in corpus
        if case.must_refuse and any(marker in case.id for marker in SERVER_SENSITIVE)
    ]
    cases = sample(cases, CI_CASES_PER_GROUP)
    assert len(cases) >= 8
    spec = SPECS["jsonl"]
    existing = bundle_backend.new_location()
    import_files(existing, built(spec)(tmp_path / "valid"), "jsonl")
    with Bundle.open(existing) as bundle, bundle.read_session() as session:
        counts_before = bundle_counts(session)
    # a refused import creates nothing, so one empty location serves every case
    fresh = bundle_backend.new_location()
    for number, case in enumerate(cases):
        sources = case.build(tmp_path / f"case{number}")
        for location in (fresh, existing):
            with pytest.raises(ImportRejectedError):
                import_files(location, sources, case.format)
        assert not Bundle.exists(fresh), case.id
    with Bundle.open(existing) as bundle, bundle.read_session() as session:
        assert bundle_counts(session) == counts_before


OLD_SCHEMA_BUNDLE = Path(__file__).resolve().parents[1] / "fixtures" / "bundle-0001.wbb"


def test_a_refused_import_leaves_an_older_schema_bundle_unmigrated(tmp_path: Path) -> None:
    """The import service must not upgrade a bundle (which rewrites it and writes a backup
    beside it) for an input it then refuses; a valid import still upgrades it."""
    if not OLD_SCHEMA_BUNDLE.is_file():
        pytest.skip("the revision-0001 fixture bundle is not in this checkout")
    folder = tmp_path / "bundles"
    folder.mkdir()
    bundle = folder / "old.wbb"
    shutil.copyfile(OLD_SCHEMA_BUNDLE, bundle)
    before = bundle.read_bytes()
    spec = SPECS["jsonl"]

    def damage(files: dict[str, Any], _root: Path) -> None:
        files["items.jsonl"][0]["turns"] = "not a list"

    with pytest.raises(ImportRejectedError):
        import_files(bundle, built(spec, damage)(tmp_path / "damaged"), "jsonl")
    assert bundle.read_bytes() == before
    assert sorted(path.name for path in folder.iterdir()) == ["old.wbb"]

    import_files(bundle, built(spec)(tmp_path / "valid"), "jsonl")
    with Bundle.open(bundle, migrate=False) as opened:
        assert opened.revision() == head_revision()


def test_every_table_file_case_is_refused_cleanly(
    corpus: list[Case],
    base_bundle: Path,
    tmp_path: Path,
    record_property: Callable[[str, Any], None],
) -> None:
    """All of them, not a sample: a damaged Arrow offset killed the process (SIGBUS), so one
    case left out is one crash unseen."""
    damages = ("parquet-footer", "arrow-buffer", "table-limits", "dataset-folder")
    cases = [case for case in corpus if case.damage in damages]
    assert {case.damage for case in cases} == set(damages)
    _assert_no_failures(_run_all(cases, base_bundle, tmp_path), record_property)
