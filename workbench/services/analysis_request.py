"""The one question a leaderboard answers: which judgments, how they count, how the ratings are
fitted and pinned. Every door (``workbench leaderboard`` and its quick path, the Leaderboard
panel, the report) builds an :class:`AnalysisRequest` through the parsers here, so they share
one set of defaults, and every result carries the request it answers, with the command that
prints the same numbers (:meth:`AnalysisRequest.to_command`).

Light on purpose: the quick path imports it, so nothing here imports pandas or SQLAlchemy at
module level."""

from __future__ import annotations

import argparse
import math
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from workbench.domain.judgments import JudgmentSelection
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.storage.judgments import OutcomeFilter

#: which kind of evaluator's judgments a board counts. ``auto`` is the default rule: the human
#: judgments of the selection when it has any, else the judge verdicts; a request is resolved
#: to ``human`` or ``judge`` before it is answered, so every result names one.
AUTO, HUMAN, JUDGE, POOLED = "auto", "human", "judge", "pooled"
KINDS = (AUTO, HUMAN, JUDGE, POOLED)
#: how a pooled board is labelled wherever it appears
POOLED_LABEL = "pooled: human + judge"
KIND_LABELS = {
    AUTO: "human, else judge",
    HUMAN: "human",
    JUDGE: "judge",
    POOLED: POOLED_LABEL,
}
#: how a tie (and a "both bad" verdict) counts
TIE_POLICIES = {
    "half": "a tie counts half a win to each side",
    "drop": "ties are left out",
}
TIE_OUTCOMES = ("tie", "both_bad")
#: ``ppi``: Bradley-Terry of the human votes, powered by the judge verdicts on the same kind of
#: comparisons (prediction-powered inference, :mod:`workbench.stats.ppi`)
PREDICTION_POWERED = "ppi"
METHODS = {
    "bt": "Bradley-Terry",
    "elo": "online Elo",
    PREDICTION_POWERED: "prediction-powered Bradley-Terry",
}
#: the coverage of a prediction-powered board's intervals and rank-sets
DEFAULT_COVERAGE = 0.95

#: the style-control estimators, by the name ``--style-control NAME`` takes (the same keys as
#: :data:`workbench.stats.style.STYLE_ESTIMATORS`, which fits them; a test keeps the two equal)
STYLE_ESTIMATOR_NAMES = ("fastchat-2024", "lmarena")

#: the defaults of every door
DEFAULT_METHOD = "bt"
DEFAULT_STYLE_ESTIMATOR = "fastchat-2024"
DEFAULT_TIES = "half"
#: WildVision-Bench's and Arena-Hard-Auto's rule: a "much better" verdict counts three battles
DEFAULT_DECISIVE_WEIGHT = 3.0
DEFAULT_ANCHOR_RATING = 1000.0
#: bootstrap rounds for the 95% intervals (CHIRP used 500)
DEFAULT_BOOTSTRAP_ROUNDS = 100
DEFAULT_SEED = 0
#: a model in fewer battles (against other models) is left out of a board, with the reason:
#: below ten, one battle moves a Bradley-Terry rating by tens of points and a clean sweep sends
#: it to the ridge's bound (the -1495 and 3274 of boards fitted on 2-9 battles)
DEFAULT_MIN_BATTLES = 10
DEFAULT_K_FACTOR = 4.0

#: the request's selection fields, the CLI flag of each, in the order the command names them
#: (each is also the :class:`~workbench.storage.judgments.OutcomeFilter` field of that name)
SELECTION_FLAGS = (
    ("campaigns", "--campaign"),
    ("annotators", "--annotator"),
    ("judge_runs", "--judge-run"),
    ("raters", "--rater"),
    ("origins", "--origin"),
    ("sources", "--source"),
    ("categories", "--category"),
    ("families", "--family"),
    ("languages", "--language"),
    ("turns", "--turn"),
    ("criteria", "--criterion"),
)
#: the read model's column of each selection field (how the selection is described)
SELECTION_COLUMNS = {
    "campaigns": "campaign",
    "annotators": "annotator",
    "judge_runs": "judge_run",
    "raters": "rater",
    "origins": "origin",
    "sources": "source",
    "categories": "category",
    "families": "family",
    "languages": "language",
    "turns": "turn",
    "criteria": "criterion",
}
#: the named sides a request can select, with what their flag names
SIDE_FLAGS = {
    "campaigns": ("--campaign", "campaign"),
    "annotators": ("--annotator", "annotator"),
    "judge_runs": ("--judge-run", "judge_run"),
    "raters": ("--rater", "rater"),
    "origins": ("--origin", "origin"),
}


class RequestError(WorkbenchError):
    """A request that cannot be answered as asked (a pooled request without ``--pool-kinds``,
    an anchor that is not a model of the selection, a side with no judgments): bad usage."""

    exit_code = 2


class TooFewBattles(RequestError):
    """No model of the selection is in the request's minimum of battles: nothing to rate."""


def _number(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class AnalysisRequest(JudgmentSelection):
    """Everything a leaderboard figure depends on. Immutable; ``replace`` makes variants.

    Selection: ``kind`` (see :data:`KINDS`) and the fields of :class:`JudgmentSelection`: the
    named sides (campaigns, annotators, judge runs, imported raters, origins such as
    ``adjudication``), item dimensions and switches; a side left empty keeps every value.
    Derived judgments (an importer's battles computed from verdicts it also stored) count only
    with ``include_derived``. Counting: ``ties`` (see
    :data:`TIE_POLICIES`) and ``decisive_weight`` (battles a "much better" verdict counts as).
    Fitting: ``method``, ``style_control``, ``k_factor`` (Elo), ``bootstrap`` rounds with
    ``seed``, and ``anchor`` pinned at ``anchor_rating`` (None: the model with the most battles,
    ties by name). ``min_battles``: models in fewer battles are left out with the reason."""

    kind: str = AUTO
    method: str = DEFAULT_METHOD
    style_control: bool = False
    #: which style-control estimator (see :data:`STYLE_ESTIMATOR_NAMES`)
    style_estimator: str = DEFAULT_STYLE_ESTIMATOR
    ties: str = DEFAULT_TIES
    decisive_weight: float = DEFAULT_DECISIVE_WEIGHT
    anchor: str | None = None
    anchor_rating: float = DEFAULT_ANCHOR_RATING
    bootstrap: int = DEFAULT_BOOTSTRAP_ROUNDS
    seed: int = DEFAULT_SEED
    min_battles: int = DEFAULT_MIN_BATTLES
    k_factor: float = DEFAULT_K_FACTOR
    #: "Exclude Refusal" from the answers themselves: no battle in which either answer refuses
    #: by the phrase rule of :mod:`workbench.stats.refusals`
    exclude_refusal: bool = False
    #: add each model's mean answer length in tokens (WildVision-Bench's "Avg Tokens")
    answer_tokens: bool = False
    #: a prediction-powered board's coverage (its intervals and rank-sets hold at this level)
    coverage: float = DEFAULT_COVERAGE

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Refuse values no door can answer, naming the option."""
        if self.kind not in KINDS:
            raise RequestError(f"--kind: unknown kind {self.kind!r} (choose human, judge, all)")
        if self.method not in METHODS:
            raise RequestError(
                f"--method: unknown method {self.method!r} (choose {', '.join(METHODS)})"
            )
        if self.ties not in TIE_POLICIES:
            raise RequestError(f"--ties: unknown policy {self.ties!r} (choose half, drop)")
        if self.bootstrap < 0:
            raise RequestError("--bootstrap cannot be negative")
        if self.min_battles < 0:
            raise RequestError("--min-battles cannot be negative")
        if not self.decisive_weight > 0 or math.isinf(self.decisive_weight):
            raise RequestError("--decisive-weight must be a positive number")
        if math.isnan(self.anchor_rating) or math.isinf(self.anchor_rating):
            raise RequestError("--anchor: the rating must be a number")
        if self.style_estimator not in STYLE_ESTIMATOR_NAMES:
            raise RequestError(
                f"--style-control: unknown estimator {self.style_estimator!r} "
                f"(choose {', '.join(STYLE_ESTIMATOR_NAMES)})"
            )
        if self.style_control and self.method != "bt":
            raise RequestError("--style-control works with --method bt only")
        if self.anchor is not None and not self.anchor:
            raise RequestError("--anchor: name a model")
        if not 0 < self.coverage < 1:
            raise RequestError("--coverage must be between 0 and 1, e.g. 0.95")
        if self.prediction_powered:
            self._check_prediction_powered()

    def _check_prediction_powered(self) -> None:
        """A prediction-powered board rates the humans' preferences with the judge's help: it
        reads both kinds itself, counts each comparison once and ties half, and its intervals
        come from the estimator, not a bootstrap."""
        if self.kind not in (AUTO, HUMAN):
            raise RequestError(
                "--method ppi rates the human votes with the judge verdicts' help, so it reads "
                "both kinds itself: leave out --kind (or give --kind human)"
            )
        if self.ties != "half":
            raise RequestError("--method ppi counts a tie half a win to each side: use --ties half")
        if self.style_control or self.answer_tokens or self.exclude_refusal:
            raise RequestError(
                "--method ppi does not take --style-control, --answer-tokens or --exclude-refusal"
            )

    # --- reading it ------------------------------------------------------------------------------

    @property
    def pooled(self) -> bool:
        return self.kind == POOLED

    @property
    def kind_label(self) -> str:
        if self.prediction_powered:
            return "human, powered by judge verdicts"
        return KIND_LABELS[self.kind]

    @property
    def prediction_powered(self) -> bool:
        return self.method == PREDICTION_POWERED

    def filters(self) -> OutcomeFilter:
        """The judgments the request selects, as the read model's filter (kind ``auto`` keeps
        both kinds: resolve it first, see :func:`resolve_kind`)."""
        # start-up: the quick leaderboard imports this module without SQLAlchemy
        from workbench.storage.judgments import OutcomeFilter

        kinds = (self.kind,) if self.kind in (HUMAN, JUDGE) else ()
        return OutcomeFilter(**self.selection(), kinds=kinds)

    @property
    def boards(self) -> bool:
        """Whether one of VisionArena's board filters is set."""
        return (
            self.multi_turn
            or self.exclude_ties
            or bool(self.exclude_categories)
            or self.exclude_refusal
        )

    def selection_text(self) -> str:
        """The selection beside the kind, as ``campaign=pilot, category=ocr`` or ``no filters``
        (the wording of :meth:`OutcomeFilter.describe`)."""
        parts = [
            f"{SELECTION_COLUMNS[name]}=" + "|".join(map(str, values))
            for name, values in self._selection()
        ]
        parts += self.switches_text()
        if self.exclude_refusal:
            parts.append("refusals excluded")
        return ", ".join(parts) or "no filters"

    def _selection(self) -> Iterable[tuple[str, tuple[Any, ...]]]:
        for name, _flag in SELECTION_FLAGS:
            if getattr(self, name):
                yield name, getattr(self, name)

    def describe(self) -> str:
        """The request in one line, as the panel shows it under its title."""
        anchor = (
            f"anchor {self.anchor} = {_number(self.anchor_rating)}"
            if self.anchor
            else f"anchor: most battles = {_number(self.anchor_rating)}"
        )
        if self.prediction_powered:
            counting = [
                f"{_number(100 * self.coverage)}% intervals and rank-sets",
                "each comparison counts once",
                f"ties {self.ties}",
                f"min {self.min_battles} human votes",
            ]
        else:
            counting = [
                f"{self.bootstrap} bootstrap rounds (seed {self.seed})",
                f"much better = {_number(self.decisive_weight)} battles",
                f"ties {self.ties}",
                f"min {self.min_battles} battles",
            ]
        parts = [
            f"judgments: {self.kind_label}",
            self.selection_text(),
            METHODS[self.method]
            + (f" with style control ({self.style_estimator})" if self.style_control else ""),
            anchor,
            *counting,
        ]
        if self.method == "elo":
            parts.append(f"K {_number(self.k_factor)}")
        return " · ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The ``request`` block of ``workbench leaderboard --json`` (and of every result)."""
        document: dict[str, Any] = {
            "judgments": {
                "kind": self.kind,
                "label": self.kind_label,
                **{name: list(getattr(self, name)) for name in SIDE_FLAGS},
                "include_derived": self.include_derived,
                "include_simulated": self.include_simulated,
                "exclude_flagged": self.exclude_flagged,
            },
            "items": {
                name: list(getattr(self, name))
                for name in ("sources", "categories", "families", "languages", "turns", "criteria")
            },
            "boards": {
                "multi_turn": self.multi_turn,
                "exclude_ties": self.exclude_ties,
                "exclude_categories": list(self.exclude_categories),
                "exclude_refusal": self.exclude_refusal,
            },
            "answer_tokens": self.answer_tokens,
            "method": self.method,
            "style_control": self.style_control,
            "style_estimator": self.style_estimator if self.style_control else None,
            "ties": self.ties,
            "decisive_weight": self.decisive_weight,
            "anchor": {"model": self.anchor, "rating": self.anchor_rating},
            "bootstrap": self.bootstrap,
            "seed": self.seed,
            "min_battles": self.min_battles,
            "command": self.to_command(),
        }
        if self.method == "elo":
            document["k_factor"] = self.k_factor
        if self.prediction_powered:
            document["coverage"] = self.coverage
        return document

    def to_command(
        self, bundle: str = "BUNDLE", output: str = "", command: str = "leaderboard"
    ) -> str:
        """The canonical ``workbench leaderboard`` command of this request, every setting
        spelled out so that it prints the same numbers whatever the defaults become.
        ``output``: flags appended at the end (``--json``). ``command="report"``: the
        ``workbench report`` command whose leaderboards answer this request (it fits
        Bradley-Terry, with and without style control)."""
        fitting = command == "leaderboard"
        words = ["workbench", command, bundle]
        if self.kind == POOLED:
            words += ["--kind", "all", "--pool-kinds"]
        elif self.kind != AUTO:
            words += ["--kind", self.kind]
        for name, flag in SELECTION_FLAGS:
            for value in getattr(self, name):
                words += [flag, str(value)]
        if self.include_derived:
            words.append("--include-derived")
        if self.include_simulated:
            words.append("--include-simulated")
        if self.exclude_flagged:
            words.append("--exclude-flagged")
        if self.multi_turn:
            words.append("--multi-turn")
        if self.exclude_ties:
            words.append("--exclude-ties")
        for category in self.exclude_categories:
            words += ["--exclude-category", category]
        if self.exclude_refusal:
            words.append("--exclude-refusal")
        if fitting and self.answer_tokens:
            words.append("--answer-tokens")
        if fitting:
            words += ["--method", self.method]
            if self.style_control:
                words += ["--style-control", self.style_estimator]
            if self.method == "elo":
                words += ["--k-factor", _number(self.k_factor)]
            if self.prediction_powered:
                words += ["--coverage", _number(self.coverage)]
        if self.anchor is not None:
            words += ["--anchor", f"{self.anchor}={_number(self.anchor_rating)}"]
        words += [
            "--bootstrap",
            str(self.bootstrap),
            "--seed",
            str(self.seed),
            "--decisive-weight",
            _number(self.decisive_weight),
            "--ties",
            self.ties,
            "--min-battles",
            str(self.min_battles),
        ]
        text = " ".join(shlex.quote(word) if word != bundle else word for word in words)
        return f"{text} {output}" if output else text

    # --- building it -----------------------------------------------------------------------------

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> AnalysisRequest:
        """The request of ``workbench leaderboard``'s (or ``workbench report``'s) flags."""
        kinds = set(getattr(args, "kinds", ()) or ())
        pool = bool(getattr(args, "pool_kinds", False))
        if "all" in kinds or {HUMAN, JUDGE} <= kinds:
            if not pool:
                raise RequestError(
                    "pooling human judgments with judge verdicts in one board needs "
                    "--pool-kinds (or choose --kind human or --kind judge); nothing was computed"
                )
            kind = POOLED
        elif pool:
            kind = POOLED if not kinds else cls._pool_refused(kinds)
        else:
            kind = next(iter(kinds)) if kinds else AUTO
        anchor, rating = parse_anchor(getattr(args, "anchor", None))
        # each selection field as its default's type: a tuple of the values given, or a switch
        values: dict[str, Any] = {
            spec.name: tuple(given or ()) if isinstance(spec.default, tuple) else bool(given)
            for spec in fields(JudgmentSelection)
            for given in (getattr(args, spec.name, None),)
        }
        optional = {
            "method": getattr(args, "method", None),
            **_style_choice(getattr(args, "style_control", None)),
            "ties": getattr(args, "ties", None),
            "decisive_weight": getattr(args, "decisive_weight", None),
            "bootstrap": getattr(args, "bootstrap", None),
            "seed": getattr(args, "seed", None),
            "min_battles": getattr(args, "min_battles", None),
            "k_factor": getattr(args, "k_factor", None),
            "coverage": getattr(args, "coverage", None),
        }
        values.update({name: value for name, value in optional.items() if value is not None})
        return cls(
            kind=kind,
            exclude_refusal=bool(getattr(args, "exclude_refusal", False)),
            answer_tokens=bool(getattr(args, "answer_tokens", False)),
            anchor=anchor,
            anchor_rating=rating,
            **values,
        )

    @staticmethod
    def _pool_refused(kinds: set[str]) -> str:
        raise RequestError(
            f"--pool-kinds pools human and judge judgments, but --kind {', '.join(sorted(kinds))} "
            "selects one kind: leave out one of the two options"
        )

    @classmethod
    def from_pickers(cls, pickers: Mapping[str, Any]) -> AnalysisRequest:
        """The request of the Leaderboard panel's pickers: ``kind`` (a key of
        :data:`KIND_LABELS`), single choices for ``campaign``, ``category``, ``language``,
        ``criterion``, ``rater`` and ``origin`` (None: any), and the request's own fields
        (``method``, ``style_control``, ``bootstrap``, ``include_derived``...)."""
        singles = {
            "campaign": "campaigns",
            "category": "categories",
            "language": "languages",
            "criterion": "criteria",
            "rater": "raters",
            "origin": "origins",
        }
        known = {spec.name for spec in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in pickers.items():
            if key in singles:
                values[singles[key]] = (value,) if value else ()
            elif key in known:
                values[key] = value
            else:
                raise ValueError(f"unknown picker {key!r}")
        return cls(**values)

    @classmethod
    def selecting(cls, filters: OutcomeFilter, **settings: Any) -> AnalysisRequest:
        """The request that selects what the read model's ``filters`` keep (its ``kinds``
        become the request's kind: both kinds pool them), with ``settings``."""
        kinds = set(filters.kinds)
        kind = POOLED if {HUMAN, JUDGE} <= kinds else (next(iter(kinds)) if kinds else AUTO)
        return cls(kind=settings.pop("kind", kind), **filters.selection(), **settings)

    def resolved(self, kind: str, anchor: str) -> AnalysisRequest:
        """This request with its kind and anchor made explicit (what the result carries)."""
        return replace(self, kind=kind, anchor=anchor)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _style_choice(value: Any) -> dict[str, Any]:
    """``--style-control [NAME]`` as request fields: absent (None) changes nothing, a bare flag
    (True) turns on the default estimator, a name turns on that one."""
    if value is None or value is False:
        return {}
    if value is True:
        return {"style_control": True}
    return {"style_control": True, "style_estimator": str(value)}


def parse_anchor(text: str | None) -> tuple[str | None, float]:
    """``--anchor MODEL`` or ``--anchor MODEL=VALUE``: the model and its rating (default 1000).
    A model whose name holds ``=`` is named with its value (``a=b=1000``)."""
    if text is None:
        return None, DEFAULT_ANCHOR_RATING
    model, separator, value = text.rpartition("=")
    if not separator:
        return text, DEFAULT_ANCHOR_RATING
    try:
        rating = float(value)
    except ValueError:
        return text, DEFAULT_ANCHOR_RATING  # a name with "=" in it, no value
    if not model or math.isnan(rating) or math.isinf(rating):
        raise RequestError(f"--anchor must look like MODEL or MODEL=VALUE, not {text!r}")
    return model, rating


def resolve_kind(request: AnalysisRequest, kinds_present: Iterable[str]) -> str:
    """The kind ``request`` counts among a selection that has judgments of ``kinds_present``:
    its own, or under ``auto`` human when the selection has any human judgment, else judge."""
    present = set(kinds_present)
    if request.kind == AUTO:
        return HUMAN if HUMAN in present else JUDGE
    return request.kind


# --- counting rules shared by the quick path and the service -------------------------------------

#: a battle count: model_a, model_b, outcome, battles (weighted), judgments
CountRow = tuple[str, str, str, float, int]


def without_ties(rows: Iterable[CountRow], ties: str) -> list[CountRow]:
    """``rows`` under the tie policy: all of them (``half``), or the decisive ones (``drop``)."""
    return [row for row in rows if ties != "drop" or row[2] not in TIE_OUTCOMES]


def battles_per_model(rows: Iterable[tuple[str, str, int]]) -> dict[str, int]:
    """Judgments each model took part in against another model, from (model_a, model_b,
    judgments) rows: the board's ``n``."""
    counts: dict[str, int] = {}
    for first, second, judgments in rows:
        if first == second:
            continue
        counts[first] = counts.get(first, 0) + int(judgments)
        counts[second] = counts.get(second, 0) + int(judgments)
    return counts


def too_few_battles(rows: list[tuple[str, str, int]], minimum: int) -> dict[str, int]:
    """The models to leave out of a board because they are in fewer than ``minimum`` battles,
    with the battles each had when it was left out. Leaving a model out takes its battles from
    its opponents, so this repeats until every model left has ``minimum`` battles."""
    models = {name for first, second, _ in rows for name in (first, second)}
    left_out: dict[str, int] = {}
    kept = rows
    while True:
        counts = battles_per_model(kept)
        short = {
            model: counts.get(model, 0)
            for model in models - left_out.keys()
            if counts.get(model, 0) < minimum
        }
        if not short:
            return left_out
        left_out.update(short)
        kept = [row for row in kept if row[0] not in short and row[1] not in short]


def most_battles(rows: Iterable[tuple[str, str, int]]) -> str:
    """The default anchor: the model in the most judgments (each side of a row counts, ties
    broken by name), the same at every door."""
    counts: dict[str, int] = {}
    for first, second, judgments in rows:
        counts[first] = counts.get(first, 0) + int(judgments)
        counts[second] = counts.get(second, 0) + int(judgments)
    return min(counts, key=lambda model: (-counts[model], model))


def left_out_json(left_out: Mapping[str, int], minimum: int) -> list[dict[str, Any]]:
    """The models a board left out, as its JSON lists them, fewest battles first."""
    return [
        {
            "model": model,
            "battles": battles,
            "reason": f"{battles} battles, fewer than the minimum of {minimum} (--min-battles)",
        }
        for model, battles in sorted(left_out.items(), key=lambda item: (item[1], item[0]))
    ]


def result_document(
    board: dict[str, Any],
    request: AnalysisRequest,
    battles: int,
    left_out: Mapping[str, int],
    battles_without_answers: int | None = None,
    simulated_left_out: int = 0,
    flagged_judgments: int = 0,
) -> dict[str, Any]:
    """The JSON document of a board (``workbench leaderboard --json``): the board's own
    fields (:meth:`workbench.stats.leaderboard.Leaderboard.to_json`), then the request it
    answers, the judgments it counts, its battles, the models it left out and the simulated
    judge's verdicts it left out (:func:`simulated_note`), and its judgments on flagged
    comparisons, counted or left out as the request says (:func:`flagged_note`). The quick path
    and the service both build it here, so the two print the same document."""
    document = dict(board)
    document["request"] = request.to_json()
    document["judgments"] = request.kind_label
    document["filters"] = request.selection_text()
    document["battles"] = battles
    document["left_out"] = left_out_json(left_out, request.min_battles)
    document["simulated_left_out"] = simulated_left_out
    document["flagged_judgments"] = {
        "judgments": flagged_judgments,
        "left_out": request.exclude_flagged,
    }
    if battles_without_answers is not None:
        document["battles_without_answers"] = battles_without_answers
    return document


def simulated_note(left_out: int) -> str | None:
    """What a result says of the simulated judge's verdicts it left out (None: none)."""
    if not left_out:
        return None
    return (
        f"{left_out} verdicts of the simulated judge left out (drawn at random; "
        "--include-simulated counts them)"
    )


def flagged_note(judgments: int, left_out: bool) -> str | None:
    """What a result says of the judgments it met on flagged comparisons (None: none)."""
    if not judgments:
        return None
    if left_out:
        return f"{judgments} judgments on flagged comparisons left out (--exclude-flagged)"
    return (
        f"{judgments} judgments on flagged comparisons counted (--exclude-flagged leaves them out)"
    )


def csv_request_line(request: AnalysisRequest) -> str:
    """The first line of a board written as CSV: the request and the command that prints it."""
    return f"# request: {request.describe()} | command: {request.to_command()}"
