"""The ``wildvision-bench`` import format: the WildVision-Bench release folder (vision_bench_0617)
with its model answers, GPT-4o's judgments of each answer against the baseline, and the battles
derived from them. docs/importers/arena.md says what lands where and why.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.domain import (
    ImageRecord,
    ItemRecord,
    JudgmentKind,
    JudgmentRecord,
    ModelRecord,
    Origin,
    Outcome,
    OutputRecord,
    TurnRecord,
)
from workbench.errors import WorkbenchError
from workbench.importers.base import Importer, ImportReport, Record, relative_name
from workbench_arena.folders import folders_below
from workbench_arena.jsonfiles import (
    RowError,
    optional_text,
    read_rows,
    require_object,
    text_field,
    typed_field,
)
from workbench_arena.verdicts import (
    labels_in_text,
    parse_verdict,
    verdict_from_text,
    verdict_judgment,
)

SOURCE = "wildvision-bench"
ANSWERS_FOLDER = "model_answers"
JUDGMENTS_FOLDER = "model_judgements"
BATTLES_FILE_STEM = "vision_bench_battles"
JSONL_PATTERNS = ("*.jsonl", "*.jsonl.gz")

#: The baseline of vision_bench_0617 (its judge_config.yaml). The upstream repository keeps
#: judgments in ``judge_<judge>_reference_<baseline>/``; when that folder is present its name wins.
DEFAULT_BASELINE = "claude-3-sonnet-20240229"
JUDGE_FOLDER_NAME = re.compile(r"judge_(?P<judge>.+)_reference_(?P<baseline>.+)")

BATTLES_RATER = "wildvision-battles"
BATTLE_WINNERS = {
    "model_a": Outcome.A,
    "model_b": Outcome.B,
    "tie": Outcome.TIE,
    "tie (bothbad)": Outcome.BOTH_BAD,
}

#: What WildVision wrote instead of a model's answer or a judge's text when the API call failed.
ERROR_TEXT = "$ERROR$"


class NotAWildVisionFolderError(WorkbenchError):
    pass


@dataclass(frozen=True, slots=True)
class ReleaseFiles:
    """The data files of one WildVision-Bench folder, by role."""

    answers: list[Path]
    judgments: list[Path]
    battles: list[Path]

    def all(self) -> list[Path]:
        return [*self.answers, *self.judgments, *self.battles]

    @classmethod
    def of(cls, sources: Sequence[Path]) -> ReleaseFiles:
        """The files of all ``sources`` together, each once (a clone's root and its data/
        folder may both be given)."""
        found = [release_files(source) for source in sources]

        def unique(paths: list[Path]) -> list[Path]:
            seen: set[Path] = set()
            kept = []
            for path in paths:
                if path.resolve() not in seen:
                    seen.add(path.resolve())
                    kept.append(path)
            return kept

        return cls(
            answers=unique([path for files in found for path in files.answers]),
            judgments=unique([path for files in found for path in files.judgments]),
            battles=unique([path for files in found for path in files.battles]),
        )


#: How deep below the given folder release folders are looked for: a clone's root holds
#: ``data/``, which holds the battles file and the dated release folders.
SEARCH_DEPTH = 2


def _matching(root: Path, recursive: bool) -> list[Path]:
    found = {
        path
        for pattern in JSONL_PATTERNS
        for path in (root.rglob(pattern) if recursive else root.glob(pattern))
        if path.is_file()
    }
    return sorted(found)


def release_files(folder: Path) -> ReleaseFiles:
    """The files the import reads in ``folder``: a release folder (``vision_bench_0617/``), the
    repository's ``data/`` folder (the battles file beside dated release folders), or the root of
    a clone. Everything else there (the published leaderboard and bootstrap results, the
    licence, example answers) is left alone on purpose."""
    if folder.is_file() and file_stem(folder) == BATTLES_FILE_STEM:
        return ReleaseFiles(answers=[], judgments=[], battles=[folder])
    if not folder.is_dir():
        raise NotAWildVisionFolderError(
            f"{folder} is not a folder: the wildvision-bench format reads the release folder "
            f"(with {ANSWERS_FOLDER}/, {JUDGMENTS_FOLDER}/ and {BATTLES_FILE_STEM}.jsonl.gz), "
            "the repository's data/ folder or the root of a clone"
        )
    answers: list[Path] = []
    judgments: list[Path] = []
    battles: list[Path] = []
    for root in folders_below(folder, SEARCH_DEPTH, (ANSWERS_FOLDER, JUDGMENTS_FOLDER)):
        answers.extend(_matching(root / ANSWERS_FOLDER, recursive=False))
        judgments.extend(_matching(root / JUDGMENTS_FOLDER, recursive=True))
        battles.extend(
            path
            for path in (
                root / f"{BATTLES_FILE_STEM}.jsonl",
                root / f"{BATTLES_FILE_STEM}.jsonl.gz",
            )
            if path.is_file()
        )
    return ReleaseFiles(answers=answers, judgments=judgments, battles=battles)


def file_stem(path: Path) -> str:
    name = path.name
    for suffix in (".jsonl.gz", ".jsonl"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def is_judge_error(text: str | None) -> bool:
    words = (text or "").split()
    return bool(words) and all(word == ERROR_TEXT for word in words)


@dataclass
class _Question:
    prompt: str
    language: str | None
    origin: Origin


@dataclass
class _Findings:
    """What is counted across the whole import and reported once, not row by row."""

    image_hashes: dict[str, list[str]] = field(default_factory=dict)
    judge_errors: Counter[str] = field(default_factory=Counter)
    labels_missing_from_text: Counter[str] = field(default_factory=Counter)
    error_answers: int = 0
    #: (judge, question, judged model) -> the row that judged it first
    judged: dict[tuple[str, str, str], Origin] = field(default_factory=dict)
    #: (question, model) -> the file that answered it first
    answered: dict[tuple[str, str], str] = field(default_factory=dict)
    #: answers and judgments given again in another file (a second release folder of a clone)
    repeated_answers: int = 0
    repeated_judgments: int = 0


class WildVisionBenchImporter(Importer):
    name = "wildvision-bench"
    version = "1"
    description = (
        "WildVision-Bench release folder, data/ folder or clone: answers, GPT-4o judgments, battles"
    )

    def files(self, sources: Sequence[Path]) -> list[Path]:
        for source in sources:
            if not release_files(source).all():
                raise NotAWildVisionFolderError(
                    f"no WildVision-Bench data in {source}: expected {ANSWERS_FOLDER}/*.jsonl.gz, "
                    f"{JUDGMENTS_FOLDER}/*.jsonl.gz or {BATTLES_FILE_STEM}.jsonl.gz, in it, in "
                    "its data/ folder or in a dated release folder there"
                )
        return ReleaseFiles.of(sources).all()

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        findings = _Findings()
        questions: dict[str, _Question] = {}
        models: dict[str, str] = {}
        outputs: list[OutputRecord] = []
        judgments: list[JudgmentRecord] = []
        found = ReleaseFiles.of(sources)
        # Judgments first: they carry the image hashes the items need. Battles come last and
        # are written after the items, whatever order the folders were given in.
        for path in found.judgments:
            judgments.extend(self._judgments(path, sources, report, findings))
        for path in found.answers:
            outputs.extend(self._answers(path, sources, report, questions, models, findings))
        for path in found.battles:
            judgments.extend(self._battles(path, sources, report))

        yield from self._items(questions, findings, report)
        for model, stem in sorted(models.items()):
            yield ModelRecord(model, metadata={"wildvision_file": stem})
        yield from outputs
        yield from judgments
        self._report_findings(findings, report)

    # --- model answers ------------------------------------------------------------------------

    def _answers(
        self,
        path: Path,
        sources: Sequence[Path],
        report: ImportReport,
        questions: dict[str, _Question],
        models: dict[str, str],
        findings: _Findings,
    ) -> Iterator[OutputRecord]:
        name = relative_name(path, sources)
        stem = file_stem(path)
        named_models: set[str] = set()
        for origin, value in read_rows(path, name, report, self.limits):
            try:
                row = require_object(value)
                question_id = text_field(row, "question_id")
                instruction = text_field(row, "instruction")
                model = text_field(row, "model")
                text = typed_field(row, "output", str)
                if text is None:
                    raise RowError("output", "is required")
                language = text_field(row, "language", required=False)
                token_len = typed_field(row, "token_len", int)
            except RowError as error:
                report.reject(origin, error.field, error.reason)
                continue
            assert question_id is not None and instruction is not None and model is not None
            known = questions.get(question_id)
            if known is None:
                questions[question_id] = _Question(instruction, language, origin)
            elif known.prompt != instruction:
                report.reject(
                    origin,
                    "instruction",
                    f"question '{question_id}' has a different instruction at {known.origin}",
                )
                continue
            if findings.answered.setdefault((question_id, model), origin.file) != origin.file:
                findings.repeated_answers += 1
                continue
            named_models.add(model)
            models.setdefault(model, stem)
            metadata: dict[str, Any] = {}
            if text.strip() == ERROR_TEXT:
                findings.error_answers += 1
                metadata["generation_error"] = True
            if token_len is not None:
                metadata["token_len"] = token_len
            yield OutputRecord(
                source=SOURCE,
                item_external_id=question_id,
                model=model,
                text=text,
                metadata=metadata,
                origin=origin,
            )
        self._check_file_names_model(name, stem, named_models, report)

    @staticmethod
    def _check_file_names_model(
        name: str, stem: str, models: set[str], report: ImportReport
    ) -> None:
        # The release names files after the model with "/" made "_"; the rows keep the real
        # name, which the battles and the leaderboard use too.
        strays = sorted(model for model in models if model.replace("/", "_") != stem)
        if strays:
            report.warn(
                Origin(name),
                "model",
                f"the file is named '{stem}' but its rows name {', '.join(strays)}; "
                "the rows' model names are used",
            )

    def _items(
        self, questions: dict[str, _Question], findings: _Findings, report: ImportReport
    ) -> Iterator[ItemRecord]:
        for question_id, question in questions.items():
            hashes = findings.image_hashes.get(question_id, [])
            if len(set(hashes)) > 1:
                report.warn(
                    question.origin,
                    "image",
                    f"the judgments of question '{question_id}' name different images "
                    f"({', '.join(sorted(set(hashes)))}); the first is kept",
                )
            reference = hashes[0] if hashes else f"wildvision:{question_id}"
            yield ItemRecord(
                source=SOURCE,
                external_id=question_id,
                turns=(TurnRecord(index=1, prompt=question.prompt),),
                language=question.language,
                images=(ImageRecord(position=0, original_ref=reference),),
                origin=question.origin,
            )
        if questions:
            report.warn(
                Origin(ANSWERS_FOLDER),
                "images",
                f"{len(questions)} items have no image: WildVision-Bench did not release its "
                "images; each item keeps the image's hash from the judge prompts as its reference",
            )

    # --- judgments ----------------------------------------------------------------------------

    def _judgments(
        self, path: Path, sources: Sequence[Path], report: ImportReport, findings: _Findings
    ) -> Iterator[JudgmentRecord]:
        name = relative_name(path, sources)
        folder = JUDGE_FOLDER_NAME.fullmatch(path.parent.name)
        baseline = folder["baseline"] if folder else DEFAULT_BASELINE
        for origin, value in read_rows(path, name, report, self.limits):
            try:
                records = list(self._judgment_row(value, baseline, origin, report, findings))
            except RowError as error:
                report.reject(origin, error.field, error.reason)
                continue
            yield from records

    def _judgment_row(
        self,
        value: Any,
        baseline: str,
        origin: Origin,
        report: ImportReport,
        findings: _Findings,
    ) -> Iterator[JudgmentRecord]:
        row = require_object(value)
        question_id = text_field(row, "question_id")
        model = text_field(row, "model")
        judge = text_field(row, "judge")
        games = typed_field(row, "games", list)
        if not games:
            raise RowError("games", "must hold at least one game")
        assert question_id is not None and model is not None and judge is not None
        parsed = [_Game.parse(game, index) for index, game in enumerate(games)]
        first = findings.judged.setdefault((judge, question_id, model), origin)
        if first != origin and first.file != origin.file:
            findings.repeated_judgments += 1  # another release folder of the same clone
            return
        if first != origin:
            raise RowError(
                "question_id",
                f"{judge} already judged model '{model}' on question '{question_id}' at {first}",
            )
        for game in parsed:
            if game.image is not None:
                findings.image_hashes.setdefault(question_id, []).append(game.image)
        for index, game in enumerate(parsed):
            # Arena-Hard's second game swaps the positions; WildVision plays only the first.
            model_a, model_b = (baseline, model) if index % 2 == 0 else (model, baseline)
            yield self._judgment(game, question_id, judge, model_a, model_b, origin, report)
            if is_judge_error(game.text):
                findings.judge_errors[game.score if game.score is not None else "null"] += 1
            elif (
                game.score is not None
                and parse_verdict(game.score)
                and not labels_in_text(game.text)
            ):
                findings.labels_missing_from_text[game.score] += 1

    def _judgment(
        self,
        game: _Game,
        question_id: str,
        judge: str,
        model_a: str,
        model_b: str,
        origin: Origin,
        report: ImportReport,
    ) -> JudgmentRecord:
        where = f"games[{game.index}].score"
        metadata: dict[str, Any] = {"game": game.index}
        judge_error = is_judge_error(game.text)
        if game.image is not None:
            metadata["image"] = game.image
        verdict = parse_verdict(game.score)
        label = game.score if verdict is not None else None
        if verdict is None:
            problem = game.score_problem()
            metadata["score_problem"] = problem
            if problem == "free_text" and game.score != game.text:
                metadata["raw_score"] = game.score
            verdict = verdict_from_text(game.text)
            if verdict is not None:
                metadata["recovered_from_text"] = True
                label = verdict.label
                report.warn(
                    origin,
                    where,
                    f"score is {problem.replace('_', ' ')}; verdict {label} read from the "
                    "judgment text",
                )
            else:
                report.warn(
                    origin,
                    where,
                    f"score is {problem.replace('_', ' ')} and the judgment text gives no "
                    "[[...]] label; the judgment is kept without an outcome",
                )
        elif not judge_error:
            from_text = verdict_from_text(game.text)
            if from_text is None and not labels_in_text(game.text):
                metadata["label_not_in_text"] = True
            elif from_text != verdict:
                metadata["text_label"] = from_text.label if from_text else None
                report.warn(
                    origin,
                    where,
                    f"score {game.score} does not match the label(s) in the judgment text",
                )
        if judge_error:
            metadata["judge_error"] = True
        return verdict_judgment(
            source=SOURCE,
            question_id=question_id,
            models=(model_a, model_b),
            verdict=verdict,
            label=label,
            judge=judge,
            group_key=f"{judge}|{question_id}|{model_a}|{model_b}",
            text=game.text,
            metadata=metadata,
            origin=origin,
        )

    # --- battles ------------------------------------------------------------------------------

    def _battles(
        self, path: Path, sources: Sequence[Path], report: ImportReport
    ) -> Iterator[JudgmentRecord]:
        name = relative_name(path, sources)
        for origin, value in read_rows(path, name, report, self.limits):
            try:
                row = require_object(value)
                question_id = text_field(row, "question_id")
                model_a = text_field(row, "model_a")
                model_b = text_field(row, "model_b")
                winner = text_field(row, "winner")
                if winner not in BATTLE_WINNERS:
                    raise RowError(
                        "winner", f"{winner[:60]!r} is not one of {', '.join(BATTLE_WINNERS)}"
                    )
            except RowError as error:
                report.reject(origin, error.field, error.reason)
                continue
            assert question_id is not None and model_a is not None and model_b is not None
            yield JudgmentRecord(
                source=SOURCE,
                item_external_id=question_id,
                kind=JudgmentKind.JUDGE,
                model_a=model_a,
                model_b=model_b,
                outcome=BATTLE_WINNERS[winner],
                label=winner,
                rater=BATTLES_RATER,
                metadata={"derived": "battles"},
                origin=origin,
            )

    # --- summary ------------------------------------------------------------------------------

    @staticmethod
    def _report_findings(findings: _Findings, report: ImportReport) -> None:
        def spelled(counts: Counter[str]) -> str:
            return ", ".join(f"{label}: {count}" for label, count in sorted(counts.items()))

        if findings.judge_errors:
            kept = spelled(findings.judge_errors)
            report.warn(
                Origin(JUDGMENTS_FOLDER),
                "judgment",
                f"{findings.judge_errors.total()} judgments hold only '{ERROR_TEXT}' (the "
                f"judge call failed); their published scores are kept ({kept}), marked judge_error",
            )
        if findings.labels_missing_from_text:
            total = findings.labels_missing_from_text.total()
            report.warn(
                Origin(JUDGMENTS_FOLDER),
                "score",
                f"{total} other published scores have no [[...]] label in their judgment text "
                f"({spelled(findings.labels_missing_from_text)}); kept, marked label_not_in_text",
            )
        if findings.repeated_answers or findings.repeated_judgments:
            report.warn(
                Origin(ANSWERS_FOLDER),
                None,
                f"{findings.repeated_answers} answers and {findings.repeated_judgments} "
                "judgments appear again in another file (a second release folder); the first "
                "file's, in folder order, are kept",
            )
        if findings.error_answers:
            report.warn(
                Origin(ANSWERS_FOLDER),
                "output",
                f"{findings.error_answers} answers are '{ERROR_TEXT}' (the model call "
                "failed); imported as published, marked generation_error",
            )


@dataclass(frozen=True, slots=True)
class _Game:
    """One game of a judgment row: the judge's text, its score, and the image it was shown."""

    index: int
    text: str | None
    score: str | None
    image: str | None

    @classmethod
    def parse(cls, value: Any, index: int) -> _Game:
        where = f"games[{index}]"
        if not isinstance(value, dict):
            raise RowError(where, f"must be an object, not {type(value).__name__}")
        # The release spells the key "judgment" in most files and "judgement" in two.
        text = optional_text(value.get("judgment", value.get("judgement")), f"{where}.judgment")
        score = optional_text(value.get("score"), f"{where}.score")
        prompt = value.get("user_prompt")
        if prompt is not None and not isinstance(prompt, list):
            raise RowError(f"{where}.user_prompt", "must be a list of content parts")
        images = [
            part["image"]
            for part in prompt or []
            if isinstance(part, dict)
            and part.get("type") == "image"
            and isinstance(part.get("image"), str)
        ]
        return cls(index, text, score, images[0] if images else None)

    def score_problem(self) -> str:
        if self.score is None:
            return "null"
        if not self.score.strip():
            return "empty"
        return "free_text"
