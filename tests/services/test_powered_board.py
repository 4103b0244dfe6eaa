"""The prediction-powered leaderboard at the doors: ``workbench leaderboard --method ppi`` aligns
each human vote with the judge's verdicts on the same comparison (both orders averaged), gives
the judge-only comparisons to the estimator as such, and states what it counted; bad requests
are refused naming the option. The bundle is imported from a canonical JSONL file whose
judgments are drawn here from known ratings, with a judge that favours one model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.importers.canonical_helpers import item_line, write_jsonl
from workbench.cli import main
from workbench.stats.ppi import Comparisons, classical_ratings, prediction_powered_ratings

MODELS = ("m0", "m1", "m2", "m3", "m4", "m5")
TRUE = np.array([200.0, 120.0, 60.0, 0.0, -80.0, -150.0])
#: the judge sees m5 this many points better than it is: its own board would misrank it
JUDGE_BIAS = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 260.0])
ITEMS, HUMAN_ITEMS = 400, 120


#: each item's answers differ in quality beyond the models' ratings (log-odds, model a's
#: answer better when positive): humans and judge both see it, which is what makes the judge's
#: verdict informative about a human vote beyond the pair's ratings
ANSWER_SPREAD = 2.0


def _win(rating: float, other: float, answers: float) -> float:
    return float(1 / (1 + np.exp(-((rating - other) * np.log(10) / 400 + answers))))


def _draw(rng: np.random.Generator, a: int, b: int, bias: np.ndarray, answers: float = 0.0) -> str:
    p = _win(TRUE[a] + bias[a], TRUE[b] + bias[b], answers)
    return "a" if rng.random() < p else "b"


def _lines(human_items: int = HUMAN_ITEMS, judge: bool = True) -> tuple[list[Any], dict[str, Any]]:
    """Canonical lines and the raw draws (for the oracle): one comparison per item, the judge in
    both orders on every item, one human vote on the first ``human_items`` items."""
    rng = np.random.default_rng(7)
    lines: list[dict[str, Any]] = []
    raw: dict[str, list[Any]] = {"human": [], "judge": []}
    for number in range(ITEMS):
        a, b = rng.choice(len(MODELS), size=2, replace=False)
        answers = float(rng.normal(0.0, ANSWER_SPREAD))
        judgments = []
        if judge:
            forward = _draw(rng, a, b, JUDGE_BIAS, answers)
            backward = _draw(rng, b, a, JUDGE_BIAS, -answers)
            judgments += [
                {"kind": "judge", "model_a": MODELS[a], "model_b": MODELS[b], "outcome": forward,
                 "rater": "judge"},
                {"kind": "judge", "model_a": MODELS[b], "model_b": MODELS[a], "outcome": backward,
                 "rater": "judge"},
            ]  # fmt: skip
            raw["judge"].append((number, a, b, forward, backward))
        if number < human_items:
            vote = _draw(rng, a, b, np.zeros(len(MODELS)), answers)
            judgments.append(
                {"kind": "human", "model_a": MODELS[a], "model_b": MODELS[b], "outcome": vote,
                 "rater": "h1"}
            )  # fmt: skip
            raw["human"].append((number, a, b, vote))
        outputs = [{"model": MODELS[a], "text": "one"}, {"model": MODELS[b], "text": "two"}]
        lines.append(item_line(f"q{number}", outputs=outputs, judgments=judgments))
    return lines, raw


def _bundle(tmp_path: Path, lines: list[Any], name: str = "b.wbb") -> Path:
    source = write_jsonl(tmp_path / name.replace(".wbb", ""), lines)
    bundle = tmp_path / name
    assert main(["import", str(source), "--format", "jsonl", "--into", str(bundle)]) == 0
    return bundle


@pytest.fixture(scope="module")
def powered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    lines, raw = _lines()
    return _bundle(tmp_path_factory.mktemp("powered"), lines), raw


def _leaderboard(bundle: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> Any:
    capsys.readouterr()
    code = main(["leaderboard", str(bundle), *flags, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def _oriented(a: int, b: int, outcome: float) -> tuple[int, int, float]:
    """The comparison in name order with P(first won)."""
    return (a, b, outcome) if MODELS[a] < MODELS[b] else (b, a, 1 - outcome)


def _oracle(raw: dict[str, Any], lam: float | None = None) -> Any:
    """The estimator on the comparisons as drawn, aligned here independently of the app."""
    judge = {
        number: _oriented(a, b, ((forward == "a") + (backward == "b")) / 2)
        for number, a, b, forward, backward in raw["judge"]
    }
    human = [(number, *_oriented(a, b, float(vote == "a"))) for number, a, b, vote in raw["human"]]
    voted = {number for number, *_ in human}

    def comparisons(rows: list[tuple[int, int, float]]) -> Comparisons:
        return Comparisons(
            np.array([row[0] for row in rows]),
            np.array([row[1] for row in rows]),
            np.array([row[2] for row in rows], dtype=float),
        )

    both = comparisons([(a, b, y) for _, a, b, y in human])
    predictions = np.array([judge[number][2] for number, *_ in human])
    only = comparisons([judge[number] for number in judge if number not in voted])
    return prediction_powered_ratings(
        len(MODELS), both, predictions, only, anchor=0, anchor_rating=1000.0, lam=lam
    ), both


def test_the_board_is_the_estimator_on_the_aligned_comparisons(
    powered: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    bundle, raw = powered
    document = _leaderboard(
        bundle, capsys, "--method", "ppi", "--anchor", "m0", "--min-battles", "0"
    )
    expected, both = _oracle(raw)
    ratings = {row["model"]: row for row in document["models"]}
    for index, model in enumerate(MODELS):
        assert ratings[model]["rating"] == pytest.approx(expected.ratings[index], abs=1e-6)
        assert ratings[model]["ci_lower"] == pytest.approx(expected.lower[index], abs=1e-6)
        assert ratings[model]["rank_lower"] == expected.rank_lower[index]
        assert ratings[model]["rank_upper"] == expected.rank_upper[index]
    inputs = document["prediction_powered"]
    assert inputs["human_votes"] == HUMAN_ITEMS
    assert inputs["comparisons_judged_by_both"] == HUMAN_ITEMS
    assert inputs["comparisons_judged_by_the_judge_only"] == ITEMS - HUMAN_ITEMS
    assert inputs["judge_verdicts"] == 2 * ITEMS
    assert inputs["judge_weight"] == pytest.approx(expected.lam)
    assert document["request"]["method"] == "ppi"
    assert "--method ppi --coverage 0.95" in document["request"]["command"]
    # the judge helps: its weight is positive and the intervals narrower than the humans' own
    # (PPI++ minimises their total variance, not each model's)
    assert inputs["judge_weight"] > 0.1
    humans = classical_ratings(len(MODELS), both, anchor=0)
    widths = np.array([ratings[model]["ci_upper"] - ratings[model]["ci_lower"] for model in MODELS])
    assert widths.sum() < 0.9 * (humans.upper - humans.lower).sum()


def test_the_judges_bias_is_corrected(
    powered: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    """The judge's own board ranks the favoured model above its true place; the powered board
    keeps it at the bottom, where the humans put it."""
    bundle, _raw = powered
    judge = _leaderboard(
        bundle, capsys, "--kind", "judge", "--anchor", "m0", "--decisive-weight", "1"
    )
    boosted = {row["model"]: row["rating"] for row in judge["models"]}
    assert boosted["m5"] > boosted["m4"]
    document = _leaderboard(bundle, capsys, "--method", "ppi", "--anchor", "m0")
    ratings = {row["model"]: row["rating"] for row in document["models"]}
    assert ratings["m5"] < ratings["m4"]
    assert ratings["m5"] < boosted["m5"] - 100


def test_the_printed_command_prints_the_same_board(
    powered: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    bundle, _raw = powered
    document = _leaderboard(bundle, capsys, "--method", "ppi", "--coverage", "0.9")
    command = document["request"]["command"].split()
    assert command[:3] == ["workbench", "leaderboard", "BUNDLE"]
    again = _leaderboard(bundle, capsys, *command[3:])
    assert again == document
    capsys.readouterr()
    assert main(["leaderboard", str(bundle), "--method", "ppi"]) == 0
    text = capsys.readouterr().out
    assert "prediction-powered: 120 human votes on 120 comparisons the judge also judged" in text
    assert "rank-set" in text


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--kind", "judge"], "leave out --kind"),
        (["--kind", "all", "--pool-kinds"], "leave out --kind"),
        (["--ties", "drop"], "--ties half"),
        (["--coverage", "1.5"], "--coverage"),
        (["--exclude-refusal"], "--exclude-refusal"),
        (["--anchor", "nobody"], "--anchor nobody: not a model"),
    ],
)
def test_bad_requests_are_refused_naming_the_option(
    powered: tuple[Path, dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    message: str,
) -> None:
    bundle, _raw = powered
    before = bundle.read_bytes()
    capsys.readouterr()
    assert main(["leaderboard", str(bundle), "--method", "ppi", *flags]) == 2
    assert message in capsys.readouterr().err
    assert bundle.read_bytes() == before


def test_a_side_missing_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    humans_only, _ = _lines(judge=False)
    bundle = _bundle(tmp_path, humans_only[:HUMAN_ITEMS], "humans.wbb")
    capsys.readouterr()
    assert main(["leaderboard", str(bundle), "--method", "ppi"]) == 2
    assert "no judge verdicts" in capsys.readouterr().err
    judges_only, _ = _lines(human_items=0)
    bundle = _bundle(tmp_path, judges_only, "judges.wbb")
    assert main(["leaderboard", str(bundle), "--method", "ppi"]) == 2
    assert "no human votes" in capsys.readouterr().err


def test_humans_and_judge_on_different_comparisons_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Votes on one turn's criterion and verdicts on another's are not the same comparison."""
    lines, _ = _lines()
    for line in lines:
        for judgment in line["judgments"]:
            if judgment["kind"] == "judge":
                judgment["criterion"] = "detail"
    bundle = _bundle(tmp_path, lines, "apart.wbb")
    capsys.readouterr()
    assert main(["leaderboard", str(bundle), "--method", "ppi"]) == 2
    assert "both a human vote and a judge verdict" in capsys.readouterr().err
