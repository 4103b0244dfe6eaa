"""Bundles for the export tests: the campaign test items with votes cast in a campaign of
every protocol (one vote retracted, one skip), plus judgments built from real WildVision-Bench
rows (read from the shared data at test time, written as canonical JSONL into tmp_path)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from tests.services.campaign_helpers import build_campaign_bundle, registry_with_all_protocols
from workbench.domain import AnnotationProtocol
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.importing import import_files
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle

PLUGINS = registry_with_all_protocols()
ANNOTATORS = ("alice.secret-handle", "bob.secret-handle")
WILDVISION_SOURCE = "wildvision-subset"
#: WildVision-Bench's five judge labels as (outcome, strength), from the baseline's side (A)
FIVE_LEVELS = {
    "A>>B": ("a", 2),
    "A>B": ("a", 1),
    "A=B": ("tie", 1),
    "B>A": ("b", 1),
    "B>>A": ("b", 2),
}


def answer_for(protocol: AnnotationProtocol, pick: int) -> dict[str, Any]:
    if protocol.grade_scale is not None:
        values = protocol.grade_scale.values()
        value: Any = values[pick % len(values)]
    else:
        plain = [c for c in protocol.choices if c.value not in protocol.comment_required_for]
        value = plain[pick % len(plain)].value
    return {criterion.name: value for criterion in protocol.criteria}


def cast_all_protocols(bundle_path: Path) -> int:
    """A campaign per protocol, every task answered by each annotator; the first annotator
    skips one task, and retracts one answer (undo) before answering it again. Returns the
    number of protocols."""
    protocols = PLUGINS.protocols()
    with Bundle.open(bundle_path) as bundle:
        for handle in ANNOTATORS:
            add_annotator(bundle, handle)
        for protocol in protocols:
            name = f"c-{protocol.name}"
            create_campaign(bundle, CampaignSpec(name, protocol.name, seed=3), PLUGINS)
            for number, handle in enumerate(ANNOTATORS):
                session = AnnotationSession(bundle, name, handle, PLUGINS)
                pick = 0
                while (task := session.next_task()) is not None:
                    if number == 0 and pick == 1:
                        session.skip(task.token, "cannot decide")
                    else:
                        session.cast(task.token, answer_for(protocol, pick), comment="ok")
                        if number == 0 and pick == 0:
                            session.undo()
                            task = session.next_task()
                            assert task is not None
                            session.cast(task.token, answer_for(protocol, pick + 1))
                    pick += 1
    return len(protocols)


def _rows(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def wildvision_lines(wildvision: Path, questions: int = 8, models: int = 3) -> list[dict[str, Any]]:
    """Canonical lines for the first ``questions`` WildVision-Bench questions: the prompt, the
    answers of the baseline and of the first ``models`` judged models, and GPT-4o's verdicts."""
    baseline = "claude-3-sonnet-20240229"
    answer_files = sorted((wildvision / "model_answers").glob("*.jsonl.gz"))
    base_rows = _rows(wildvision / "model_answers" / f"{baseline}.jsonl.gz")[:questions]
    wanted = [row["question_id"] for row in base_rows]
    judged = [path for path in answer_files if not path.name.startswith(baseline)][:models]
    answers = {path.name: {r["question_id"]: r for r in _rows(path)} for path in judged}
    verdicts = {
        path.name: {r["question_id"]: r for r in _rows(wildvision / "model_judgements" / path.name)}
        for path in judged
    }
    lines = []
    for base in base_rows:
        qid = base["question_id"]
        outputs = [{"model": baseline, "text": base["output"]}]
        judgments = []
        for file_name in answers:
            answer = answers[file_name][qid]
            outputs.append({"model": answer["model"], "text": answer["output"]})
            verdict = verdicts[file_name][qid]
            game = verdict["games"][0]
            outcome, strength = FIVE_LEVELS.get(game.get("score") or "", (None, 1))
            judgments.append(
                {
                    "kind": "judge",
                    "model_a": baseline,
                    "model_b": answer["model"],
                    "outcome": outcome,
                    "strength": strength,
                    "label": game.get("score"),
                    "rater": verdict["judge"],
                    "raw_text": game["judgment"],
                }
            )
        lines.append(
            {
                "format": "vlm-workbench/item",
                "format_version": 1,
                "source": WILDVISION_SOURCE,
                "id": qid,
                "language": base.get("language"),
                "images": [{"missing": qid}],
                "turns": [{"prompt": base["instruction"]}],
                "outputs": outputs,
                "judgments": judgments,
            }
        )
    assert len(lines) == questions and all(wanted)
    return lines


def build_voted_bundle(folder: Path, wildvision: Path) -> Path:
    bundle = build_campaign_bundle(folder, items=3)
    cast_all_protocols(bundle)
    source = folder / "wildvision" / "items.jsonl"
    source.parent.mkdir(parents=True)
    source.write_text(
        "".join(json.dumps(line) + "\n" for line in wildvision_lines(wildvision)), "utf-8"
    )
    import_files(bundle, [source], "jsonl")
    return bundle
