"""The ``arena-hard`` import format: Arena-Hard-Auto's files (lmarena/arena-hard-auto), as its
scripts leave them in ``data/<bench_name>/``:

- ``question.jsonl``: ``question_id`` (``uid`` in v2.0), ``category``, ``cluster``, and the user
  turns as ``turns: [{"content": ...}]`` (v2.0: one ``prompt``), text-only items;
- ``model_answer/<model>.jsonl``: ``model_id`` and ``choices[0].turns[].content`` (v2.0:
  ``model`` and ``messages``), the models' answers;
- ``model_judgment/<judge>/<model>.jsonl``: per question the judged ``model``, the ``judge`` and
  its ``games``: game 1 shows the baseline as assistant A, game 2 swaps the two, each with the
  ``user_prompt`` sent, the judge's ``judgment`` text and its ``score`` label ("A>>B".."B>>A").

The baseline is the row's ``baseline`` (v2.0), else ``baseline_model`` of a
``config/judge_config.yaml`` found with the data, else Arena-Hard's default, gpt-4-0314.
docs/importers/arena.md says what lands where and why.
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
    JudgmentRecord,
    Origin,
    OutputRecord,
    TurnRecord,
)
from workbench.errors import WorkbenchError
from workbench.importers.base import Importer, ImportReport, Record, relative_name
from workbench_arena.conversations import ConversationTurn, read_content, read_prompt_turns
from workbench_arena.folders import folders_below
from workbench_arena.jsonfiles import (
    RowError,
    optional_text,
    read_rows,
    require_object,
    text_field,
    typed_field,
)
from workbench_arena.verdicts import parse_verdict, verdict_from_text, verdict_judgment

SOURCE = "arena-hard"
QUESTION_FILE = "question.jsonl"
ANSWERS_FOLDER = "model_answer"
JUDGMENTS_FOLDER = "model_judgment"
CONFIG_FILE = "judge_config.yaml"
DEFAULT_BASELINE = "gpt-4-0314"
#: How deep below a given folder the benchmark folders are looked for (clone -> data -> bench).
SEARCH_DEPTH = 2

_BASELINE_LINE = re.compile(r"^baseline_model:\s*['\"]?([^'\"#\s]+)", re.MULTILINE)
#: Arena-Hard's judge prompt template: the question sits between these two markers.
_PROMPT_START = "<|User Prompt|>\n"
_PROMPT_END = "\n\n<|The Start of Assistant A's Answer|>"


class NotAnArenaHardFolderError(WorkbenchError):
    pass


@dataclass(frozen=True, slots=True)
class ArenaHardFiles:
    questions: list[Path]
    answers: list[Path]
    judgments: list[Path]
    configs: list[Path]

    def data(self) -> list[Path]:
        return [*self.questions, *self.answers, *self.judgments]


def arena_hard_files(sources: Sequence[Path]) -> ArenaHardFiles:
    """The question, answer and judgment files of the given files and folders (a benchmark
    folder such as ``arena-hard-v0.1/``, the ``data/`` folder above it, or a clone's root)."""
    questions: list[Path] = []
    answers: list[Path] = []
    judgments: list[Path] = []
    configs: list[Path] = []
    for source in sources:
        if source.is_file():
            if source.name == QUESTION_FILE:
                questions.append(source)
            elif source.parent.name == ANSWERS_FOLDER:
                answers.append(source)
            else:
                judgments.append(source)
            continue
        if source.name == JUDGMENTS_FOLDER or source.parent.name == JUDGMENTS_FOLDER:
            judgments.extend(sorted(source.rglob("*.jsonl")))  # model_judgment/ or one judge's
            continue
        if source.name == ANSWERS_FOLDER:
            answers.extend(sorted(source.glob("*.jsonl")))
            continue
        for folder in folders_below(source, SEARCH_DEPTH, (ANSWERS_FOLDER, JUDGMENTS_FOLDER)):
            if (folder / QUESTION_FILE).is_file():
                questions.append(folder / QUESTION_FILE)
            answers.extend(sorted((folder / ANSWERS_FOLDER).glob("*.jsonl")))
            judgments.extend(sorted((folder / JUDGMENTS_FOLDER).rglob("*.jsonl")))
            if (folder / CONFIG_FILE).is_file():
                configs.append(folder / CONFIG_FILE)
    return ArenaHardFiles(questions, answers, judgments, configs)


def configured_baseline(configs: Sequence[Path]) -> str | None:
    """``baseline_model`` of the first judge config that names one (a line of YAML; the file
    is not parsed further, so no YAML library is needed)."""
    for path in configs:
        found = _BASELINE_LINE.search(path.read_text(encoding="utf-8", errors="replace"))
        if found and found[1] not in ("null", "None", "~"):
            return found[1]
    return None


def question_from_prompt(user_prompt: Any) -> str | None:
    """The question a judge prompt quotes (Arena-Hard's template), for judgments whose
    question file was not given."""
    text = user_prompt[0] if isinstance(user_prompt, list) and user_prompt else user_prompt
    if isinstance(text, dict):
        text = text.get("text")
    if not isinstance(text, str) or _PROMPT_START not in text:
        return None
    question = text.split(_PROMPT_START, 1)[1].split(_PROMPT_END, 1)[0]
    return question or None


@dataclass
class _Findings:
    unreadable_scores: Counter[str] = field(default_factory=Counter)
    recovered: int = 0
    items_from_prompts: int = 0


class ArenaHardImporter(Importer):
    name = "arena-hard"
    version = "1"
    description = "Arena-Hard-Auto: question.jsonl, model answers, judge games in both orders"

    def files(self, sources: Sequence[Path]) -> list[Path]:
        found = arena_hard_files(sources).data()
        if not found:
            given = ", ".join(str(source) for source in sources)
            raise NotAnArenaHardFolderError(
                f"no Arena-Hard-Auto data in {given}: expected {QUESTION_FILE}, "
                f"{ANSWERS_FOLDER}/*.jsonl or {JUDGMENTS_FOLDER}/<judge>/*.jsonl"
            )
        return found

    def read(self, sources: Sequence[Path], report: ImportReport) -> Iterator[Record]:
        found = arena_hard_files(sources)
        baseline = configured_baseline(found.configs)
        findings = _Findings()
        items: dict[str, ItemRecord] = {}
        for path in found.questions:
            name = relative_name(path, sources)
            for origin, value in read_rows(path, name, report, self.limits):
                try:
                    item = self._question(value, origin)
                except RowError as error:
                    report.reject(origin, error.field, error.reason)
                    continue
                if item.external_id in items:
                    report.reject(origin, "question_id", f"'{item.external_id}' is given twice")
                    continue
                items[item.external_id] = item
        outputs: list[OutputRecord] = []
        for path in found.answers:
            name = relative_name(path, sources)
            for origin, value in read_rows(path, name, report, self.limits):
                try:
                    outputs.extend(self._answer(value, origin))
                except RowError as error:
                    report.reject(origin, error.field, error.reason)
        judgments: list[JudgmentRecord] = []
        for path in found.judgments:
            name = relative_name(path, sources)
            for origin, value in read_rows(path, name, report, self.limits):
                try:
                    judgments.extend(
                        self._judgment_row(value, origin, baseline, items, findings, report)
                    )
                except RowError as error:
                    report.reject(origin, error.field, error.reason)
        yield from items.values()
        yield from outputs
        yield from judgments
        self._report(findings, baseline, bool(judgments), report)

    # --- questions and answers ----------------------------------------------------------------

    @staticmethod
    def _question_id(row: dict[str, Any]) -> str:
        value = typed_field(row, "question_id", (str, int))
        if value is None:
            value = typed_field(row, "uid", (str, int))
        if value is None:
            raise RowError("question_id", "is required")
        return str(value)

    def _question(self, value: Any, origin: Origin) -> ItemRecord:
        row = require_object(value)
        question_id = self._question_id(row)
        turns = read_prompt_turns(row)
        category = text_field(row, "category", required=False)
        metadata = {
            key: row[key]
            for key in ("cluster", "subcategory")
            if isinstance(row.get(key), str) and row[key]
        }
        return _item(question_id, turns, category, metadata, origin)

    def _answer(self, value: Any, origin: Origin) -> Iterator[OutputRecord]:
        row = require_object(value)
        question_id = self._question_id(row)
        model = text_field(row, "model_id", required=False) or text_field(row, "model")
        assert model is not None
        for index, text in enumerate(_answer_turns(row), start=1):
            yield OutputRecord(
                source=SOURCE,
                item_external_id=question_id,
                model=model,
                text=text,
                turn_index=index,
                origin=origin,
            )

    # --- judgments ----------------------------------------------------------------------------

    def _judgment_row(
        self,
        value: Any,
        origin: Origin,
        baseline: str | None,
        items: dict[str, ItemRecord],
        findings: _Findings,
        report: ImportReport,
    ) -> list[JudgmentRecord]:
        row = require_object(value)
        question_id = self._question_id(row)
        model = text_field(row, "model")
        judge = text_field(row, "judge")
        against = text_field(row, "baseline", required=False) or baseline or DEFAULT_BASELINE
        games = typed_field(row, "games", list)
        if not games:
            raise RowError("games", "must hold at least one game")
        assert model is not None and judge is not None
        parsed = [_Game.parse(game, index) for index, game in enumerate(games)]
        if question_id not in items:
            question = next(
                (q for q in (question_from_prompt(g.user_prompt) for g in parsed) if q), None
            )
            if question is None:
                raise RowError(
                    "question_id",
                    f"question '{question_id}' is not in the imported {QUESTION_FILE} and its "
                    "judge prompt does not quote it",
                )
            items[question_id] = _item(
                question_id, [ConversationTurn(question, ())], None, {}, origin
            )
            findings.items_from_prompts += 1
        records = []
        for game in parsed:
            # Game 1 shows the baseline as assistant A; game 2 swaps the positions.
            swapped = game.index % 2 == 1
            model_a, model_b = (model, against) if swapped else (against, model)
            records.append(
                self._judgment(
                    game, question_id, judge, model, (model_a, model_b), origin, findings
                )
            )
        return records

    @staticmethod
    def _judgment(
        game: _Game,
        question_id: str,
        judge: str,
        model: str,
        pair: tuple[str, str],
        origin: Origin,
        findings: _Findings,
    ) -> JudgmentRecord:
        metadata: dict[str, Any] = {"game": game.index + 1, "position_flip": game.index % 2 == 1}
        verdict = parse_verdict(game.score)
        label = game.score if verdict is not None else None
        if verdict is None:
            findings.unreadable_scores["null" if game.score is None else "other"] += 1
            metadata["score_problem"] = "null" if game.score is None else "free_text"
            if game.score is not None:
                metadata["raw_score"] = game.score
            verdict = verdict_from_text(game.text)
            if verdict is not None:
                findings.recovered += 1
                metadata["recovered_from_text"] = True
                label = verdict.label
        return verdict_judgment(
            source=SOURCE,
            question_id=question_id,
            models=pair,
            verdict=verdict,
            label=label,
            judge=judge,
            # both games of one row: a position-swap pair
            group_key=f"{judge}|{question_id}|{model}",
            text=game.text,
            metadata=metadata,
            origin=origin,
        )

    @staticmethod
    def _report(
        findings: _Findings, baseline: str | None, any_judgment: bool, report: ImportReport
    ) -> None:
        if any_judgment and baseline is None:
            report.warn(
                Origin(JUDGMENTS_FOLDER),
                "baseline",
                f"no {CONFIG_FILE} names the baseline; rows without 'baseline' are read "
                f"against Arena-Hard's default, {DEFAULT_BASELINE}",
            )
        if findings.unreadable_scores:
            total = findings.unreadable_scores.total()
            report.warn(
                Origin(JUDGMENTS_FOLDER),
                "score",
                f"{total} games have no readable score; {findings.recovered} verdicts were "
                "read from the judgment text ([[...]] label), the others are kept without an "
                "outcome",
            )
        if findings.items_from_prompts:
            report.warn(
                Origin(JUDGMENTS_FOLDER),
                "question_id",
                f"{findings.items_from_prompts} questions were not in a {QUESTION_FILE}; their "
                "text was taken from the judge prompt",
            )


def _item(
    question_id: str,
    turns: Sequence[ConversationTurn],
    category: str | None,
    metadata: dict[str, Any],
    origin: Origin,
) -> ItemRecord:
    """A text-only item, unless a turn names images (multimodal question files give image
    hashes, recorded as missing images)."""
    refs = [(index, ref) for index, turn in enumerate(turns, start=1) for ref in turn.images]
    images = tuple(ImageRecord(position, ref) for position, (_, ref) in enumerate(refs))
    if refs:
        metadata = {**metadata, "image_turns": [index for index, _ in refs]}
    return ItemRecord(
        source=SOURCE,
        external_id=question_id,
        turns=tuple(
            TurnRecord(index=index, prompt=turn.prompt) for index, turn in enumerate(turns, 1)
        ),
        category=category,
        images=images,
        metadata=metadata,
        origin=origin,
    )


def _answer_turns(row: dict[str, Any]) -> list[str]:
    """v0.1: ``choices[0].turns[].content``; v2.0: the assistant ``messages`` (content a
    string or ``{"answer": ...}``)."""
    choices = row.get("choices")
    if choices is not None:
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise RowError("choices", "must be a non-empty list of choices")
        turns = choices[0].get("turns")
        if not isinstance(turns, list) or not turns:
            raise RowError("choices[0].turns", "must be a non-empty list of turns")
        texts = []
        for index, turn in enumerate(turns):
            content = turn.get("content") if isinstance(turn, dict) else None
            if not isinstance(content, str):
                raise RowError(f"choices[0].turns[{index}].content", "must be a string")
            texts.append(content)
        return texts
    messages = row.get("messages")
    if not isinstance(messages, list):
        raise RowError("choices", "is required (or v2.0's 'messages')")
    texts = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        if isinstance(content, dict):
            content = content.get("answer")
        if not isinstance(content, str):
            raise RowError(f"messages[{index}].content", "must be a string or {answer}")
        texts.append(content)
    if not texts:
        raise RowError("messages", "holds no assistant answer")
    return texts


@dataclass(frozen=True, slots=True)
class _Game:
    index: int
    user_prompt: Any
    text: str | None
    score: str | None

    @classmethod
    def parse(cls, value: Any, index: int) -> _Game:
        where = f"games[{index}]"
        if value is None:
            return cls(index, None, None, None)
        if not isinstance(value, dict):
            raise RowError(where, f"must be an object, not {type(value).__name__}")
        text = value.get("judgment")
        if isinstance(text, dict):  # v2.0 keeps the judge's answer as {"answer": ...}
            text = text.get("answer")
        text = optional_text(text, f"{where}.judgment")
        score = optional_text(value.get("score"), f"{where}.score")
        prompt = value.get("user_prompt", value.get("prompt"))
        if isinstance(prompt, list) and len(prompt) == 2 and isinstance(prompt[1], list):
            read_content(prompt, f"{where}.user_prompt")  # [text, [image hashes]]
        return cls(index, prompt, text, score)
